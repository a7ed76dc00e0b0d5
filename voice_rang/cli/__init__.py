"""``voice-rang``: the front door. Each sub-command lives in a module of its own.

Bad input never ends in a traceback: argparse errors and :class:`UsageError`
become one line on stderr naming what is wrong and what to do, with exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

__all__ = ["OneLineParser", "UsageError", "chosen_commands", "main"]

AUDIO_COMMANDS = frozenset({"play", "host", "join", "demo", "doctor", "enroll"})
"""Sub-commands that open sound devices, whose C libraries write to stderr on their own."""

SUBCOMMANDS = {
    "play": "Play a game by keyboard, voice or screen reader.",
    "host": "Host a table that guests join from their own devices (or a web page), and play at it.",
    "join": "Join a hosted table from this device: your own voice, keys, language and log.",
    "demo": "Press play: a short game that stops on every move and explains it.",
    "simulate": "Play many games quickly and summarise their length and winners.",
    "recognize": "Decode WAV recordings with the same recogniser as live play.",
    "doctor": "Check speech output, voices and audio devices, and say how to fix what is missing.",
    "enroll": "Teach the game your own voice: three takes of each command, or of your card words with --cards "
              "(or --import, --forget).",
}


class UsageError(Exception):
    """Bad input from the person at the command line: said in one line, exit code 2."""


def chosen_commands(only: str, ids: Sequence[str]) -> set[str]:
    """The command ids an ``--only A,B`` option names, each one of ``ids``; a :class:`UsageError`
    naming the first that is not, and listing the ones there are.

    >>> sorted(chosen_commands("turn, stop", ["turn", "stop", "help"]))
    ['stop', 'turn']
    """
    chosen = {part.strip() for part in only.split(",") if part.strip()}
    unknown = sorted(chosen - set(ids))
    if unknown:
        raise UsageError(f"unknown command id {unknown[0]!r} in --only; the command ids are {', '.join(ids)}")
    return chosen


class _OneLineHelp(argparse.HelpFormatter):
    """Help with each option and its meaning on one line, however narrow the terminal: a screen
    reader reads line by line, and a sentence wrapped onto the next line is heard in halves."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=40, width=100_000)

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if action.help is not argparse.SUPPRESS:  # sub-commands are indented once more than
            for sub in self._iter_indented_subactions(action):  # argparse measures them
                length = len(self._format_action_invocation(sub)) + self._current_indent
                self._action_max_length = max(self._action_max_length, length)


class OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line, not a usage block, and whose help gives each
    option one line."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _OneLineHelp)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser(argv: Sequence[str] = ()) -> OneLineParser:
    """The whole parser, with the arguments of the sub-command named in ``argv`` (the first word
    that is not an option). Only that sub-command's module is imported: ``voice-rang play`` does
    not load the network stack or numpy that ``host`` and ``recognize`` need, so it starts
    quickly even on a slow or busy machine."""
    parser = OneLineParser(
        prog="voice-rang",
        description="Rang Milanti, the Bengali card game, played by voice, keys or screen reader.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    chosen = next((word for word in argv if not word.startswith("-")), None)
    for name, summary in SUBCOMMANDS.items():
        command = sub.add_parser(name, help=summary, description=summary)
        if name == chosen:
            module = importlib.import_module(f"voice_rang.cli.{name}")
            module.add_arguments(command)
            command.set_defaults(run=module.run, parser=command)
    return parser


def _parse(parser: OneLineParser, words: list[str]) -> argparse.Namespace:
    """``words`` parsed; a word nobody knows is said by the sub-command it came with, so the line
    points to that command's help (which lists its options), and an option of the sub-command
    given before it is told where it goes."""
    args, extra = parser.parse_known_args(words)
    if not extra:
        return args
    command: OneLineParser | None = getattr(args, "parser", None)
    if command is None:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    known = [word for word in extra if word.split("=", 1)[0] in command._option_string_actions]
    if known:
        command.error(f"{known[0]} goes after {args.command!r}: voice-rang {args.command} {known[0]} …")
    command.error(f"unrecognized arguments: {' '.join(extra)}")


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words)
    args = _parse(parser, words)
    if not getattr(args, "run", None):
        print(f"voice-rang: say what to do, for example voice-rang play; the commands are "
              f"{', '.join(SUBCOMMANDS)} (see voice-rang --help)", file=sys.stderr)
        return 2
    if args.command in AUDIO_COMMANDS:
        from ..speech.stderr_filter import filter_native_stderr

        filter_native_stderr()
    try:
        return int(args.run(args))
    except UsageError as error:
        print(f"voice-rang {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
