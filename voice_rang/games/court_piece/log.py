"""The event log as JSON Lines, exactly as ``../shared/COURT_PIECE.md`` writes it.

>>> from random import Random
>>> from .rules import Rules
>>> from .session import Session
>>> lines = encode_events(Session(Rules.make(), Random(1), dealer=2).start()).decode().splitlines()
>>> lines[0][:48]
'{"event":"session","variant":"court-piece","opti'
>>> [line[:36] for line in lines[1:]]
['{"event":"deal","dealer":2,"caller":']
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from .events import Event

__all__ = ["encode_events"]

_ENCODER = msgspec.json.Encoder()


def encode_events(events: Iterable[Event]) -> bytes:
    """Events as JSON Lines: one object a line, each ending in a newline."""
    return _ENCODER.encode_lines(events)
