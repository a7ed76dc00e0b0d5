"""What a seat can work out from its view alone: the cards still out, who may hold what, who is winning.

Everything here reads a :class:`~..view.SeatView` and nothing else, and works on card masks
(:mod:`..deck`), so the normal bot, the hints and the strong bot's sampling count the same way.
"""

from __future__ import annotations

from ..deck import FULL_DECK, POWER_OF, SUIT_MASKS
from ..rules import Variant
from ..view import Play, SeatView, trick_leader_so_far

__all__ = [
    "ABOVE",
    "BELOW",
    "HONOUR_POINTS",
    "VOID_CARDS",
    "beats",
    "cheapest",
    "equivalent_groups",
    "face_down_by_others",
    "is_master",
    "later_seats",
    "likely_holds",
    "likely_void",
    "lowest_power",
    "may_hold",
    "suit_count",
    "unseen",
    "winning",
]

VOID_CARDS: tuple[int, ...] = tuple(
    sum(SUIT_MASKS[suit] for suit in range(4) if suits >> suit & 1) for suits in range(16)
)
"""The cards of a 4-bit set of suits (a seat's shown voids as cards it cannot hold)."""

ABOVE: tuple[int, ...] = tuple(SUIT_MASKS[index // 13] & ~((2 << index) - 1) for index in range(52))
"""For each card, the higher cards of its suit."""

BELOW: tuple[int, ...] = tuple(SUIT_MASKS[index // 13] & ((1 << index) - 1) for index in range(52))
"""For each card, the lower cards of its suit."""

HONOUR_POINTS: tuple[int, ...] = tuple(max(0, POWER_OF[index] - 8) for index in range(52))
"""The usual 4-3-2-1 count of the ace, king, queen and jack."""

LIKELY_VOID_AT = 1
"""A seat not known to be void is still taken as likely void when this few cards of the suit are out."""


def unseen(view: SeatView) -> int:
    """Cards another seat may still hold: not in this hand, not seen played, not this seat's set-apart trump.

    Cards another seat played face down are among them too (nobody but their player knows them).
    """
    known = view.hand_mask | view.seen_mask
    if view.own_trump_card >= 0:
        known |= 1 << view.own_trump_card
    return FULL_DECK & ~known


def may_hold(view: SeatView, seat: int, out: int | None = None) -> int:
    """The cards ``seat`` may hold, given the suits it has shown it lacks."""
    if out is None:
        out = unseen(view)
    return out & ~VOID_CARDS[view.voids[seat]]


def face_down_by_others(view: SeatView) -> int:
    """How many cards other seats played face down that this seat never saw."""
    count = sum(1 for trick in view.tricks for played in trick.plays if played.card < 0)
    return count + sum(1 for played in view.current if played.card < 0)


def suit_count(mask: int, suit: int) -> int:
    """How many cards of ``suit`` a mask holds."""
    return (mask & SUIT_MASKS[suit]).bit_count()


def lowest_power(mask: int, avoid_suit: int = -1) -> int:
    """The card of lowest rank in a mask (any suit; ``avoid_suit`` only if nothing else), or -1."""
    best = -1
    best_power = 99
    for suit in range(4):
        cards = mask & SUIT_MASKS[suit]
        if not cards:
            continue
        card = (cards & -cards).bit_length() - 1
        power = POWER_OF[card] + (20 if suit == avoid_suit else 0)
        if power < best_power:
            best, best_power = card, power
    return best


def is_master(card: int, out: int) -> bool:
    """No card still out beats ``card`` in its own suit: it is the highest left of its suit."""
    return not out & ABOVE[card]


def cheapest(mask: int) -> int:
    """The lowest card of a mask that holds cards of one suit, or -1."""
    return (mask & -mask).bit_length() - 1 if mask else -1


def later_seats(view: SeatView) -> tuple[int, ...]:
    """The seats still to play to the current trick after this one."""
    first = len(view.current) + 1
    return tuple((view.leader + position) % 4 for position in range(first, 4))


def winning(view: SeatView) -> tuple[int, int]:
    """(seat, card) winning the current trick so far, or (-1, -1) on lead or when nothing can win yet."""
    position = trick_leader_so_far(view.current, view.trump)
    if position < 0:
        return -1, -1
    played = view.current[position]
    return played.seat, played.card


def trump_after(view: SeatView, card: int) -> int:
    """The trump suit once ``card`` is played: Be-ranga's first card off the led suit makes its suit trumps."""
    if view.trump >= 0 or not view.current or view.trump_hidden or view.rules.variant is not Variant.BE_RANGA:
        return view.trump
    led = view.current[0].card // 13
    return card // 13 if card // 13 != led else -1


def beats(view: SeatView, card: int) -> bool:
    """Whether ``card``, played face up now, would be winning the trick (on lead: always)."""
    if not view.current:
        return True
    trump = trump_after(view, card)
    plays = (*view.current, Play(view.seat, card, False, trump >= 0))
    return trick_leader_so_far(plays, trump) == len(view.current)


def likely_void(view: SeatView, seat: int, suit: int, out: int) -> bool:
    """Whether ``seat`` has shown it lacks ``suit``, or so few of the suit are out that it probably does."""
    if view.voids[seat] >> suit & 1:
        return True
    return (out & SUIT_MASKS[suit]).bit_count() <= LIKELY_VOID_AT


def likely_holds(view: SeatView, card: int, out: int | None = None) -> bool:
    """Whether ``card``, once played and winning, should stay winning against the opponents still to play.

    An opponent can beat it with a higher card of its suit it may hold (when it may follow), or with a
    trump when it probably lacks the suit led; a hidden trump counts only against a seat known void.
    """
    if out is None:
        out = unseen(view)
    team = view.seat % 2
    led = view.current[0].card // 13 if view.current else card // 13
    trump = trump_after(view, card)
    suit = card // 13
    card_is_trump = trump >= 0 and suit == trump
    for seat in later_seats(view):
        if seat % 2 == team:
            continue
        holdable = may_hold(view, seat, out)
        if card_is_trump:
            if holdable & ABOVE[card] and (led == trump or likely_void(view, seat, led, out)):
                return False
            continue
        if holdable & SUIT_MASKS[led] & ABOVE[card]:
            return False
        if not likely_void(view, seat, led, out):
            continue
        if trump >= 0 and holdable & SUIT_MASKS[trump]:
            return False
        if view.trump_hidden and view.voids[seat] >> led & 1:
            return False
        if view.trump < 0 and not view.trump_hidden and view.rules.variant is Variant.BE_RANGA:
            return False
    return True


def equivalent_groups(mask: int, out: int) -> list[int]:
    """The lowest card of each run of cards in ``mask`` that nobody else can split (same suit, no card out between).

    Playing any card of a run changes nothing but which one is seen, so a search looks at one per run.
    """
    groups: list[int] = []
    for suit in range(4):
        cards = mask & SUIT_MASKS[suit]
        previous = -1
        while cards:
            card = (cards & -cards).bit_length() - 1
            cards &= cards - 1
            if previous < 0 or out & ABOVE[previous] & BELOW[card]:
                groups.append(card)
            previous = card
    return groups
