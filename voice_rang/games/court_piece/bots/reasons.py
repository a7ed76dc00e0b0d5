"""The closed set of reasons a computer seat gives, and how a decision is described from the view alone.

Every level explains itself with one :class:`~.base.Explanation` whose ``reason`` is one of
:data:`REASONS`; :mod:`.words` turns it into a sentence. The easy bot explains its habit
(:func:`explain_habit`); a decision any level did not reason about itself, such as a hint for
another card, is described by what the card does in this view (:func:`describe`).
"""

from __future__ import annotations

from ..actions import Action, AskRedeal, DeclineTrumpCard, NameTrump, PlayCard, SetTrumpCard, TrumpLater
from ..deck import CARD_OF, SUIT_MASKS, SUITS, bits, index_of
from ..view import SeatView
from .base import Explanation
from .counting import ABOVE, BELOW, beats, is_master, likely_holds, unseen, winning
from .trumps import best_suit, longest_suit

__all__ = ["REASONS", "describe", "explain_habit", "explain_trump", "gone_above", "is_lowest", "play_explanation"]

REASONS = frozenset(
    {
        # choosing trumps
        "longest suit",
        "strongest suit",
        "best trump",
        "redeal",
        "decline",
        "later seventh",
        "later tenth",
        # leading
        "lead long",
        "lead high",
        "lead low",
        "lead",
        "master",
        "draw trumps",
        "partner void",
        # following or not
        "only card",
        "equal cards",
        "follow low",
        "cheapest winner",
        "wins gone",
        "wins the trick",
        "takes the lead",
        "make sure",
        "partner winning",
        "leave to partner",
        "cannot win",
        "lose this one",
        "save for later",
        "ruff",
        "trump low",
        "overruff",
        "discard",
        "lowest card",
        "set trumps",
        "take centre",
        "stop centre",
        # hidden trumps
        "ask reveal",
        "reveal trump",
        "reveal lead",
        "face down",
        # the strong bot when nothing simpler says it
        "best chances",
        # the random yardstick
        "chance",
    }
)


def play_explanation(
    reason: str, card: int, *, cards: tuple[int, ...] = (), suit: int = -1, seat: int | None = None
) -> Explanation:
    """An explanation that names card indexes (converted to cards)."""
    return Explanation(
        reason,
        card=CARD_OF[card] if card >= 0 else None,
        cards=tuple(CARD_OF[other] for other in cards),
        suit=SUITS[suit] if suit >= 0 else None,
        seat=seat,
    )


def gone_above(card: int, view: SeatView) -> tuple[int, ...]:
    """The higher cards of ``card``'s suit already played, highest first (why it is now a winner)."""
    gone = view.seen_mask & ABOVE[card] & ~view.hand_mask
    found = []
    while gone:
        top = gone.bit_length() - 1
        found.append(top)
        gone &= ~(1 << top)
    return tuple(found)


def explain_trump(view: SeatView, action: Action, *, careful: bool) -> Explanation:
    """Why a trump choice: the suit's length (or strength), a redeal, or waiting for a later card."""
    first_five = view.hand_mask
    if isinstance(action, AskRedeal):
        return Explanation("redeal")
    if isinstance(action, DeclineTrumpCard):
        return Explanation("decline")
    if isinstance(action, TrumpLater):
        return Explanation("later seventh" if action.position == 7 else "later tenth")
    card = None
    if isinstance(action, NameTrump):
        suit = action.suit
    elif isinstance(action, SetTrumpCard):
        suit, card = action.card.suit, action.card
    else:
        return Explanation("chance")
    number = SUITS.index(suit)
    if number == longest_suit(first_five) or not careful:
        reason = "longest suit"
    elif number == best_suit(first_five):
        reason = "strongest suit"
    else:
        reason = "best trump"
    return Explanation(reason, card=card, suit=suit)


