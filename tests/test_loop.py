"""The table's loop: what inputs put on its queue reaches the table in order."""

from __future__ import annotations

import argparse
import queue
from random import Random

import pytest
from test_table import RecordingOutputs

from voice_rang.commands import CommandSet
from voice_rang.games.rang_milanti import Game, Revealed
from voice_rang.games.rang_milanti.narration import RangMilantiNarrator
from voice_rang.games.rang_milanti.play import RangMilantiPlay
from voice_rang.listen.recognizer import Recognition
from voice_rang.messages import Message
from voice_rang.table import Table
from voice_rang.table.loop import INPUT_ENDED, Guess, Inbox, run_table


def table_and_log() -> tuple[Table, RecordingOutputs, list[Revealed]]:
    outputs, reveals = RecordingOutputs(), list[Revealed]()
    narrator = RangMilantiNarrator.load("en", seats=2, listener=0, kinds=["person", "computer"])
    table = Table(narrator, RangMilantiPlay(narrator, lambda number: Game(2, Random(3), number=number), 2),
                  outputs, kinds=["person", "computer"], beat=0.0, interactive=False,
                  log=lambda events: reveals.extend(e for e in events if isinstance(e, Revealed)))
    return table, outputs, reveals


def test_a_guess_from_the_voice_is_asked_about_and_the_yes_turns_the_card() -> None:
    table, outputs, reveals = table_and_log()
    inbox: queue.Queue[Inbox] = queue.Queue()
    for item in (Guess("turn", "reveal"), "yes", INPUT_ENDED):
        inbox.put(item)
    run_table(table, inbox)  # ends when the input has and it is the person's turn again
    assert "Did you say reveal? Say yes or no." in outputs.texts
    assert reveals and reveals[0].seat == 0


def test_an_unsure_answer_from_the_microphone_becomes_a_question_not_a_move() -> None:
    from voice_rang.cli.device import VoiceStarter

    table, _, _ = table_and_log()
    inbox: queue.Queue[Inbox] = queue.Queue()
    starter = VoiceStarter(argparse.Namespace(mic=None), CommandSet.load("en"), inbox,
                           table.narrator, None, table, lambda: None)
    starter.unsure(Recognition(None, "reveal", True, 1.0, "unsure", 400.0, guess="turn"))
    starter.unsure(Recognition(None, "", True, 1.0, "unsure", 400.0))
    assert inbox.get_nowait() == Guess("turn", "reveal")
    answer = inbox.get_nowait()
    assert isinstance(answer, Message)
    assert answer.text == "I didn't catch that. Say help to hear what you can say."


def test_a_guess_from_words_that_are_not_the_command_is_asked_about_by_the_commands_name() -> None:
    """The head or the player's takes may guess "turn" where the decoders heard other words (or
    music): the question names what a yes would do, never "[don't]"."""
    from voice_rang.cli.device import VoiceStarter

    table, _, _ = table_and_log()
    inbox: queue.Queue[Inbox] = queue.Queue()
    starter = VoiceStarter(argparse.Namespace(mic=None), CommandSet.load("en"), inbox,
                           table.narrator, None, table, lambda: None)
    starter.unsure(Recognition(None, "[don't]", True, 1.0, "doubt", 400.0, guess="turn"))
    starter.unsure(Recognition(None, "turn [hand]", True, 1.0, "unsure", 400.0, guess="turn"))
    starter.unsure(Recognition(None, "auto reveal", True, 1.0, "unsure", 400.0, guess="auto-reveal on"))
    assert [inbox.get_nowait() for _ in range(3)] == [
        Guess("turn", "turn"), Guess("turn", "turn"), Guess("auto-reveal on", "auto reveal on")]


def test_a_missing_microphone_is_said_before_the_recogniser_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recogniser takes about half a second to load; a player without a microphone hears
    that voice commands are off with the game's first lines, not after the first cards."""
    import voice_rang.listen.microphone as microphone
    import voice_rang.listen.neural as neural
    from voice_rang.cli.device import VoiceStarter

    class NoDevices:
        """A sound system with no device at all. Not the process's own PortAudio: started here,
        with no sound server, it would be the one later tests find no microphone in."""

        def get_device_count(self) -> int:
            return 0

    loaded: list[bool] = []
    monkeypatch.setattr(neural, "live_recognizer", lambda *args, **kwargs: loaded.append(True))
    monkeypatch.setattr(microphone, "portaudio", NoDevices)
    table, _, _ = table_and_log()
    inbox: queue.Queue[Inbox] = queue.Queue()
    gave_up: list[bool] = []
    starter = VoiceStarter(argparse.Namespace(mic="no such microphone anywhere", lang="en", headphones=False),
                           CommandSet.load("en"), inbox, table.narrator, None, table,
                           lambda: gave_up.append(True))
    starter.start()
    said = inbox.get(timeout=30)
    assert isinstance(said, Message)
    assert said.text.startswith("Voice commands are off: There is no microphone called 'no such microphone anywhere'")
    assert said.text.endswith("Play by keyboard.")
    assert gave_up == [True] and loaded == []
