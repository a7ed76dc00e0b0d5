"""The table's remote seats: commands with their seat, answers for that seat's device, a computer
standing in for a dropped guest. Driven with a fake clock, no sockets."""

from __future__ import annotations

from random import Random
from typing import Any

from test_table import Clock, RecordingOutputs

from voice_rang.games.rang_milanti import Event, Game, Revealed
from voice_rang.games.rang_milanti.narration import RangMilantiNarrator
from voice_rang.games.rang_milanti.play import RangMilantiPlay
from voice_rang.table import SeatKind, Table


def remote_table(seats: int = 3, seed: int = 2) -> tuple[Table, RecordingOutputs, list[tuple[Any, ...]],
                                                         list[Event], Clock]:
    kinds: list[SeatKind] = ["person"] + ["remote"] * (seats - 1)
    outputs, clock, replies, events = RecordingOutputs(), Clock(), [], []
    narrator = RangMilantiNarrator.load("en", seats=seats, listener=0, kinds=kinds)
    table = Table(narrator, RangMilantiPlay(narrator, lambda n: Game(seats, Random(seed), number=n), seats),
                  outputs, kinds=kinds, beat=1.0,
                  clock=clock, log=events.extend)
    table.reply = lambda *answer: replies.append(answer)
    table.start()
    return table, outputs, replies, events, clock


def reveals(events: list[Event]) -> list[Revealed]:
    return [event for event in events if isinstance(event, Revealed)]


def test_a_remote_seat_turns_only_on_its_own_turn_and_its_answers_go_to_its_device() -> None:
    table, outputs, replies, events, _ = remote_table()
    table.handle("turn", seat=1)
    assert replies == [(1, "answer", "not_your_turn", 0, {})]
    assert reveals(events) == []
    table.handle("turn")  # the host's own card
    assert reveals(events)[-1].seat == 0
    assert table.game is not None and table.game.current_seat == 1
    assert outputs.texts[-1] == "It is guest 1's turn."  # the host hears news, not guest 1's prompt
    table.handle("turn", seat=2)
    assert replies[-1] == (2, "answer", "not_your_turn", 1, {})
    table.handle("turn", seat=1)
    assert reveals(events)[-1].seat == 1


def test_the_host_cannot_turn_a_remote_seats_card() -> None:
    table, outputs, _, events, _ = remote_table()
    table.handle("turn")
    table.handle("turn")
    assert len(reveals(events)) == 1
    assert outputs.texts[-1] == "It is guest 1's turn, not yours."


def test_remote_auto_reveal_is_for_that_seat_alone_and_the_host_hears_of_it() -> None:
    table, outputs, replies, _, _ = remote_table()
    table.handle("auto-reveal on", seat=2)
    assert table.auto == [False, False, True]
    assert replies[-1] == (2, "answer", "auto_on", 2, {})
    assert outputs.texts[-1] == "Auto-reveal on for guest 2: guest 2's cards turn by themselves."
    table.handle("auto-reveal on", seat=2)
    assert replies[-1] == (2, "answer", "auto_already_on", None, {})
    table.handle("dance", seat=2)
    assert replies[-1] == (2, "answer", "unknown", None, {})


def test_a_computer_stands_in_for_a_dropped_guest_and_a_return_turns_auto_reveal_off() -> None:
    table, _, _, events, clock = remote_table()
    table.handle("auto-reveal on", seat=1)
    table.handle("turn")
    clock.now += 1.0
    table.tick()
    assert reveals(events)[-1].seat == 1  # auto-reveal turned guest 1's card
    assert table.game is not None and table.game.current_seat == 2
    table.set_kind(2, "computer")  # guest 2 dropped and its grace ran out, on its own turn
    assert table.due is not None
    clock.now += 1.0
    table.tick()
    assert reveals(events)[-1].seat == 2
    table.set_kind(1, "remote")  # guest 1 took its seat back
    assert table.auto[1] is False
    table.handle("turn")
    clock.now += 5.0
    table.tick()
    assert reveals(events)[-1].seat == 0  # guest 1 now waits to be asked, its auto-reveal off
    assert table.due is None


def test_input_ending_at_the_host_does_not_stop_a_game_waiting_for_a_remote_seat() -> None:
    table, _, _, _, _ = remote_table()
    table.handle("auto-reveal on")
    table.handle("turn")
    table.close_inputs()
    assert not table.finished
