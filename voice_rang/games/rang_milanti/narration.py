"""Rang Milanti in words: its events, its turn prompt and its status, for one listener.

:class:`RangMilantiNarrator` is the table's :class:`~voice_rang.narration.Narrator` (seat names,
card words, the filling in of templates) with Rang Milanti's own messages: ``[messages.reveal]``,
``[messages.events]``, ``[messages.prompt]`` and ``[messages.status]`` of ``prompts/<lang>.toml``.
It reads only events and the counts anyone at the table may know; it never sees a stack's order,
because events never carry it.

>>> from random import Random
>>> from voice_rang.cards import Card
>>> from voice_rang.games.rang_milanti import DECK, Game
>>> first = [Card("KH"), Card("KS")]
>>> game = Game(2, Random(0), deck=first + [c for c in DECK if c not in first])
>>> narrator = RangMilantiNarrator.load("en", seats=2)
>>> [m.text for m in narrator.event(game.reveal()[0])]
['You turned the king of hearts onto the empty pile: nothing to match, a new pile of 1 starts. Reveal 1 of 5,000.']
>>> print(narrator.event(game.reveal()[0])[0].text)  # doctest: +NORMALIZE_WHITESPACE
Guest 1 turned the king of spades onto the king of hearts: spades on hearts, a miss;
the pile grows to 2. Reveal 2 of 5,000.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...cards import Card
from ...messages import Message, Priority
from ...narration import Narrator
from .events import Dealt, Event, GameOver, Reshuffled, Revealed, WentOut
from .game import DEFAULT_CAP

__all__ = ["NUMBER_EVERY", "RangMilantiNarrator", "SeatView"]

NUMBER_EVERY = 50
"""With sounds on (below full verbosity) "Reveal n of 5,000" is said on every 50th reveal, on the
first, and on each of the last 50 before the cap."""


@dataclass(frozen=True)
class SeatView:
    """What anyone may know of one seat, for the status report."""

    seat: int
    stack: int
    collected: int
    out: bool
    auto: bool


@dataclass
class RangMilantiNarrator(Narrator):
    """Rang Milanti's messages for one listener (``listener=None``: every seat named)."""

    cap: int = DEFAULT_CAP
    """The game's cap on reveals: "Reveal n of 5,000", and every message's ``{cap}``."""
    _last_card: Card | None = field(default=None, init=False, repr=False, compare=False)
    """The card of the reveal this narrator spoke of last, while nothing else was said since:
    a brief miss onto that very card need only name the new suit (:meth:`_revealed`)."""

    def _fields(self, seat: int | None = None, **extra: Any) -> dict[str, Any]:
        return super()._fields(seat, **{"cap": self.cap, **extra})

    def say(
        self,
        section: str,
        key: str,
        seat: int | None = None,
        priority: Priority = Priority.URGENT,
        kind: str = "answer",
        **extra: Any,
    ) -> Message:
        self._last_card = None
        return super().say(section, key, seat, priority, kind, **extra)

    def number_due(self, n: int) -> bool:
        """Whether the reveal sentence for reveal ``n`` ends with "Reveal n of 5,000": always
        without sounds or at full verbosity; with sounds on the first, every 50th, and each of
        the last 50 before the cap (``status`` always says it)."""
        if not self.sounds or self.verbosity == "full":
            return True
        return n == 1 or n % NUMBER_EVERY == 0 or n > self.cap - NUMBER_EVERY

    # ----- events --------------------------------------------------------------------------

    def event(self, event: Event) -> list[Message]:
        """What the listener hears about one event."""
        if isinstance(event, Revealed):
            return self._revealed(event)
        if isinstance(event, Dealt):
            return self._dealt(event)
        if isinstance(event, Reshuffled):
            return [self._cued(self.say("events", "reshuffle", event.seat, Priority.NORMAL,
                                        "reshuffle", cards=event.cards), "reshuffle")]
        if isinstance(event, WentOut):
            return [self._cued(self.say("events", "out", event.seat, Priority.NORMAL, "out"), "out")]
        if isinstance(event, GameOver):
            return [self._game_over(event)]
        raise TypeError(f"no narration for {event!r}")  # pragma: no cover

    def _revealed(self, event: Revealed) -> list[Message]:
        if event.match:
            kind = "match"
        elif event.under is None:
            # The pile is empty only before the first card and right after a capture, so a
            # later card onto an empty pile is always the one more card after a capture.
            kind = "extra" if event.n > 1 else "empty"
        else:
            kind = "miss"
        level = "brief" if self.verbosity == "brief" else "normal"
        number = self.number_due(event.n)
        fields = self._fields(
            event.seat,
            card=self.card(event.card),
            suit=self.suit(event.card),
            under=self.card(event.under) if event.under is not None else "",
            under_suit=self.suit(event.under) if event.under is not None else "",
            n=event.n,
            moved=event.moved,
            pile=event.pile,
        )
        if number:
            key = f"{kind}.{level}"
        elif kind == "miss" and level == "brief" and event.under == self._last_card:
            # The card underneath was the last thing said, so the listener has just heard it.
            key = "sounds.miss.chained"
        else:
            key = f"sounds.{kind}.{level}"
        text = self._template("reveal", key, event.seat).format(**fields)
        self._last_card = event.card
        cue = ""
        if self.sounds:
            yours = event.seat == self.listener
            if event.match:
                # the cue's name and the cards moved: voice_rang.speech.cues makes the sound
                cue = f"capture {'you' if yours else 'other'} {event.moved}"
            elif event.under is not None:
                cue = "miss you" if yours else "miss"
        messages = [Message(self._finish(text), Priority.NORMAL, f"reveal {kind}", cue)]
        if self.verbosity == "full":
            messages.append(self._counts(event))
        return messages

    def _counts(self, event: Revealed) -> Message:
        item = self._template("reveal", "count_item")
        stacks = [item.format(who=self.seat_name(s), count=c) for s, c in enumerate(event.stacks)]
        collected = [
            item.format(who=self.seat_name(s), count=c) for s, c in enumerate(event.collected)
        ]
        text = self._template("reveal", "counts").format(
            stacks=self.join(stacks), collected=self.join(collected), pile=event.pile
        )
        return Message(self._finish(text), Priority.CHATTY, "counts")

    def _dealt(self, event: Dealt) -> list[Message]:
        seats = len(event.seats)
        messages = [
            self.say("events", "deal", 0, Priority.NORMAL, "deal", seats=seats, each=event.stacks[0])
        ]
        if self.kinds:
            kind_words = self._words
            items = [
                self._template("events", "seat_item").format(
                    who=self.seat_name(seat), kind=kind_words.get(self.kinds[seat], self.kinds[seat])
                )
                for seat in range(seats)
            ]
            messages.append(self.say("events", "seats", None, Priority.NORMAL, "deal",
                                     list=self.join(items)))
        spares = [self.card(card) for card in event.spares]
        if not spares:
            messages.append(self.say("events", "spares_none", None, Priority.NORMAL, "deal"))
        elif len(spares) == 1:
            messages.append(self.say("events", "spare_one", None, Priority.NORMAL, "deal",
                                     top=spares[0]))
        else:
            messages.append(self.say("events", "spares", None, Priority.NORMAL, "deal",
                                     count=len(spares), list=self.join(spares), top=spares[-1]))
        return messages

    def _game_over(self, event: GameOver) -> Message:
        holdings = self.say(
            "events", "holdings", list=self.join(
                [f"{self.seat_name(seat)} {cards}" for seat, cards in enumerate(event.cards)]
            )
        ).text
        won = self.listener is None or self.listener in event.winners
        cue = "won" if won else "lost"
        if event.reason == "last seat":
            winner = event.winners[0]
            return self._cued(self.say("events", "end_last", winner, Priority.URGENT, "end",
                                       n=event.reveals), cue)
        most = event.cards[event.winners[0]]
        if len(event.winners) == 1:
            return self._cued(self.say("events", "end_cap", event.winners[0], Priority.URGENT, "end",
                                       cards=most, holdings=holdings), cue)
        names = self.join([self.seat_name(seat) for seat in event.winners])
        return self._cued(self.say("events", "end_cap_shared", None, Priority.URGENT, "end",
                                   list=names, cards=most, holdings=holdings), cue)

    def _cued(self, message: Message, cue: str) -> Message:
        """``message`` with ``cue`` when sounds are on."""
        return replace(message, cue=cue) if self.sounds else message

    # ----- the table's own messages --------------------------------------------------------

    def turn_prompt(self, seat: int, extra: bool) -> Message:
        """Whose turn it is and what they can do now."""
        if seat == self.listener:
            key = "your_extra" if extra else "your_turn"
        else:
            key = "seat_extra" if extra else "seat_turn"
        message = self.say("prompt", key, seat, Priority.URGENT, "your turn")
        return self._cued(message, "your turn") if seat == self.listener or self.listener is None else message

    def status(self, n: int, turn: int | None, seats: Sequence[SeatView],
               pile: int, top: Card | None) -> list[Message]:
        """Reveal n of the cap, whose turn, every seat's counts, and the pile."""
        lines = [self.say("status", "reveal", n=n, kind="status")]
        if turn is None:
            lines.append(self.say("status", "over", kind="status"))
        else:
            lines.append(self.say("status", "turn", turn, kind="status"))
        for view in seats:
            if view.out:
                lines.append(self.say("status", "seat_out", view.seat, kind="status"))
            else:
                flags = self._template("status", "auto_flag") if view.auto else ""
                lines.append(self.say("status", "seat", view.seat, kind="status",
                                      stack=view.stack, collected=view.collected, flags=flags))
        if top is None:
            lines.append(self.say("status", "pile_empty", kind="status"))
        else:
            key = "pile_one" if pile == 1 else "pile"
            lines.append(self.say("status", key, kind="status", count=pile, top=self.card(top)))
        return lines
