"""Play many games quickly and summarise how long they run and who wins.

This is how the game-length claims of the rules are checked, so it runs the real
engine (no copy of the rules) and only builds events when a log is asked for.

>>> summary = simulate(seats=2, games=20, seed=1)
>>> summary.games, sum(summary.wins) >= 20, summary.capped
(20, True, 0)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from random import Random
from typing import BinaryIO

from .events import Event
from .game import DEFAULT_CAP, Game
from .log import encode_events

__all__ = ["Summary", "percentile", "simulate"]

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Summary:
    """What a batch of games came to. ``wins`` counts a shared win for each winner."""

    seats: int
    games: int
    median: int
    p90: int
    p99: int
    max: int
    capped: int
    wins: list[int]
    shared: int
    reveals: int
    seconds: float
    reveals_per_second: float

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def percentile(ordered: list[int], fraction: float) -> int:
    """Nearest-rank percentile of an already sorted list.

    >>> percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5), percentile([5], 0.99)
    (5, 5)
    """
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def simulate(
    seats: int,
    games: int,
    seed: int,
    cap: int = DEFAULT_CAP,
    log: BinaryIO | None = None,
    progress: Progress | None = None,
    progress_every: float = 2.0,
) -> Summary:
    """Play ``games`` games from one generator seeded with ``seed``.

    ``log`` receives every event as JSON Lines, games numbered from 0.
    ``progress(done, games)`` is called at most every ``progress_every`` seconds.
    """
    rng = Random(seed)
    lengths: list[int] = []
    wins = [0] * seats
    shared = capped = 0
    started = last_report = time.perf_counter()
    for number in range(games):
        game = Game(seats, rng, cap=cap, number=number)
        if log is None:
            result = game.play_out()
        else:
            events: list[Event] = [game.dealt]
            result = game.play_out(events.append)
            log.write(encode_events(events))
        lengths.append(result.reveals)
        capped += result.reason == "cap"
        shared += len(result.winners) > 1
        for seat in result.winners:
            wins[seat] += 1
        if progress is not None and number % 256 == 255:
            now = time.perf_counter()
            if now - last_report >= progress_every:
                last_report = now
                progress(number + 1, games)
    seconds = time.perf_counter() - started
    lengths.sort()
    total = sum(lengths)
    return Summary(
        seats=seats,
        games=games,
        median=percentile(lengths, 0.5),
        p90=percentile(lengths, 0.9),
        p99=percentile(lengths, 0.99),
        max=lengths[-1],
        capped=capped,
        wins=wins,
        shared=shared,
        reveals=total,
        seconds=seconds,
        reveals_per_second=total / seconds if seconds > 0 else float("inf"),
    )
