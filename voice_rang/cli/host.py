"""``voice-rang host``: play at this machine as in ``play``, with guests on their own devices.

Guests join with ``voice-rang join`` or the web page this serves; the game starts when the
host says start, and seats nobody took are computer seats.
"""

from __future__ import annotations

import argparse
import queue
import secrets
import socket
import sys
from contextlib import ExitStack
from random import Random

from ..commands import CommandSet
from ..engine import MAX_SEATS, MIN_SEATS, Game
from ..narration import Narrator
from ..net.host import HostBridge, run_lobby
from ..net.server import HostServer
from ..table import SeatKind, Table
from ..table.loop import Inbox, TableOutputs, run_table
from . import UsageError
from .play import (
    add_game_arguments,
    add_input_arguments,
    add_output_arguments,
    check_game_arguments,
    check_output_arguments,
    open_log,
    open_speech,
    start_inputs,
)

DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seats", type=int, default=4,
                        help="seats at the table, 2 to 6 (default 4): you, then guests; untaken seats are computers")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})")
    parser.add_argument("--bind", default="0.0.0.0",
                        help="address to listen on (default 0.0.0.0: every network of this machine)")
    parser.add_argument("--code", help="the join code guests type, 4 to 8 digits (default: a random one)")
    parser.add_argument("--grace", type=float, default=10.0,
                        help="seconds the game waits for a guest who lost the connection (default 10)")
    add_game_arguments(parser)
    add_output_arguments(parser)
    add_input_arguments(parser)


def check_host_arguments(args: argparse.Namespace) -> str:
    """Check the host's own options; the join code."""
    if not MIN_SEATS <= args.seats <= MAX_SEATS:
        raise UsageError(f"--seats must be {MIN_SEATS} to {MAX_SEATS}, not {args.seats}")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0 to 65535, not {args.port}")
    if not 0 <= args.grace <= 600:
        raise UsageError(f"--grace must be 0 to 600 seconds, not {args.grace}")
    if args.code is None:
        return "".join(secrets.choice("0123456789") for _ in range(4))
    if not (args.code.isascii() and args.code.isdigit() and 4 <= len(args.code) <= 8):
        raise UsageError(f"--code must be 4 to 8 digits, not {args.code!r}")
    return str(args.code)


def reachable_address(bind: str) -> str:
    """The address guests on the same network use: the bound one, or this machine's own."""
    if bind not in ("0.0.0.0", "::", ""):
        return bind
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def run(args: argparse.Namespace) -> int:
    code = check_host_arguments(args)
    deck = check_game_arguments(args)
    check_output_arguments(args)
    rng = Random(args.seed)
    person: SeatKind = "person"
    computer: SeatKind = "computer"
    kinds = [person] + [computer] * (args.seats - 1)
    commands = CommandSet.load(args.lang)
    narrator = Narrator.load(args.lang, seats=args.seats, listener=0, verbosity=args.verbosity,
                             cap=args.cap, kinds=kinds)
    inbox: queue.Queue[Inbox] = queue.Queue()

    with ExitStack() as stack:
        log = open_log(args.log, stack)
        outputs = TableOutputs()
        speech = open_speech(args, outputs, narrator)
        if speech is not None:
            stack.callback(speech.close)

        def new_game(number: int) -> Game:
            return Game(args.seats, rng, deck=deck, cap=args.cap, number=number)

        listen = not args.no_listen and (args.listen or not args.text)
        bridge = HostBridge(narrator, log)
        table = Table(narrator, new_game, outputs, kinds=kinds, beat=args.beat,
                      interactive=sys.stdin.isatty() or listen, log=bridge.record)
        words = {key: str(value) for key, value in narrator.prompts.messages.get("web", {}).items()}
        words["lang"] = args.lang
        server = HostServer(args.seats, code, bridge.hooks(), send_to_table=inbox.put, cap=args.cap,
                            page_words=words, grace=args.grace)
        try:
            port = server.start(args.bind, args.port)
        except OSError as error:
            raise UsageError(f"cannot listen on {args.bind} port {args.port}: {error.strerror or error}; "
                             "choose another --port (or --bind)") from None
        stack.callback(server.close)
        bridge.attach(table, server)
        address = f"http://{reachable_address(args.bind)}:{port}"
        table.announce(narrator.say("net", "join_at", kind="hint", address=address, code=" ".join(code)))
        start_inputs(args, commands, inbox, narrator, speech, outputs, table, stack, listen)
        start_words = list(narrator.prompts.messages["net"]["start_words"])
        stopped = run_lobby(table, inbox, narrator, start_words, server, bridge)
        if stopped is not None:
            return stopped
        exit_code = run_table(table, inbox, on_barge_in=outputs.stop, start=False)
        if outputs.speech is not None:
            outputs.speech.wait_until_done(10.0)
        return exit_code
