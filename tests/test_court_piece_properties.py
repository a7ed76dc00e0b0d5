"""Whole Court Piece sessions of every variant with random legal play: invariants, privacy and the log.

Hypothesis draws the seeds; each example is a whole session, so a thousand examples per variant
play several thousand deals.
"""

from __future__ import annotations

from random import Random

import pytest
from court_piece_checker import check_log
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voice_rang.games.court_piece.deck import CARD_INDEX, FULL_DECK
from voice_rang.games.court_piece.events import CardPlayed, DealDone, DealEnded, Event, SessionEnded, TrickWon
from voice_rang.games.court_piece.log import encode_events
from voice_rang.games.court_piece.rules import Rules
from voice_rang.games.court_piece.session import Session
from voice_rang.games.court_piece.view import SeatView

VARIANTS = {
    "plain": Rules.make(),
    "card-redeal": Rules.make(trump="card", redeal=True),
    "hidden": Rules.make(trump="hidden", redeal=True),
    "blind": Rules.make(trump="blind"),
    "courts": Rules.make(scoring="courts", deals=4),
    "double-sir": Rules.make("double-sir", redeal=True),
    "double-sir-options": Rules.make("double-sir", trump="later", no_early_late=True, aces_no_collect=True, goon=10),
    "double-sir-hidden": Rules.make("double-sir", trump="hidden", scoring="courts", deals=3),
    "be-ranga": Rules.make("be-ranga"),
    "hidden-rung": Rules.make("hidden-rung", redeal=True),
    "hidden-rung-blind": Rules.make("hidden-rung", trump="blind", aces_no_collect=True),
}


def play_random_session(rules: Rules, seed: int, check_views: bool = False) -> list[Event]:
    """A whole session where every seat picks uniformly among its legal actions."""
    session = Session(rules, Random(seed), players=("random",) * 4)
    chooser = Random(seed + 1)
    events = session.start()
    while not session.is_over:
        seat = session.to_act
        assert seat is not None
        if check_views:
            for other in range(4):
                assert_view_is_private(session, session.view(other))
        legal = session.view(seat).legal
        assert legal, "a seat to act always has something legal to do"
        events.extend(session.apply(seat, chooser.choice(legal)))
        assert len(events) < 5000
    return events


def assert_view_is_private(session: Session, view: SeatView) -> None:
    """Every card a view names is this seat's own, or was played face up, or was shown to all."""
    seat = view.seat
    own = session._hands[seat] | view.first_five | (session._face_down_mask if seat == session.caller else 0)
    if seat == session.caller and session._aside >= 0 and session._aside_seen:
        own |= 1 << session._aside
    shown = 1 << view.face_up_trump_card if view.face_up_trump_card >= 0 else 0
    allowed = own | session._seen | shown
    named = view.hand_mask | view.seen_mask | view.first_five
    for play in view.current:
        if play.card >= 0:
            named |= 1 << play.card
        elif play.seat == seat:
            raise AssertionError("a seat's own face-down card is hidden from itself")
    for trick in view.tricks:
        for play in trick.plays:
            if play.card >= 0:
                named |= 1 << play.card
    for card in (view.own_trump_card, view.face_up_trump_card):
        if card >= 0:
            named |= 1 << card
    assert named & ~allowed == 0, f"seat {seat} sees cards it may not know"
    assert view.hand_mask == session._hands[seat]
    if session._aside >= 0:
        assert view.trump == -1 and view.trump_suit is None
        if seat != session.caller or not session._aside_seen:
            assert view.own_trump_card == -1


def check_invariants(events: list[Event]) -> None:
    deals = trick_count = 0
    hands: list[int] = []
    played = 0
    for event in events:
        if isinstance(event, DealDone):
            hands = [sum(1 << CARD_INDEX[card] for card in hand) for hand in event.hands]
            assert all(len(hand) == 13 for hand in event.hands)
            assert hands[0] | hands[1] | hands[2] | hands[3] == FULL_DECK
            assert sum(bin(hand).count("1") for hand in hands) == 52
            played = 0
            trick_count = 0
        elif isinstance(event, CardPlayed):
            bit = 1 << CARD_INDEX[event.card]
            assert hands[event.seat] & bit and not played & bit
            played |= bit
        elif isinstance(event, TrickWon):
            trick_count += 1
            assert len(event.cards) == 4 and event.trick == trick_count
            assert sum(event.won) + event.centre == trick_count
        elif isinstance(event, DealEnded):
            deals += 1
            assert 7 <= trick_count <= 13 and max(event.tricks) >= 7
    end = events[-1]
    assert isinstance(end, SessionEnded)
    assert deals >= 1


@pytest.mark.parametrize("name", sorted(VARIANTS))
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_every_session_ends_with_every_card_accounted_for_and_its_log_follows_the_rules(name: str, seed: int) -> None:
    events = play_random_session(VARIANTS[name], seed)
    check_invariants(events)
    assert check_log(encode_events(events).splitlines()) == []


@pytest.mark.parametrize("name", sorted(VARIANTS))
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_no_view_ever_names_a_card_its_seat_may_not_know(name: str, seed: int) -> None:
    play_random_session(VARIANTS[name], seed, check_views=True)


def test_the_same_seed_and_choices_replay_the_same_session() -> None:
    for rules in VARIANTS.values():
        assert play_random_session(rules, 7) == play_random_session(rules, 7)


def test_score_adds_up_over_the_deals() -> None:
    for name, rules in VARIANTS.items():
        events = play_random_session(rules, 3)
        ends = [event for event in events if isinstance(event, DealEnded)]
        previous = (0, 0)
        for end in ends:
            gained = (end.score[0] - previous[0], end.score[1] - previous[1])
            assert gained[1 - end.winner] == 0 and gained[end.winner] >= 0, name
            previous = end.score
        final = events[-1]
        assert isinstance(final, SessionEnded) and final.score == previous
