"""The table loop driven by scripted command sources and a fake clock."""

from __future__ import annotations

from random import Random

from voice_rang.games.rang_milanti import DECK, Card, Event, Game, Revealed
from voice_rang.games.rang_milanti.narration import RangMilantiNarrator
from voice_rang.games.rang_milanti.play import RangMilantiPlay
from voice_rang.messages import Message
from voice_rang.table import SeatKind, Table
from voice_rang.table.pacing import FLOOR_HOLD_S, LISTENER_BEHIND_S


class RecordingOutputs:
    """The test double for outputs: keeps every message; speech can be made to look busy."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.speaking = False
        self.stops = 0
        self.rate: int | None = None

    def say(self, message: Message) -> None:
        self.messages.append(message)

    def stop(self) -> None:
        self.stops += 1

    def busy(self) -> bool:
        return self.speaking

    def faster(self) -> int | None:
        if self.rate is not None:
            self.rate += 25
        return self.rate

    def slower(self) -> int | None:
        if self.rate is not None:
            self.rate -= 25
        return self.rate

    @property
    def texts(self) -> list[str]:
        return [m.text for m in self.messages]

    def since(self, index: int) -> list[str]:
        return self.texts[index:]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def stacked(*codes: str) -> list[Card]:
    first = [Card(code) for code in codes]
    return first + [card for card in DECK if card not in first]


def make_table(kinds: list[SeatKind] | None = None, deck: list[Card] | None = None, beat: float = 1.0,
               interactive: bool = False, cap: int = 5000) -> tuple[Table, RecordingOutputs, Clock, list]:
    kinds = kinds or ["person", "computer"]
    outputs, clock, log = RecordingOutputs(), Clock(), []
    narrator = RangMilantiNarrator.load("en", seats=len(kinds), listener=0 if kinds.count("person") == 1 else None,
                             kinds=kinds, cap=cap)

    def new_game(number: int) -> Game:
        return Game(len(kinds), Random(5), deck=deck, cap=cap, number=number)

    table = Table(narrator, RangMilantiPlay(narrator, new_game, len(kinds)), outputs, kinds=kinds, beat=beat,
                  interactive=interactive,
                  log=lambda events: log.append((events[0].game, events)), clock=clock)
    table.start()
    return table, outputs, clock, log


def logged(log: list) -> list[Event]:
    return [event for _, events in log for event in events]


def test_start_announces_the_deal_then_tells_the_host_it_is_their_turn() -> None:
    _, outputs, _, _ = make_table()
    assert outputs.texts[0].startswith("New game of Rang Milanti: 2 seats, 26 cards each")
    assert outputs.texts[-1] == "Your turn: say turn, or press space."


def test_turn_reveals_the_hosts_card_and_the_computer_answers_after_a_beat() -> None:
    table, outputs, clock, log = make_table(deck=stacked("KH", "KS"))
    table.handle("turn")
    assert outputs.texts[-1].startswith("You turned the king of hearts onto the empty pile")
    assert table.due == clock.now + 1.0
    clock.now += 0.5
    table.tick()
    assert not outputs.texts[-1].startswith("Guest 1")
    clock.now += 0.6
    table.tick()
    assert outputs.texts[-2].startswith("Guest 1 turned the king of spades onto the king of hearts")
    assert outputs.texts[-1] == "Your turn: say turn, or press space."
    assert [type(e).__name__ for e in logged(log)] == ["Dealt", "Revealed", "Revealed"]


def test_computer_seat_waits_for_the_narration_to_finish_before_it_turns() -> None:
    table, outputs, clock, _ = make_table(deck=stacked("KH", "KS"))
    table.handle("turn")
    outputs.speaking = True
    clock.now += 5
    table.tick()
    assert table.game is not None and table.game.reveals == 1
    outputs.speaking = False
    clock.now += 0.1
    table.tick()
    assert table.game.reveals == 2


def test_turn_out_of_turn_says_whose_turn_it_is_and_changes_nothing() -> None:
    table, outputs, _, _ = make_table(kinds=["person", "computer", "computer"], deck=stacked("KH", "KS", "2D"))
    table.handle("turn")
    before = table.game.reveals if table.game else 0
    table.handle("turn")
    assert outputs.texts[-1] == "It is guest 1's turn; the computer plays it."
    assert table.game is not None and table.game.reveals == before


def test_after_a_capture_the_person_turns_the_extra_card_themselves() -> None:
    table, outputs, clock, _ = make_table(deck=stacked("KH", "7C", "4C", "2S", "QD"))
    table.handle("turn")
    clock.now += 2
    table.tick()
    table.handle("turn")
    assert "a match! You take all 3 cards" in outputs.texts[-2]
    assert outputs.texts[-1].startswith("Your turn again: turn one more card")
    table.handle("turn")
    assert outputs.texts[-1].startswith("You turned one more, the queen of diamonds")


def test_auto_reveal_turns_the_hosts_cards_after_a_beat_until_switched_off() -> None:
    table, outputs, clock, _ = make_table(deck=stacked("KH", "KS", "2D", "3C"))
    table.handle("auto-reveal on")
    assert outputs.texts[-1] == "Auto-reveal on: your cards turn by themselves a beat after your turn comes."
    assert table.due is not None
    clock.now += 1.0
    table.tick()
    assert outputs.texts[-1].startswith("You turned the king of hearts")
    table.handle("auto-reveal off")
    clock.now += 1.0
    table.tick()  # guest 1's card
    assert outputs.texts[-1] == "Your turn: say turn, or press space."
    clock.now += 10
    table.tick()
    assert table.game is not None and table.game.reveals == 2


def test_auto_reveal_also_turns_the_card_after_a_capture() -> None:
    table, outputs, clock, _ = make_table(deck=stacked("KH", "7C", "4C", "2S", "QD"))
    table.handle("auto-reveal on")
    for _ in range(4):
        clock.now += 1.0
        table.tick()
    assert any(text.startswith("You turned one more, the queen of diamonds") for text in outputs.texts)


def test_auto_reveal_is_off_again_in_a_new_game() -> None:
    table, outputs, _, _ = make_table(deck=stacked("KH", "KS"), beat=0, interactive=True, cap=4)
    table.handle("auto-reveal on")
    for _ in range(10):
        table.tick()
    assert table.over and not table.finished
    assert outputs.texts[-1] == "Say new game or press g; say quit or press q."
    table.handle("new game")
    assert table.auto == [False, False]
    assert outputs.texts[-1] == "Your turn: say turn, or press space."
    assert table.game_number == 1


def test_commands_after_the_end_get_the_reason_and_piped_play_finishes() -> None:
    table, outputs, _, _ = make_table(beat=0, cap=3)
    table.handle("auto-reveal on")
    for _ in range(5):
        table.tick()
    assert table.finished and table.exit_code == 0
    assert outputs.texts[-1].startswith("Game over at the cap of 3 reveals")


def test_game_over_answer_when_turning_after_the_end_interactively() -> None:
    table, outputs, _, _ = make_table(beat=0, cap=1, interactive=True)
    table.handle("turn")
    table.handle("turn")
    assert outputs.texts[-1] == "The game is over. Say new game or press g; say quit or press q."


def test_unknown_input_says_not_a_command_and_changes_nothing() -> None:
    table, outputs, _, _ = make_table()
    table.handle("dance")
    assert outputs.texts[-1] == "Not a command; say help."
    assert table.game is not None and table.game.reveals == 0


def test_repeat_says_the_last_message_again() -> None:
    table, outputs, _, _ = make_table()
    table.handle("repeat")
    assert outputs.texts[-1] == outputs.texts[-2] == "Your turn: say turn, or press space."


def test_status_gives_reveal_number_turn_counts_and_pile() -> None:
    table, outputs, _, _ = make_table(deck=stacked("KH", "KS"))
    table.handle("turn")
    mark = len(outputs.texts)
    table.handle("status")
    assert outputs.since(mark) == [
        "Reveal 1 of 5,000.",
        "It is guest 1's turn.",
        "You: stack 25, collected 0.",
        "Guest 1: stack 26, collected 0.",
        "Pile: 1 card, the king of hearts.",
    ]


def test_help_says_what_you_can_say_now() -> None:
    table, outputs, _, _ = make_table()
    table.handle("help")
    assert outputs.texts[-2].startswith("You can say: turn, auto-reveal on or off")


def test_history_steps_back_and_forward_through_past_messages() -> None:
    table, outputs, _, _ = make_table()
    total = len(table.history)
    table.handle("history back")
    assert outputs.texts[-1] == f"Message {total - 1} of {total}: {table.history[-2].text}"
    table.handle("history back")
    assert outputs.texts[-1].startswith(f"Message {total - 2} of {total}:")
    table.handle("history forward")
    assert outputs.texts[-1].startswith(f"Message {total - 1} of {total}:")


def test_quit_asks_to_confirm_and_no_keeps_playing() -> None:
    table, outputs, _, _ = make_table()
    table.handle("quit")
    assert outputs.texts[-1] == "Quit the game? Say yes or no, or press y or n."
    table.handle("no")
    assert not table.finished
    table.handle("quit")
    table.handle("yes")
    assert table.finished and table.exit_code == 0
    assert outputs.texts[-1] == "Goodbye."


def test_the_computer_seat_waits_while_the_quit_question_is_open_and_turns_a_beat_after_no() -> None:
    table, outputs, clock, _ = make_table(deck=stacked("KH", "KS"))
    table.handle("turn")
    table.handle("quit")
    clock.now += 5
    table.tick()
    assert table.game is not None and table.game.reveals == 1
    assert outputs.texts[-1] == "Quit the game? Say yes or no, or press y or n."
    table.handle("no")
    clock.now += 0.5
    table.tick()
    assert table.game.reveals == 1
    clock.now += 0.6
    table.tick()
    assert table.game.reveals == 2


def test_at_beat_zero_a_held_card_is_not_asked_about_again_sooner_than_50_ms() -> None:
    """The loop sleeps until ``due``: a due date of now would spin it while the question waits."""
    table, _, clock, _ = make_table(deck=stacked("KH", "KS"), beat=0.0)
    table.handle("turn")
    table.handle("quit")
    table.tick()
    assert table.due is not None and table.due >= clock.now + 0.05
    assert table.game is not None and table.game.reveals == 1


def test_piped_input_ending_with_the_quit_question_open_stops_with_a_reason() -> None:
    table, outputs, _, _ = make_table(deck=stacked("KH", "KS"))
    table.handle("turn")
    table.handle("quit")
    table.close_inputs()
    assert table.finished and table.exit_code == 1
    assert outputs.texts[-1] == "Input ended before the game did: stopping at reveal 1 of 5,000."


def test_people_at_one_device_each_keep_their_own_auto_reveal() -> None:
    table, outputs, clock, _ = make_table(kinds=["person", "person"], deck=stacked("KH", "KS", "2D", "3C"))
    assert outputs.texts[-1] == "The host's turn: say turn, or press space."
    table.handle("turn")
    assert outputs.texts[-1] == "Guest 1's turn: say turn, or press space."
    table.handle("auto-reveal on")
    assert table.auto == [False, True]
    clock.now += 1
    table.tick()
    assert outputs.texts[-1] == "The host's turn: say turn, or press space."


def test_stop_silences_speech_and_speed_commands_reach_the_speech() -> None:
    table, outputs, _, _ = make_table()
    table.handle("stop")
    assert outputs.stops == 1
    table.handle("faster")
    assert outputs.texts[-1] == "Speech is off, so there is no rate to change."
    outputs.rate = 175
    table.handle("faster")
    assert outputs.texts[-1] == "Faster: 200 words a minute."


def test_verbosity_changes_the_next_reveal() -> None:
    table, outputs, _, _ = make_table(deck=stacked("KH", "KS"))
    table.handle("verbosity brief")
    assert outputs.texts[-1] == "Verbosity brief."
    table.handle("turn")
    assert outputs.texts[-1] == "You: the king of hearts, new pile. Reveal 1 of 5,000."


def test_piped_input_ending_while_a_person_must_act_stops_with_a_reason() -> None:
    table, outputs, _, _ = make_table()
    table.close_inputs()
    assert table.finished and table.exit_code == 1
    assert outputs.texts[-1] == "Input ended before the game did: stopping at reveal 0 of 5,000."


def test_every_logged_reveal_was_narrated_in_order() -> None:
    table, outputs, _, log = make_table(beat=0, kinds=["person", "computer", "computer"])
    table.handle("auto-reveal on")
    while not table.finished:
        table.tick()
    reveals = [event for event in logged(log) if isinstance(event, Revealed)]
    narrated = [text for text in outputs.texts if " turned " in text]
    assert len(reveals) == len(narrated) == table.game.reveals  # type: ignore[union-attr]
    for event, text in zip(reveals, narrated, strict=True):
        assert text.endswith(f"Reveal {event.n} of 5,000.")


def test_voice_listens_for_yes_and_no_only_while_a_question_is_open() -> None:
    table, _, _, _ = make_table()
    assert "turn" in table.valid_commands() and "yes" not in table.valid_commands()
    table.handle("quit")
    assert {"yes", "no"} <= table.valid_commands() and "turn" not in table.valid_commands()
    table.handle("no")
    assert "yes" not in table.valid_commands()


def test_a_half_heard_command_is_asked_about_and_yes_does_it() -> None:
    table, outputs, _, log = make_table()
    table.offer_guess("turn", "reveal")
    assert outputs.texts[-1] == "Did you say reveal? Say yes or no."
    assert not any(isinstance(event, Revealed) for event in logged(log))
    assert {"yes", "no", "turn"} <= table.valid_commands()
    table.handle("yes")
    assert isinstance(logged(log)[-1], Revealed)
    assert "yes" not in table.valid_commands()


def test_no_to_a_half_heard_command_changes_nothing() -> None:
    table, outputs, _, log = make_table()
    before = len(logged(log))
    table.offer_guess("turn", "turn")
    table.handle("no")
    assert outputs.texts[-1] == "Then say it again, or say help to hear what you can say."
    assert len(logged(log)) == before
    table.handle("yes")
    assert outputs.texts[-1] == "There is nothing to say yes or no to."
    assert len(logged(log)) == before


def test_a_half_heard_yes_to_the_question_does_the_command_and_a_half_heard_no_drops_it() -> None:
    table, _, _, log = make_table()
    table.offer_guess("turn", "turn")
    table.offer_guess("yes", "[yes]")
    assert isinstance(logged(log)[-1], Revealed)
    table, outputs, _, log = make_table()
    before = len(logged(log))
    table.offer_guess("auto-reveal on", "auto reveal on")
    table.offer_guess("no", "[no]")
    assert outputs.texts[-1] == "Then say it again, or say help to hear what you can say."
    assert table.auto == [False, False] and len(logged(log)) == before


def test_a_half_heard_yes_with_no_question_open_or_after_it_is_not_caught() -> None:
    table, outputs, clock, log = make_table()
    before = len(logged(log))
    table.offer_guess("yes", "[yes]")
    assert outputs.texts[-1] == "I didn't catch that. Say help to hear what you can say."
    table.offer_guess("turn", "turn")
    clock.now += 11
    table.offer_guess("yes", "[yes]")
    assert outputs.texts[-1] == "I didn't catch that. Say help to hear what you can say."
    assert len(logged(log)) == before


def test_a_half_heard_yes_never_answers_the_quit_question() -> None:
    table, outputs, _, _ = make_table()
    table.handle("quit")
    table.offer_guess("yes", "[yes]")
    assert not table.finished
    assert outputs.texts[-1] == "I didn't catch that. Say help to hear what you can say."


def test_a_yes_long_after_the_question_answers_nothing() -> None:
    table, outputs, clock, log = make_table()
    before = len(logged(log))
    table.offer_guess("turn", "turn")
    clock.now += 11
    assert "yes" not in table.valid_commands()
    table.handle("yes")
    assert outputs.texts[-1] == "There is nothing to say yes or no to."
    assert len(logged(log)) == before


def test_another_command_instead_of_yes_drops_the_question() -> None:
    table, _, _, log = make_table()
    table.offer_guess("auto-reveal on", "auto reveal on")
    table.handle("status")
    assert table.auto == [False, False]
    table.handle("yes")
    assert table.auto == [False, False]
    assert not any(isinstance(event, Revealed) for event in logged(log))


def test_repeat_says_the_question_again_and_keeps_it_open() -> None:
    table, outputs, _, _ = make_table()
    table.offer_guess("auto-reveal on", "auto reveal on")
    table.handle("repeat")
    assert outputs.texts[-1] == "Did you say auto reveal on? Say yes or no."
    table.handle("yes")
    assert table.auto[0]


def test_repeat_keeps_the_quit_question_open() -> None:
    table, outputs, _, _ = make_table()
    table.handle("quit")
    table.handle("repeat")
    assert outputs.texts[-1] == "Quit the game? Say yes or no, or press y or n."
    table.handle("yes")
    assert table.finished


def test_a_guess_that_cannot_be_done_now_is_not_asked_about() -> None:
    table, outputs, _, _ = make_table()
    table.offer_guess("new game", "play again")
    assert outputs.texts[-1] == "I didn't catch that. Say help to hear what you can say."
    assert "yes" not in table.valid_commands()


def test_a_half_heard_quit_asks_the_quit_question() -> None:
    table, outputs, _, _ = make_table()
    table.offer_guess("quit", "quit")
    assert outputs.texts[-1] == "Quit the game? Say yes or no, or press y or n."
    table.handle("no")
    assert not table.finished


def test_a_guess_while_the_quit_question_is_open_is_not_asked_so_yes_still_means_quit() -> None:
    table, outputs, _, _ = make_table()
    table.handle("quit")
    table.offer_guess("help", "help")
    assert outputs.texts[-1] == "I didn't catch that. Say help to hear what you can say."
    table.handle("yes")
    assert table.finished


def test_a_player_who_starts_speaking_holds_the_computers_card_until_their_words_are_done() -> None:
    table, outputs, clock, _ = make_table(deck=stacked("KH", "KS"))
    table.handle("turn")  # the computer's card is due a beat later
    clock.now += 0.5
    table.hold_floor()
    clock.now += 2.0
    table.tick()
    assert not outputs.texts[-1].startswith("Guest 1")
    table.release_floor()
    clock.now += 0.9
    table.tick()
    assert not outputs.texts[-1].startswith("Guest 1"), "the card waits a beat after the player"
    clock.now += 0.2
    table.tick()
    assert outputs.texts[-2].startswith("Guest 1 turned the king of spades")


def test_a_held_floor_lets_go_by_itself_when_the_end_of_the_words_never_comes() -> None:
    table, outputs, clock, _ = make_table(deck=stacked("KH", "KS"))
    table.handle("turn")
    table.hold_floor()
    clock.now += FLOOR_HOLD_S - 0.1
    table.tick()
    assert not outputs.texts[-1].startswith("Guest 1")
    clock.now += 0.2
    table.tick()
    assert outputs.texts[-2].startswith("Guest 1 turned the king of spades")


def test_a_listening_game_leaves_a_quiet_gap_after_talking_during_auto_reveal() -> None:
    # The microphone is deaf while the game talks: with no gap, spoken auto-reveal would talk on
    # from card to card and "auto-reveal off" could never be heard.
    table, outputs, clock, _ = make_table(deck=stacked("KH", "KS"), beat=0.0)
    table.quiet_gap = 1.2
    outputs.speaking = True
    table.handle("auto-reveal on")
    table.tick()
    assert not outputs.texts[-1].startswith("You turned")
    clock.now += 3.0
    table.tick()  # still talking
    outputs.speaking = False
    clock.now += 1.0
    table.tick()
    assert not outputs.texts[-1].startswith("You turned")
    clock.now += 0.3
    table.tick()
    assert outputs.texts[-1].startswith("You turned the king of hearts")


def auto_reveal_just_said(heard: list[float] | None = None) -> tuple[Table, RecordingOutputs, Clock]:
    """A listening game with auto-reveal just turned on, the moment its answer has been said;
    ``heard[0]``, when given, is how far the listener has gone through the microphone's audio."""
    table, outputs, clock, _ = make_table(deck=stacked("KH", "KS"), beat=0.0)
    table.quiet_gap = 1.2
    if heard is not None:
        heard.append(clock.now)
        table.heard_quiet_until = lambda: heard[0]
    outputs.speaking = True
    table.handle("auto-reveal on")
    table.tick()
    outputs.speaking = False
    return table, outputs, clock


