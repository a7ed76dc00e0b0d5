"""The Court Piece engine: deals, trumps, tricks, refusals, the end of a deal, scoring, next dealer.

Each rule is shown on a stacked deal (``court_piece_deals``); the page's worked examples are here
as they are written.
"""

from __future__ import annotations

from random import Random

import pytest
from court_piece_deals import cards, hands_around, play, play_highest, stacked

from voice_rang.cards import Card, Suit
from voice_rang.games.court_piece.actions import (
    AskRedeal,
    DeclineTrumpCard,
    NameTrump,
    PlayCard,
    Reason,
    Refused,
    RevealTrump,
    SetTrumpCard,
    TrumpLater,
)
from voice_rang.games.court_piece.events import (
    CardPlayed,
    DealDone,
    DealEnded,
    Redealt,
    SessionEnded,
    TrickWon,
    TrumpChosen,
    TrumpRevealed,
)
from voice_rang.games.court_piece.rules import Rules, RulesError
from voice_rang.games.court_piece.scoring import settle
from voice_rang.games.court_piece.session import Session, deck_for_hands
from voice_rang.games.court_piece.view import Phase


def refusal(session: Session, seat: int, action: object) -> Reason:
    with pytest.raises(Refused) as raised:
        session.apply(seat, action)  # type: ignore[arg-type]
    return raised.value.refusal.reason


def tricks(events: list[object]) -> list[TrickWon]:
    return [event for event in events if isinstance(event, TrickWon)]


def deal_end(events: list[object]) -> DealEnded:
    return next(event for event in events if isinstance(event, DealEnded))


# ----- the deal ---------------------------------------------------------------------------------


def test_deal_gives_five_then_four_then_four_caller_first() -> None:
    rules = Rules.make()
    hands = hands_around({})
    deck = deck_for_hands(hands, caller=2)
    assert deck[:5] == hands[2][:5] and deck[5:10] == hands[3][:5] and deck[15:20] == hands[1][:5]
    assert deck[20:24] == hands[2][5:9] and deck[36:40] == hands[2][9:13]
    session = Session(rules, Random(0), dealer=1, decks=[deck])
    dealt = session.start()[1]
    assert isinstance(dealt, DealDone)
    assert dealt.caller == 2 and [list(hand) for hand in dealt.hands] == hands
    assert [list(first) for first in dealt.first] == [hand[:5] for hand in hands]


def test_the_caller_sees_only_its_first_five_before_naming_trumps() -> None:
    hands = hands_around({})
    session = stacked(Rules.make(), hands, dealer=3)
    assert session.phase is Phase.TRUMP and session.to_act == 0
    assert set(session.view(0).hand) == set(hands[0][:5])
    assert all(len(session.view(seat).hand) == 5 for seat in range(4))
    session.apply(0, NameTrump(Suit.SPADES))
    assert set(session.view(0).hand) == set(hands[0])
    assert session.view(2).trump_suit is Suit.SPADES


