"""The normal level: a careful club player who counts cards and voids but never looks ahead.

From its view alone it knows which cards are still out and who has shown a void. It wins a
trick with the cheapest card that should hold, never overtakes a partner who is winning,
cashes the highest card left of a suit when it leads, draws trumps when it holds the top
one and length, leads into its partner's void, and throws from short weak suits. In the
Double Sir games it values a trick by who would take the centre; with a hidden trump it asks
for it, reveals it or plays face down by the same reckoning.
"""

from __future__ import annotations

from random import Random

from ..actions import Action, PlayCard
from ..deck import POWER_OF, SUIT_MASKS, SUITS, bits
from ..rules import Variant
from ..view import PLAY, PLAY_FACE_DOWN, REVEAL, Phase, SeatView
from .base import Explanation
from .centre import collects
from .counting import (
    beats,
    is_master,
    likely_holds,
    may_hold,
    unseen,
    winning,
)
from .reasons import describe, explain_trump, gone_above, play_explanation
from .trumps import best_suit, trump_action

__all__ = ["NormalBot", "discard_card", "normal_choice"]

DRAW_TRUMPS_WITH = 3
"""Trumps in hand (the top one among them) before leading them to draw the opponents'."""
REVEAL_ON_LEAD_WITH = 5
"""Trumps (the set-apart card included) before a hidden trump's caller shows it on lead to draw trumps."""


class NormalBot:
    """Counts, wins cheaply, respects its partner's winners; explains each choice by the rule it followed."""

    level = "normal"

    def __init__(self, rng: Random) -> None:
        self._rng = rng

    def decide(self, view: SeatView) -> Action:
        return normal_choice(view)[0]

    def explain(self, view: SeatView, action: Action) -> Explanation:
        chosen, why = normal_choice(view)
        return why if chosen == action else describe(view, action)


def normal_choice(view: SeatView) -> tuple[Action, Explanation]:
    """The normal level's action in this view and the rule that chose it."""
    if view.phase is Phase.TRUMP:
        action = trump_action(view.choices, view.hand_mask, careful=True)
        return action, explain_trump(view, action, careful=True)
    out = unseen(view)
    if view.legal_mask.bit_count() == 1 and not view.may_reveal:
        card = view.legal_mask.bit_length() - 1
        return _play(view, card), play_explanation("only card", card)
    if not view.current:
        return _lead(view, out)
    led = view.current[0].card // 13
    follow = view.legal_mask & SUIT_MASKS[led]
    if follow:
        return _follow(view, follow, out)
    return _void(view, out)


def _play(view: SeatView, card: int) -> PlayCard:
    return PLAY_FACE_DOWN[card] if view.face_down_only else PLAY[card]


def _own_trump(view: SeatView) -> int:
    """The trump suit this seat knows: the one everyone knows, or its own face-down card's."""
    if view.trump >= 0:
        return view.trump
    return view.own_trump_card // 13 if view.own_trump_card >= 0 else -1


# ----- leading ---------------------------------------------------------------------------


