"""``voice-rang simulate``: many games, one summary."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from typing import BinaryIO

from ..engine.game import DEFAULT_CAP, MAX_SEATS, MIN_SEATS
from ..simulate import Summary, simulate
from . import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seats", type=int, default=2, help="seats at the table, 2 to 6")
    parser.add_argument("--games", type=int, default=1000, help="how many games to play")
    parser.add_argument("--seed", type=int, default=0, help="the random seed: same seed, same games")
    parser.add_argument("--cap", type=int, default=DEFAULT_CAP, help="reveals before the game stops")
    parser.add_argument("--jsonl", metavar="PATH", help="write every event of every game here")
    parser.add_argument("--json", action="store_true", help="end with the summary as one JSON line")


def run(args: argparse.Namespace) -> int:
    if not MIN_SEATS <= args.seats <= MAX_SEATS:
        raise UsageError(f"--seats must be {MIN_SEATS} to {MAX_SEATS}, not {args.seats}")
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}")
    if args.cap < 1:
        raise UsageError(f"--cap must be at least 1, not {args.cap}")
    with ExitStack() as stack:
        log: BinaryIO | None = None
        if args.jsonl:
            try:
                log = stack.enter_context(open(args.jsonl, "wb", buffering=1 << 20))
            except OSError as error:
                reason = error.strerror or str(error)
                raise UsageError(
                    f"cannot write the log to {args.jsonl}: {reason}; choose a writable path"
                ) from None
        try:
            summary = simulate(
                args.seats, args.games, args.seed, args.cap, log=log, progress=_report_progress
            )
            if log is not None:
                log.flush()
        except OSError as error:
            stack.pop_all()  # the file cannot take more; closing it would raise again
            raise UsageError(
                f"writing the log to {args.jsonl} failed: {error.strerror or error}; "
                "free some space or choose another path"
            ) from None
    print("\n".join(describe(summary)))
    if args.json:
        print(json.dumps(summary.as_dict(), separators=(",", ":")))
    return 0


def _report_progress(done: int, total: int) -> None:
    print(f"Simulated {done:,} of {total:,} games.", file=sys.stderr, flush=True)


def describe(summary: Summary) -> list[str]:
    """The summary as plain lines, most important first."""
    wins = ", ".join(
        f"{'host' if seat == 0 else f'guest {seat}'} {count:,}"
        for seat, count in enumerate(summary.wins)
    )
    return [
        f"Games: {summary.games:,} at {summary.seats} seats.",
        f"Reveals per game: median {summary.median:,}, p90 {summary.p90:,}, "
        f"p99 {summary.p99:,}, max {summary.max:,}.",
        f"Games that hit the cap: {summary.capped:,}.",
        f"Wins: {wins}; shared wins: {summary.shared:,}.",
        f"Speed: {summary.reveals_per_second:,.0f} reveals per second "
        f"({summary.reveals:,} reveals in {summary.seconds:.2f} s).",
    ]
