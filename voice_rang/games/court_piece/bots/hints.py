"""The strong level's hint: the main reason its search found, said only as far as the view makes it true.

The search knows how often each candidate took the trick in progress; the view says what the card
does now. Together they name the reason: it takes the trick (cheaply, as the last of its suit, over a
partner's card that could be beaten, with a trump), it draws trumps, it saves a card that would
have won for later, it stops a collection of the centre. When none of those fits, the plain reason
the view gives, or "the best chances".
"""

from __future__ import annotations

from ..actions import Action, PlayCard
from ..deck import CARD_OF, SUIT_MASKS, bits, index_of
from ..view import Phase, SeatView
from .base import Explanation
from .centre import collects
from .counting import BELOW, beats, equivalent_groups, is_master, may_hold, unseen, winning
from .reasons import describe, explain_trump, gone_above, is_lowest, play_explanation

__all__ = ["SURE", "Findings", "explain_search"]

SURE = 0.9
"""The share of guessed deals in which a card must take the trick for the hint to say it does."""

PLAIN = frozenset({"partner winning", "cannot win", "discard", "lead low", "lead long", "partner void", "ruff"})
"""Reasons the view alone gives that stay true whatever the search weighed."""


class Findings:
    """What the search says of one candidate: how often this seat, and its team, took the current trick."""

    __slots__ = ("mine", "ours")

    def __init__(self, mine: float, ours: float) -> None:
        self.mine = mine
        self.ours = ours


def explain_search(view: SeatView, action: Action, findings: Findings | None) -> Explanation:
    """Why the search chose ``action`` (``findings`` None: it was the only choice worth searching)."""
    if view.phase is Phase.TRUMP:
        plain = explain_trump(view, action, careful=True)
        if findings is None or plain.reason in ("longest suit", "strongest suit"):
            return plain
        if plain.reason == "best trump" or plain.suit is not None:
            return Explanation("best trump", card=plain.card, suit=plain.suit)
        return plain
    if not isinstance(action, PlayCard):
        return describe(view, action)
    card = index_of(action.card)
    if findings is None:
        if view.legal_mask.bit_count() == 1:
            return play_explanation("only card", card)
        if len(equivalent_groups(view.legal_mask, unseen(view))) == 1:
            return play_explanation("equal cards", card)
        return describe(view, action)
    if action.face_down:
        return play_explanation("face down", card)
    if not view.current:
        return _lead(view, action, card, findings)
    return _play(view, action, card, findings)


def _lead(view: SeatView, action: Action, card: int, findings: Findings) -> Explanation:
    out = unseen(view)
    suit = card // 13
    trump = view.trump
    opponents = ((view.seat + 1) % 4, (view.seat + 3) % 4)
    if trump >= 0 and suit == trump and any(may_hold(view, seat, out) & SUIT_MASKS[trump] for seat in opponents):
        return play_explanation("draw trumps", card, suit=suit)
    if findings.mine >= SURE:
        if is_master(card, out):
            return play_explanation("master", card, cards=gone_above(card, view)[:1], suit=suit)
        return play_explanation("wins the trick", card, suit=suit)
    return _plain_or_best(view, action, card)


def _play(view: SeatView, action: Action, card: int, findings: Findings) -> Explanation:
    led = view.current[0].card // 13
    suit = card // 13
    seat, best = winning(view)
    partner_winning = seat == view.partner
    wins = beats(view, card)
    if wins and findings.mine >= SURE:
        if seat >= 0 and not partner_winning and collects(view, seat, best):
            return play_explanation("stop centre", card, suit=led, seat=seat)
        if collects(view, view.seat, card):
            return play_explanation("take centre", card, suit=led)
        if partner_winning:
            return play_explanation("make sure", card, cards=(best,), suit=led, seat=view.partner)
        cheapest = not any(beats(view, other) for other in bits(view.legal_mask & BELOW[card]))
        if view.trump >= 0 and suit == view.trump and led != view.trump:
            if best >= 0 and best // 13 == view.trump:
                return play_explanation("overruff", card, cards=(best,), suit=led)
            return play_explanation("ruff" if cheapest else "wins the trick", card, suit=led)
        if cheapest:
            gone = gone_above(card, view)
            if gone and is_master(card, unseen(view)):
                return play_explanation("wins gone", card, cards=gone[:1], suit=led)
            return play_explanation("cheapest winner", card, suit=led)
        return play_explanation("wins the trick", card, suit=led)
    if not partner_winning and (not wins or findings.mine < 0.5):
        winners = [other for other in bits(view.legal_mask) if other != card and beats(view, other)]
        if winners:
            saved = max(winners, key=lambda other: (other % 13, other))
            return play_explanation("save for later", card, cards=(saved,), suit=led)
    return _plain_or_best(view, action, card)


def _plain_or_best(view: SeatView, action: Action, card: int) -> Explanation:
    """The view's own description when it is a plain one that holds, else "the best chances"."""
    plain = describe(view, action)
    if plain.reason in PLAIN and (plain.reason == "lead long" or is_lowest(view, card)):
        return plain
    return Explanation("best chances", card=CARD_OF[card])