def _lead(view: SeatView, out: int) -> tuple[Action, Explanation]:
    legal = view.legal_mask
    trump = view.trump
    opponents = ((view.seat + 1) % 4, (view.seat + 3) % 4)
    own_trump = _own_trump(view)
    if view.may_reveal and own_trump >= 0:
        trumps = (view.hand_mask & SUIT_MASKS[own_trump]).bit_count() + 1
        if trumps >= REVEAL_ON_LEAD_WITH:
            return REVEAL, Explanation("reveal lead", suit=SUITS[own_trump])
    if trump >= 0:
        mine = legal & SUIT_MASKS[trump]
        if mine and any(may_hold(view, seat, out) & SUIT_MASKS[trump] for seat in opponents):
            top = mine.bit_length() - 1
            if is_master(top, out) and (mine.bit_count() >= DRAW_TRUMPS_WITH or legal == mine):
                return _play(view, top), play_explanation("draw trumps", top, suit=trump)
    cashes: list[tuple[int, int]] = []
    for suit in range(4):
        cards = legal & SUIT_MASKS[suit]
        if not cards or suit == trump:
            continue
        top = cards.bit_length() - 1
        if is_master(top, out) and not _ruff_risk(view, suit, out, opponents):
            cashes.append(((out & SUIT_MASKS[suit]).bit_count(), top))
    if cashes:
        top = max(cashes)[1]
        return _play(view, top), play_explanation("master", top, cards=gone_above(top, view)[:1], suit=top // 13)
    partner = view.partner
    if trump >= 0 and not view.voids[partner] >> trump & 1:
        for suit in range(4):
            cards = legal & SUIT_MASKS[suit]
            opponents_follow = not any(view.voids[seat] >> suit & 1 for seat in opponents)
            if cards and suit != trump and view.voids[partner] >> suit & 1 and opponents_follow:
                low = (cards & -cards).bit_length() - 1
                return _play(view, low), play_explanation("partner void", low, suit=suit, seat=partner)
    best = -1
    best_key: tuple[int, int, int] = (-1, -1, -1)
    for suit in range(4):
        cards = legal & SUIT_MASKS[suit]
        if not cards:
            continue
        key = (
            0 if suit in (trump, own_trump) else 1,
            0 if _ruff_risk(view, suit, out, opponents) else 1,
            cards.bit_count(),
        )
        if key > best_key:
            best, best_key = suit, key
    cards = legal & SUIT_MASKS[best]
    low = (cards & -cards).bit_length() - 1
    return _play(view, low), play_explanation("lead low", low, suit=best)


def _ruff_risk(view: SeatView, suit: int, out: int, opponents: tuple[int, ...]) -> bool:
    """An opponent has shown it lacks ``suit`` and may still hold a trump."""
    trump = view.trump
    if trump < 0:
        return False
    return any(view.voids[seat] >> suit & 1 and may_hold(view, seat, out) & SUIT_MASKS[trump] for seat in opponents)


# ----- following suit ----------------------------------------------------------------------


def _follow(view: SeatView, follow: int, out: int) -> tuple[Action, Explanation]:
    led = view.current[0].card // 13
    seat, best = winning(view)
    partner = view.partner
    last = len(view.current) == 3
    winners = [card for card in bits(follow) if beats(view, card)]
    low = (follow & -follow).bit_length() - 1
    if seat == partner:
        take = _take_centre(view, winners, out, last)
        if take >= 0:
            return _play(view, take), play_explanation("take centre", take, suit=led)
        return _play(view, low), play_explanation("partner winning", low, suit=led, seat=partner)
    if winners:
        holding = winners if last else [card for card in winners if likely_holds(view, card, out)]
        if holding:
            card = holding[0]
            return _play(view, card), _winner_explanation(view, card, out, led, seat)
        urgent = seat >= 0 and collects(view, seat, best)
        if len(view.current) == 2 or urgent:
            card = winners[-1]
            if urgent:
                return _play(view, card), play_explanation("stop centre", card, suit=led, seat=seat)
            return _play(view, card), play_explanation("takes the lead", card, suit=led)
        return _play(view, low), play_explanation("save for later", low, cards=(winners[-1],), suit=led)
    return _play(view, low), play_explanation("cannot win", low, cards=(best,) if best >= 0 else (), suit=led)


def _winner_explanation(view: SeatView, card: int, out: int, led: int, seat: int) -> Explanation:
    if seat >= 0 and collects(view, seat, winning(view)[1]):
        return play_explanation("stop centre", card, suit=led, seat=seat)
    if collects(view, view.seat, card):
        return play_explanation("take centre", card, suit=led)
    gone = gone_above(card, view)
    if gone and is_master(card, out):
        return play_explanation("wins gone", card, cards=gone[:1], suit=led)
    return play_explanation("cheapest winner", card, suit=led)


def _take_centre(view: SeatView, winners: list[int], out: int, last: bool) -> int:
    """Double Sir: the cheapest card that overtakes the partner and takes the centre for the team, or -1."""
    if not view.rules.is_double_sir or view.centre < 1:
        return -1
    for card in winners:
        if collects(view, view.seat, card) and (last or likely_holds(view, card, out)):
            return card
    return -1


# ----- unable to follow --------------------------------------------------------------------


def _void(view: SeatView, out: int) -> tuple[Action, Explanation]:
    led = view.current[0].card // 13
    seat, best = winning(view)
    partner = view.partner
    last = len(view.current) == 3
    partner_winning = seat == partner
    legal = view.legal_mask
    own_trump = _own_trump(view)
    if view.may_reveal:
        if not partner_winning:
            return REVEAL, Explanation("ask reveal" if own_trump < 0 else "reveal trump", suit=SUITS[led])
        card = discard_card(view, legal, own_trump, out)
        why = "face down" if view.face_down_only else "partner winning"
        return _play(view, card), play_explanation(why, card, suit=led, seat=partner)
    if view.rules.variant is Variant.BE_RANGA and view.trump < 0:
        suit = best_suit(legal)
        cards = legal & SUIT_MASKS[suit]
        low = (cards & -cards).bit_length() - 1
        return _play(view, low), play_explanation("set trumps", low, suit=suit)
    trump = view.trump
    if trump >= 0 and not partner_winning:
        trumps = [card for card in bits(legal & SUIT_MASKS[trump]) if beats(view, card)]
        holding = trumps if last else [card for card in trumps if likely_holds(view, card, out)]
        if holding:
            card = holding[0]
            over = best >= 0 and best // 13 == trump and trump != led
            if seat >= 0 and collects(view, seat, best):
                return _play(view, card), play_explanation("stop centre", card, suit=led, seat=seat)
            reason = "overruff" if over else "ruff"
            return _play(view, card), play_explanation(reason, card, cards=(best,) if over else (), suit=led)
        if trumps and seat >= 0 and collects(view, seat, best):
            card = trumps[-1]
            return _play(view, card), play_explanation("stop centre", card, suit=led, seat=seat)
    card = discard_card(view, legal, own_trump, out)
    if partner_winning:
        return _play(view, card), play_explanation("partner winning", card, suit=led, seat=partner)
    return _play(view, card), play_explanation("discard", card, suit=led)


def discard_card(view: SeatView, legal: int, trump: int, out: int) -> int:
    """The card to throw: the lowest of a short, weak suit; never a trump or a winner while others remain."""
    best = -1
    best_cost = 1 << 30
    hand = view.hand_mask
    for suit in range(4):
        cards = legal & SUIT_MASKS[suit]
        if not cards:
            continue
        low = (cards & -cards).bit_length() - 1
        length = (hand & SUIT_MASKS[suit]).bit_count()
        cost = POWER_OF[low] * 4 + length * 3
        if suit == trump:
            cost += 200
        if is_master(low, out):
            cost += 100
        elif length <= 2 and POWER_OF[cards.bit_length() - 1] >= 10 and length == 2:
            cost += 20  # keep a guard with a king or queen
        if cost < best_cost:
            best, best_cost = low, cost
    return best
