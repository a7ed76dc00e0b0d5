"""How fast does the engine simulate, against a bare loop of the same rules?

    .venv/bin/python benchmarks/bench_simulate.py [--games N] [--repeats R] [--seats 2 4 6]

In one process, for each seat count, three runs are interleaved over several repeats:

* **bare**: the rules written here as a plain loop over lists of ints (a card is just its
  suit), no events, no objects: the fastest honest Python for these rules;
* **engine**: ``voice_rang.games.rang_milanti.simulate.simulate(...)`` without a log;
* **engine+log**: the same with every event written to a real file as JSON Lines, the code
  path of ``voice-rang simulate --jsonl``.

The bare loop draws from ``random.Random`` exactly as the engine does (one shuffle of the 52
cards per game, one shuffle per reshuffle, same list orders), so with the same seed it plays
the very same games: the sanity check is that every game length agrees.

Targets: engine/bare >= 0.5; engine >= 1,000,000 reveals/s; engine+log at most 3x slower than
engine. The table is for people; the last line is one JSON object for machines.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voice_rang.games.rang_milanti.game import Game
from voice_rang.games.rang_milanti.simulate import percentile, simulate

CAP = 5000
SUITS = [index // 13 for index in range(52)]  # the engine's deck order: 13 clubs, 13 diamonds …

TARGET_RATIO = 0.5
TARGET_SPEED = 1_000_000
TARGET_LOG_SLOWDOWN = 3.0


def bare_game(seats: int, rng: Random, cap: int = CAP) -> int:
    """One game by the rules, cards as suit numbers; returns how many cards were turned."""
    order = SUITS[:]
    shuffle = rng.shuffle
    shuffle(order)
    per_seat = 52 // seats
    stacks = [order[seat : seats * per_seat : seats][::-1] for seat in range(seats)]
    collected: list[list[int]] = [[] for _ in range(seats)]
    pile = order[seats * per_seat :]
    seats_in = list(range(seats))
    at = n = 0
    extra = False
    while True:
        seat = seats_in[at]
        stack = stacks[seat]
        if not stack:
            stack = stacks[seat] = collected[seat]
            collected[seat] = []
            shuffle(stack)
        card = stack.pop()
        n += 1
        if extra:  # the card after a capture starts a new pile
            extra = False
            pile.append(card)
            at += 1
        elif pile and pile[-1] == card:
            pile.append(card)
            collected[seat] += pile
            pile.clear()
            extra = True
        else:
            pile.append(card)
            if not stack and not collected[seat]:
                del seats_in[at]
                if len(seats_in) == 1:
                    break
            else:
                at += 1
        if n >= cap:
            break
        if at >= len(seats_in):
            at = 0
    return n


def bare_simulate(seats: int, games: int, seed: int) -> list[int]:
    rng = Random(seed)
    return [bare_game(seats, rng) for _ in range(games)]


def run_bare(seats: int, games: int, seed: int) -> tuple[float, int]:
    started = time.perf_counter()
    lengths = bare_simulate(seats, games, seed)
    seconds = time.perf_counter() - started
    return sum(lengths) / seconds, sum(lengths)


def run_engine(seats: int, games: int, seed: int) -> tuple[float, int]:
    started = time.perf_counter()
    summary = simulate(seats, games, seed)
    seconds = time.perf_counter() - started
    return summary.reveals / seconds, summary.reveals


def run_engine_logged(seats: int, games: int, seed: int, folder: str) -> tuple[float, int, int]:
    path = os.path.join(folder, f"bench-{seats}.jsonl")
    log = open(path, "wb", buffering=1 << 20)  # noqa: SIM115 (as the command opens it)
    started = time.perf_counter()
    summary = simulate(seats, games, seed, log=log)
    log.close()
    seconds = time.perf_counter() - started
    size = os.path.getsize(path)
    os.remove(path)
    return summary.reveals / seconds, summary.reveals, size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games per run (default 1000)")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats (default 5)")
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4, 6], help="seat counts")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    if args.games < 1 or args.repeats < 1 or not all(2 <= s <= 6 for s in args.seats):
        parser.error("games and repeats at least 1, seats 2 to 6")

    # Sanity: the bare loop plays the very games the engine plays, game by game, so it has the
    # same distribution of game lengths (median, p90, p99, max as simulate reports them).
    sanity = {}
    for seats in args.seats:
        games = min(args.games, 1000)
        bare_lengths = sorted(bare_simulate(seats, games, args.seed))
        rng = Random(args.seed)
        engine_lengths = sorted(Game(seats, rng).play_out().reveals for _ in range(games))
        summary = simulate(seats, games, args.seed)
        figures = [percentile(bare_lengths, q) for q in (0.5, 0.9, 0.99, 1.0)]
        sanity[seats] = bare_lengths == engine_lengths and figures == [
            summary.median, summary.p90, summary.p99, summary.max,
        ]

    speeds: dict[int, dict[str, list[float]]] = {
        seats: {"bare": [], "engine": [], "log": []} for seats in args.seats
    }
    log_bytes: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-simulate-") as folder:
        for repeat in range(args.repeats):
            for seats in args.seats:
                seed = args.seed + repeat
                bare, bare_reveals = run_bare(seats, args.games, seed)
                engine, engine_reveals = run_engine(seats, args.games, seed)
                logged, logged_reveals, size = run_engine_logged(seats, args.games, seed, folder)
                if not bare_reveals == engine_reveals == logged_reveals:
                    sanity[seats] = False
                speeds[seats]["bare"].append(bare)
                speeds[seats]["engine"].append(engine)
                speeds[seats]["log"].append(logged)
                log_bytes[seats] = size / logged_reveals

    rows = {}
    for seats in args.seats:
        bare = statistics.median(speeds[seats]["bare"])
        engine = statistics.median(speeds[seats]["engine"])
        logged = statistics.median(speeds[seats]["log"])
        rows[seats] = {
            "bare_rps": round(bare),
            "engine_rps": round(engine),
            "engine_log_rps": round(logged),
            "ratio": round(engine / bare, 3),
            "log_slowdown": round(engine / logged, 2),
            "log_bytes_per_reveal": round(log_bytes[seats], 1),
            "same_games": sanity[seats],
        }

    print(f"Reveals per second, median of {args.repeats} interleaved runs of {args.games:,} games "
          f"(Python {sys.version.split()[0]}):")
    print()
    header = f"{'seats':>5} | {'bare':>11} | {'engine':>11} | {'engine+log':>11} | "
    header += f"{'engine/bare':>11} | {'log slowdown':>12} | {'same games':>10}"
    print(header)
    print("-" * len(header))
    for seats, row in rows.items():
        print(f"{seats:>5} | {row['bare_rps']:>11,} | {row['engine_rps']:>11,} | "
              f"{row['engine_log_rps']:>11,} | {row['ratio']:>11.2f} | "
              f"{row['log_slowdown']:>11.2f}x | {'yes' if row['same_games'] else 'NO':>10}")
    print()
    worst_ratio = min(row["ratio"] for row in rows.values())
    slowest = min(row["engine_rps"] for row in rows.values())
    worst_log = max(row["log_slowdown"] for row in rows.values())
    same = all(row["same_games"] for row in rows.values())
    checks = [
        (f"engine/bare >= {TARGET_RATIO}", worst_ratio >= TARGET_RATIO, f"worst {worst_ratio:.2f}"),
        (f"engine >= {TARGET_SPEED:,} reveals/s", slowest >= TARGET_SPEED, f"slowest {slowest:,}"),
        (f"log slowdown <= {TARGET_LOG_SLOWDOWN}x", worst_log <= TARGET_LOG_SLOWDOWN,
         f"worst {worst_log:.2f}x"),
        ("bare loop plays the same games", same, "all seat counts" if same else "MISMATCH"),
    ]
    for name, met, detail in checks:
        print(f"{'met ' if met else 'MISS'}  {name}: {detail}")
    print(json.dumps({
        "games": args.games,
        "repeats": args.repeats,
        "seats": {str(seats): row for seats, row in rows.items()},
        "worst_ratio": worst_ratio,
        "slowest_engine_rps": slowest,
        "worst_log_slowdown": worst_log,
        "same_games": same,
        "targets_met": all(met for _, met, _ in checks),
    }, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
