"""Golden narration: every event kind, from the listener's seat and from another's."""

from __future__ import annotations

import re

import pytest

from voice_rang.games.rang_milanti import Card, Dealt, GameOver, Reshuffled, Revealed, WentOut
from voice_rang.games.rang_milanti.narration import RangMilantiNarrator, SeatView
from voice_rang.messages import Priority
from voice_rang.narration import Narrator


def narrator(**options: object) -> RangMilantiNarrator:
    options.setdefault("seats", 3)
    return RangMilantiNarrator.load("en", **options)


def texts(messages: list) -> list[str]:
    return [message.text for message in messages]


def reveal(n: int, seat: int, card: str, under: str | None, match: bool, moved: int = 0, pile: int = 2) -> Revealed:
    return Revealed(n, seat, Card(card), Card(under) if under else None, match, moved, (10, 9, 8), (0, 3, 0), pile)


def test_miss_names_seat_card_card_underneath_suits_and_reveal_number() -> None:
    message = narrator().event(reveal(12, 1, "10H", "QD", False, pile=5))[0]
    assert message.text == (
        "Guest 1 turned the ten of hearts onto the queen of diamonds: hearts on diamonds, a miss; "
        "the pile grows to 5. Reveal 12 of 5,000."
    )
    assert message.priority is Priority.NORMAL


def test_match_from_the_listeners_own_seat_says_you_take() -> None:
    text = narrator().event(reveal(3, 0, "4C", "7C", True, moved=2, pile=0))[0].text
    assert text == (
        "You turned the four of clubs onto the seven of clubs: clubs on clubs, a match! "
        "You take all 2 cards. Reveal 3 of 5,000."
    )


def test_match_from_another_seat_says_who_takes_how_many() -> None:
    text = narrator().event(reveal(3, 2, "KS", "2S", True, moved=7, pile=0))[0].text
    assert "Guest 2 takes all 7 cards" in text
    assert text.startswith("Guest 2 turned the king of spades onto the two of spades: spades on spades, a match!")


def test_king_of_hearts_on_king_of_spades_is_narrated_as_a_miss() -> None:
    text = narrator().event(reveal(2, 1, "KH", "KS", False))[0].text
    assert "hearts on spades, a miss" in text


def test_card_after_a_capture_is_one_more_onto_the_empty_pile() -> None:
    talk = narrator()
    talk.event(reveal(3, 0, "4C", "7C", True, moved=2, pile=0))
    text = talk.event(reveal(4, 0, "QD", None, False, pile=1))[0].text
    assert text == (
        "You turned one more, the queen of diamonds, onto the empty pile: it starts a new pile "
        "and cannot match. Reveal 4 of 5,000."
    )


def test_first_card_onto_an_empty_pile_says_the_pile_was_empty() -> None:
    text = narrator().event(reveal(1, 0, "9D", None, False, pile=1))[0].text
    assert text == (
        "You turned the nine of diamonds onto the empty pile: nothing to match, a new pile of 1 starts. "
        "Reveal 1 of 5,000."
    )


def test_brief_verbosity_is_short_and_full_adds_every_count() -> None:
    event = reveal(12, 1, "10H", "QD", False, pile=5)
    brief = texts(narrator(verbosity="brief").event(event))
    assert brief == ["Guest 1: the ten of hearts on the queen of diamonds, miss. Reveal 12 of 5,000."]
    full = texts(narrator(verbosity="full").event(event))
    assert full[1] == (
        "Stacks: you 10, guest 1 9 and guest 2 8. Collected: you 0, guest 1 3 and guest 2 0. Pile: 5."
    )


def test_deal_names_seats_cards_each_and_the_spares_by_name() -> None:
    event = Dealt(("host", "guest 1", "guest 2", "guest 3", "guest 4"), (10,) * 5, (Card("7C"), Card("AS")))
    lines = texts(narrator(seats=5, kinds=["person"] + ["computer"] * 4).event(event))
    assert lines[0] == (
        "New game of Rang Milanti: 5 seats, 10 cards each, face down. You are the host and turn first."
    )
    assert lines[1] == (
        "At the table: you (person), guest 1 (computer), guest 2 (computer), guest 3 (computer) "
        "and guest 4 (computer)."
    )
    assert lines[2] == (
        "2 spare cards face up in the middle: the seven of clubs and the ace of spades; the ace of spades is on top."
    )


