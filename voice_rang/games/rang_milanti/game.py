"""The rules of Rang Milanti as one state machine (see ``../shared/RULES.md``).

A :class:`Game` owns the cards and plays forced turns; it never chooses, reads a
clock or touches I/O. Chance comes only from the ``random.Random`` it is given, so a
seed (or an explicit deck order) replays a game exactly.

The same loop serves a person at the table (one turn at a time, events returned)
and a simulation of millions of games (whole games, events built only when
someone listens). There is no second copy of the rules.

A two-seat game from a stacked deck: the host's four of clubs lands on the
guest's seven of clubs and takes the pile, then turns one more card.

>>> from random import Random
>>> from voice_rang.cards import Card, DECK
>>> first = [Card("KH"), Card("7C"), Card("4C"), Card("2S"), Card("QD")]
>>> deck = first + [c for c in DECK if c not in first]
>>> game = Game(2, Random(1), deck=deck)
>>> game.turn()[0].card, game.turn()[0].card
(Card('KH'), Card('7C'))
>>> capture, extra = game.turn()
>>> capture.card, capture.under, capture.match, capture.moved
(Card('4C'), Card('7C'), True, 3)
>>> extra.card, extra.under, extra.match, game.current_seat
(Card('QD'), None, False, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from random import Random

from ...cards import DECK, Card, DeckError, parse_deck
from .events import Dealt, Event, GameOver, Reshuffled, Revealed, WentOut

__all__ = ["DEFAULT_CAP", "MAX_SEATS", "MIN_SEATS", "Game", "GameFinished", "seat_names"]

DEFAULT_CAP = 5000
MIN_SEATS = 2
MAX_SEATS = 6
_ALL_CARDS = frozenset(DECK)

Emit = Callable[[Event], object]


class GameFinished(Exception):
    """A turn was asked for after the game ended."""


def seat_names(seats: int) -> tuple[str, ...]:
    """The seat names the log uses: the host, then guest 1, guest 2 …

    >>> seat_names(3)
    ('host', 'guest 1', 'guest 2')
    """
    return ("host", *(f"guest {n}" for n in range(1, seats)))


class Game:
    """One game of Rang Milanti for 2-6 seats.

    ``deck`` (optional) is the order of the face-down deck, top first. It is dealt
    one card at a time round the table starting with the host, each card going
    under the ones that seat already has, so in a game without captures the first
    round turns ``deck[0]``, ``deck[1]`` … in order. The cards left over are the
    spares, face up in the middle in deck order, the last one on top.
    """

    def __init__(
        self,
        seats: int,
        rng: Random,
        *,
        deck: Sequence[Card] | None = None,
        cap: int = DEFAULT_CAP,
        number: int = 0,
    ) -> None:
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise ValueError(f"a game has {MIN_SEATS} to {MAX_SEATS} seats, not {seats}")
        if cap < 1:
            raise ValueError(f"the reveal cap must be at least 1, not {cap}")
        if deck is None:
            order = list(DECK)
            rng.shuffle(order)
        else:
            order = list(deck)
            if len(order) != 52 or set(order) != _ALL_CARDS:
                strangers = [item for item in order if not isinstance(item, Card)]
                if strangers:
                    raise DeckError(f"a deck holds Card values, not {strangers[0]!r}")
                order = parse_deck(card.code for card in order)  # raises with the reason
        per_seat = 52 // seats
        self.seats = seats
        self.cap = cap
        self.number = number
        """Which game of a series this is (0 for a single game): every event carries it."""
        self.names = seat_names(seats)
        self._rng = rng
        # A stack is a list whose last element is its top card.
        self._stacks = [order[seat : seats * per_seat : seats][::-1] for seat in range(seats)]
        self._collected: list[list[Card]] = [[] for _ in range(seats)]
        self._stack_n = [len(stack) for stack in self._stacks]
        self._collected_n = [0] * seats
        self._pile = order[seats * per_seat :]
        self._in = list(range(seats))
        self._at = 0
        self.reveals = 0
        self._extra = False
        self.result: GameOver | None = None
        self.dealt = Dealt(
            seats=self.names,
            stacks=self.stack_counts(),
            spares=tuple(self._pile),
            game=number,
        )
        """The deal, as an event: the first thing a log or a narration says."""

    # ----- what anyone at the table may know -------------------------------------------------

    @property
    def current_seat(self) -> int:
        """The seat whose turn it is (meaningless once the game is over)."""
        return self._in[self._at]

    @property
    def seats_in(self) -> tuple[int, ...]:
        """Seats still playing, in turn order."""
        return tuple(self._in)

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def pile_count(self) -> int:
        return len(self._pile)

    @property
    def top_card(self) -> Card | None:
        """The face-up card on top of the pile, or ``None`` when the pile is empty."""
        return self._pile[-1] if self._pile else None

    def stack_counts(self) -> tuple[int, ...]:
        return tuple(self._stack_n)

    def collected_counts(self) -> tuple[int, ...]:
        return tuple(self._collected_n)

    # ----- playing -----------------------------------------------------------------------------

    @property
    def owes_extra_card(self) -> bool:
        """True right after a capture: the same seat must turn one more card onto the empty pile."""
        return self._extra

    def reveal(self) -> list[Event]:
        """Turn one card for the current seat (the card after a capture is its own reveal)."""
        events: list[Event] = []
        self._advance(1, False, events.append)
        return events

    def turn(self) -> list[Event]:
        """Play the current seat's whole turn (its card, and one more after a capture)."""
        events: list[Event] = []
        self._advance(1, True, events.append)
        return events

    def play_out(self, emit: Emit | None = None) -> GameOver:
        """Play every remaining turn; ``emit`` (if given) receives each event as it happens."""
        self._advance(-1, False, emit)
        assert self.result is not None
        return self.result

    def _advance(self, reveals: int, whole_turn: bool, emit: Emit | None) -> None:
        """Turn ``reveals`` cards (``-1``: until the end), or until the game ends.

        With ``whole_turn`` a capture also turns the extra card that ends the turn.
        Written as one flat loop over local variables: this is the hot path of every
        simulation, and attribute look-ups would double its cost.
        """
        if self.result is not None:
            raise GameFinished("the game is over")
        stacks, collected, pile = self._stacks, self._collected, self._pile
        # Counts are kept beside the cards: snapshotting a list of ints is far
        # cheaper than measuring every stack for every reveal event.
        stack_n, collected_n = self._stack_n, self._collected_n
        seats_in, at, n, cap, extra = self._in, self._at, self.reveals, self.cap, self._extra
        number = self.number
        shuffle = self._rng.shuffle
        left = reveals
        while left:
            left -= 1
            seat = seats_in[at]
            stack = stacks[seat]
            if not stack:
                stack = stacks[seat] = collected[seat]
                collected[seat] = []
                shuffle(stack)
                stack_n[seat] = collected_n[seat]
                collected_n[seat] = 0
                if emit is not None:
                    emit(Reshuffled(seat, len(stack), number))
            card = stack.pop()
            stack_n[seat] -= 1
            n += 1
            if extra:
                # The card after a capture starts a new pile: it cannot match.
                extra = False
                pile.append(card)
                if emit is not None:
                    emit(Revealed(n, seat, card, None, False, 0,
                                  tuple(stack_n), tuple(collected_n), 1, number))
                at += 1
            else:
                under = pile[-1] if pile else None
                if under is not None and under.suit is card.suit:
                    pile.append(card)
                    moved = len(pile)
                    collected[seat] += pile
                    collected_n[seat] += moved
                    pile.clear()
                    extra = True
                    if whole_turn:
                        left += 1
                    if emit is not None:
                        emit(Revealed(n, seat, card, under, True, moved,
                                      tuple(stack_n), tuple(collected_n), 0, number))
                else:
                    pile.append(card)
                    if emit is not None:
                        emit(Revealed(n, seat, card, under, False, 0,
                                      tuple(stack_n), tuple(collected_n), len(pile), number))
                    if not stack and not collected[seat]:
                        del seats_in[at]
                        if emit is not None:
                            emit(WentOut(seat, number))
                        if len(seats_in) == 1:
                            break
                    else:
                        at += 1
            if n >= cap:
                break
            if at >= len(seats_in):
                at = 0
        if at >= len(seats_in):
            at = 0
        self._at, self.reveals, self._extra = at, n, extra
        if len(seats_in) == 1 or n >= cap:
            self.result = self._finish()
            if emit is not None:
                emit(self.result)

    def _finish(self) -> GameOver:
        cards = tuple(len(s) + len(c) for s, c in zip(self._stacks, self._collected, strict=True))
        if len(self._in) == 1:
            return GameOver(self.reveals, "last seat", (self._in[0],), cards, self.number)
        most = max(cards)
        winners = tuple(seat for seat, held in enumerate(cards) if held == most)
        return GameOver(self.reveals, "cap", winners, cards, self.number)


