"""One guest's view of a remote table: host messages in, that seat's messages out.

Pure: no sockets, no clock. The ``join`` client runs one for its own seat; the host runs one
per web page (which has no narrator of its own). It keeps only what anyone at the table may
know (counts, the pile's top card, whose turn), enough to answer ``status`` locally.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..games.rang_milanti import Card, Dealt, Event, GameOver, Revealed, WentOut
from ..games.rang_milanti.narration import RangMilantiNarrator, SeatView
from ..messages import Message, Priority
from ..narration import Narrator
from .protocol import Answer, Auto, Bye, HostMessage, News, Problem, Published, Seats, Turn, Welcome

__all__ = ["MISSED_LINES", "GuestView", "news"]

MISSED_LINES = 5
"""How many of the messages missed while away are said on coming back."""

_KIND_WORDS = {"remote": "remote", "away": "remote", "person": "person", "computer": "computer",
               "open": "computer"}
"""Seat kinds as the narrator words them at the deal ("guest 2 (computer)")."""


def news(narrator: Narrator, key: str, seat: int, name: str) -> Message:
    """Someone joined, left or came back, with the name they gave (if any)."""
    named = narrator.say("net", "named", name=name).text if name else ""
    return narrator.say("net", key, seat, Priority.NORMAL, "news", named=named)


@dataclass
class GuestView:
    """The public state of the table as one seat sees it, and the narrator that words it."""

    narrator: RangMilantiNarrator
    seat: int = -1
    kinds: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    started: bool = False
    game: int = -1
    events_seen: int = 0
    """Events of the current game narrated so far (a reconnect says only what came after)."""
    heard: tuple[int, int] = (-1, 0)
    """(game, events) a page coming back was narrated before this view was made: a host taken up
    again makes again the last reveal or two, and those are brought up to date in silence."""
    reveals: int = 0
    stacks: list[int] = field(default_factory=list)
    collected: list[int] = field(default_factory=list)
    out: set[int] = field(default_factory=set)
    pile: int = 0
    top: Card | None = None
    turn: int | None = None
    extra: bool = False
    auto: list[bool] = field(default_factory=list)
    over: bool = False

    @property
    def my_auto(self) -> bool:
        return 0 <= self.seat < len(self.auto) and self.auto[self.seat]

    def messages(self, message: HostMessage) -> list[Message]:
        """What this seat hears about one host message (and the state brought up to date)."""
        if isinstance(message, Published):
            lines = []
            for event in message.events:
                said = self._event(event)
                if not self._heard_before():
                    lines.extend(said)
            if message.turn is not None:
                lines.extend(self._turn(message.turn))
            return lines
        if isinstance(message, Turn):
            return self._turn(message)
        if isinstance(message, Auto):
            self.auto = list(message.on)
            return []
        if isinstance(message, Seats):
            self._seats(message)
            return []
        if isinstance(message, News):
            if message.seat == self.seat:
                return []  # its own coming and going: the welcome says it
            return [news(self.narrator, message.key, message.seat, message.name)]
        if isinstance(message, Answer):
            fields: dict[str, Any] = dict(message.fields)
            return [self.narrator.say(message.section, message.key, message.seat, **fields)]
        if isinstance(message, Problem):
            return [self.narrator.say("net_error", message.code, detail=message.detail,
                                      seconds=message.seconds, host_version=message.host_version)]
        if isinstance(message, Bye):
            return [self.narrator.say("net", f"bye_{message.reason}")]
        if isinstance(message, Welcome):
            return self._welcome(message)
        return []

    # ----- parts -----------------------------------------------------------------------------

    def _seats(self, message: Seats) -> None:
        self.kinds[:] = message.kinds
        self.names = list(message.names)
        # The narrator's kinds list introduces the table at the deal.
        self.narrator.kinds = [_KIND_WORDS.get(kind, kind) for kind in message.kinds]

    def _welcome(self, message: Welcome) -> list[Message]:
        self.seat = message.seat
        self.narrator.listener = message.seat
        self.narrator.seats = len(message.seats.kinds)
        self.narrator.cap = message.cap
        self._seats(message.seats)
        lines = [self.narrator.say("net", "welcome", message.seat, Priority.URGENT, "news",
                                   number=message.seat, seats=len(message.seats.kinds))]
        if not message.started:
            lines.append(self.narrator.say("net", "waiting_for_start", kind="news"))
            return lines
        # Taken back mid-game: catch up in silence, then say the last few messages missed.
        first_game = message.events[0].game if message.events else self.game
        skip = self.events_seen if first_game == self.game else 0
        if first_game == self.heard[0]:
            skip = max(skip, self.heard[1])
        missed: list[Message] = []
        for index, event in enumerate(message.events):
            said = self._event(event)
            if index >= skip:
                missed.extend(said)
        if message.turn is not None:
            self.turn, self.extra = message.turn.seat, message.turn.extra
        self.auto = list(message.auto)
        if missed:
            lines.append(self.narrator.say("net", "missed", kind="news", count=len(missed),
                                           last=min(len(missed), MISSED_LINES)))
            lines.extend(missed[-MISSED_LINES:])
        if message.turn is not None:
            lines.extend(self._turn(message.turn))
        return lines

    def _heard_before(self) -> bool:
        """The event just taken in is one this page was narrated before it came back."""
        return self.game == self.heard[0] and self.events_seen <= self.heard[1]

    def _event(self, event: Event) -> list[Message]:
        if isinstance(event, Dealt):
            self.started, self.over = True, False
            self.game, self.events_seen = event.game, 0
            seats = len(event.seats)
            self.stacks, self.collected = list(event.stacks), [0] * seats
            self.out, self.reveals = set(), 0
            self.pile, self.top = len(event.spares), (event.spares[-1] if event.spares else None)
            self.turn, self.extra, self.auto = 0, False, [False] * seats
        elif isinstance(event, Revealed):
            self.reveals, self.pile = event.n, event.pile
            self.stacks, self.collected = list(event.stacks), list(event.collected)
            self.top = None if event.pile == 0 else event.card
        elif isinstance(event, WentOut):
            self.out.add(event.seat)
        elif isinstance(event, GameOver):
            self.over, self.turn = True, None
        self.events_seen += 1
        return self.narrator.event(event)

    def _turn(self, message: Turn) -> list[Message]:
        self.turn, self.extra = message.seat, message.extra
        if self.over:
            return []
        if message.seat == self.seat:
            if self.my_auto:
                return []
            return [self.narrator.turn_prompt(self.seat, message.extra)]
        kind = self.kinds[message.seat] if message.seat < len(self.kinds) else "computer"
        waits = kind in ("person", "remote", "away") and not (
            message.seat < len(self.auto) and self.auto[message.seat])
        if not waits:
            return []
        return [self.narrator.say("status", "turn", message.seat, Priority.CHATTY, "turn")]

    def status(self) -> list[Message]:
        """The board as this seat may know it: the same lines as ``status`` in ``play``."""
        if not self.started:
            return [self.narrator.say("net", "waiting_for_start", kind="status")]
        views = [SeatView(seat, self.stacks[seat], self.collected[seat], seat in self.out,
                          seat < len(self.auto) and self.auto[seat])
                 for seat in range(len(self.stacks))]
        return self.narrator.status(self.reveals, None if self.over else self.turn, views, self.pile,
                                    self.top)