def test_reshuffle_and_going_out_from_both_points_of_view() -> None:
    talk = narrator()
    assert talk.event(Reshuffled(0, 9))[0].text == (
        "Your stack is empty: you shuffle your 9 collected cards into a new stack."
    )
    assert talk.event(Reshuffled(2, 4))[0].text == (
        "Guest 2's stack is empty: guest 2 shuffles 4 collected cards into a new stack."
    )
    assert talk.event(WentOut(0))[0].text == "You are out: your last card missed and you had collected nothing."
    assert talk.event(WentOut(1))[0].text == "Guest 1 is out: the last card missed with nothing collected."


def test_end_by_last_seat_and_by_the_cap_with_a_shared_win() -> None:
    talk = narrator()
    win = talk.event(GameOver(311, "last seat", (0,), (52, 0, 0)))[0]
    assert win.text == "Game over: you win! You are the last seat left, after 311 reveals."
    assert win.priority is Priority.URGENT
    shared = talk.event(GameOver(5000, "cap", (1, 2), (10, 20, 20)))[0].text
    assert shared == (
        "Game over at the cap of 5,000 reveals: a shared win for guest 1 and guest 2, with 20 cards each. "
        "Cards held: you 10, guest 1 20 and guest 2 20."
    )


def test_shared_devices_name_every_seat_instead_of_you() -> None:
    talk = narrator(listener=None)
    assert talk.event(reveal(1, 0, "9D", None, False, pile=1))[0].text.startswith("The host turned")
    assert talk.turn_prompt(1, extra=False).text == "Guest 1's turn: say turn, or press space."


def test_turn_prompt_says_what_you_can_do_and_is_urgent() -> None:
    prompt = narrator().turn_prompt(0, extra=False)
    assert prompt.text == "Your turn: say turn, or press space."
    assert prompt.priority is Priority.URGENT
    assert "one more card" in narrator().turn_prompt(0, extra=True).text


def test_status_reports_reveal_turn_counts_and_pile_top() -> None:
    views = [SeatView(0, 10, 2, False, True), SeatView(1, 0, 0, True, False), SeatView(2, 7, 9, False, False)]
    lines = texts(narrator().status(40, 2, views, 3, Card("JS")))
    assert lines == [
        "Reveal 40 of 5,000.",
        "It is guest 2's turn.",
        "You: stack 10, collected 2, auto-reveal on.",
        "Guest 1: out.",
        "Guest 2: stack 7, collected 9.",
        "Pile: 3 cards, the jack of spades on top.",
    ]


@pytest.mark.parametrize("seat", [0, 1])
def test_narration_never_names_a_card_that_is_not_face_up(seat: int) -> None:
    # A reveal names only the turned card and the one under it, never a stack's contents.
    event = reveal(5, seat, "2C", "3D", False)
    text = narrator().event(event)[0].text
    ranks = "ace|two|three|four|five|six|seven|eight|nine|ten|jack|queen|king"
    named = re.findall(rf"the (?:{ranks}) of (?:clubs|diamonds|hearts|spades)", text)
    assert named == ["the two of clubs", "the three of diamonds"]


def test_the_shared_narrator_knows_no_game_and_rang_milanti_builds_on_it() -> None:
    plain = Narrator.load("en", seats=4, partners=True)
    assert not any(hasattr(plain, name) for name in ("event", "turn_prompt", "status", "number_due", "cap"))
    assert (plain.seat_name(2), plain.card(Card("QD"))) == ("your partner", "the queen of diamonds")
    talk = RangMilantiNarrator.load("en", seats=2, cap=300)
    assert type(talk) is RangMilantiNarrator and isinstance(talk, Narrator)
    # Rang Milanti's cap fills in every message it says, the table's answers included.
    assert talk.say("answer", "input_ended", n=3).text.endswith("stopping at reveal 3 of 300.")
