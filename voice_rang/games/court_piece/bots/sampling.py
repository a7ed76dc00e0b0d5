"""Guessing the hidden cards: whole deals consistent with everything one seat's view shows.

A guessed deal gives this seat its own hand and the other seats the cards still out, as many
as each holds, never a suit a seat has shown it lacks; the caller keeps its face-up trump
card; cards played face down by others are out of play; a hidden trump is one of the cards out.
Guesses also follow what the trump call says: a caller who chose a suit from its first five was
probably long in it, so a guess is kept with a chance that grows with the caller's length in
trumps (:data:`CALLER_LENGTH_ODDS`). Nothing but the view is used.
"""

from __future__ import annotations

from random import Random

from ..deck import SUIT_MASKS, bits
from ..rules import TrumpMode, Variant
from ..view import SeatView
from .centre import trump_set_in
from .counting import face_down_by_others, unseen
from .inference import READ_PLAYS, barred_by_play, barred_by_voids
from .playout import Deal

__all__ = ["CALLER_LENGTH_ODDS", "Template", "deal_from", "sample_hands"]

CALLER_LENGTH_ODDS: tuple[float, ...] = (0.0, 0.01, 0.31, 0.79, 1.36, 1.97, 2.53, 3.07, 3.34, *(3.34,) * 5)
"""How much likelier a caller who chose trumps by its first five is to hold k of them (of 13) than a seat
holding k of a suit named at random: measured on random deals with the rule of thumb of :mod:`.trumps`."""
_KEEP_ALL_FROM = 2.53
"""Guesses are kept with chance odds / this (at most 1): a caller with six trumps or more is always kept."""
_INFERENCE_TRIES = 12
"""Guesses drawn at most for one kept by the trump call (a cap on the time; the last is kept)."""


