"""The strong level: guess the hidden hands many times, play each candidate out in every guess, keep the best.

This is perfect-information Monte Carlo. From its view alone (:mod:`.sampling`) it draws deals
that agree with everything it has seen; in each it tries every distinct legal action and lets
the quick policy of :mod:`.playout` finish the deal for all four seats; the action with the best
mean result for this variant and scoring (:mod:`.value`: the deal, courts, the session) is
played. The same draws serve every candidate, so their differences are not noise from the draw.

The amount of work is fixed by the ``budget`` (seconds a decision on a typical machine) and the
view, never by a clock, so a seed replays the same choices on any machine; a clock only cuts a
search short if it runs far over. Cards nobody else can split (touching, once the cards between
are gone) count as one candidate, and a single candidate is answered at once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from random import Random

from ..actions import Action, AskRedeal, DeclineTrumpCard, NameTrump, PlayCard, SetTrumpCard, TrumpLater
from ..deck import SUIT_INDEX, SUIT_MASKS, index_of
from ..rules import TrumpMode
from ..view import PLAY, PLAY_FACE_DOWN, REVEAL, Phase, SeatView
from .base import Explanation
from .counting import equivalent_groups, unseen
from .hints import Findings, explain_search
from .playout import Deal
from .sampling import Template, deal_from
from .trumps import best_suit
from .value import deal_value

__all__ = ["DEFAULT_BUDGET", "SearchResult", "StrongBot"]

DEFAULT_BUDGET = 0.5
"""Seconds of thought a decision, by default."""
CARDS_PER_SECOND = 800_000.0
"""Play-out cards this machine's Python plays a second (with sampling): turns a budget into a number of deals."""
SAMPLE_COST = 80
"""Guessing a deal costs about as much as this many play-out cards."""
LINE_COST = 6
"""Starting a play-out line costs about as much as this many cards."""
MAX_WORLDS = 2000
MIN_WORLDS = 2
OVERRUN = 3.0
"""A search still running at this many budgets stops with what it has (only on a much slower machine)."""


@dataclass(frozen=True)
class SearchResult:
    """What a search found: each candidate's mean value, and how often it took the trick in progress."""

    actions: tuple[Action, ...]
    means: tuple[float, ...]
    trick_mine: tuple[float, ...]
    """Per candidate, the share of guessed deals in which this seat took the current trick."""
    trick_ours: tuple[float, ...]
    worlds: int
    chosen: int

    @property
    def action(self) -> Action:
        return self.actions[self.chosen]


class StrongBot:
    """Searches guessed deals within its budget; deterministic given its ``rng``."""

    level = "strong"

    def __init__(self, rng: Random, *, budget: float = DEFAULT_BUDGET) -> None:
        self._rng = rng
        self.budget = budget
        self._last: tuple[SeatView, SearchResult | None, Action] | None = None

    def decide(self, view: SeatView) -> Action:
        result = self.search(view)
        action = result.action if result is not None else _only_action(view)
        self._last = (view, result, action)
        return action

    def explain(self, view: SeatView, action: Action) -> Explanation:
        """The main reason of the search for ``action`` (searched again, apart, if this view was not just decided)."""
        if self._last is not None and self._last[0] == view:
            result = self._last[1]
        else:
            result = StrongBot(Random(_view_seed(view)), budget=self.budget).search(view)
        if result is None or action not in result.actions:
            return explain_search(view, action, None)
        number = result.actions.index(action)
        return explain_search(view, action, Findings(result.trick_mine[number], result.trick_ours[number]))

    # -- searching -----------------------------------------------------------------------

    def search(self, view: SeatView) -> SearchResult | None:
        """Search this view's decision; None when there is nothing to choose between."""
        if view.phase is Phase.TRUMP:
            return self._search_trumps(view)
        if view.phase is not Phase.PLAY or view.to_act != view.seat:
            return None
        out = unseen(view)
        cards = equivalent_groups(view.legal_mask, out)
        table = PLAY_FACE_DOWN if view.face_down_only else PLAY
        actions: list[Action] = [table[card] for card in cards]
        if view.may_reveal:
            actions.append(REVEAL)
        if len(actions) == 1:
            return None
        template = Template(view)
        remaining = sum(view.held)
        worlds = self._worlds(len(actions), remaining)
        totals = [0.0] * len(actions)
        mine = [0.0] * len(actions)
        ours = [0.0] * len(actions)
        team = view.seat % 2
        seat = view.seat
        trick = view.trick_number
        rng = self._rng
        deadline = time.perf_counter() + OVERRUN * self.budget
        done = 0
        for _ in range(worlds):
            deal = _draw(template, rng)
            for number, action in enumerate(actions):
                line = deal.copy()
                _apply(line, seat, action)
                winner = _finish_trick(line, trick)
                outcome = line.finish()
                totals[number] += deal_value(outcome, team, view.rules, view.caller, view.score)
                if winner == seat:
                    mine[number] += 1
                if winner >= 0 and winner % 2 == team:
                    ours[number] += 1
            done += 1
            if time.perf_counter() > deadline:
                break
        return _result(actions, totals, mine, ours, done)

    def _worlds(self, candidates: int, remaining: int) -> int:
        per_world = SAMPLE_COST + candidates * (remaining + LINE_COST)
        worlds = int(self.budget * CARDS_PER_SECOND / per_world)
        return max(MIN_WORLDS, min(MAX_WORLDS, worlds))

    def _search_trumps(self, view: SeatView) -> SearchResult | None:
        choices = view.choices
        first_five = view.hand_mask
        actions = _trump_candidates(choices, first_five)
        if len(actions) <= 1:
            return None if not actions else SearchResult(tuple(actions), (0.0,), (0.0,), (0.0,), 0, 0)
        team = view.seat % 2
        worlds = self._worlds(len(actions), 52)
        totals = [0.0] * len(actions)
        rng = self._rng
        deadline = time.perf_counter() + OVERRUN * self.budget
        done = 0
        base = deal_from(view)
        rest = [card for card in range(52) if not first_five >> card & 1]
        for _ in range(worlds):
            rng.shuffle(rest)
            for number, action in enumerate(actions):
                line = _trump_line(base, view, action, rest, rng)
                outcome = line.finish()
                totals[number] += deal_value(outcome, team, view.rules, view.caller, view.score)
            done += 1
            if time.perf_counter() > deadline:
                break
        zeros = [0.0] * len(actions)
        return _result(actions, totals, zeros, zeros, done)


