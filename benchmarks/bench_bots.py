"""How strong is each computer level of Court Piece, and how long does each think?

    .venv/bin/python benchmarks/bench_bots.py [--sessions N] [--seed S] [--jobs 2] [--json]
        [--pairs strong:normal,normal:easy,easy:random] [--budget 0.5]

For each pair ``a:b`` it plays whole sessions of plain Court Piece (``Rules.make()``: points to
10) with level ``a`` as one team and ``b`` as the other, the teams changing seats every session
so that neither is flattered by where it sits (``simulate.seat_levels``). A pair may carry its own
number of sessions, ``strong:normal=200``; otherwise ``--sessions``. Each session is dealt from
its own seed (``S:pair:session``) and every bot draws from its own, so a run is replayed exactly
by its command line, whatever ``--jobs`` (sessions are shared among processes).

It reports sessions and deals won by the first level of each pair with 95 % Wilson intervals,
and each level's seconds a decision (median and 95th percentile, trump choices included), then
checks the targets:

* strong beats normal in >= 70 % of sessions, the interval's lower end above 60 %;
* normal beats easy in >= 75 % of sessions; easy beats random in >= 85 %;
* the strong level's median decision <= 0.5 s and 95th percentile <= 1.5 s.

The table is for people; ``--json`` prints one JSON object instead.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voice_rang.games.court_piece.bots import LEVELS, make_bot
from voice_rang.games.court_piece.bots.strong import DEFAULT_BUDGET
from voice_rang.games.court_piece.events import DealEnded, Event
from voice_rang.games.court_piece.rules import Rules
from voice_rang.games.court_piece.runner import DecisionTimes, play_session
from voice_rang.games.court_piece.session import Session
from voice_rang.games.court_piece.simulate import seat_levels

DEFAULT_PAIRS = "strong:normal,normal:easy,easy:random"
SESSION_TARGETS = {("strong", "normal"): 0.70, ("normal", "easy"): 0.75, ("easy", "random"): 0.85}
STRONG_LOWER_BOUND = 0.60
STRONG_MEDIAN_S = 0.5
STRONG_P95_S = 1.5
Z95 = 1.959964


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default).

    >>> [round(x, 3) for x in wilson(70, 100)]
    [0.604, 0.781]
    """
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of some values."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))
    return ordered[index]


@dataclass(frozen=True)
class Job:
    pair: tuple[str, str]
    number: int
    seed: int
    budget: float


@dataclass
class SessionResult:
    pair: tuple[str, str]
    number: int
    winner: str | None
    deals: int
    deals_won: dict[str, int]
    times: DecisionTimes


@dataclass
class PairSummary:
    pair: tuple[str, str]
    sessions: int = 0
    won: int = 0
    lost: int = 0
    deals: int = 0
    deals_won: int = 0
    seconds: float = 0.0
    results: list[SessionResult] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        first = self.pair[0]
        low, high = wilson(self.won, self.sessions)
        deal_low, deal_high = wilson(self.deals_won, self.deals)
        return {
            "pair": f"{self.pair[0]}:{self.pair[1]}",
            "sessions": self.sessions,
            f"sessions_won_by_{first}": self.won,
            "session_rate": round(self.won / self.sessions, 4) if self.sessions else None,
            "session_interval": [round(low, 4), round(high, 4)],
            "deals": self.deals,
            f"deals_won_by_{first}": self.deals_won,
            "deal_rate": round(self.deals_won / self.deals, 4) if self.deals else None,
            "deal_interval": [round(deal_low, 4), round(deal_high, 4)],
            "seconds": round(self.seconds, 1),
        }


def play_one(job: Job) -> SessionResult:
    """One whole session of ``job.pair``; the first level takes team 0 in even sessions."""
    at_seats = seat_levels(job.pair, job.number)
    tag = f"{job.pair[0]}:{job.pair[1]}"
    bots = [
        make_bot(level, Random(f"{job.seed}:{tag}:{job.number}:{seat}"), budget=job.budget)
        for seat, level in enumerate(at_seats)
    ]
    session = Session(Rules.make(), Random(f"{job.seed}:{tag}:{job.number}"), players=at_seats, number=job.number)
    deals_won = dict.fromkeys(job.pair, 0)
    deals = 0

    def count(events: list[Event]) -> None:
        nonlocal deals
        for event in events:
            if isinstance(event, DealEnded):
                deals += 1
                deals_won[at_seats[event.winner]] += 1

    times: DecisionTimes = {}
    result = play_session(session, bots, emit=count, times=times)
    winner = None if result.winner is None else at_seats[result.winner]
    return SessionResult(job.pair, job.number, winner, deals, deals_won, times)


def parse_pairs(text: str, sessions: int) -> list[tuple[tuple[str, str], int]]:
    """``a:b[=N],c:d`` as ((a, b), N) items; levels are checked."""
    pairs = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        names, _, count = item.partition("=")
        first, _, second = names.partition(":")
        for level in (first, second):
            if level not in LEVELS:
                raise SystemExit(f"unknown level {level!r} in --pairs; the levels are {', '.join(LEVELS)}")
        pairs.append(((first, second), int(count) if count else sessions))
    return pairs


