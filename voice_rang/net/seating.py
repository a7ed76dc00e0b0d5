"""Who sits where at a hosted table: the seats, their secret tokens and names, the join code.

It only decides: which seat a hello with the join code takes (or why not), which seat a token
belongs to, what the seats are once the game starts, and what they are when a saved game is
taken up again. The server (:mod:`voice_rang.net.server`) does what the decisions mean on the
wire: the welcome, the news, the seats message.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .limits import Limits, WrongCodes
from .protocol import ErrorCode, SeatKindName, Seats

if TYPE_CHECKING:
    from aiohttp import web

    from .view import GuestView

__all__ = ["Seat", "SeatHooks", "Seating", "plain_code"]


def plain_code(typed: str) -> str:
    """A join code as typed, in ASCII digits: the host may say it in its language's own digits
    (Bengali ৪ ৭ ১ ৯) and a guest may type it so, or with spaces as it was said.

    >>> plain_code("৪ ৭ ১ ৯"), plain_code(" 4719 ")
    ('4719', '4719')
    """
    return "".join(str(int(ch)) if ch.isdecimal() else ch for ch in typed if not ch.isspace())


@dataclass
class SeatHooks:
    """What the server asks of the table's side: each runs on the table's thread."""

    joined: Callable[[int, str, str], None]
    """A guest took the seat: its number, name and secret token (kept in the table's save)."""
    back: Callable[[int], None]
    gone: Callable[[int, bool], None]
    """The guest left (``True``: for good, or its grace ran out): a computer plays the seat."""
    left_lobby: Callable[[int, str], None]
    dropped: Callable[[int], None]
    """The guest's connection ended without a goodbye: the grace starts."""
    command: Callable[[int, str], None]
    """A guest's command, for its own seat."""
    swapped: Callable[[int, int], None] | None = None
    """In the lobby, two seats changed places (who partners whom at Court Piece)."""


@dataclass
class Seat:
    token: str = ""
    name: str = ""
    kind: SeatKindName = "open"
    socket: web.WebSocketResponse | None = None
    view: GuestView | None = None
    """For a narrated guest (a web page): the host words its messages."""
    grace: asyncio.TimerHandle | None = None


@dataclass(frozen=True)
class Refusal:
    """Why a hello takes no seat (and, for too many wrong codes, how long to wait)."""

    code: ErrorCode
    seconds: int = 0


class Seating:
    """The seats of one table: seat 0 is the host's person, the rest are guests' or computers'."""

    def __init__(self, seats: int, code: str, limits: Limits) -> None:
        self.code = code
        self.seats = [Seat(kind="person")] + [Seat() for _ in range(seats - 1)]
        self.started = False
        self._wrong = WrongCodes(limits)

    def by_token(self, token: str) -> int | None:
        """The guest seat whose secret this is, if any."""
        return next((number for number, seat in enumerate(self.seats)
                     if number and seat.token and secrets.compare_digest(seat.token, token)), None)

    def admit(self, code: str | None, address: str, name: str) -> int | Refusal:
        """Seat a guest that gave the join code (a fresh secret token for it), or say why not.
        Wrong codes from one address are slowed down."""
        waiting = self._wrong.wait(address)
        if waiting:
            return Refusal("wait", waiting)
        if code is None or not secrets.compare_digest(plain_code(code).encode(), self.code.encode()):
            self._wrong.failed(address)
            return Refusal("wrong_code")
        self._wrong.passed(address)
        if self.started:
            return Refusal("started")
        number = next((n for n, seat in enumerate(self.seats) if seat.kind == "open"), None)
        if number is None:
            return Refusal("full")
        seat = self.seats[number]
        seat.token, seat.name, seat.kind = secrets.token_urlsafe(18), name, "remote"
        return number

    def start(self) -> None:
        """The game is dealt: seats nobody took are computers' from now on."""
        self.started = True
        for seat in self.seats[1:]:
            if seat.kind == "open":
                seat.kind = "computer"

    def resume(self, guests: list[tuple[str, str]]) -> list[int]:
        """A saved game taken up again: each guest seat's (token, name) as it was saved. A seat
        with a token waits for its guest (away, within the grace); the rest are computers'.
        The seats that wait."""
        self.started = True
        waiting = []
        for number, (token, name) in enumerate(guests, start=1):
            seat = self.seats[number]
            seat.token, seat.name = token, name
            seat.kind = "away" if token else "computer"
            if token:
                waiting.append(number)
        return waiting

    def message(self) -> Seats:
        return Seats(kinds=[seat.kind for seat in self.seats], names=[seat.name for seat in self.seats])
