"""``voice-rang join ADDRESS``: a guest's whole game on this device, at a table someone hosts.

Its own speech, microphone, keys, screen-reader lines, verbosity and language; ``--log`` of
what it saw. Piped standard input is a command per line, as in ``play``.
"""

from __future__ import annotations

import argparse
import queue
import shlex
from typing import Any

from ..commands import CommandSet
from ..games.rang_milanti.narration import RangMilantiNarrator
from ..messages import Message
from ..net.client import AddressError, HostConnection, hello_for, parse_address
from ..net.guest import GuestSession
from ..net.protocol import Problem, Welcome
from ..net.tokens import forget_token, load_token, save_token, seat_key
from ..net.view import GuestView
from ..prompts import load_game_prompts
from . import UsageError
from .device import (
    add_input_arguments,
    add_output_arguments,
    check_output_arguments,
    open_device,
    played_as,
    until_ctrl_c,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("address", help="the host's address as it says it: http://HOST:PORT or HOST:PORT")
    parser.add_argument("--code", help="the join code the host says")
    parser.add_argument("--name", default="", help="your name, said to the table when you join")
    parser.add_argument("--log", metavar="PATH", help="write the events you saw (JSON Lines) here")
    add_output_arguments(parser)
    add_input_arguments(parser)


def run(args: argparse.Namespace) -> int:
    check_output_arguments(args)
    try:
        host, port = parse_address(args.address)
    except AddressError:
        raise UsageError(f"{args.address!r} is not an address like http://192.168.1.20:8765 "
                         "or 192.168.1.20:8765; use the one the host says") from None
    if len(args.name) > 40:
        raise UsageError("--name is at most 40 characters")
    key = seat_key(host, port, args.name)
    token = load_token(key)
    if token is None and not args.code:
        raise UsageError("--code is needed to join: the host says it (\"with code 4 7 1 9\")")
    commands = CommandSet.load(args.lang)
    narrator = RangMilantiNarrator.load(args.lang, seats=2, listener=None, verbosity=args.verbosity)
    inbox: queue.Queue[Any] = queue.Queue()

    with open_device(args, narrator) as device:
        outputs = device.outputs
        connection: list[HostConnection] = []
        court = [False]

        def send(message: Any) -> bool:
            return connection[0].send(message)

        def deliver(item: Any) -> None:
            if isinstance(item, Welcome) and item.game == "court-piece" and not court[0]:
                court[0] = True  # the keys and words of Court Piece from now on
                prompts, _ = load_game_prompts(args.lang, "court-piece")
                commands.become(CommandSet(phrases=prompts.commands, keys=prompts.keys,
                                           typed_only=prompts.typed_only))
            if isinstance(item, Problem) and item.code == "unknown_token" and args.code:
                forget_token(key)  # an old table's seat: join this one with the code instead
                inbox.put(_Rejoin())
                return
            inbox.put(item)  # a host that ended mid-game may resume it: the seat token is kept

        session = GuestSession(GuestView(narrator), outputs, send, inbox, log=device.log,
                               on_token=lambda new: save_token(key, new),
                               can_sound=device.speech is not None)
        session.address = args.address
        outputs.say(narrator.say("net", "connecting", kind="hint", address=args.address))

        def connect(token: str | None) -> None:
            hello = hello_for(None if token else args.code, token, args.name)
            connection[:] = [HostConnection(host, port, hello, deliver)]
            connection[0].start()

        connect(token)
        device.stack.callback(lambda: connection[0].close())
        device.start_inputs(args, commands, inbox, narrator, session)

        def stopped() -> Message | None:
            # A guest that drops keeps its seat (a computer turns its cards meanwhile), and its
            # token, kept on this device, takes the seat back.
            view = session.view
            if not view.started or view.over or load_token(key) is None:
                return None
            if session.court:
                return narrator.say("net", "interrupted_guest_seat", command=rejoin_command(args))
            return narrator.say("net", "interrupted_guest", n=view.reveals, command=rejoin_command(args))

        return until_ctrl_c(lambda: _run_with_rejoin(session, inbox, connect, connection), stopped)


def rejoin_command(args: argparse.Namespace) -> str:
    """The command line that takes this guest's seat back: the address, and the name its seat
    token is kept under, with how this player plays (text only, the language).

    >>> rejoin_command(argparse.Namespace(address="192.168.1.20:8765", name="Ann Lee", text=True,
    ...                                   lang="en"))
    "voice-rang join 192.168.1.20:8765 --name 'Ann Lee' --text"
    """
    words = ["voice-rang", "join", shlex.quote(args.address)]
    if args.name:
        words += ["--name", shlex.quote(args.name)]
    return " ".join([*words, *played_as(args)])


class _Rejoin:
    """The saved seat token was not known: join again with the code."""


def _run_with_rejoin(session: GuestSession, inbox: queue.Queue[Any], connect: Any,
                     connection: list[HostConnection]) -> int:
    while not session.finished:
        item = inbox.get()
        if isinstance(item, _Rejoin):
            connection[0].close()
            connect(None)
            continue
        session.take(item)
    return session.exit_code