def _draw(template: Template, rng: Random) -> Deal:
    drawn = template.sample(rng)
    if drawn is None:
        raise RuntimeError("no deal agrees with this view")
    return drawn


def _apply(deal: Deal, seat: int, action: Action) -> None:
    if isinstance(action, PlayCard):
        deal.play(seat, index_of(action.card), action.face_down)
        return
    deal.reveal(seat)
    deal.step()


def _finish_trick(deal: Deal, trick: int) -> int:
    """Play the trick in progress to its end with the policy; its winner (-1 if the deal ended otherwise)."""
    while deal.outcome is None and deal.trick == trick:
        deal.step()
    if deal.trick == trick and deal.outcome is not None:
        return deal.win_seat
    return deal.leader if deal.trick > trick else -1


def _result(
    actions: list[Action], totals: list[float], mine: list[float], ours: list[float], done: int
) -> SearchResult:
    count = max(1, done)
    means = tuple(total / count for total in totals)
    chosen = max(range(len(actions)), key=lambda number: (means[number], -number))
    return SearchResult(
        tuple(actions),
        means,
        tuple(value / count for value in mine),
        tuple(value / count for value in ours),
        done,
        chosen,
    )


def _only_action(view: SeatView) -> Action:
    """The answer when the search has nothing to compare: the lowest of equivalent cards, or the only choice."""
    if view.phase is Phase.TRUMP:
        return view.choices[0]
    card = (view.legal_mask & -view.legal_mask).bit_length() - 1
    if card < 0:
        return REVEAL
    return PLAY_FACE_DOWN[card] if view.face_down_only else PLAY[card]


# ----- choosing trumps by play-outs -------------------------------------------------------------


def _trump_candidates(choices: tuple[Action, ...], first_five: int) -> list[Action]:
    """One candidate a suit (its lowest card when a card is set apart), plus declining, a later card, a redeal."""
    actions: list[Action] = []
    seen_suits: set[int] = set()
    for choice in choices:
        if isinstance(choice, NameTrump):
            suit = SUIT_INDEX[choice.suit]
            if first_five & SUIT_MASKS[suit] and suit not in seen_suits:
                seen_suits.add(suit)
                actions.append(choice)
        elif isinstance(choice, SetTrumpCard):
            suit = SUIT_INDEX[choice.card.suit]
            if suit not in seen_suits:
                seen_suits.add(suit)
                actions.append(choice)
        elif isinstance(choice, TrumpLater):
            if choice.position == 7:
                actions.append(choice)
        elif isinstance(choice, (DeclineTrumpCard, AskRedeal)):
            actions.append(choice)
    return actions


def _trump_line(base: Deal, view: SeatView, action: Action, rest: list[int], rng: Random) -> Deal:
    """A whole deal after ``action``: this seat's next eight and the others' thirteen come from ``rest``."""
    line = base.copy()
    seat = view.seat
    caller_cards = rest[:8]
    hands = [0, 0, 0, 0]
    hands[seat] = view.hand_mask
    for card in caller_cards:
        hands[seat] |= 1 << card
    position = 8
    for offset in (1, 2, 3):
        other = (seat + offset) % 4
        for card in rest[position : position + 13]:
            hands[other] |= 1 << card
        position += 13
    line.hands = hands
    hidden = view.rules.options.trump is TrumpMode.HIDDEN
    if isinstance(action, NameTrump):
        line.trump = SUIT_INDEX[action.suit]
    elif isinstance(action, SetTrumpCard):
        card = index_of(action.card)
        if hidden:
            line.aside = card
            hands[seat] &= ~(1 << card)
        else:
            line.trump = card // 13
    elif isinstance(action, DeclineTrumpCard):
        line.trump = caller_cards[rng.randrange(4)] // 13
    elif isinstance(action, TrumpLater):
        line.trump = caller_cards[action.position - 6] // 13
    elif isinstance(action, AskRedeal):
        return _fresh_line(base, view, rng)
    return line


def _fresh_line(base: Deal, view: SeatView, rng: Random) -> Deal:
    """A new deal as a redeal would give it, trumps chosen by rule of thumb: what asking for one is worth."""
    line = base.copy()
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [0, 0, 0, 0]
    for seat in range(4):
        for card in deck[13 * seat : 13 * seat + 13]:
            hands[seat] |= 1 << card
    first_five = 0
    for card in deck[13 * view.seat : 13 * view.seat + 5]:
        first_five |= 1 << card
    suit = best_suit(first_five)
    if view.rules.options.trump is TrumpMode.HIDDEN:
        cards = first_five & SUIT_MASKS[suit]
        line.aside = (cards & -cards).bit_length() - 1
        hands[view.seat] &= ~(1 << line.aside)
    else:
        line.trump = suit
    line.hands = hands
    return line


def _view_seed(view: SeatView) -> int:
    """A seed that only this view's own content gives (a hint searched apart replays the same)."""
    return view.hand_mask ^ view.seen_mask << 1 ^ view.trick_number << 53 ^ view.seat << 58 ^ view.deal << 60
