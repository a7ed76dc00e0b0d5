"""How much one guest may send: a token bucket per connection, the limits it applies, and the
screen every frame passes before the server reads it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import msgspec

from .protocol import MAX_CLIENT_MESSAGE, ClientMessage, Problem, decode_client

__all__ = ["Bucket", "Limits", "WrongCodes", "screen"]


@dataclass(frozen=True)
class Limits:
    """How much a guest may send, and how wrong codes are slowed down."""

    rate: float = 20.0
    """Messages a second a guest may send on average …"""
    burst: float = 40.0
    """… with this many at once; more are refused with ``too_fast``."""
    flood: int = 200
    """Refused messages after which the guest is dropped (it may come back with its token)."""
    free_tries: int = 3
    """Wrong codes from one address before each further try must wait."""
    max_wait: float = 60.0
    frame: int = 64 * 1024
    """Frames above this are closed by the WebSocket layer itself."""



@dataclass
class Bucket:
    tokens: float
    at: float
    refused: int = 0
    told: float = field(default=-1e9)
    """When the guest was last told it is too fast (once a second at most)."""

    def allowed(self, limits: Limits) -> bool:
        """Take one message's worth; False when the guest is over its rate."""
        now = time.monotonic()
        self.tokens = min(limits.burst, self.tokens + (now - self.at) * limits.rate)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self.refused += 1
        return False


class WrongCodes:
    """Wrong join codes by address: after a few, each further try waits longer (up to a minute)."""

    def __init__(self, limits: Limits) -> None:
        self._limits = limits
        self._by_address: dict[str, tuple[int, float]] = {}

    def wait(self, address: str) -> int:
        """Seconds this address must still wait before trying a code (0: it may try now)."""
        _count, until = self._by_address.get(address, (0, 0.0))
        left = until - time.monotonic()
        return max(1, round(left)) if left > 0 else 0

    def failed(self, address: str) -> None:
        count, _ = self._by_address.get(address, (0, 0.0))
        count += 1
        wait = 0.0
        if count >= self._limits.free_tries:
            wait = min(self._limits.max_wait, 2.0 ** (count - self._limits.free_tries + 1))
        self._by_address[address] = (count, time.monotonic() + wait)

    def passed(self, address: str) -> None:
        self._by_address.pop(address, None)


def screen(data: str | bytes, bucket: Bucket, limits: Limits) -> ClientMessage | Problem | None:
    """One frame from a guest: the message it holds, or the problem to tell the guest (a
    ``flooding`` problem: close the connection), or ``None`` to drop it without a word (too fast
    again within a second of being told)."""
    if not bucket.allowed(limits):
        if bucket.refused > limits.flood:
            return Problem(code="flooding")
        now = time.monotonic()
        if now - bucket.told <= 1.0:
            return None
        bucket.told = now
        return Problem(code="too_fast")
    size = len(data.encode() if isinstance(data, str) else data)
    if size > MAX_CLIENT_MESSAGE:
        return Problem(code="too_large", detail=str(MAX_CLIENT_MESSAGE))
    try:
        return decode_client(data)
    except msgspec.DecodeError as error:
        return Problem(code="bad_message", detail=str(error)[:200])
