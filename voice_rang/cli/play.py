"""``voice-rang play``: a whole game by keyboard, voice or screen reader."""

from __future__ import annotations

import argparse
import queue
import sys
from random import Random

from ..commands import CommandSet
from ..games.rang_milanti import MAX_SEATS, MIN_SEATS, Card, DeckError, Game, parse_deck
from ..games.rang_milanti.game import DEFAULT_CAP
from ..games.rang_milanti.narration import RangMilantiNarrator
from ..games.rang_milanti.play import RangMilantiPlay
from ..table import SeatKind, Table
from ..table.loop import Inbox
from . import UsageError
from .device import (
    add_input_arguments,
    add_output_arguments,
    check_output_arguments,
    load_saved_game,
    open_device,
)

GAMES = ("rang-milanti", "court-piece")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", choices=GAMES,
                        help="rang-milanti or court-piece (at a terminal, asked when not named; "
                             "rang-milanti from a pipe)")
    parser.add_argument("--seats", type=int, help="Rang Milanti: seats at the table, 2 to 6 (default 2)")
    parser.add_argument("--people", type=int, default=1,
                        help="people taking turns at this device (default 1; the other seats are computers)")
    add_game_arguments(parser)
    from .court_piece import add_court_piece_arguments

    add_court_piece_arguments(parser)
    parser.add_argument("--resume", action="store_true",
                        help="go on with the game that stopped (it is saved after every card; "
                             "its seats and cards are kept, auto-reveal starts off)")
    add_output_arguments(parser)
    add_input_arguments(parser)


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """The game's own options, shared by play and host."""
    parser.add_argument("--beat", type=float, default=1.0,
                        help="seconds before a computer or auto-reveal card turns (default 1; 0 allowed)")
    parser.add_argument("--seed", type=int, help="make the shuffle reproducible")
    parser.add_argument("--deck", help="an explicit deck order: 52 card codes like 10H,QD,7C (top first)")
    parser.add_argument("--cap", type=int, default=DEFAULT_CAP, help=argparse.SUPPRESS)
    parser.add_argument("--log", metavar="PATH", help="write the game's event log (JSON Lines) here")


def check_game_arguments(args: argparse.Namespace) -> list[Card] | None:
    """Check the game's options; the ``--deck`` order, if one was given."""
    if args.beat < 0 or args.beat > 60:
        raise UsageError(f"--beat must be 0 to 60 seconds, not {args.beat}")
    if args.cap < 1:
        raise UsageError(f"--cap must be at least 1, not {args.cap}")
    if not args.deck:
        return None
    try:
        return parse_deck(code for code in args.deck.replace(" ", ",").split(",") if code)
    except DeckError as error:
        raise UsageError(f"--deck: {error}") from None


def run(args: argparse.Namespace) -> int:
    from .court_piece import ask_for_game, refuse_options_of_the_other_game, run_court_piece

    if args.game is None:
        args.game = ask_for_game(args) if sys.stdin.isatty() and not args.resume else "rang-milanti"
    refuse_options_of_the_other_game(args)
    if args.game == "court-piece":
        return run_court_piece(args)
    if args.seats is None:
        args.seats = 2
    if not MIN_SEATS <= args.seats <= MAX_SEATS:
        raise UsageError(f"--seats must be {MIN_SEATS} to {MAX_SEATS}, not {args.seats}")
    if not 1 <= args.people <= args.seats:
        raise UsageError(f"--people must be 1 to the number of seats ({args.seats}), not {args.people}")
    deck = check_game_arguments(args)
    check_output_arguments(args)
    saved = load_saved_game(args) if args.resume else None
    if saved is None and args.resume:
        return 1
    if saved is not None:
        args.seats, args.people, args.cap = saved.seats, saved.kinds.count("person"), saved.cap
    rng = Random(args.seed)
    person: SeatKind = "person"
    computer: SeatKind = "computer"
    kinds = [person if seat < args.people else computer for seat in range(args.seats)]
    if saved is not None:
        kinds = [person if kind == "person" else computer for kind in saved.kinds]
    commands = CommandSet.load(args.lang)
    narrator = RangMilantiNarrator.load(args.lang, seats=args.seats, listener=0 if args.people == 1 else None,
                             verbosity=args.verbosity, cap=args.cap, kinds=kinds)
    inbox: queue.Queue[Inbox] = queue.Queue()

    with open_device(args, narrator, saved) as device:
        keeper = device.keeper(args, narrator, "play")

        def new_game(number: int) -> Game:
            return keeper.deal(rng, kinds=tuple(kinds), cap=args.cap, number=number,
                               deck=tuple(deck) if deck is not None else None)

        # Someone can still answer at the end (new game or quit) when keys or a voice are live:
        # a hands-free player may have started the game with no terminal at all.
        table = Table(narrator, RangMilantiPlay(narrator, new_game, len(kinds)), device.outputs, kinds=kinds,
                      beat=args.beat,
                      interactive=sys.stdin.isatty() or device.listen, log=device.log, save=keeper,
                      resume_command=keeper.resume_command, can_sound=device.speech is not None)
        if saved is not None:
            game, rng = keeper.go_on(saved)
            table.resume(game)
        device.start_inputs(args, commands, inbox, narrator, table)
        return device.serve(table, inbox, keeper, narrator)