def explain_habit(view: SeatView, action: Action) -> Explanation:
    """The easy bot's habit, said plainly: lead high from length, follow low, trump low, else throw low."""
    if not isinstance(action, PlayCard):
        return explain_trump(view, action, careful=False)
    card = index_of(action.card)
    if view.legal_mask.bit_count() == 1:
        return play_explanation("only card", card)
    if not view.current:
        return play_explanation("lead high", card, suit=card // 13)
    led = view.current[0].card // 13
    if card // 13 == led:
        return play_explanation("follow low", card, suit=led)
    if view.trump >= 0 and card // 13 == view.trump:
        return play_explanation("trump low", card, suit=led)
    if action.face_down:
        return play_explanation("face down", card, suit=led)
    return play_explanation("lowest card", card, suit=led)


def describe(view: SeatView, action: Action) -> Explanation:
    """What an action does in this view, said only as far as the view makes it true.

    This explains a decision the bot did not reason about itself (a hint for another card, a forced
    card) and fills in for the search when its main reason is a plain one.
    """
    if not isinstance(action, PlayCard):
        if isinstance(action, (NameTrump, SetTrumpCard, AskRedeal, DeclineTrumpCard, TrumpLater)):
            return explain_trump(view, action, careful=True)
        return Explanation("reveal lead" if not view.current else "ask reveal")
    card = index_of(action.card)
    out = unseen(view)
    if view.legal_mask.bit_count() == 1:
        return play_explanation("only card", card)
    if action.face_down:
        return play_explanation("face down", card, suit=view.led_suit)
    if not view.current:
        return _describe_lead(view, card, out)
    led = view.current[0].card // 13
    suit = card // 13
    seat, best = winning(view)
    partner_winning = seat == view.partner
    wins = beats(view, card)
    lowest = is_lowest(view, card)
    cheapest = wins and not any(beats(view, other) for other in bits(view.legal_mask & BELOW[card]))
    if wins and partner_winning:
        return play_explanation("make sure", card, cards=(best,), suit=led, seat=view.partner)
    if partner_winning:
        reason = "partner winning" if lowest else "leave to partner"
        return play_explanation(reason, card, suit=led, seat=view.partner)
    if suit == led:
        if not wins:
            beaten = any(beats(view, other) for other in bits(view.legal_mask))
            reason = "cannot win" if lowest and not beaten else "lose this one"
            return play_explanation(reason, card, cards=(best,) if best >= 0 else (), suit=led)
        gone = gone_above(card, view)
        if cheapest and gone and is_master(card, out):
            return play_explanation("wins gone", card, cards=gone[:1], suit=led)
        return play_explanation("cheapest winner" if cheapest else "takes the lead", card, suit=led)
    if view.trump < 0 and not view.trump_hidden and wins:
        return play_explanation("set trumps", card, suit=suit)
    if view.trump >= 0 and suit == view.trump and wins:
        if best >= 0 and best // 13 == view.trump:
            return play_explanation("overruff", card, cards=(best,), suit=led)
        return play_explanation("ruff" if cheapest else "takes the lead", card, suit=led)
    return play_explanation("discard", card, suit=led)


def is_lowest(view: SeatView, card: int) -> bool:
    """Whether ``card`` is the lowest this seat may play of its suit."""
    return not view.legal_mask & BELOW[card]


def _describe_lead(view: SeatView, card: int, out: int) -> Explanation:
    suit = card // 13
    if view.trump >= 0 and suit == view.trump and out & SUIT_MASKS[suit]:
        return play_explanation("draw trumps", card, suit=suit)
    if is_master(card, out) and likely_holds(view, card, out):
        return play_explanation("master", card, cards=gone_above(card, view)[:1], suit=suit)
    partner = view.partner
    if view.voids[partner] >> suit & 1 and view.trump >= 0 and suit != view.trump:
        return play_explanation("partner void", card, suit=suit, seat=partner)
    longest = max((view.hand_mask & SUIT_MASKS[other]).bit_count() for other in range(4))
    if (view.hand_mask & SUIT_MASKS[suit]).bit_count() == longest:
        return play_explanation("lead long", card, suit=suit)
    if is_lowest(view, card):
        return play_explanation("lead low", card, suit=suit)
    return play_explanation("lead", card, suit=suit)
