"""Speech through the system's own voice (Windows' SAPI5, macOS's NSSpeechSynthesizer), as the
game drives it: pyttsx3's dummy driver stands in for the system voice, which does not run here."""

from __future__ import annotations

import sys
import time
import types
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from voice_rang.messages import Message, Priority
from voice_rang.speech import driver
from voice_rang.speech.driver import DriverSpeech, open_spoken, speaks_through_driver
from voice_rang.speech.spoken import SpeechUnavailable


class SystemVoice:
    """A pyttsx3 driver that speaks as the system voices do: ``say`` starts the words and returns,
    and the words come one by one from the driver's loop (a word each 10 ms), until the last or
    until ``stop``."""

    spoken_words: ClassVar[list[str]] = []

    def __init__(self, proxy: Any) -> None:
        from pyttsx3.voice import Voice

        self._proxy = proxy
        self._looping = False
        self._words: list[str] = []
        self._speaking = False
        self._config: dict[str, Any] = {"rate": 200, "volume": 1.0, "voices": [Voice("system.one", "Alex", ["en"])]}

    def say(self, text: str) -> None:
        self._proxy.setBusy(True)
        self._proxy.notify("started-utterance")
        self._words, self._speaking = text.split(), True

    def stop(self) -> None:
        self._words = []

    def startLoop(self) -> None:
        first, self._looping = True, True
        while self._looping:
            if first:
                self._proxy.setBusy(False)
                first = False
            if self._speaking and self._words:
                word = self._words.pop(0)
                SystemVoice.spoken_words.append(word)
                self._proxy.notify("started-word", location=0, length=len(word))
            elif self._speaking:
                self._speaking = False
                self._proxy.notify("finished-utterance", completed=True)
                self._proxy.setBusy(False)
            time.sleep(0.01)

    def endLoop(self) -> None:
        self._looping = False

    def getProperty(self, name: str) -> Any:
        return self._config[name]

    def setProperty(self, name: str, value: Any) -> None:
        self._config[name] = value

    def destroy(self) -> None:
        pass


@pytest.fixture
def speech(monkeypatch: pytest.MonkeyPatch) -> Iterator[DriverSpeech]:
    module = types.ModuleType("pyttsx3.drivers.system_voice")
    module.buildDriver = SystemVoice  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pyttsx3.drivers.system_voice", module)
    SystemVoice.spoken_words = []
    output = DriverSpeech(driver="system_voice")
    yield output
    output.close()


def test_messages_are_said_in_order_each_between_two_activity_calls(speech: DriverSpeech) -> None:
    activity: list[bool] = []
    speech.add_activity_listener(lambda active, when: activity.append(active))
    for text in ("Your turn.", "You: the seven of hearts.", "Reveal 2 of 5,000."):
        speech.say(Message(text))
    assert speech.wait_until_done(30)
    assert speech.spoken_texts == ["Your turn.", "You: the seven of hearts.", "Reveal 2 of 5,000."]
    assert activity == [True, False] * 3
    assert speech.failure is None and not speech.plays_cues


def test_stop_cuts_the_message_speaking_at_its_next_word(speech: DriverSpeech) -> None:
    long = " ".join(f"word{number}" for number in range(300))  # three seconds at a word each 10 ms
    speech.say(Message(long))
    deadline = time.monotonic() + 10
    while len(SystemVoice.spoken_words) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    speech.stop()
    assert speech.wait_until_done(5)
    assert 3 <= len(SystemVoice.spoken_words) < 100
    speech.say(Message("And on."))
    assert speech.wait_until_done(5) and SystemVoice.spoken_words[-2:] == ["And", "on."]


def test_stop_drops_what_waits_and_an_urgent_message_drops_the_chatty_ones(speech: DriverSpeech) -> None:
    for number in range(4):
        speech.say(Message(f"Chatty {number}.", Priority.CHATTY))
    speech.say(Message("Game over.", Priority.URGENT))
    assert speech.wait_until_done(30)
    assert speech.spoken_texts[-1] == "Game over."
    assert len(speech.spoken_texts) <= 2, "the chatty ones still waiting were dropped"
    said = len(speech.spoken_texts)
    speech.say(Message("One."))
    speech.say(Message("Two."))
    speech.stop()
    assert speech.wait_until_done(30)
    assert len(speech.spoken_texts) <= said + 1


def test_the_rate_moves_in_steps_within_its_bounds(speech: DriverSpeech) -> None:
    assert speech.faster() == 200 and speech.slower() == 175
    for _ in range(20):
        speech.slower()
    assert speech.rate == driver.MIN_RATE
    speech.say(Message("Slow."))
    assert speech.wait_until_done(30)


def test_pyttsx3s_own_dummy_driver_speaks_too_and_a_voice_it_lacks_is_one_sentence() -> None:
    with DriverSpeech(driver="dummy") as dummy:
        dummy.say(Message("One."))
        dummy.say(Message("Two."))
        assert dummy.wait_until_done(30) and dummy.spoken_texts == ["One.", "Two."]
    with pytest.raises(SpeechUnavailable, match="No voice named 'nobody'"):
        DriverSpeech(driver="dummy", voice="nobody")


def test_closed_twice_and_spoken_to_after_is_quiet(speech: DriverSpeech) -> None:
    speech.close()
    speech.close()
    speech.say(Message("After."))
    assert speech.wait_until_done(1) and speech.spoken_texts == []


def test_windows_and_macos_speak_with_the_system_voice_and_linux_plays_its_own_samples(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert speaks_through_driver("win32") and speaks_through_driver("darwin") and not speaks_through_driver("linux")
    monkeypatch.setattr(driver, "DRIVERS", {sys.platform: "dummy"})
    opened = open_spoken(rate=200)
    try:
        assert isinstance(opened, DriverSpeech) and opened.rate == 200
    finally:
        opened.close()
    played: list[dict[str, object]] = []
    monkeypatch.setattr("voice_rang.speech.spoken.SpeechOutput.open",
                        classmethod(lambda cls, **options: played.append(options) or "samples"))
    assert open_spoken(words=False) == "samples", "cues alone need samples of their own"
    assert open_spoken(device="USB") == "samples", "a device chosen by name is PortAudio's"
