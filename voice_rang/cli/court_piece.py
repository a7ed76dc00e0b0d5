"""``voice-rang play court-piece``: a whole session of Court Piece beside and against computer seats.

One person plays with a computer partner against two computer opponents; ``--people 2`` puts two
people at one keyboard as partners, ``--people 3`` and ``4`` fill more seats. The table is the
same as Rang Milanti's; only the game behind it differs.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
from random import Random
from typing import Any

from ..commands import CommandSet
from ..games.court_piece.bots import LEVELS
from ..games.court_piece.phrases import Phrases
from ..games.court_piece.play import CourtPiecePlay
from ..games.court_piece.record import Recipe, record, restore
from ..games.court_piece.rules import Rules, RulesError
from ..games.court_piece.session import Session
from ..messages import Message
from ..narration import Narrator
from ..prompts import PromptsError, load_game_prompts, load_prompts
from ..table import SeatKind, Table
from ..table.loop import Inbox
from ..table.save import RecordKeeper, SavedRecord, SaveError, open_record_log, read_record, save_path
from . import UsageError
from .court_piece_options import add_rules_arguments

__all__ = ["add_court_piece_arguments", "ask_for_game", "refuse_options_of_the_other_game", "run_court_piece"]

PEOPLE_SEATS = {1: (0,), 2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}
"""Where the people at one keyboard sit: two people are partners, against two computers."""
_COURT_PIECE_ONLY = ("variant", "scoring", "target", "deals", "trump", "redeal", "no_early_late",
                     "aces_no_collect", "goon", "level")
_RANG_MILANTI_ONLY = ("seats", "deck")


def add_court_piece_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules_arguments(parser, "Court Piece: ")
    parser.add_argument("--level", choices=LEVELS[1:],
                        help="Court Piece: the computer seats' strength (default normal)")


def refuse_options_of_the_other_game(args: argparse.Namespace) -> None:
    """An option of one game given with the other: one line naming where it belongs."""
    court = args.game == "court-piece"
    for name in _RANG_MILANTI_ONLY if court else _COURT_PIECE_ONLY:
        if getattr(args, name, None) is not None:
            option = "--" + name.replace("_", "-")
            game, other = ("Rang Milanti", "rang-milanti") if court else ("Court Piece", "court-piece")
            verb = getattr(args, "command", None) or "play"  # play or host
            raise UsageError(f"{option} is an option of {game}: write voice-rang {verb} {other} {option} …")


def ask_for_game(args: argparse.Namespace) -> str:
    """At a terminal with no game named: ask which, one key (1 or 2); Rang Milanti on anything else."""
    from ..keyboard import read_key, terminal_keys

    words = load_prompts(args.lang).messages["answer"]
    print(words["which_game"], flush=True)
    with terminal_keys(sys.stdin.fileno()):
        try:
            key = read_key(sys.stdin.fileno(), None)
        except EOFError:
            key = ""
    return "court-piece" if key == "2" else "rang-milanti"


def court_piece_rules(args: argparse.Namespace) -> Rules:
    try:
        return Rules.make(
            args.variant or "court-piece",
            trump=args.trump,
            redeal=bool(args.redeal),
            no_early_late=bool(args.no_early_late),
            aces_no_collect=bool(args.aces_no_collect),
            goon=3 if args.goon is None else args.goon,
            scoring=args.scoring or "points",
            target=10 if args.target is None else args.target,
            deals=8 if args.deals is None else args.deals,
        )
    except RulesError as error:
        raise UsageError(str(error)) from None


SAVE_NAME = "play-court-piece"


def run_court_piece(args: argparse.Namespace) -> int:
    from ..table.loop import LogFile, run_table
    from .device import check_output_arguments, moves_by_voice, open_device, resume_command, until_ctrl_c

    if args.beat < 0 or args.beat > 60:
        raise UsageError(f"--beat must be 0 to 60 seconds, not {args.beat}")
    check_output_arguments(args)
    saved, resumed = _saved_session(args) if args.resume else (None, None)
    if args.resume and resumed is None:
        return 1
    if resumed is not None:
        recipe_then, session_then, rng, replayed = resumed
        rules = recipe_then.rules
        players = recipe_then.players
        people = tuple(seat for seat, player in enumerate(players) if player == "person")
        level = next((player for player in players if player != "person"), args.level or "normal")
    else:
        if args.people not in PEOPLE_SEATS:
            raise UsageError(f"--people must be 1 to 4 at Court Piece, not {args.people}")
        rules = court_piece_rules(args)
        people = PEOPLE_SEATS[args.people]
        level = args.level or "normal"
        players = tuple("person" if seat in people else level for seat in range(4))
        rng = Random(args.seed)
        replayed = []
    try:
        prompts, words = load_game_prompts(args.lang, "court-piece")
    except PromptsError as error:
        raise UsageError(str(error)) from None
    kinds: list[SeatKind] = ["person" if seat in people else "computer" for seat in range(4)]
    commands = CommandSet(phrases=prompts.commands, keys=prompts.keys, typed_only=prompts.typed_only)
    narrator = Narrator(prompts=prompts, seats=4, listener=people[0] if len(people) == 1 else None,
                        verbosity=args.verbosity, kinds=kinds)
    bot_rng = Random(rng.random() if resumed is None else None)
    recipe: list[Recipe] = [recipe_then] if resumed is not None else []

    def new_session(number: int) -> Session:
        recipe[:] = [Recipe.before(rules, rng, players=players, number=number)]
        return recipe[0].session(rng)

    play = CourtPiecePlay(narrator, Phrases.build(prompts, words), rules, new_session, people=people,
                          levels=[level] * 4, bot_rng=bot_rng)
    inbox: queue.Queue[Inbox] = queue.Queue()
    log_path, args.log = args.log, None  # opened here, so that a resumed session's log reads as one
    with open_device(args, narrator) as device:
        log = None
        if log_path:
            try:
                log = LogFile(device.stack.enter_context(open_record_log(log_path, saved, replayed)))
            except OSError as error:
                raise UsageError(f"cannot write the log to {log_path}: {error.strerror or error}; "
                                 "choose a writable path") from None
        path = save_path(SAVE_NAME)
        args.log = log_path
        keeper = RecordKeeper(
            path, "court-piece", lambda session: record(recipe[0], session),
            log=os.path.abspath(log_path) if log_path else None,
            log_size=log.tell if log is not None else None,
            on_error=lambda error: device.outputs.say(narrator.say(
                "save", "not_saved", path=path, detail=error.strerror or str(error))),
            command=resume_command("play court-piece", args))
        table = Table(narrator, play, device.outputs, kinds=kinds, beat=args.beat,
                      interactive=sys.stdin.isatty(), log=log, save=keeper,
                      resume_command=keeper.resume_command, can_sound=device.speech is not None)
        if resumed is not None:
            keeper.took_up()
            table.resume(session_then)
        device.start_inputs(args, commands, inbox, narrator, table, moves_by_voice(play))

        def stopped() -> Message | None:
            command = keeper.resume_command()
            return None if command is None or table.game is None else play.stopped("interrupted_saved",
                                                                                  command=command)

        start = resumed is None
        return until_ctrl_c(lambda: run_table(table, inbox, on_barge_in=device.outputs.stop, start=start), stopped)


def _saved_session(args: argparse.Namespace) -> tuple[SavedRecord | None, Any]:
    """The saved session ``--resume`` goes on with, rebuilt; (None, None) after one line saying why not."""
    words = load_prompts(args.lang).messages["save"]
    try:
        saved = read_record(save_path(SAVE_NAME), "court-piece")
    except SaveError as error:
        print(words[error.problem].format(path=error.path, detail=error.detail), file=sys.stderr)
        return None, None
    try:
        return saved, restore(saved.record)
    except ValueError as error:
        print(words["damaged"].format(path=save_path(SAVE_NAME), detail=str(error)), file=sys.stderr)
        return None, None