def test_the_first_dealer_is_drawn_and_the_caller_sits_to_its_right() -> None:
    dealers = {Session(Rules.make(), Random(seed)).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    session = Session(Rules.make(), Random(5))
    assert session.caller == (session.dealer + 1) % 4


# ----- play and refusals ------------------------------------------------------------------------


def test_a_seat_must_follow_the_suit_led_and_is_told_which() -> None:
    hands = hands_around({1: "2C", 2: "3C 9H"})
    session = stacked(Rules.make(), hands, dealer=0)
    session.apply(1, NameTrump(Suit.SPADES))
    play(session, ["2C"])
    with pytest.raises(Refused) as raised:
        session.apply(2, PlayCard(Card("9H")))
    assert raised.value.refusal.reason is Reason.MUST_FOLLOW and raised.value.refusal.suit is Suit.CLUBS
    assert refusal(session, 3, PlayCard(Card("3C"))) is Reason.NOT_YOUR_TURN
    assert refusal(session, 2, PlayCard(Card("2C"))) is Reason.NOT_HELD
    assert session.view(2).legal_mask and all(card.suit is Suit.CLUBS for card in _legal_cards(session, 2))


def _legal_cards(session: Session, seat: int) -> list[Card]:
    return [action.card for action in session.legal_actions(seat) if isinstance(action, PlayCard)]


def test_nothing_can_be_played_before_trumps_are_named() -> None:
    session = stacked(Rules.make(), hands_around({}), dealer=0)
    assert refusal(session, 1, PlayCard(session.view(1).hand[0])) is Reason.CHOOSE_TRUMPS_FIRST
    assert refusal(session, 1, SetTrumpCard(session.view(1).hand[0])) is Reason.NOT_THIS_VARIANT


def test_the_highest_trump_wins_else_the_highest_of_the_suit_led() -> None:
    hands = hands_around({1: "2C AD", 2: "KC 3D", 3: "4S 4D", 0: "AC 2D"}, voids={3: "C"})
    session = stacked(Rules.make(), hands, dealer=0)
    session.apply(1, NameTrump(Suit.SPADES))
    first = tricks(play(session, ["2C", "KC", "4S", "AC"]))[0]
    assert first.winner == 3 and first.won == (0, 1)
    second = tricks(play(session, ["4D", "2D", "AD", "3D"]))[0]
    assert second.winner == 1 and second.cards == tuple(cards("4D 2D AD 3D"))


# ----- the end of a plain deal, courts, scoring, the next dealer --------------------------------


def test_a_deal_ends_as_soon_as_a_team_wins_its_seventh_trick_unless_it_won_all_seven() -> None:
    seen_win = False
    for seed in range(12):
        session = Session(Rules.make(), Random(seed), dealer=seed % 4)
        session.start()
        session.apply(session.caller, NameTrump(Suit.HEARTS))
        events = play_highest(session)
        won = tricks(events)
        end = deal_end(events)
        before = won[-2].won
        if end.kind == "win":
            seen_win = True
            assert max(end.tricks) == 7 and min(end.tricks) >= 1 and max(before) == 6
        else:
            assert [trick.winner % 2 for trick in won[:7]] == [end.winner] * 7
    assert seen_win


def test_a_52_court_plays_all_thirteen_and_wins_the_session_at_once() -> None:
    session = stacked(Rules.make(), hands_around({1: "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S"}), dealer=0)
    session.apply(1, NameTrump(Suit.SPADES))
    events = play_highest(session)
    assert len(tricks(events)) == 13
    end = deal_end(events)
    assert (end.kind, end.winner, end.tricks, end.score, end.next_dealer) == ("52-court", 1, (0, 13), (0, 3), 2)
    over = events[-1]
    assert isinstance(over, SessionEnded) and (over.winner, over.reason) == (1, "52-court")
    assert session.is_over and refusal(session, 0, RevealTrump()) is Reason.GAME_OVER


def court_chase_deal(rules: Rules) -> Session:
    """The caller (seat 1) holds the seven top trumps and low hearts; seat 0 holds the ace of hearts."""
    hands = hands_around({1: "AS KS QS JS 10S 9S 8S 2H 3H 4H 5H 6H 7H", 0: "7S 6S 5S 4S AH"})
    session = stacked(rules, hands, dealer=0)
    session.apply(1, NameTrump(Suit.SPADES))
    return session


def test_a_court_is_played_on_until_the_other_team_wins_a_trick() -> None:
    events = play_highest(court_chase_deal(Rules.make()))
    won = tricks(events)
    assert [trick.winner for trick in won] == [1] * 7 + [0]
    end = deal_end(events)
    assert (end.kind, end.winner, end.tricks, end.score, end.next_dealer, end.streak) == (
        "court", 1, (1, 7), (0, 3), 2, (0, 0),
    )


def test_courts_scoring_counts_a_court_as_one_and_ends_after_the_agreed_deals() -> None:
    session = court_chase_deal(Rules.make(scoring="courts", deals=2))
    assert deal_end(play_highest(session)).score == (0, 1)
    events = play_highest_session(session)
    over = events[-1]
    assert isinstance(over, SessionEnded) and over.reason == "deals" and session.deal_number == 2


def test_the_dealers_team_winning_the_first_seven_is_a_goon_court_worth_four() -> None:
    hands = hands_around({0: "AS KS QS JS 10S 9S 8S 7D 6D 5D 4D 3D 2D", 1: "AH AD KD QD JD 10D 9D 8D"})
    session = stacked(Rules.make(), hands, dealer=0)
    session.apply(1, NameTrump(Suit.SPADES))
    events = play_highest(session)
    assert [trick.winner for trick in tricks(events)] == [0] * 7 + [1]
    end = deal_end(events)
    assert (end.kind, end.winner, end.tricks, end.score, end.next_dealer) == ("goon court", 0, (7, 1), (4, 0), 1)


def play_highest_session(session: Session) -> list[object]:
    events: list[object] = []
    while not session.is_over:
        if session.phase is Phase.TRUMP:
            events.extend(session.apply(session.caller, session.legal_actions(session.caller)[0]))
        else:
            events.extend(play_highest(session))
    return events


@pytest.mark.parametrize(
    ("rules", "kind", "winner", "expected"),
    [
        # caller seat 1 (team 1), dealer seat 0 (team 0); streak before: (1, 2)
        (Rules.make(), "win", 1, (1, 0, (0, 3))),
        (Rules.make(), "court", 1, (3, 2, (0, 0))),
        (Rules.make(), "win", 0, (2, 1, (2, 0))),
        (Rules.make(), "goon court", 0, (4, 1, (0, 0))),
        (Rules.make(), "52-court", 1, (3, 2, (0, 0))),
        (Rules.make(scoring="courts"), "win", 1, (0, 0, (0, 3))),
        (Rules.make(scoring="courts"), "goon court", 0, (1, 1, (0, 0))),
        (Rules.make(scoring="courts"), "52-court", 0, (52, 1, (0, 0))),
        (Rules.make("double-sir", scoring="courts"), "goon court", 0, (3, 1, (0, 0))),
        (Rules.make("double-sir", scoring="courts", goon=10), "goon court", 0, (10, 1, (0, 0))),
        (Rules.make("double-sir", scoring="courts"), "court", 1, (1, 2, (0, 0))),
        (Rules.make("double-sir"), "goon court", 0, (4, 1, (0, 0))),
    ],
)
def test_each_kind_of_deal_scores_and_passes_the_deal_as_the_page_says(
    rules: Rules, kind: str, winner: int, expected: tuple[int, int, tuple[int, int]]
) -> None:
    settled = settle(rules, kind, winner=winner, caller=1, dealer=0, streak=(1, 2))  # type: ignore[arg-type]
    assert tuple(settled) == expected


# ----- trump options ----------------------------------------------------------------------------


def test_trump_by_card_sets_a_first_five_card_face_up_and_it_stays_in_the_hand() -> None:
    hands = hands_around({1: "2C 3C 4C 5C QH"})
    session = stacked(Rules.make(trump="card"), hands, dealer=0)
    assert refusal(session, 1, NameTrump(Suit.HEARTS)) is Reason.NOT_THIS_VARIANT
    assert refusal(session, 1, SetTrumpCard(hands[1][6])) is Reason.NOT_IN_FIRST_FIVE
    chosen = session.apply(1, SetTrumpCard(Card("QH")))[0]
    assert isinstance(chosen, TrumpChosen)
    assert (chosen.how, chosen.suit, chosen.card) == ("card", Suit.HEARTS, Card("QH"))
    assert Card("QH") in session.view(1).hand
    assert session.view(3).face_up_trump_card >= 0  # everyone saw it turned up


def test_trump_by_card_declined_turns_a_random_card_of_the_second_batch() -> None:
    hands = hands_around({})
    session = stacked(Rules.make(trump="card"), hands, dealer=0)
    chosen = session.apply(1, DeclineTrumpCard())[0]
    assert isinstance(chosen, TrumpChosen) and chosen.how == "random" and chosen.card in hands[1][5:9]
    assert chosen.suit is chosen.card.suit


def test_trump_later_names_the_suit_of_the_seventh_or_tenth_card() -> None:
    hands = hands_around({})
    for position in (7, 10):
        session = stacked(Rules.make("double-sir", trump="later"), hands, dealer=0)
        chosen = session.apply(1, TrumpLater(position))[0]
        assert isinstance(chosen, TrumpChosen) and chosen.card == hands[1][position - 1]
    session = stacked(Rules.make("double-sir", trump="later"), hands, dealer=0)
    assert isinstance(session.apply(1, NameTrump(Suit.CLUBS))[0], TrumpChosen)


def test_a_low_first_five_may_be_redealt_by_the_same_dealer() -> None:
    low = hands_around({1: "2C 3D 4H 10S 9C"})
    high = hands_around({1: "JC 3D 4H 10S 9C"})
    rules = Rules.make(redeal=True)
    session = Session(rules, Random(0), dealer=0, decks=[deck_for_hands(low, 1), deck_for_hands(high, 1)])
    session.start()
    assert AskRedeal() in session.legal_actions(1)
    events = session.apply(1, AskRedeal())
    assert isinstance(events[0], Redealt) and isinstance(events[1], DealDone)
    assert events[1].deal == 1 and events[1].dealer == 0 and list(events[1].hands[1]) == high[1]
    assert AskRedeal() not in session.legal_actions(1)
    assert refusal(session, 1, AskRedeal()) is Reason.REDEAL_NOT_ALLOWED
    no_option = stacked(Rules.make(), low, dealer=0)
    assert refusal(no_option, 1, AskRedeal()) is Reason.REDEAL_NOT_ALLOWED


# ----- hidden trump -----------------------------------------------------------------------------


def hidden_example_one(rules: Rules) -> Session:
    """The page's first Hidden Rung trick, after a first trick that puts player 1 (seat 0) on lead."""
    hands = hands_around(
        {0: "AC AH", 1: "9D 2C 5H", 2: "3C 6D", 3: "4C 3D"}, voids={2: "H", 3: "H"}
    )
    session = stacked(rules, hands, dealer=0)
    session.apply(1, SetTrumpCard(Card("9D")))
    play(session, ["2C", "3C", "4C", "AC"])
    return session


def test_hidden_rung_example_a_trump_revealed_mid_trick_beats_a_higher_card_played_before() -> None:
    session = hidden_example_one(Rules.make("hidden-rung"))
    assert session.view(3).trump_suit is None and session.view(1).own_trump_card >= 0
    events = play(session, ["AH", "5H", "6D", "reveal", "3D"])
    reveal = next(event for event in events if isinstance(event, TrumpRevealed))
    assert (reveal.seat, reveal.suit, reveal.card) == (3, Suit.DIAMONDS, Card("9D"))
    assert tricks(events)[0].winner == 3
    assert Card("9D") in session.view(1).hand


def test_hidden_rung_example_the_led_suit_revealed_as_trumps_keeps_its_order() -> None:
    # player 4 (seat 3) is the trump maker; player 1 (seat 0) leads after winning the first trick
    hands = hands_around({3: "7S 2C", 0: "AC AS", 1: "3C 3D", 2: "4C 5S"}, voids={1: "S"})
    session = stacked(Rules.make("hidden-rung"), hands, dealer=2)
    session.apply(3, SetTrumpCard(Card("7S")))
    play(session, ["2C", "AC", "3C", "4C"])
    events = play(session, ["AS", "reveal", "3D", "5S", "7S"])
    reveal = next(event for event in events if isinstance(event, TrumpRevealed))
    assert (reveal.seat, reveal.card) == (1, Card("7S"))
    assert tricks(events)[0].winner == 0


def test_the_asker_of_a_reveal_must_then_play_a_trump() -> None:
    session = hidden_example_one(Rules.make("court-piece", trump="hidden"))
    play(session, ["AH", "5H", "6D", "reveal"])
    with pytest.raises(Refused) as raised:
        session.apply(3, PlayCard(hands_card(session, 3, not_suit=Suit.DIAMONDS)))
    assert raised.value.refusal.reason is Reason.MUST_TRUMP and raised.value.refusal.suit is Suit.DIAMONDS


def hands_card(session: Session, seat: int, not_suit: Suit) -> Card:
    return next(card for card in session.view(seat).hand if card.suit is not not_suit)


def test_only_a_seat_that_cannot_follow_may_ask_and_only_the_caller_on_lead() -> None:
    session = hidden_example_one(Rules.make("court-piece", trump="hidden"))
    assert refusal(session, 0, RevealTrump()) is Reason.ONLY_CALLER_ON_LEAD
    play(session, ["AH"])
    assert refusal(session, 1, RevealTrump()) is Reason.CAN_FOLLOW


def test_the_set_apart_card_cannot_be_played_before_its_reveal() -> None:
    hands = hands_around({1: "9D 2C"})
    session = stacked(Rules.make("court-piece", trump="hidden"), hands, dealer=0)
    session.apply(1, SetTrumpCard(Card("9D")))
    assert refusal(session, 1, PlayCard(Card("9D"))) is Reason.TRUMP_CARD_SET_APART
    assert len(session.view(1).hand) == 12


def test_a_caller_revealing_on_lead_must_lead_a_trump() -> None:
    hands = hands_around({1: "9D 2C"})
    session = stacked(Rules.make("court-piece", trump="hidden"), hands, dealer=0)
    session.apply(1, SetTrumpCard(Card("9D")))
    play(session, ["reveal"])
    assert refusal(session, 1, PlayCard(Card("2C"))) is Reason.MUST_LEAD_TRUMP


def test_hidden_rung_caller_who_cannot_follow_reveals_or_plays_face_down() -> None:
    hands = hands_around({0: "AC AH", 1: "9D 2C", 2: "3C 9H", 3: "4C"}, voids={1: "H"})
    session = stacked(Rules.make("hidden-rung"), hands, dealer=0)
    session.apply(1, SetTrumpCard(Card("9D")))
    play(session, ["2C", "3C", "4C", "AC", "AH"])
    view = session.view(1)
    assert view.face_down_only and view.may_reveal
    spare = view.hand[0]
    assert refusal(session, 1, PlayCard(spare)) is Reason.MUST_REVEAL_OR_FACE_DOWN
    events = session.apply(1, PlayCard(spare, face_down=True))
    assert isinstance(events[0], CardPlayed) and events[0].face_down
    assert session.view(2).current[1].card == -1  # nobody else sees it
    assert session.view(1).current[1].card >= 0
    assert refusal(session, 2, PlayCard(Card("9H"), face_down=True)) is Reason.FACE_DOWN_NOT_ALLOWED


def test_blind_trump_is_set_apart_unseen_even_by_the_caller() -> None:
    session = Session(Rules.make(trump="blind"), Random(4), dealer=0)
    events = session.start()
    chosen = events[2]
    assert isinstance(chosen, TrumpChosen) and (chosen.how, chosen.suit, chosen.card) == ("blind", None, None)
    view = session.view(1)
    assert view.trump_hidden and view.own_trump_card == -1 and len(view.hand) == 12
    assert session.phase is Phase.PLAY


# ----- Double Sir -------------------------------------------------------------------------------

CLUBS = "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C"


def double_sir_sweep(rules: Rules) -> list[TrickWon]:
    """The caller (seat 1) holds every club, names clubs and wins all thirteen tricks."""
    session = stacked(rules, hands_around({1: CLUBS}), dealer=0)
    session.apply(1, NameTrump(Suit.CLUBS))
    events = play_highest(session)
    end = deal_end(events)
    assert (end.kind, end.tricks) == ("court", (0, 13))
    return tricks(events)


def test_double_sir_collects_after_two_in_a_row_and_a_third_win_starts_a_new_pile() -> None:
    won = double_sir_sweep(Rules.make("double-sir"))
    assert [trick.collected for trick in won] == [0, 2] * 6 + [1]
    assert [trick.centre for trick in won[:4]] == [1, 0, 1, 0]
    assert won[3].won == (0, 4)


def test_no_collection_after_the_first_two_or_the_eleventh_and_twelfth_tricks() -> None:
    won = double_sir_sweep(Rules.make("double-sir", no_early_late=True))
    assert [trick.collected for trick in won] == [0, 0, 3, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2]


def test_two_tricks_in_a_row_won_with_aces_collect_nothing() -> None:
    hands = hands_around({1: "AS AH AC KC QC JC 10C 9C 8C 7C 6C 5C 4C", 0: "3C 2C KS KH"})
    for option, expected in ((False, [0, 2, 0, 2]), (True, [0, 0, 0, 4])):
        session = stacked(Rules.make("double-sir", aces_no_collect=option), hands, dealer=0)
        session.apply(1, NameTrump(Suit.CLUBS))
        won = tricks(play_highest(session))
        assert [trick.winner for trick in won[:4]] == [1, 1, 1, 1]
        assert [trick.collected for trick in won[:4]] == expected


def test_double_sir_partners_winning_in_turn_do_not_collect() -> None:
    hands = hands_around({1: "AS 2H 6H", 2: "2S 3H 7H", 3: "3S AH KH", 0: "4S 4H 5H"})
    session = stacked(Rules.make("double-sir"), hands, dealer=0)
    session.apply(1, NameTrump(Suit.CLUBS))
    won = tricks(play(session, ["AS", "2S", "3S", "4S", "2H", "3H", "AH", "4H", "KH", "5H", "6H", "7H"]))
    assert [trick.winner for trick in won] == [1, 3, 3]
    assert [trick.collected for trick in won] == [0, 0, 3]


def test_be_ranga_the_first_card_off_suit_sets_trumps_and_wins_its_own_trick() -> None:
    hands = hands_around({1: "AS", 2: "KS", 3: "2H", 0: "QS"}, voids={3: "S"})
    session = stacked(Rules.make("be-ranga"), hands, dealer=0)
    assert session.phase is Phase.PLAY and len(session.view(1).hand) == 13
    events = play(session, ["AS", "KS", "2H", "QS"])
    chosen = next(event for event in events if isinstance(event, TrumpChosen))
    assert (chosen.seat, chosen.how, chosen.suit, chosen.card) == (3, "unable", Suit.HEARTS, Card("2H"))
    assert events.index(chosen) == 2  # right before the play that set it
    assert tricks(events)[0].winner == 3


def test_the_thirteenth_trick_takes_whatever_is_left_in_the_centre() -> None:
    for seed in range(6):
        session = Session(Rules.make("double-sir"), Random(seed), dealer=0)
        session.start()
        session.apply(1, NameTrump(Suit.HEARTS))
        events = play_highest(session)
        won = tricks(events)
        assert len(won) == 13 and won[-1].centre == 0 and sum(won[-1].won) == 13
        assert won[-1].collected >= 1
        assert deal_end(events).tricks == won[-1].won


def test_rules_refuse_options_of_another_variant() -> None:
    with pytest.raises(RulesError, match="Double Sir option"):
        Rules.make("court-piece", no_early_late=True)
    with pytest.raises(RulesError, match="no redeal"):
        Rules.make("be-ranga", redeal=True)
    with pytest.raises(RulesError, match="3 or 10"):
        Rules.make("double-sir", goon=5)
    with pytest.raises(RulesError, match="hidden-rung takes trump hidden or blind"):
        Rules.make("hidden-rung", trump="named")