def test_the_quiet_gap_waits_for_a_listener_that_has_not_yet_heard_it() -> None:
    # On a busy machine the listener can run behind: the player's first words, said inside the
    # gap, are not yet decoded when the clock says the gap is over. The card waits for them.
    heard: list[float] = []
    table, outputs, clock = auto_reveal_just_said(heard)
    spoke_at = clock.now
    clock.now += 1.5
    heard[0] = spoke_at + 0.9  # the listener is 0.6 s behind
    table.tick()
    assert not outputs.texts[-1].startswith("You turned")
    clock.now += 0.5
    heard[0] = spoke_at + 1.3  # caught up, nobody spoke
    table.tick()
    assert outputs.texts[-1].startswith("You turned the king of hearts")


def test_a_listener_that_never_catches_up_holds_the_card_back_only_so_long() -> None:
    heard: list[float] = []
    table, outputs, clock = auto_reveal_just_said(heard)
    heard[0] = 0.0  # stuck
    clock.now += 1.2 + LISTENER_BEHIND_S - 0.1
    table.tick()
    assert not outputs.texts[-1].startswith("You turned")
    clock.now += 0.2
    table.tick()
    assert outputs.texts[-1].startswith("You turned the king of hearts")


def test_words_a_lagging_listener_finds_in_the_gap_hold_the_floor() -> None:
    heard: list[float] = []
    table, outputs, clock = auto_reveal_just_said(heard)
    clock.now += 1.6
    table.tick()
    table.hold_floor()  # the listener, behind, has just found the start of speech in the gap
    heard[0] = clock.now  # and goes on through the words
    clock.now += 1.0
    table.tick()
    assert not outputs.texts[-1].startswith("You turned")
    table.release_floor()
    clock.now += 0.1
    table.tick()
    assert outputs.texts[-1].startswith("You turned the king of hearts")


def test_computer_seats_alone_leave_no_quiet_gap() -> None:
    # The game soon comes back to the person and waits for them; a pause there only invites a
    # "turn" said out of turn.
    table, outputs, clock, _ = make_table(deck=stacked("KH", "KS"), beat=0.0)
    table.quiet_gap = 1.2
    outputs.speaking = True
    table.handle("turn")
    table.tick()
    outputs.speaking = False
    clock.now += 0.1
    table.tick()
    assert outputs.texts[-2].startswith("Guest 1 turned the king of spades")