def run(pairs: list[tuple[tuple[str, str], int]], seed: int, jobs: int, budget: float) -> dict[str, object]:
    work = [Job(pair, number, seed, budget) for pair, count in pairs for number in range(count)]
    work.sort(key=lambda job: ("strong" not in job.pair, job.pair, job.number))  # the slow sessions first
    summaries = {pair: PairSummary(pair) for pair, _ in pairs}
    times: DecisionTimes = {}
    started = time.perf_counter()
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            results = list(pool.imap_unordered(play_one, work, chunksize=1))
    else:
        results = [play_one(job) for job in work]
    wall = time.perf_counter() - started
    results.sort(key=lambda result: (result.pair, result.number))
    for result in results:
        summary = summaries[result.pair]
        summary.sessions += 1
        first = result.pair[0]
        if result.winner == first:
            summary.won += 1
        elif result.winner is not None:
            summary.lost += 1
        summary.deals += result.deals
        summary.deals_won += result.deals_won[first]
        summary.seconds += sum(sum(values) for values in result.times.values())
        for level, values in result.times.items():
            times.setdefault(level, []).extend(values)
    level_times = {
        level: {
            "decisions": len(values),
            "median_s": round(statistics.median(values), 6),
            "p95_s": round(percentile(values, 0.95), 6),
            "max_s": round(max(values), 6),
        }
        for level, values in sorted(times.items())
    }
    return {
        "rules": "court-piece, points to 10",
        "seed": seed,
        "jobs": jobs,
        "strong_budget_s": budget,
        "pairs": [summary.as_dict() for summary in summaries.values()],
        "times": level_times,
        "checks": checks(summaries, level_times),
        "wall_s": round(wall, 1),
    }


def checks(summaries: dict[tuple[str, str], PairSummary], level_times: dict[str, dict[str, float]]) -> dict[str, bool]:
    """Each target that this run measured, met or not."""
    found: dict[str, bool] = {}
    for pair, target in SESSION_TARGETS.items():
        summary = summaries.get(pair)
        if summary is None or not summary.sessions:
            continue
        rate = summary.won / summary.sessions
        found[f"{pair[0]} beats {pair[1]} in >= {target:.0%} of sessions"] = rate >= target
        if pair == ("strong", "normal"):
            low, _ = wilson(summary.won, summary.sessions)
            found[f"its 95% interval is above {STRONG_LOWER_BOUND:.0%}"] = low > STRONG_LOWER_BOUND
    strong = level_times.get("strong")
    if strong is not None:
        found[f"strong median decision <= {STRONG_MEDIAN_S} s"] = strong["median_s"] <= STRONG_MEDIAN_S
        found[f"strong 95th percentile <= {STRONG_P95_S} s"] = strong["p95_s"] <= STRONG_P95_S
    return found


def print_table(report: dict[str, object]) -> None:
    pairs = report["pairs"]
    assert isinstance(pairs, list)
    print(f"Court Piece bots, {report['rules']}; seed {report['seed']}, {report['jobs']} processes, "
          f"strong budget {report['strong_budget_s']} s")
    print()
    print(f"{'pair':<16}{'sessions':>9}{'won':>6}{'rate':>8}{'95% interval':>17}{'deals':>8}{'won':>6}{'rate':>8}"
          f"{'95% interval':>17}")
    for row in pairs:
        first = row["pair"].split(":")[0]
        low, high = row["session_interval"]
        deal_low, deal_high = row["deal_interval"]
        print(f"{row['pair']:<16}{row['sessions']:>9}{row[f'sessions_won_by_{first}']:>6}{row['session_rate']:>8.1%}"
              f"{f'{low:.1%} - {high:.1%}':>17}{row['deals']:>8}{row[f'deals_won_by_{first}']:>6}"
              f"{row['deal_rate']:>8.1%}{f'{deal_low:.1%} - {deal_high:.1%}':>17}")
    print()
    times = report["times"]
    assert isinstance(times, dict)
    print(f"{'level':<10}{'decisions':>11}{'median':>12}{'p95':>12}{'max':>12}")
    for level, row in times.items():
        print(f"{level:<10}{row['decisions']:>11}{_seconds(row['median_s']):>12}{_seconds(row['p95_s']):>12}"
              f"{_seconds(row['max_s']):>12}")
    print()
    checks_found = report["checks"]
    assert isinstance(checks_found, dict)
    for name, ok in checks_found.items():
        print(f"{'ok  ' if ok else 'MISS'} {name}")
    print(f"\n{report['wall_s']} s wall clock")


def _seconds(value: float) -> str:
    if value < 1e-3:
        return f"{value * 1e6:.1f} us"
    if value < 1:
        return f"{value * 1e3:.1f} ms"
    return f"{value:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=100, help="sessions a pair unless the pair says (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    parser.add_argument("--pairs", default=DEFAULT_PAIRS, help=f"level pairs, a:b[=N] (default {DEFAULT_PAIRS})")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="the strong level's seconds a decision")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args(argv)
    report = run(parse_pairs(args.pairs, args.sessions), args.seed, max(1, args.jobs), args.budget)
    if args.json:
        print(json.dumps(report))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
