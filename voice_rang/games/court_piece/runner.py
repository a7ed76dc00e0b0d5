"""Play a whole session with computer seats: the loop a simulation and a benchmark share.

Each seat's bot is handed that seat's view and nothing else; its action goes back to
the session through the same :meth:`~.session.Session.apply` a person's key does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from .bots.base import Bot
from .events import Event, SessionEnded
from .session import Session

__all__ = ["DecisionTimes", "play_session"]

DecisionTimes = dict[str, list[float]]
"""Seconds each decision took, by bot level."""


def play_session(
    session: Session,
    bots: Sequence[Bot],
    emit: Callable[[list[Event]], object] | None = None,
    times: DecisionTimes | None = None,
) -> SessionEnded:
    """Play ``session`` to its end with one bot per seat; ``emit`` gets each batch of events as it happens.

    ``times`` (optional) collects the seconds of every decision under the bot's level.
    """
    events = session.start()
    if emit is not None:
        emit(events)
    clock = time.perf_counter
    while True:
        seat = session.to_act
        if seat is None:
            break
        bot = bots[seat]
        if times is None:
            action = bot.decide(session.view(seat))
        else:
            started = clock()
            action = bot.decide(session.view(seat))
            times.setdefault(bot.level, []).append(clock() - started)
        events = session.apply(seat, action)
        if emit is not None:
            emit(events)
    assert session.result is not None
    return session.result
