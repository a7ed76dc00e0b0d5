"""``voice-rang host``: play at this machine as in ``play``, with guests on their own devices.

Guests join with ``voice-rang join`` or the web page this serves; the game starts when the
host says start, and seats nobody took are computer seats. The game is saved after every card
(``host.json`` in the state directory, with each guest seat's token): ``--resume`` takes it up
again where it stopped, at the same address, and each guest that comes back takes its own seat.
"""

from __future__ import annotations

import argparse
import queue
import sys
from random import Random

from ..commands import CommandSet
from ..games.rang_milanti import Game
from ..games.rang_milanti.narration import RangMilantiNarrator
from ..games.rang_milanti.play import RangMilantiPlay
from ..net.host import HostBridge, run_lobby
from ..net.protocol import Turn
from ..net.resume import HostTable, host_record, read_host_save
from ..net.server import HostServer
from ..table import SeatKind, Table
from ..table.loop import Inbox
from ..table.save import SavedGame
from . import UsageError
from .court_piece import add_court_piece_arguments, refuse_options_of_the_other_game
from .device import add_input_arguments, add_output_arguments, check_output_arguments, load_saved_game, open_device
from .host_court_piece import run_court_piece_host
from .host_options import check_host_arguments, reachable_address
from .play import GAMES, add_game_arguments, check_game_arguments

DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", choices=GAMES, default="rang-milanti",
                        help="rang-milanti (the default) or court-piece: four seats, partners across the table")
    parser.add_argument("--seats", type=int,
                        help="Rang Milanti: seats at the table, 2 to 6 (default 4): you, then guests; "
                             "untaken seats are computers")
    parser.add_argument("--port", type=int,
                        help=f"port to listen on (default {DEFAULT_PORT}; with --resume, the port it had)")
    parser.add_argument("--bind",
                        help="address to listen on (default 0.0.0.0: every network of this machine; "
                             "with --resume, the address it had)")
    parser.add_argument("--code", help="the join code guests type, 4 to 8 digits (default: a random one)")
    parser.add_argument("--grace", type=float, default=10.0,
                        help="seconds the game waits for a guest who lost the connection (default 10)")
    parser.add_argument("--resume", action="store_true",
                        help="go on with the hosted game that stopped (saved after every card): its seats, "
                             "cards and address are kept, each guest that comes back takes its own seat")
    add_game_arguments(parser)
    add_court_piece_arguments(parser)
    add_output_arguments(parser)
    add_input_arguments(parser)


def take_up_table(args: argparse.Namespace, saved: SavedGame, kept: HostTable) -> None:
    """The saved table's seats and cap, and its address and code unless given again."""
    args.seats, args.cap = saved.seats, saved.cap
    args.port = kept.port if args.port is None else args.port
    args.bind = kept.bind if args.bind is None else args.bind
    args.code = kept.code if args.code is None else args.code


def run(args: argparse.Namespace) -> int:
    refuse_options_of_the_other_game(args)
    if args.game == "court-piece":
        return run_court_piece_host(args, DEFAULT_PORT)
    if args.seats is None:
        args.seats = 4
    deck = check_game_arguments(args)
    check_output_arguments(args)
    saved: SavedGame | None = None
    kept: HostTable | None = None
    if args.resume:
        loaded = load_saved_game(args, "host", read=read_host_save)
        if loaded is None:
            return 1
        saved, kept = loaded
        take_up_table(args, saved, kept)
    args.port = DEFAULT_PORT if args.port is None else args.port
    args.bind = "0.0.0.0" if args.bind is None else args.bind
    code = check_host_arguments(args)
    guests = [(seat.token, seat.name) for seat in kept.guests] if kept is not None else []
    rng = Random(args.seed)
    person: SeatKind = "person"
    remote: SeatKind = "remote"
    computer: SeatKind = "computer"
    kinds = [person] + [remote if token else computer for token, _ in guests]
    kinds += [computer] * (args.seats - len(kinds))
    commands = CommandSet.load(args.lang)
    narrator = RangMilantiNarrator.load(args.lang, seats=args.seats, listener=0, verbosity=args.verbosity,
                             cap=args.cap, kinds=kinds)
    inbox: queue.Queue[Inbox] = queue.Queue()

    with open_device(args, narrator, saved) as device:
        bridge = HostBridge(narrator, device.log)
        server: HostServer
        keeper = device.keeper(args, narrator, "host",
                               table=lambda: host_record(args.bind, server.port, code, bridge.guests()))

        def new_game(number: int) -> Game:
            # The recipe's seats are the host's person and computers: who sits in a guest seat is
            # the table's business, kept beside the game (host_record).
            return keeper.deal(rng, kinds=("person",) + ("computer",) * (args.seats - 1), cap=args.cap,
                               number=number, deck=tuple(deck) if deck is not None else None)

        table = Table(narrator, RangMilantiPlay(narrator, new_game, len(kinds)), device.outputs, kinds=kinds,
                      beat=args.beat,
                      interactive=sys.stdin.isatty() or device.listen, log=bridge.record, save=keeper,
                      resume_command=keeper.resume_command)
        words = {key: str(value) for key, value in narrator.prompts.messages.get("web", {}).items()}
        words["lang"] = args.lang
        server = HostServer(args.seats, code, bridge.hooks(), send_to_table=inbox.put, cap=args.cap,
                            page_words=words, grace=args.grace)
        if saved is not None:
            game, rng, events = saved.replay()
            keeper.go_on(saved)
            server.resume(guests, events, None if game.is_over else Turn(
                seat=game.current_seat, extra=game.owes_extra_card))
            bridge.resume(guests)
        try:
            port = server.start(args.bind, args.port)
        except OSError as error:
            raise UsageError(f"cannot listen on {args.bind} port {args.port}: {error.strerror or error}; "
                             "choose another --port (or --bind)") from None
        device.stack.callback(server.close)
        bridge.attach(table, server)
        address = f"http://{reachable_address(args.bind)}:{port}"
        if saved is None:
            table.announce(narrator.say("net", "join_at", kind="hint", address=address, code=" ".join(code)))
        else:
            table.announce(narrator.say("net", "come_back_at", kind="hint", address=address,
                                        seconds=f"{args.grace:g}"))
        device.start_inputs(args, commands, inbox, narrator, table)
        if saved is None:
            start_words = list(narrator.prompts.messages["net"]["start_words"])
            stopped = run_lobby(table, inbox, narrator, start_words, server, bridge)
            if stopped is not None:
                return stopped
        else:
            table.resume(game)
            bridge.sync()
        return device.serve(table, inbox, keeper, narrator, start=False)
