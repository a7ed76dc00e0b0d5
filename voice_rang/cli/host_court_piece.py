"""``voice-rang host court-piece``: Court Piece with friends, each on their own device.

The host plays seat 0 at this machine; guests take seats 1, 2 and 3 in the order they join (seat
2, across the table, is the host's partner), and a computer of ``--level`` plays every empty
chair and every guest that has dropped until it comes back. Each guest is sent its own view
alone (:mod:`voice_rang.net.court_piece`); ``voice-rang join`` and the web page play it.
"""

from __future__ import annotations

import argparse
import queue
import sys
from random import Random

from ..commands import CommandSet
from ..games.court_piece.phrases import Phrases
from ..games.court_piece.play import CourtPiecePlay
from ..games.court_piece.record import Recipe
from ..games.court_piece.session import Session
from ..narration import Narrator
from ..net.court_piece import CourtPieceBridge
from ..net.host import run_lobby
from ..net.server import HostServer
from ..prompts import PromptsError, load_game_prompts
from ..table import SeatKind, Table
from ..table.loop import Inbox
from . import UsageError
from .court_piece import court_piece_rules
from .device import check_output_arguments, open_device
from .host_options import check_host_arguments, reachable_address

SEATS = 4


class _NotSaved:
    """A hosted Court Piece is not saved yet: nothing to resume."""

    @staticmethod
    def resume_command() -> None:
        return None


def run_court_piece_host(args: argparse.Namespace, default_port: int) -> int:
    check_output_arguments(args)
    if args.resume:
        raise UsageError("--resume is not yet there for a hosted Court Piece; start a new one")
    if args.beat < 0 or args.beat > 60:
        raise UsageError(f"--beat must be 0 to 60 seconds, not {args.beat}")
    args.seats = SEATS
    args.port = default_port if args.port is None else args.port
    args.bind = "0.0.0.0" if args.bind is None else args.bind
    code = check_host_arguments(args)
    rules = court_piece_rules(args)
    level = args.level or "normal"
    players = ("person",) + (level,) * (SEATS - 1)
    rng = Random(args.seed)
    try:
        prompts, words = load_game_prompts(args.lang, "court-piece")
    except PromptsError as error:
        raise UsageError(str(error)) from None
    kinds: list[SeatKind] = ["person", "computer", "computer", "computer"]
    commands = CommandSet(phrases=prompts.commands, keys=prompts.keys, typed_only=prompts.typed_only)
    narrator = Narrator(prompts=prompts, seats=SEATS, listener=0, verbosity=args.verbosity, kinds=kinds)

    def new_session(number: int) -> Session:
        return Recipe.before(rules, rng, players=players, number=number).session(rng)

    play = CourtPiecePlay(narrator, Phrases.build(prompts, words), rules, new_session, people=(0,),
                          levels=[level] * SEATS, bot_rng=Random(rng.random()))
    inbox: queue.Queue[Inbox] = queue.Queue()
    args.no_listen = True  # Court Piece is played by keys and typed words
    with open_device(args, narrator) as device:
        bridge = CourtPieceBridge(narrator, device.log, play, commands)
        table = Table(narrator, play, device.outputs, kinds=kinds, beat=args.beat,
                      interactive=sys.stdin.isatty(), log=bridge.record, can_sound=device.speech is not None)
        page = {key: str(value) for key, value in prompts.messages.get("web", {}).items()}
        page.update({f"cp_{key}": str(value)
                     for key, value in prompts.messages["court_piece"].get("web", {}).items()})
        page["lang"], page["game"] = args.lang, "court-piece"
        server = HostServer(SEATS, code, bridge.hooks(), send_to_table=inbox.put, cap=args.cap,
                            page_words=page, grace=args.grace, game="court-piece")
        try:
            port = server.start(args.bind, args.port)
        except OSError as error:
            raise UsageError(f"cannot listen on {args.bind} port {args.port}: {error.strerror or error}; "
                             "choose another --port (or --bind)") from None
        device.stack.callback(server.close)
        bridge.attach(table, server)
        address = f"http://{reachable_address(args.bind)}:{port}"
        table.announce(narrator.say("net", "join_at", kind="hint", address=address, code=" ".join(code)))
        device.start_inputs(args, commands, inbox, narrator, table)
        start_words = list(narrator.prompts.messages["net"]["start_words"])
        stopped = run_lobby(table, inbox, narrator, start_words, server, bridge)
        if stopped is not None:
            return stopped
        return device.serve(table, inbox, _NotSaved(), narrator, start=False)  # type: ignore[arg-type]
