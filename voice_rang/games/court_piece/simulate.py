"""Whole sessions between computer seats, summarised: how deals end, who wins, how fast bots think.

Two levels sit as the two teams; they swap teams from one session to the next so that
neither is flattered by where it sits, and each session's ``players`` in the log says
who sat where. Everything runs through the real engine and the real bots.

>>> summary = simulate(Rules.make(), sessions=2, seed=1, levels=("easy", "random"))
>>> summary.sessions, sum(summary.sessions_won.values()) + summary.no_winner
(2, 2)
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from random import Random

from .bots import make_bot
from .events import DealEnded, Event, TrickWon
from .rules import Rules
from .runner import DecisionTimes, play_session
from .session import SEAT_NAMES, Session

__all__ = ["LevelTimes", "Summary", "simulate"]


@dataclass(frozen=True)
class LevelTimes:
    """One level's thinking time: decisions made, median and 95th percentile in seconds."""

    decisions: int
    median: float
    p95: float


@dataclass(frozen=True)
class Summary:
    """What a batch of sessions came to."""

    rules: dict[str, object]
    levels: tuple[str, str]
    sessions: int
    deals: int
    tricks: int
    deal_kinds: dict[str, int]
    sessions_won: dict[str, int]
    no_winner: int
    deals_won: dict[str, int]
    decisions: int
    seconds: float
    times: dict[str, LevelTimes] = field(default_factory=dict)

    @property
    def deals_per_second(self) -> float:
        return self.deals / self.seconds if self.seconds > 0 else float("inf")

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds > 0 else float("inf")

    def as_dict(self) -> dict[str, object]:
        value = asdict(self)
        value["deals_per_second"] = round(self.deals_per_second, 1)
        value["decisions_per_second"] = round(self.decisions_per_second, 1)
        return value


def _percentile(ordered: list[float], fraction: float) -> float:
    index = min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[index]


def seat_levels(levels: tuple[str, str], session: int) -> tuple[str, str, str, str]:
    """The level at each seat in session ``session``: team 0 (seats 0, 2) gets ``levels[0]`` in even sessions.

    >>> seat_levels(("strong", "normal"), 0), seat_levels(("strong", "normal"), 1)
    (('strong', 'normal', 'strong', 'normal'), ('normal', 'strong', 'normal', 'strong'))
    """
    first, second = levels if session % 2 == 0 else (levels[1], levels[0])
    return (first, second, first, second)


def simulate(
    rules: Rules,
    sessions: int,
    seed: int,
    levels: tuple[str, str] = ("normal", "normal"),
    emit: Callable[[list[Event]], object] | None = None,
    progress: Callable[[int, int], None] | None = None,
    time_decisions: bool = True,
) -> Summary:
    """Play ``sessions`` sessions of ``rules``; every event goes to ``emit`` if given (sessions numbered from 0)."""
    deck_rng = Random(seed)
    kinds: Counter[str] = Counter()
    won: Counter[str] = Counter()
    deals_won: Counter[str] = Counter()
    no_winner = deals = tricks = decisions = 0
    times: DecisionTimes = {}
    started = time.perf_counter()
    for number in range(sessions):
        at_seats = seat_levels(levels, number)
        bots = [make_bot(level, Random(f"{seed}:{number}:{seat}")) for seat, level in enumerate(at_seats)]
        session = Session(rules, deck_rng, seats=SEAT_NAMES, players=at_seats, number=number)
        tally = _Tally(at_seats, emit)
        result = play_session(session, bots, emit=tally.take, times=times if time_decisions else None)
        for kind, count in tally.kinds.items():
            kinds[kind] += count
        for level, count in tally.deals_won.items():
            deals_won[level] += count
        deals += tally.deals
        tricks += tally.tricks
        decisions += tally.decisions
        if result.winner is None:
            no_winner += 1
        else:
            won[at_seats[result.winner]] += 1
        if progress is not None:
            progress(number + 1, sessions)
    seconds = time.perf_counter() - started
    level_times = {
        level: LevelTimes(len(values), statistics.median(values), _percentile(sorted(values), 0.95))
        for level, values in times.items()
    }
    named = dict.fromkeys(levels, 0)
    return Summary(
        rules={"variant": rules.variant.value, "options": rules.options.as_log(), "scoring": rules.scoring.as_log()},
        levels=levels,
        sessions=sessions,
        deals=deals,
        tricks=tricks,
        deal_kinds={kind: kinds.get(kind, 0) for kind in ("win", "court", "goon court", "52-court")},
        sessions_won={**named, **won},
        no_winner=no_winner,
        deals_won={**named, **deals_won},
        decisions=decisions,
        seconds=seconds,
        times=level_times,
    )


class _Tally:
    """Counts what a session's events show, passing them on to ``emit``."""

    def __init__(self, at_seats: tuple[str, ...], emit: Callable[[list[Event]], object] | None) -> None:
        self.at_seats = at_seats
        self.emit = emit
        self.kinds: Counter[str] = Counter()
        self.deals_won: Counter[str] = Counter()
        self.deals = self.tricks = 0
        self.decisions = -1  # the first batch is the opening, not a decision

    def take(self, events: list[Event]) -> None:
        self.decisions += 1
        for event in events:
            if isinstance(event, TrickWon):
                self.tricks += 1
            elif isinstance(event, DealEnded):
                self.deals += 1
                self.kinds[event.kind] += 1
                self.deals_won[self.at_seats[event.winner]] += 1
        if self.emit is not None:
            self.emit(events)
