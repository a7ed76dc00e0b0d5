"""Cards as values: the 52 cards, their codes, and reading card codes and deck orders."""

from __future__ import annotations

import pytest

from voice_rang.cards import DECK, Card, DeckError, Rank, Suit, parse_card, parse_deck


def test_deck_holds_52_distinct_cards_13_of_each_suit() -> None:
    assert len(DECK) == 52
    assert len(set(DECK)) == 52
    for suit in Suit:
        assert sum(card.suit is suit for card in DECK) == 13


def test_deck_order_is_clubs_diamonds_hearts_spades_ace_to_king() -> None:
    assert DECK[0] is Card("AC")
    assert DECK[12] is Card("KC")
    assert DECK[13] is Card("AD")
    assert DECK[51] is Card("KS")
    assert [card.suit for card in DECK[::13]] == [Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES]


@pytest.mark.parametrize(
    ("code", "rank", "suit"),
    [
        ("AC", Rank.ACE, Suit.CLUBS),
        ("10H", Rank.TEN, Suit.HEARTS),
        ("QD", Rank.QUEEN, Suit.DIAMONDS),
        ("7C", Rank.SEVEN, Suit.CLUBS),
        ("KS", Rank.KING, Suit.SPADES),
        ("JH", Rank.JACK, Suit.HEARTS),
        ("2S", Rank.TWO, Suit.SPADES),
    ],
)
def test_card_code_is_rank_then_suit_letter(code: str, rank: Rank, suit: Suit) -> None:
    card = Card(code)
    assert card.rank is rank
    assert card.suit is suit
    assert card.code == code


def test_every_card_code_round_trips_and_uses_the_log_alphabet() -> None:
    ranks = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}
    for card in DECK:
        assert card.code[:-1] in ranks
        assert card.code[-1] in "CDHS"
        assert parse_card(card.code) is card
        assert Card(card.code) is card


def test_cards_are_singletons_compared_by_identity() -> None:
    assert Card("4C") is parse_card("4c")
    assert Card("4C").suit is Card("7C").suit


def test_rank_code_names_face_cards_by_letter() -> None:
    assert [rank.code for rank in Rank] == [
        "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
    ]


def test_only_the_suit_matters_for_a_match_and_rank_is_just_a_name() -> None:
    # The rules' examples, stated on card values: same suit matches, same rank does not.
    assert Card("4C").suit is Card("7C").suit
    assert Card("2S").suit is Card("KS").suit
    assert Card("KH").suit is not Card("KS").suit
    assert Card("5H").suit is not Card("5D").suit  # both red, still a miss


@pytest.mark.parametrize("text", ["qd", " QD ", "Qd"])
def test_parse_card_is_case_insensitive_and_ignores_surrounding_space(text: str) -> None:
    assert parse_card(text) is Card("QD")


@pytest.mark.parametrize("text", ["", "Q", "1C", "11H", "QX", "joker", "10", "AAC"])
def test_parse_card_rejects_what_is_not_a_card_with_a_deck_error(text: str) -> None:
    with pytest.raises(DeckError, match="is not a card"):
        parse_card(text)


def test_deck_error_is_a_value_error() -> None:
    assert issubclass(DeckError, ValueError)


def test_parse_deck_reads_all_52_cards_in_order() -> None:
    codes = [card.code for card in reversed(DECK)]
    assert parse_deck(codes) == list(reversed(DECK))


def test_parse_deck_rejects_a_short_deck() -> None:
    with pytest.raises(DeckError, match="got 51 cards"):
        parse_deck(card.code for card in DECK[:51])


def test_parse_deck_rejects_a_long_deck() -> None:
    with pytest.raises(DeckError, match="got 53 cards"):
        parse_deck([*(card.code for card in DECK), "AC"])


def test_parse_deck_names_a_card_given_twice() -> None:
    codes = [card.code for card in DECK[:51]] + ["AC"]
    with pytest.raises(DeckError, match="AC twice"):
        parse_deck(codes)


def test_parse_deck_rejects_a_bad_code() -> None:
    codes = [card.code for card in DECK[:51]] + ["ZZ"]
    with pytest.raises(DeckError, match="'ZZ' is not a card"):
        parse_deck(codes)
