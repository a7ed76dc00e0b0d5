"""``voice-rang host court-piece``: Court Piece with friends, each on their own device.

The host plays seat 0 at this machine; guests take seats 1, 2 and 3 in the order they join (seat
2, across the table, is the host's partner), and a computer of ``--level`` plays every empty
chair and every guest that has dropped until it comes back. Each guest is sent its own view
alone (:mod:`voice_rang.net.court_piece`); ``voice-rang join`` and the web page play it.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
from random import Random
from typing import Any

from ..commands import CommandSet
from ..games.court_piece.phrases import Phrases
from ..games.court_piece.play import CourtPiecePlay
from ..games.court_piece.record import Recipe, record, restore
from ..games.court_piece.session import Session
from ..narration import Narrator
from ..net.court_piece import CourtPieceBridge
from ..net.host import run_lobby
from ..net.protocol import Turn
from ..net.resume import HostTable, check_host_table, host_record
from ..net.server import HostServer
from ..prompts import PromptsError, load_game_prompts, load_prompts
from ..table import SeatKind, Table
from ..table.loop import Inbox, LogFile
from ..table.save import RecordKeeper, SavedRecord, SaveError, open_record_log, read_record, save_path
from . import UsageError
from .court_piece import court_piece_rules
from .device import check_output_arguments, moves_by_voice, open_device, resume_command
from .host_options import check_host_arguments, reachable_address

SEATS = 4


SAVE_NAME = "host-court-piece"
"""The hosted session's save: its record and, beside it, the host's address, code and guests' tokens."""


def run_court_piece_host(args: argparse.Namespace, default_port: int) -> int:
    check_output_arguments(args)
    if args.beat < 0 or args.beat > 60:
        raise UsageError(f"--beat must be 0 to 60 seconds, not {args.beat}")
    resumed = _saved_session(args) if args.resume else None
    if args.resume and resumed is None:
        return 1
    args.seats = SEATS
    kept: HostTable | None = None
    replayed: list[Any] = []
    saved: SavedRecord | None = None
    if resumed is not None:
        saved, (recipe_then, session_then, rng, replayed), kept = resumed
        rules, players = recipe_then.rules, recipe_then.players
        level = next((player for player in players if player != "person"), "normal")
        args.port = kept.port if args.port is None else args.port
        args.bind = kept.bind if args.bind is None else args.bind
        args.code = kept.code if args.code is None else args.code
    else:
        rules = court_piece_rules(args)
        level = args.level or "normal"
        players = ("person",) + (level,) * (SEATS - 1)
        rng = Random(args.seed)
    args.port = default_port if args.port is None else args.port
    args.bind = "0.0.0.0" if args.bind is None else args.bind
    code = check_host_arguments(args)
    guests = [(seat.token, seat.name) for seat in kept.guests] if kept is not None else []
    try:
        prompts, words = load_game_prompts(args.lang, "court-piece")
    except PromptsError as error:
        raise UsageError(str(error)) from None
    kinds: list[SeatKind] = ["person", "computer", "computer", "computer"]
    for seat, (token, _) in enumerate(guests, start=1):
        if token:
            kinds[seat] = "remote"
    commands = CommandSet(phrases=prompts.commands, keys=prompts.keys, typed_only=prompts.typed_only)
    narrator = Narrator(prompts=prompts, seats=SEATS, listener=0, verbosity=args.verbosity, kinds=kinds)
    recipe: list[Recipe] = [recipe_then] if resumed is not None else []

    def new_session(number: int) -> Session:
        recipe[:] = [Recipe.before(rules, rng, players=players, number=number)]
        return recipe[0].session(rng)

    play = CourtPiecePlay(narrator, Phrases.build(prompts, words), rules, new_session, people=(0,),
                          levels=[level] * SEATS, bot_rng=Random(rng.random() if resumed is None else None))
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
        args.log = log_path
        bridge = CourtPieceBridge(narrator, log, play, commands)
        server: HostServer
        path = save_path(SAVE_NAME)
        keeper = RecordKeeper(
            path, SAVE_NAME,
            lambda session: {"session": record(recipe[0], session),
                             "host": host_record(args.bind, server.port, code, bridge.guests())},
            log=os.path.abspath(log_path) if log_path else None,
            log_size=log.tell if log is not None else None,
            on_error=lambda error: device.outputs.say(narrator.say(
                "save", "not_saved", path=path, detail=error.strerror or str(error))),
            command=resume_command("host court-piece", args))
        table = Table(narrator, play, device.outputs, kinds=kinds, beat=args.beat, save=keeper,
                      interactive=sys.stdin.isatty(), log=bridge.record, can_sound=device.speech is not None,
                      resume_command=keeper.resume_command)
        page = {key: str(value) for key, value in prompts.messages.get("web", {}).items()}
        page.update({f"cp_{key}": str(value)
                     for key, value in prompts.messages["court_piece"].get("web", {}).items()})
        page["lang"], page["game"] = args.lang, "court-piece"
        server = HostServer(SEATS, code, bridge.hooks(), send_to_table=inbox.put, cap=args.cap,
                            page_words=page, grace=args.grace, game="court-piece")
        if resumed is not None:
            to_act = session_then.to_act
            server.resume(guests, [], None if to_act is None else Turn(seat=to_act, extra=False))
            bridge.resume(guests)
        try:
            port = server.start(args.bind, args.port)
        except OSError as error:
            raise UsageError(f"cannot listen on {args.bind} port {args.port}: {error.strerror or error}; "
                             "choose another --port (or --bind)") from None
        device.stack.callback(server.close)
        bridge.attach(table, server)
        address = f"http://{reachable_address(args.bind)}:{port}"
        device.start_inputs(args, commands, inbox, narrator, table, moves_by_voice(play))
        if resumed is None:
            table.announce(narrator.say("net", "join_at", kind="hint", address=address, code=" ".join(code)))
            start_words = list(narrator.prompts.messages["net"]["start_words"])
            stopped = run_lobby(table, inbox, narrator, start_words, server, bridge)
            if stopped is not None:
                return stopped
        else:
            table.announce(narrator.say("net", "come_back_at", kind="hint", address=address,
                                        seconds=f"{args.grace:g}"))
            keeper.took_up()
            table.resume(session_then)
            bridge.taken_up()
        return device.serve(table, inbox, keeper, narrator, start=False)  # type: ignore[arg-type]


def _saved_session(args: argparse.Namespace) -> tuple[SavedRecord, Any, HostTable] | None:
    """The hosted session ``--resume`` goes on with, rebuilt, and its guests; None after one line
    saying why not."""
    words = load_prompts(args.lang).messages["save"]
    path = save_path(SAVE_NAME)
    try:
        saved = read_record(path, SAVE_NAME)
        data = saved.record
        if not isinstance(data, dict) or "session" not in data or "host" not in data:
            raise SaveError("damaged", path, "it is not a hosted Court Piece")
        kept = check_host_table(data["host"], SEATS, path)
    except SaveError as error:
        print(words[error.problem].format(path=error.path, detail=error.detail), file=sys.stderr)
        return None
    try:
        return saved, restore(data["session"]), kept
    except ValueError as error:
        print(words["damaged"].format(path=path, detail=str(error)), file=sys.stderr)
        return None
