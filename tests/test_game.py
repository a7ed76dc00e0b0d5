"""The rules of Rang Milanti, one test per rule, on stacked decks; then properties over seeds.

Deck order (see ``Game``): dealt one card at a time round the table from ``deck[0]``, host
first, so seat ``s`` turns ``deck[s]``, ``deck[s + seats]`` … in that order; the cards left over
are the spares, face up, the last one on top. Without captures the reveals follow deck order.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from random import Random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voice_rang.cards import DECK, Card, DeckError, Suit
from voice_rang.games.rang_milanti.events import Dealt, Event, GameOver, Reshuffled, Revealed, WentOut
from voice_rang.games.rang_milanti.game import DEFAULT_CAP, Game, GameFinished, seat_names

# ----- building stacked decks ------------------------------------------------------------------


def stacked(
    seats: int, stacks: Sequence[Sequence[str]] = (), spares: Sequence[str] = ()
) -> list[Card]:
    """A deck that deals each seat the given stack (top first) and leaves the given spares on top.

    Stacks shorter than a full share and missing spares are filled with the lowest unused cards.
    """
    per_seat, spare_count = divmod(52, seats)
    used: set[Card] = set()
    wanted = [list(stack) for stack in stacks] + [[] for _ in range(seats - len(stacks))]
    # Codes anywhere are reserved before any suit letter picks a card.
    for token in [t for stack in wanted for t in stack] + list(spares):
        if len(token) > 1:
            used.add(Card(token))
    resolved = [_resolve_letters(stack, used) for stack in wanted]
    spare_cards = _resolve_letters(list(spares), used)
    filler = iter([card for card in DECK if card not in used])
    for stack in resolved:
        stack.extend(islice(filler, per_seat - len(stack)))
    spare_cards = list(islice(filler, spare_count - len(spare_cards))) + spare_cards
    assert all(len(stack) == per_seat for stack in resolved)
    assert len(spare_cards) == spare_count
    deck = [resolved[seat][k] for k in range(per_seat) for seat in range(seats)] + spare_cards
    assert sorted(deck, key=DECK.index) == list(DECK)
    return deck


def _resolve_letters(tokens: Sequence[str], used: set[Card]) -> list[Card]:
    out = []
    for token in tokens:
        if len(token) > 1:
            out.append(Card(token))
        else:
            suit = Suit(token)
            card = next(c for c in DECK if c.suit is suit and c not in used)
            used.add(card)
            out.append(card)
    return out


def by_suits(pattern: str) -> list[Card]:
    """A whole deck from 52 suit letters, ranks ace upward within each suit."""
    assert len(pattern) == 52
    deck = _resolve_letters(list(pattern), set())
    assert len(set(deck)) == 52
    return deck


ROUND_ROBIN = "CDHS" * 13
"""No two neighbours share a suit: in deck order, nothing ever matches."""


def play(game: Game) -> list[Event]:
    """Every event of the game, the deal first."""
    events: list[Event] = [game.dealt]
    game.play_out(events.append)
    return events


def reveals(events: Sequence[Event]) -> list[Revealed]:
    return [event for event in events if isinstance(event, Revealed)]


def kinds(events: Sequence[Event]) -> list[str]:
    return [type(event).__name__ for event in events]


# ----- the deal ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "each", "spare"), [(2, 26, 0), (3, 17, 1), (4, 13, 0), (5, 10, 2), (6, 8, 4)]
)
def test_deal_gives_each_seat_an_equal_stack_and_leaves_the_rest_face_up(
    seats: int, each: int, spare: int
) -> None:
    game = Game(seats, Random(seats))
    assert game.dealt.stacks == (each,) * seats
    assert len(game.dealt.spares) == spare
    assert game.stack_counts() == (each,) * seats
    assert game.collected_counts() == (0,) * seats
    assert game.pile_count == spare
    assert each * seats + spare == 52


@pytest.mark.parametrize("seats", [3, 5, 6])
def test_spares_are_the_leftover_cards_in_deck_order_last_on_top(seats: int) -> None:
    deck = list(reversed(DECK))
    game = Game(seats, Random(0), deck=deck)
    spare = 52 % seats
    assert list(game.dealt.spares) == deck[52 - spare :]
    assert game.top_card is deck[-1]


@pytest.mark.parametrize("seats", [2, 4])
def test_no_spares_means_the_first_card_lands_on_an_empty_pile(seats: int) -> None:
    game = Game(seats, Random(0), deck=by_suits(ROUND_ROBIN))
    assert game.dealt.spares == ()
    assert game.top_card is None
    first = game.turn()[0]
    assert isinstance(first, Revealed)
    assert first.under is None and not first.match and first.pile == 1


def test_seats_are_named_host_then_guests() -> None:
    assert seat_names(6) == ("host", "guest 1", "guest 2", "guest 3", "guest 4", "guest 5")
    assert Game(3, Random(0)).dealt.seats == ("host", "guest 1", "guest 2")


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_without_captures_cards_are_turned_in_deck_order_round_the_table(seats: int) -> None:
    # Round-robin suits: neighbours in deck order never share a suit. The spare on top (last
    # card) is a spade and deck[0] a club, so the first reveal misses too.
    deck = by_suits(ROUND_ROBIN)
    game = Game(seats, Random(0), deck=deck)
    events = play(game)
    shown = reveals(events)
    assert not any(r.match for r in shown)
    assert [r.card for r in shown] == deck[: len(shown)]
    assert [r.seat for r in shown] == [n % seats for n in range(len(shown))]


def test_host_turns_first_and_turns_pass_by_seat_number() -> None:
    game = Game(4, Random(0), deck=by_suits(ROUND_ROBIN))
    seen = []
    for _ in range(9):
        assert game.current_seat == len(seen) % 4
        (event,) = game.turn()
        assert isinstance(event, Revealed)
        seen.append(event.seat)
    assert seen == [0, 1, 2, 3, 0, 1, 2, 3, 0]


# ----- matching ----------------------------------------------------------------------------------


def test_four_of_clubs_on_seven_of_clubs_is_a_match() -> None:
    game = Game(2, Random(0), deck=stacked(2, [["7C"], ["4C"]]))
    (first,) = game.turn()
    capture, _extra = game.turn()
    assert isinstance(first, Revealed) and isinstance(capture, Revealed)
    assert (capture.card, capture.under, capture.match, capture.moved) == (
        Card("4C"), Card("7C"), True, 2,
    )


def test_two_of_spades_on_king_of_spades_is_a_match() -> None:
    game = Game(2, Random(0), deck=stacked(2, [["KS"], ["2S"]]))
    game.turn()
    capture = game.turn()[0]
    assert isinstance(capture, Revealed)
    assert capture.match and capture.moved == 2


def test_king_of_hearts_on_king_of_spades_is_a_miss_rank_never_matters() -> None:
    game = Game(2, Random(0), deck=stacked(2, [["KS"], ["KH"]]))
    game.turn()
    (miss,) = game.turn()
    assert isinstance(miss, Revealed)
    assert (miss.card, miss.under, miss.match, miss.moved, miss.pile) == (
        Card("KH"), Card("KS"), False, 0, 2,
    )


def test_hearts_on_diamonds_is_a_miss_though_both_are_red() -> None:
    game = Game(2, Random(0), deck=stacked(2, [["5D"], ["5H"]]))
    game.turn()
    (miss,) = game.turn()
    assert isinstance(miss, Revealed)
    assert not miss.match and miss.moved == 0


def test_miss_leaves_the_card_on_the_pile_and_passes_the_turn() -> None:
    game = Game(3, Random(0), deck=stacked(3, [["2C"], ["3D"], ["4H"]], spares=["9S"]))
    for expected_pile, expected_seat in [(2, 1), (3, 2), (4, 0)]:
        (event,) = game.turn()
        assert isinstance(event, Revealed)
        assert not event.match and event.pile == expected_pile
        assert game.pile_count == expected_pile
        assert game.top_card is event.card
        assert game.current_seat == expected_seat


def test_capture_takes_whole_pile_then_turns_one_more_onto_empty_pile() -> None:
    game = Game(2, Random(0), deck=stacked(2, [["KH", "4C", "QD"], ["7C", "AS"]]))
    game.turn()  # host: king of hearts onto the empty pile
    game.turn()  # guest: seven of clubs on the king, a miss
    capture, extra = game.turn()
    assert isinstance(capture, Revealed) and isinstance(extra, Revealed)
    assert (capture.seat, capture.card, capture.under, capture.match) == (0, Card("4C"), Card("7C"), True)
    assert capture.moved == 3  # king, seven and four: the whole pile, own card included
    assert (capture.stacks, capture.collected, capture.pile) == ((24, 25), (3, 0), 0)
    assert (extra.seat, extra.card, extra.under, extra.match, extra.moved) == (
        0, Card("QD"), None, False, 0,
    )
    assert (extra.stacks, extra.collected, extra.pile) == ((23, 25), (3, 0), 1)
    assert (capture.n, extra.n) == (3, 4)
    assert game.current_seat == 1
    assert game.top_card is Card("QD")


def test_card_after_a_capture_cannot_match_even_in_the_same_suit() -> None:
    game = Game(2, Random(0), deck=stacked(2, [["7C", "9D"], ["4C", "3D"]]))
    game.turn()
    capture, extra = game.turn()
    assert isinstance(capture, Revealed) and isinstance(extra, Revealed)
    assert capture.match and extra.card is Card("3D")
    assert extra.under is None and not extra.match
    # ...and the next seat can match on that fresh card.
    (answer,) = game.turn()[:1]
    assert isinstance(answer, Revealed)
    assert (answer.card, answer.under, answer.match, answer.moved) == (Card("9D"), Card("3D"), True, 2)


def test_rules_example_three_seats_spare_seven_of_clubs_four_of_clubs_takes_both() -> None:
    deck = stacked(3, [["4C", "QD"], ["10H"], ["AS"]], spares=["7C"])
    game = Game(3, Random(0), deck=deck)
    assert game.dealt.spares == (Card("7C"),)
    capture, extra = game.turn()
    assert isinstance(capture, Revealed) and isinstance(extra, Revealed)
    assert (capture.seat, capture.card, capture.under, capture.match, capture.moved) == (
        0, Card("4C"), Card("7C"), True, 2,
    )
    assert capture.collected == (2, 0, 0) and capture.pile == 0
    assert (extra.seat, extra.card, extra.under, extra.match, extra.pile) == (
        0, Card("QD"), None, False, 1,
    )
    assert game.current_seat == 1  # the turn passes to guest 1
    (miss,) = game.turn()
    assert isinstance(miss, Revealed)
    assert (miss.seat, miss.card, miss.under, miss.match, miss.pile) == (
        1, Card("10H"), Card("QD"), False, 2,
    )


@pytest.mark.parametrize(
    ("seats", "spares"), [(3, ["9S"]), (5, ["2H", "9S"]), (6, ["2H", "3D", "5C", "9S"])]
)
def test_first_card_can_match_the_top_spare_and_takes_all_spares(
    seats: int, spares: list[str]
) -> None:
    game = Game(seats, Random(0), deck=stacked(seats, [["4S"]], spares=spares))
    capture = game.turn()[0]
    assert isinstance(capture, Revealed)
    assert (capture.n, capture.seat, capture.under, capture.match) == (1, 0, Card("9S"), True)
    assert capture.moved == len(spares) + 1
    assert capture.collected[0] == len(spares) + 1


@pytest.mark.parametrize("seats", [3, 5, 6])
def test_first_card_on_a_spare_of_another_suit_misses(seats: int) -> None:
    spares = ["S"] * (52 % seats)
    game = Game(seats, Random(0), deck=stacked(seats, [["4H"]], spares=spares))
    (miss,) = game.turn()
    assert isinstance(miss, Revealed)
    assert miss.under is not None and miss.under.suit is Suit.SPADES
    assert not miss.match and miss.pile == 52 % seats + 1


# ----- reshuffles, going out, winning -------------------------------------------------------------

# Two seats, reveals in deck order until the first capture. The host's 24th card (deck[46])
# matches deck[45]; the extra card is its 25th (deck[48]); its 26th and last (deck[50]) misses.
_LATE_CAPTURE = "CDHS" * 11 + "CD" + "D" + "SHSHC"


def test_miss_with_last_card_but_cards_collected_is_not_out_and_reshuffles_next_turn() -> None:
    deck = by_suits(_LATE_CAPTURE)
    game = Game(2, Random(5), deck=deck)
    events = play(game)
    shown = reveals(events)
    capture = shown[46]
    assert (capture.n, capture.seat, capture.match, capture.moved) == (47, 0, True, 47)
    assert (shown[47].seat, shown[47].under) == (0, None)
    last = shown[49]
    assert (last.n, last.seat, last.match) == (50, 0, False)
    assert last.stacks[0] == 0 and last.collected[0] == 47
    at = events.index(last)
    # Not out: the guest plays on, then the host's empty stack is refilled before its reveal.
    assert kinds(events[at + 1 : at + 4]) == ["Revealed", "Reshuffled", "Revealed"]
    reshuffle = events[at + 2]
    assert reshuffle == Reshuffled(seat=0, cards=47)
    after = events[at + 3]
    assert isinstance(after, Revealed)
    assert (after.seat, after.n) == (0, 52)
    assert after.stacks[0] == 46
    assert after.collected[0] == (after.moved if after.match else 0)
    assert not any(isinstance(e, WentOut) and e.seat == 0 for e in events[: at + 3])


# The host's 26th and last card (deck[50]) matches the guest's 25th (deck[49]).
_LAST_CARD_CAPTURE = "CDHS" * 11 + "CHSCHDDS"


def test_capture_with_the_last_card_never_puts_you_out_the_extra_card_comes_from_the_take() -> None:
    game = Game(2, Random(3), deck=by_suits(_LAST_CARD_CAPTURE))
    events = play(game)
    shown = reveals(events)
    capture = shown[50]
    assert (capture.n, capture.seat, capture.match, capture.moved) == (51, 0, True, 51)
    assert capture.stacks[0] == 0 and capture.collected[0] == 51
    at = events.index(capture)
    assert events[at + 1] == Reshuffled(seat=0, cards=51)
    extra = events[at + 2]
    assert isinstance(extra, Revealed)
    assert (extra.seat, extra.under, extra.match) == (0, None, False)
    assert (extra.stacks[0], extra.collected[0]) == (50, 0)
    assert WentOut(0) not in events


def test_going_out_last_card_misses_with_nothing_collected_and_last_seat_wins() -> None:
    game = Game(2, Random(0), deck=by_suits(ROUND_ROBIN))
    events = play(game)
    shown = reveals(events)
    assert len(shown) == 51  # the host's 26th card is the 51st reveal
    last = shown[-1]
    assert (last.seat, last.match, last.stacks, last.collected, last.pile) == (
        0, False, (0, 1), (0, 0), 51,
    )
    assert events[-2:] == [
        WentOut(seat=0),
        GameOver(reveals=51, reason="last seat", winners=(1,), cards=(0, 1)),
    ]
    assert events[-3] is last  # out comes right after the reveal that puts the seat out
    assert game.is_over and game.result == events[-1]


def test_pile_stays_when_a_seat_goes_out_and_the_next_seat_matches_on_it() -> None:
    # Three seats, spare a spade. Misses all the way; the host's 17th card (deck[48], a diamond)
    # puts it out, and guest 1's 17th (deck[49], a diamond) takes everything in the middle.
    deck = by_suits("C" + "HSCD" * 12 + "DHS")
    game = Game(3, Random(2), deck=deck)
    events = play(game)
    shown = reveals(events)
    out_at = events.index(WentOut(seat=0))
    went_out = events[out_at - 1]
    assert isinstance(went_out, Revealed)
    assert (went_out.n, went_out.seat, went_out.pile) == (49, 0, 50)
    take = events[out_at + 1]
    assert isinstance(take, Revealed)
    assert (take.n, take.seat, take.under, take.match) == (50, 1, went_out.card, True)
    assert take.moved == 51  # spare + 49 turned cards + its own
    assert events[out_at + 2] == Reshuffled(seat=1, cards=51)
    assert shown[50].seat == 1 and shown[50].under is None
    assert all(r.seat != 0 for r in shown[49:])


def test_seats_that_are_out_are_skipped_in_turn_order() -> None:
    # Four seats. Guests 1, 2 and 3 each take a one-card pile (two cards of one suit) and turn
    # one more; the host never takes anything and goes out after its 13th card. Then the three
    # guests turn their two collected cards, the host's seat skipped, until guest 3 is left.
    tail = list("DSHC" * 11 + "S")
    host = ["C", tail[0], *tail[4::4]]
    guest1 = ["C", "D", *tail[1::4]]
    guest2 = ["D", "H", *tail[2::4]]
    guest3 = ["H", "S", *tail[3::4]]
    game = Game(4, Random(9), deck=stacked(4, [host, guest1, guest2, guest3]))
    events = play(game)
    shown = reveals(events)
    assert [r.match for r in shown[:8]] == [False, True, False, True, False, True, False, False]
    assert not any(r.match for r in shown[8:])
    assert [r.seat for r in shown[:8]] == [0, 1, 1, 2, 2, 3, 3, 0]
    host_out = events.index(WentOut(seat=0))
    assert events[host_out - 1].n == 52  # type: ignore[union-attr]
    after = [r.seat for r in shown if r.n > 52]
    assert after == [1, 2, 3, 1, 2]  # guest 3 hands over to guest 1: the host is skipped
    assert [e.seat for e in events if isinstance(e, WentOut)] == [0, 1, 2]
    assert events[-1] == GameOver(reveals=57, reason="last seat", winners=(3,), cards=(0, 0, 0, 1))
    assert game.seats_in == (3,)


def test_last_seat_left_wins_and_cards_in_the_middle_count_for_nobody() -> None:
    game = Game(4, Random(0), deck=by_suits(ROUND_ROBIN))
    events = play(game)
    end = events[-1]
    assert isinstance(end, GameOver)
    assert [e.seat for e in events if isinstance(e, WentOut)] == [0, 1, 2]
    assert (end.reason, end.winners, end.cards, end.reveals) == ("last seat", (3,), (0, 0, 0, 1), 51)
    assert reveals(events)[-1].pile == 51


# ----- the cap -------------------------------------------------------------------------------------


def test_cap_defaults_to_5000_reveals() -> None:
    assert DEFAULT_CAP == 5000
    assert Game(2, Random(0)).cap == 5000


def test_cap_stops_the_game_and_the_seat_holding_most_cards_wins() -> None:
    game = Game(2, Random(0), deck=by_suits(ROUND_ROBIN), cap=3)
    events = play(game)
    assert len(reveals(events)) == 3
    assert events[-1] == GameOver(reveals=3, reason="cap", winners=(1,), cards=(24, 25))


def test_cap_with_an_exact_tie_for_most_cards_is_a_shared_win() -> None:
    game = Game(2, Random(0), deck=by_suits(ROUND_ROBIN), cap=2)
    assert play(game)[-1] == GameOver(reveals=2, reason="cap", winners=(0, 1), cards=(25, 25))


def test_cap_tie_can_be_shared_by_three_seats() -> None:
    game = Game(3, Random(0), deck=by_suits(ROUND_ROBIN), cap=3)
    end = play(game)[-1]
    assert end == GameOver(reveals=3, reason="cap", winners=(0, 1, 2), cards=(16, 16, 16))


def test_capture_on_the_cap_reveal_stops_before_the_extra_card() -> None:
    game = Game(2, Random(0), deck=stacked(2, [["7C"], ["4C"]]), cap=2)
    events = play(game)
    assert kinds(events) == ["Dealt", "Revealed", "Revealed", "GameOver"]
    capture = events[2]
    assert isinstance(capture, Revealed) and capture.match
    assert events[-1] == GameOver(reveals=2, reason="cap", winners=(1,), cards=(25, 27))


def test_card_after_a_capture_counts_towards_the_cap() -> None:
    game = Game(2, Random(0), deck=stacked(2, [["7C"], ["4C", "QD"]]), cap=3)
    events = play(game)
    shown = reveals(events)
    assert [(r.n, r.seat, r.match) for r in shown] == [(1, 0, False), (2, 1, True), (3, 1, False)]
    assert shown[-1].under is None
    assert events[-1] == GameOver(reveals=3, reason="cap", winners=(1,), cards=(25, 26))


def test_cap_of_one_stops_after_the_first_card() -> None:
    events = play(Game(5, Random(1), cap=1))
    assert kinds(events) == ["Dealt", "Revealed", "GameOver"]
    end = events[-1]
    assert isinstance(end, GameOver) and end.reason == "cap" and end.reveals == 1


# ----- bad input, finished games, replay -------------------------------------------------------


@pytest.mark.parametrize("seats", [-1, 0, 1, 7, 8])
def test_seat_counts_outside_two_to_six_raise(seats: int) -> None:
    with pytest.raises(ValueError, match="2 to 6 seats"):
        Game(seats, Random(0))


@pytest.mark.parametrize("cap", [0, -5])
def test_cap_below_one_raises(cap: int) -> None:
    with pytest.raises(ValueError, match="cap"):
        Game(2, Random(0), cap=cap)


@pytest.mark.parametrize(
    "deck",
    [
        pytest.param(list(DECK[:51]), id="51 cards"),
        pytest.param([*DECK, DECK[0]], id="53 cards"),
        pytest.param([*DECK[:51], DECK[0]], id="a card twice"),
        pytest.param([], id="empty"),
        pytest.param([card.code for card in DECK], id="codes, not cards"),
        pytest.param([*DECK[:51], None], id="not a card"),
    ],
)
def test_malformed_decks_raise_a_deck_error(deck: list[object]) -> None:
    with pytest.raises(DeckError):
        Game(2, Random(0), deck=deck)  # type: ignore[arg-type]


def test_asking_for_a_turn_after_the_end_raises_game_finished() -> None:
    game = Game(2, Random(0), cap=1)
    game.play_out()
    with pytest.raises(GameFinished):
        game.turn()
    with pytest.raises(GameFinished):
        game.play_out()


def test_a_given_deck_is_not_changed_by_the_game() -> None:
    deck = by_suits(ROUND_ROBIN)
    before = list(deck)
    play(Game(2, Random(0), deck=deck))
    assert deck == before


def test_same_seed_replays_the_same_game() -> None:
    assert play(Game(4, Random(42))) == play(Game(4, Random(42)))
    assert play(Game(4, Random(42))) != play(Game(4, Random(43)))


# ----- properties over seeds and seat counts -------------------------------------------------

seeds = st.integers(min_value=0, max_value=2**32 - 1)
seat_counts = st.integers(min_value=2, max_value=6)
small_caps = st.one_of(st.integers(min_value=1, max_value=60), st.just(DEFAULT_CAP))
PROPERTY = settings(max_examples=60, deadline=None)


def _next_in(seats_in: list[int], after: int) -> int:
    later = [seat for seat in seats_in if seat > after]
    return later[0] if later else seats_in[0]


@PROPERTY
@given(seed=seeds, seats=seat_counts, cap=small_caps)
def test_all_52_cards_are_accounted_for_after_every_reveal(seed: int, seats: int, cap: int) -> None:
    events = play(Game(seats, Random(seed), cap=cap))
    pile = 52 % seats
    for event in events:
        if isinstance(event, Revealed):
            assert sum(event.stacks) + sum(event.collected) + event.pile == 52
            assert min(event.stacks) >= 0 and min(event.collected) >= 0
            pile = event.pile
        elif isinstance(event, GameOver):
            assert sum(event.cards) + pile == 52


@PROPERTY
@given(seed=seeds, seats=seat_counts, cap=small_caps)
def test_turns_go_to_the_next_seat_still_in_and_a_capture_keeps_the_turn(
    seed: int, seats: int, cap: int
) -> None:
    events = play(Game(seats, Random(seed), cap=cap))
    seats_in = list(range(seats))
    expected = 0
    for event in events:
        if isinstance(event, Revealed):
            assert event.seat == expected
            if event.match:
                continue  # the same seat turns the next card
            last = event.seat
            expected = _next_in(seats_in, last)
        elif isinstance(event, WentOut):
            assert event.seat == last
            seats_in.remove(event.seat)
            expected = _next_in(seats_in, last) if seats_in else -1
        elif isinstance(event, Reshuffled):
            assert event.seat == expected


@PROPERTY
@given(seed=seeds, seats=seat_counts, cap=small_caps)
def test_every_game_ends_by_the_cap(seed: int, seats: int, cap: int) -> None:
    game = Game(seats, Random(seed), cap=cap)
    events = play(game)
    end = events[-1]
    assert isinstance(end, GameOver)
    assert sum(isinstance(e, GameOver) for e in events) == 1
    shown = reveals(events)
    assert end.reveals == len(shown) == game.reveals <= cap
    assert [r.n for r in shown] == list(range(1, len(shown) + 1))
    if end.reason == "cap":
        assert end.reveals == cap
        most = max(end.cards)
        assert end.winners == tuple(s for s, held in enumerate(end.cards) if held == most)
    else:
        assert len(end.winners) == 1 and game.seats_in == end.winners


@PROPERTY
@given(seed=seeds, seats=seat_counts, cap=small_caps)
def test_events_carry_no_hidden_information(seed: int, seats: int, cap: int) -> None:
    card_codes = {card.code for card in DECK}
    for event in play(Game(seats, Random(seed), cap=cap)):
        fields = msgspec.to_builtins(event)
        kind = fields.pop("event")
        for name, value in fields.items():
            if isinstance(value, list):
                if (kind, name) == ("deal", "spares"):
                    continue  # face up in the middle: everyone sees them
                if (kind, name) == ("deal", "seats"):
                    assert value == list(seat_names(seats))
                else:
                    assert all(type(count) is int for count in value), (kind, name)
            elif value in card_codes:
                assert (kind, name) in {("reveal", "card"), ("reveal", "under")}


@PROPERTY
@given(seed=seeds, seats=seat_counts, cap=small_caps)
def test_turn_by_turn_gives_exactly_the_events_of_play_out(seed: int, seats: int, cap: int) -> None:
    whole = play(Game(seats, Random(seed), cap=cap))
    game = Game(seats, Random(seed), cap=cap)
    stepped: list[Event] = [game.dealt]
    while not game.is_over:
        turn = game.turn()
        revealed = reveals(turn)
        # One turn: one reveal, or a capture and the card after it.
        assert 1 <= len(revealed) <= 2
        assert len({r.seat for r in revealed}) == 1
        if len(revealed) == 2:
            assert revealed[0].match and revealed[1].under is None
        stepped.extend(turn)
    assert stepped == whole


@PROPERTY
@given(seed=seeds, seats=seat_counts, cap=small_caps)
def test_counts_in_reveals_match_what_the_game_reports(seed: int, seats: int, cap: int) -> None:
    game = Game(seats, Random(seed), cap=cap)
    while not game.is_over:
        for event in game.turn():
            if isinstance(event, Revealed):
                last = event
        assert last.stacks == game.stack_counts()
        assert last.collected == game.collected_counts()
        assert last.pile == game.pile_count
        assert (game.top_card is None) == (last.pile == 0)


def test_the_deal_event_is_first_and_describes_the_table() -> None:
    events = play(Game(5, Random(3)))
    deal = events[0]
    assert isinstance(deal, Dealt)
    assert deal.seats == seat_names(5) and deal.stacks == (10,) * 5 and len(deal.spares) == 2
    assert not any(isinstance(e, Dealt) for e in events[1:])


@PROPERTY
@given(seed=seeds, seats=seat_counts, cap=small_caps)
def test_reveal_by_reveal_gives_exactly_the_events_of_play_out(
    seed: int, seats: int, cap: int
) -> None:
    whole = play(Game(seats, Random(seed), cap=cap))
    game = Game(seats, Random(seed), cap=cap)
    stepped: list[Event] = [game.dealt]
    while not game.is_over:
        step = game.reveal()
        assert len(reveals(step)) == 1
        stepped.extend(step)
        last = reveals(step)[0]
        if not game.is_over:
            assert game.owes_extra_card == last.match
    assert stepped == whole


@PROPERTY
@given(seed=seeds, seats=seat_counts, steps=st.lists(st.booleans(), min_size=200, max_size=200))
def test_mixing_single_reveals_and_whole_turns_gives_the_same_game(
    seed: int, seats: int, steps: list[bool]
) -> None:
    whole = play(Game(seats, Random(seed)))
    game = Game(seats, Random(seed))
    stepped: list[Event] = [game.dealt]
    for one_card in steps:
        if game.is_over:
            break
        owed = game.owes_extra_card
        seat = game.current_seat
        step = game.reveal() if one_card else game.turn()
        if owed:
            # Finishing a turn after a capture turns only the card that is owed.
            assert [(r.seat, r.under) for r in reveals(step)] == [(seat, None)]
        stepped.extend(step)
    if not game.is_over:
        game.play_out(stepped.append)
    assert stepped == whole


def test_turn_after_a_single_reveal_captured_turns_only_the_owed_card() -> None:
    game = Game(2, Random(0), deck=stacked(2, [["7C"], ["4C", "QD"]]))
    game.reveal()
    (capture,) = game.reveal()
    assert isinstance(capture, Revealed) and capture.match
    assert game.owes_extra_card and game.current_seat == 1
    (extra,) = game.turn()
    assert isinstance(extra, Revealed)
    assert (extra.seat, extra.card, extra.under) == (1, Card("QD"), None)
    assert not game.owes_extra_card and game.current_seat == 0