class Template:
    """What every guess at one view shares: the deal's state so far and the cards each seat still needs."""

    __slots__ = (
        "aside",
        "barred",
        "base",
        "caller",
        "caller_played",
        "fixed",
        "gone",
        "infer",
        "needs",
        "out",
    )

    def __init__(self, view: SeatView) -> None:
        out = unseen(view)
        fixed = [0, 0, 0, 0]
        fixed[view.seat] = view.hand_mask
        needs = [0 if seat == view.seat else view.held[seat] for seat in range(4)]
        caller = self.caller = view.caller
        self.aside = -1
        """The hidden trump card when this seat knows it, -2 when each guess draws it, -1 when none is hidden."""
        if view.trump_hidden:
            if view.own_trump_card >= 0:
                self.aside = view.own_trump_card
            else:
                self.aside = -2
                if caller != view.seat:
                    needs[caller] -= 1
        if view.face_up_trump_card >= 0 and caller != view.seat:
            fixed[caller] |= 1 << view.face_up_trump_card
            needs[caller] -= 1
            out &= ~(1 << view.face_up_trump_card)
        self.out = out
        self.fixed = fixed
        self.needs = needs
        barred = barred_by_voids(view)
        if READ_PLAYS:
            read = barred_by_play(view)
            barred_with_reading = [barred[seat] | (0 if read[seat] & fixed[seat] else read[seat]) for seat in range(4)]
            if _feasible_bars(out, needs, barred_with_reading, view.seat):
                barred = barred_with_reading
        self.barred = barred
        """Per seat, the cards it cannot hold (shown voids, and what its plays say when they agree)."""
        self.gone = face_down_by_others(view)
        """Cards out of play that this seat never saw (played face down by another)."""
        spare = out.bit_count() - sum(needs) - (1 if self.aside == -2 else 0)
        if spare != self.gone:
            raise ValueError(f"the view does not add up: {spare} cards unaccounted for, {self.gone} face down")
        self.infer = _inferred_suit(view)
        """The suit the caller chose by its first five (-2: the hidden card's, per guess; -1: no lean)."""
        self.caller_played = _played_by(view, caller)
        self.base = deal_from(view)

    def sample(self, rng: Random) -> Deal | None:
        """One guess at the whole deal, or None when the view allows no deal at all.

        When the trump call says something, guesses are drawn until one is kept, with a chance in
        proportion to how likely the call makes it (the last is kept whatever it is).
        """
        drawn: tuple[list[int], int] | None = None
        for _ in range(_INFERENCE_TRIES):
            drawn = sample_hands(self, rng)
            if drawn is None:
                return None
            hands, aside = drawn
            suit = self.infer if self.infer >= 0 else (aside // 13 if self.infer == -2 else -1)
            if suit < 0:
                break
            length = (hands[self.caller] & SUIT_MASKS[suit]).bit_count() + self.caller_played[suit]
            if aside >= 0 and aside // 13 == suit:
                length += 1
            if rng.random() * _KEEP_ALL_FROM < CALLER_LENGTH_ODDS[length]:
                break
        if drawn is None:
            return None
        deal = self.base.copy()
        deal.hands, deal.aside = drawn
        return deal


def _inferred_suit(view: SeatView) -> int:
    """Which suit the caller's choice says it is long in, when the caller chose by its first five."""
    if view.seat == view.caller or view.rules.variant is Variant.BE_RANGA:
        return -1
    mode = view.rules.options.trump
    if mode not in (TrumpMode.NAMED, TrumpMode.CARD, TrumpMode.HIDDEN):
        return -1
    if view.trump >= 0:
        return view.trump
    return -2 if view.trump_hidden and mode is TrumpMode.HIDDEN else -1


def _played_by(view: SeatView, seat: int) -> tuple[int, int, int, int]:
    """How many cards of each suit ``seat`` has played face up in this deal."""
    counts = [0, 0, 0, 0]
    for trick in view.tricks:
        for one in trick.plays:
            if one.seat == seat and one.card >= 0 and not one.face_down:
                counts[one.card // 13] += 1
    for one in view.current:
        if one.seat == seat and one.card >= 0 and not one.face_down:
            counts[one.card // 13] += 1
    return counts[0], counts[1], counts[2], counts[3]


def deal_from(view: SeatView) -> Deal:
    """The deal's state as the view shows it; the hands other than this seat's are left empty."""
    deal = Deal()
    rules = view.rules
    deal.hands[view.seat] = view.hand_mask
    deal.trump = view.trump
    deal.aside = view.own_trump_card if view.trump_hidden else -1
    deal.caller = view.caller
    deal.dealer = view.dealer
    deal.leader = view.leader
    deal.turn = view.seat
    deal.trick = view.trick_number
    deal.won = [view.won[0], view.won[1]]
    deal.centre = view.centre
    deal.streak = view.streak
    deal.double_sir = rules.is_double_sir
    deal.hidden_rung = rules.variant is Variant.HIDDEN_RUNG
    deal.be_ranga = rules.variant is Variant.BE_RANGA
    deal.no_early_late = rules.options.no_early_late
    deal.aces_no_collect = rules.options.aces_no_collect
    if deal.be_ranga:
        deal.trump_set_trick = trump_set_in(view)
    if not deal.double_sir:
        for team in (0, 1):
            if view.won[team] >= 7 and view.won[1 - team] == 0:
                deal.court_team = team
    if view.tricks:
        last = view.tricks[-1]
        winning = next(one for one in last.plays if one.seat == last.winner)
        deal.last_winner = last.winner
        deal.last_card = winning.card
        deal.last_in_centre = view.centre > 0
        deal.last_after_reveal = winning.trump_known
    current = view.current
    if current:
        led = current[0].card // 13
        best = -1
        for one in current:
            card = one.card
            if one.face_down or card < 0:
                key = -1
            elif card // 13 == view.trump and (one.trump_known or card // 13 == led):
                key = 100 + card % 13
            elif card // 13 == led:
                key = card % 13
            else:
                key = -1
            deal.plays.append((one.seat, card, key, one.trump_known))
            if key > best:
                best = key
                deal.win_seat, deal.win_card, deal.win_key, deal.win_known = one.seat, card, key, one.trump_known
        if view.reveal_index == len(current):
            deal.must_trump = view.seat
    elif view.reveal_index == 0:
        deal.must_lead_trump = True
    return deal


def sample_hands(template: Template, rng: Random) -> tuple[list[int], int] | None:
    """One guess at every hand and the hidden trump card (-1 if none), or None if the view allows none.

    Seats with cards they cannot hold draw first, the tightest first, each a uniform choice among the
    cards it may hold; the rest is shuffled among the others. That can run into a dead end when several
    seats are limited; then a slower draw that checks at every card that the rest can still be dealt
    always finds one.
    """
    for _ in range(_QUICK_TRIES):
        drawn = _quick_draw(template, rng)
        if drawn is not None:
            return drawn
    return _careful_draw(template, rng)


_QUICK_TRIES = 8


def _buckets(template: Template) -> list[tuple[int, int, int]]:
    """(owner, cards needed, cards allowed) for each seat to fill, then the cards played face down that
    this seat never saw (owner -1) and the hidden trump card (owner -2)."""
    out = template.out
    buckets = [
        (seat, template.needs[seat], out & ~template.barred[seat]) for seat in range(4) if template.needs[seat] > 0
    ]
    if template.gone:
        buckets.append((-1, template.gone, out))
    if template.aside == -2:
        buckets.append((-2, 1, out))
    return buckets


def _deliver(template: Template, filled: list[tuple[int, int]]) -> tuple[list[int], int]:
    hands = template.fixed[:]
    aside = template.aside
    for owner, cards in filled:
        if owner >= 0:
            hands[owner] |= cards
        elif owner == -2:
            aside = cards.bit_length() - 1
    return hands, aside


def _quick_draw(template: Template, rng: Random) -> tuple[list[int], int] | None:
    available = out = template.out
    filled: list[tuple[int, int]] = []
    buckets = _buckets(template)
    limited = [bucket for bucket in buckets if bucket[2] != out]
    free = [bucket for bucket in buckets if bucket[2] == out]
    limited.sort(key=lambda bucket: (available & bucket[2]).bit_count() - bucket[1])
    for owner, need, allowed in limited:
        choices = bits(available & allowed)
        if len(choices) < need:
            return None
        taken = 0
        for card in rng.sample(choices, need):
            taken |= 1 << card
        available &= ~taken
        filled.append((owner, taken))
    rest = bits(available)
    rng.shuffle(rest)
    position = 0
    for owner, need, _ in free:
        taken = 0
        for card in rest[position : position + need]:
            taken |= 1 << card
        position += need
        filled.append((owner, taken))
    return _deliver(template, filled)


def _careful_draw(template: Template, rng: Random) -> tuple[list[int], int] | None:
    buckets = _buckets(template)
    room = [need for _, need, _ in buckets]
    allowed = [cards for _, _, cards in buckets]
    taken = [0] * len(buckets)
    cards = bits(template.out)
    rng.shuffle(cards)
    kinds: dict[int, int] = {}
    kind_of = {}
    for card in cards:
        kind = sum(1 << number for number in range(len(buckets)) if allowed[number] >> card & 1)
        kind_of[card] = kind
        kinds[kind] = kinds.get(kind, 0) + 1
    if not _fits(kinds, room):
        return None
    for card in cards:
        kind = kind_of[card]
        kinds[kind] -= 1
        options = [number for number in range(len(buckets)) if room[number] and kind >> number & 1]
        while options:
            number = rng.choices(options, [room[option] for option in options])[0]
            room[number] -= 1
            if _fits(kinds, room):
                taken[number] |= 1 << card
                break
            room[number] += 1
            options.remove(number)
        else:
            return None
    return _deliver(template, [(buckets[number][0], taken[number]) for number in range(len(buckets))])


def _fits(kinds: dict[int, int], room: list[int]) -> bool:
    """Whether the cards left can still fill every bucket exactly (Hall's condition): for each set of
    buckets, the cards that may go only into that set fit in its room."""
    for chosen in range(1, 1 << len(room)):
        only = sum(count for kind, count in kinds.items() if count and not kind & ~chosen)
        if only > sum(room[number] for number in range(len(room)) if chosen >> number & 1):
            return False
    return True


def _feasible_bars(out: int, needs: list[int], barred: list[int], seat: int) -> bool:
    """Whether each seat's cards can be dealt at all with these bars (face-down and hidden cards take any)."""
    kinds: dict[int, int] = {}
    owners = [other for other in range(4) if other != seat and needs[other] > 0]
    for card in bits(out):
        kind = sum(1 << number for number, other in enumerate(owners) if not barred[other] >> card & 1)
        kind |= 1 << len(owners)
        kinds[kind] = kinds.get(kind, 0) + 1
    spare = out.bit_count() - sum(needs[other] for other in owners)
    return _fits(kinds, [needs[other] for other in owners] + [spare])
