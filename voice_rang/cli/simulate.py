"""``voice-rang simulate [rang-milanti|court-piece]``: many games (or sessions), one summary."""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import ExitStack
from typing import TYPE_CHECKING, BinaryIO

from ..games.rang_milanti.game import DEFAULT_CAP, MAX_SEATS, MIN_SEATS
from ..games.rang_milanti.simulate import Summary, simulate
from . import UsageError
from .court_piece_options import add_rules_arguments

if TYPE_CHECKING:
    from ..games.court_piece.simulate import Summary as CourtPieceSummary

GAMES = ("rang-milanti", "court-piece")
_RANG_MILANTI_ONLY = ("seats", "games", "cap")
_COURT_PIECE_ONLY = (
    "variant", "scoring", "target", "deals", "trump", "redeal", "no_early_late", "aces_no_collect", "goon",
    "sessions", "bots",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", default="rang-milanti", choices=GAMES,
                        help="which game: rang-milanti (the default) or court-piece")
    parser.add_argument("--seed", type=int, default=0, help="the random seed: same seed, same games")
    parser.add_argument("--jsonl", "--log", metavar="PATH", dest="jsonl", help="write every event of every game here")
    parser.add_argument("--json", action="store_true", help="end with the summary as one JSON line")
    rang = parser  # one flat list of options: a screen reader hears each on its own line
    rang.add_argument("--seats", type=int, help="seats at the table, 2 to 6 (default 2)")
    rang.add_argument("--games", type=int, help="how many games to play (default 1000)")
    rang.add_argument("--cap", type=int, help=f"reveals before a game stops (default {DEFAULT_CAP})")
    court = parser
    court.add_argument("--sessions", type=int, help="how many sessions to play (default 100)")
    add_rules_arguments(court)
    court.add_argument("--bots", help="the two teams' computer levels, e.g. strong,normal (default normal,normal); "
                       "they swap teams every session")


def run(args: argparse.Namespace) -> int:
    if args.game == "court-piece":
        _refuse_options_of(args, _RANG_MILANTI_ONLY, "Rang Milanti")
        return _run_court_piece(args)
    _refuse_options_of(args, _COURT_PIECE_ONLY, "Court Piece")
    seats = 2 if args.seats is None else args.seats
    games = 1000 if args.games is None else args.games
    cap = DEFAULT_CAP if args.cap is None else args.cap
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise UsageError(f"--seats must be {MIN_SEATS} to {MAX_SEATS}, not {seats}")
    if games < 1:
        raise UsageError(f"--games must be at least 1, not {games}")
    if cap < 1:
        raise UsageError(f"--cap must be at least 1, not {cap}")
    with ExitStack() as stack:
        log = _open_log(stack, args.jsonl)
        try:
            summary = simulate(seats, games, args.seed, cap, log=log, progress=_report_progress)
            if log is not None:
                log.flush()
        except OSError as error:
            stack.pop_all()  # the file cannot take more; closing it would raise again
            raise _write_failed(args.jsonl, error) from None
    print("\n".join(describe(summary)))
    if args.json:
        print(json.dumps(summary.as_dict(), separators=(",", ":")))
    return 0


def _refuse_options_of(args: argparse.Namespace, names: tuple[str, ...], game: str) -> None:
    for name in names:
        if getattr(args, name) is not None:
            option = "--" + name.replace("_", "-")
            other = "court-piece" if game == "Court Piece" else "rang-milanti"
            raise UsageError(f"{option} is an option of {game}: write voice-rang simulate {other} {option} …")


def _open_log(stack: ExitStack, path: str | None) -> BinaryIO | None:
    if not path:
        return None
    try:
        return stack.enter_context(open(path, "wb", buffering=1 << 20))
    except OSError as error:
        reason = error.strerror or str(error)
        raise UsageError(f"cannot write the log to {path}: {reason}; choose a writable path") from None


