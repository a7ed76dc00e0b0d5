"""``voice-rang demo``: press play, and a short game explains itself move by move."""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import ExitStack

from ..games.rang_milanti.demo import demo_steps
from ..games.rang_milanti.narration import RangMilantiNarrator
from ..keyboard import read_key, terminal_keys
from ..narration import Narrator
from ..table.loop import TableOutputs
from . import UsageError
from .device import add_output_arguments, check_output_arguments, open_speech


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", default="rang-milanti", choices=("rang-milanti", "court-piece"),
                        help="which game to show (default rang-milanti)")
    parser.add_argument("--auto", action="store_true", help="go on by itself instead of waiting for a key")
    parser.add_argument("--beat", type=float, default=1.5,
                        help="with --auto, seconds of quiet between moves (default 1.5)")
    add_output_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if args.beat < 0 or args.beat > 60:
        raise UsageError(f"--beat must be 0 to 60 seconds, not {args.beat}")
    check_output_arguments(args)
    if args.game == "court-piece":
        from ..games.court_piece.demo import demo_steps as court_piece_steps
        from ..prompts import load_game_prompts

        prompts, _ = load_game_prompts(args.lang, "court-piece")
        narrator = Narrator(prompts=prompts, seats=4, verbosity=args.verbosity, partners=True)
        steps = court_piece_steps(narrator)
    else:
        narrator = RangMilantiNarrator.load(args.lang, seats=2, verbosity=args.verbosity,
                                            kinds=["person", "computer"])
        steps = demo_steps(narrator)
    outputs = TableOutputs()
    interactive = sys.stdin.isatty() and not args.auto
    with ExitStack() as stack:
        speech = open_speech(args, outputs, narrator)
        if speech is not None:
            stack.callback(speech.close)
        if interactive:
            stack.enter_context(terminal_keys(sys.stdin.fileno()))
            outputs.say(narrator.say("demo", "keys", kind="hint"))
        auto = not interactive
        for step in steps:
            for message in step:
                outputs.say(message)
            if auto:
                _wait_for_speech(speech)
                time.sleep(args.beat)
                continue
            key = _read_key()
            outputs.stop()
            if key in ("q", "\x04", ""):
                return 0
            if key == "f":
                auto = True
        _wait_for_speech(speech)
    return 0


def _wait_for_speech(speech: object) -> None:
    wait = getattr(speech, "wait_until_done", None)
    if wait is not None:
        wait(60.0)


def _read_key() -> str:
    fd = sys.stdin.fileno()
    try:
        key = read_key(fd, None)
    except EOFError:
        return ""
    if key == "\x1b":
        while read_key(fd, 0.03):
            pass
        return " "
    return key.lower()
