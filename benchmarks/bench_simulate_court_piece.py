"""How fast does ``voice-rang simulate court-piece`` play with easy computer seats?

    .venv/bin/python benchmarks/bench_simulate_court_piece.py [--sessions N] [--repeats R]

In one process, three runs are interleaved over several repeats, each playing the same seeded
sessions of plain Court Piece through the real engine (``voice_rang.games.court_piece.simulate``):

* **random**: every seat a uniformly random legal player, the cheapest policy there is: the
  baseline, which measures the engine and the views it hands out;
* **easy**: every seat the easy computer player, the configuration of the target;
* **easy+log**: the same with every event written to a real file as JSON Lines, the code path of
  ``--jsonl``.

Target: easy >= 2,000 deals a second on this machine (2 cores); the table also gives easy against
random, so a slower machine still shows where the time goes. Best of the repeats; the last line is
one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voice_rang.games.court_piece.log import encode_events
from voice_rang.games.court_piece.rules import Rules
from voice_rang.games.court_piece.simulate import simulate

TARGET_DEALS_PER_SECOND = 2000


def one_run(kind: str, sessions: int, seed: int, folder: Path) -> tuple[float, int]:
    """Seconds and deals of one run."""
    levels = ("random", "random") if kind == "random" else ("easy", "easy")
    started = time.perf_counter()
    if kind == "easy+log":
        with open(folder / "log.jsonl", "wb", buffering=1 << 20) as log:
            summary = simulate(Rules.make(), sessions, seed, levels, emit=lambda events: log.write(
                encode_events(events)), time_decisions=False)
    else:
        summary = simulate(Rules.make(), sessions, seed, levels, time_decisions=False)
    return time.perf_counter() - started, summary.deals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.repeats):
            for kind in ("random", "easy", "easy+log"):
                seconds, deals = one_run(kind, args.sessions, args.seed, Path(folder))
                best[kind] = max(best.get(kind, 0.0), deals / seconds)
    for kind, speed in best.items():
        print(f"{kind:9} {speed:8,.0f} deals a second")
    verdict = {
        "deals_per_second": {kind: round(speed) for kind, speed in best.items()},
        "easy_vs_random": round(best["easy"] / best["random"], 3),
        "log_slowdown": round(best["easy"] / best["easy+log"], 3),
        "target_met": best["easy"] >= TARGET_DEALS_PER_SECOND,
    }
    print(f"Easy computer seats: {best['easy']:,.0f} deals a second ({verdict['easy_vs_random']:.2f} of the random "
          f"baseline's speed); the target of {TARGET_DEALS_PER_SECOND:,} is "
          f"{'met' if verdict['target_met'] else 'not met'}.")
    print(json.dumps(verdict))
    return 0


if __name__ == "__main__":
    sys.exit(main())
