"""The event log: JSON Lines exactly as ``../shared/RULES.md`` specifies.

Writing is on the hot path of ``simulate --jsonl`` (every reveal of every game),
so a whole game's events are encoded in one call; every event already carries its
``game`` number, and the encoder writes cards as their codes because
:class:`~voice_rang.cards.Card` is an enum whose value is the code.

>>> from random import Random
>>> from voice_rang.games.rang_milanti.game import Game
>>> game = Game(2, Random(7), number=3)
>>> lines = encode_events([game.dealt]).decode().splitlines()
>>> lines[0][:60]
'{"event":"deal","seats":["host","guest 1"],"stacks":[26,26],'
>>> decode_line(lines[0])["stacks"]
[26, 26]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from .events import Event

__all__ = ["LogError", "decode_line", "encode_events"]

_ENCODER = msgspec.json.Encoder()


class LogError(ValueError):
    """A line of a log that is not a well-formed event."""


def encode_events(events: Iterable[Event]) -> bytes:
    """Encode events as JSON Lines (one object per line, each ending in a newline)."""
    return _ENCODER.encode_lines(events)


def decode_line(line: str | bytes) -> dict[str, Any]:
    """Read one log line into a plain dict, checking only that it is an event object."""
    try:
        value = msgspec.json.decode(line)
    except msgspec.DecodeError as error:
        raise LogError(f"not JSON: {error}") from None
    if not isinstance(value, dict) or "event" not in value or "game" not in value:
        raise LogError("every log line is an object with 'event' and 'game'")
    return value