def _write_failed(path: str, error: OSError) -> UsageError:
    reason = error.strerror or error
    return UsageError(f"writing the log to {path} failed: {reason}; free some space or choose another path")


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


def _run_court_piece(args: argparse.Namespace) -> int:
    from ..games.court_piece.bots import LEVELS
    from ..games.court_piece.log import encode_events
    from ..games.court_piece.rules import Rules, RulesError
    from ..games.court_piece.simulate import simulate as simulate_sessions

    sessions = 100 if args.sessions is None else args.sessions
    if sessions < 1:
        raise UsageError(f"--sessions must be at least 1, not {sessions}")
    levels = tuple(part.strip() for part in (args.bots or "normal,normal").split(","))
    if len(levels) == 1:
        levels = (levels[0], levels[0])
    if len(levels) != 2 or any(level not in LEVELS for level in levels):
        names = ", ".join(LEVELS)
        raise UsageError(f"--bots takes one or two levels of {names}, like strong,normal; not {args.bots!r}")
    try:
        rules = Rules.make(
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
    with ExitStack() as stack:
        log = _open_log(stack, args.jsonl)
        write = None if log is None else (lambda events: log.write(encode_events(events)))
        try:
            summary = simulate_sessions(
                rules, sessions, args.seed, (levels[0], levels[1]), emit=write, progress=_SessionProgress()
            )
            if log is not None:
                log.flush()
        except OSError as error:
            stack.pop_all()
            raise _write_failed(args.jsonl, error) from None
    print("\n".join(describe_sessions(summary)))
    if args.json:
        print(json.dumps(summary.as_dict(), separators=(",", ":")))
    return 0


class _SessionProgress:
    """A line on stderr at most every few seconds, so a long run is not silent and a screen reader not flooded."""

    def __init__(self, every: float = 5.0) -> None:
        self.every = every
        self.last = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last >= self.every:
            self.last = now
            print(f"Simulated {done:,} of {total:,} sessions.", file=sys.stderr, flush=True)


def describe_sessions(summary: CourtPieceSummary) -> list[str]:
    """A Court Piece summary as plain lines, most important first."""
    first, second = summary.levels
    kinds = summary.deal_kinds
    sessions = summary.sessions
    lines = [
        f"Sessions: {sessions:,} of {summary.rules['variant']}, {first} against {second}, teams swapped every session.",
        "Sessions won: " + ", ".join(f"{level} {count:,}" for level, count in summary.sessions_won.items())
        + (f"; no winner {summary.no_winner:,}" if summary.no_winner else "") + ".",
        "Deals won: " + ", ".join(f"{level} {count:,}" for level, count in summary.deals_won.items()) + ".",
        f"Deals: {summary.deals:,}, {summary.deals / sessions:.1f} a session; "
        f"tricks: {summary.tricks / max(summary.deals, 1):.1f} a deal.",
        f"Deals ended: wins {kinds['win']:,}, courts {kinds['court']:,}, goon courts {kinds['goon court']:,}, "
        f"52-courts {kinds['52-court']:,}.",
        f"Speed: {_rate(summary.deals_per_second)} deals a second, "
        f"{_rate(summary.decisions_per_second)} decisions a second "
        f"({summary.decisions:,} decisions in {summary.seconds:.2f} s).",
    ]
    for level, times in summary.times.items():
        lines.append(
            f"Thinking time of {level}: median {times.median * 1000:.3f} ms, 95th percentile {times.p95 * 1000:.3f} ms "
            f"over {times.decisions:,} decisions."
        )
    return lines


def _rate(per_second: float) -> str:
    """A rate with the digits that matter: ``1,234``, ``6.2``, ``0.15``.

    >>> _rate(1234.4), _rate(6.24), _rate(0.146)
    ('1,234', '6.2', '0.15')
    """
    if per_second >= 100:
        return f"{per_second:,.0f}"
    return f"{per_second:.1f}" if per_second >= 1 else f"{per_second:.2f}"
