"""The listener hears through a real PortAudio device: the private PulseAudio server's ``vmic``."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from audio_server import AudioServer
from speech_samples import with_white_noise

from voice_rang.commands import CommandSet
from voice_rang.listen.microphone import (
    ECHO_TAIL_S,
    HUNG_AFTER_S,
    MicrophoneUnavailable,
    VoiceListener,
)
from voice_rang.listen.recognizer import Recognition, Recognizer

pytestmark = [
    pytest.mark.audio,
    pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("sox") is None,
                       reason="needs espeak-ng and sox to make speech"),
]


def speak(text: str, voice: str = "en-us+m3") -> bytes:
    wav = subprocess.run(["espeak-ng", "-v", voice, "-s", "150", "--stdout", text],
                         check=True, capture_output=True).stdout
    return subprocess.run(["sox", "-R", "-t", "wav", "-", "-r", "16000", "-c", "1", "-b", "16",
                           "-t", "raw", "-", "pad", "0.1", "0.1"],
                          input=wav, check=True, capture_output=True).stdout


class Calls:
    """What the listener called back, with an event to wait on."""

    def __init__(self) -> None:
        self.commands: list[str] = []
        self.unsure: list[str] = []
        self.too_noisy: list[str] = []
        self.errors: list[str] = []
        self.starts = 0
        self.ends = 0
        self.order: list[str] = []
        self.changed = threading.Event()

    def command(self, command: str) -> None:
        self.commands.append(command)
        self.order.append(command)
        self.changed.set()

    def not_sure(self, result: Recognition) -> None:
        self.unsure.append(result.heard)
        self.changed.set()

    def noisy(self, result: Recognition) -> None:
        self.too_noisy.append(result.heard)
        self.changed.set()

    def error(self, sentence: str) -> None:
        self.errors.append(sentence)
        self.changed.set()

    def speech(self) -> None:
        self.starts += 1
        self.order.append("start")

    def speech_ended(self) -> None:
        self.ends += 1
        self.order.append("end")


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer(CommandSet.load("en"))


@pytest.fixture
def listening(audio_server: AudioServer,
              recognizer: Recognizer) -> Iterator[tuple[VoiceListener, Calls]]:
    calls = Calls()
    listener = VoiceListener(CommandSet.load("en"), on_command=calls.command,
                             on_unsure=calls.not_sure, on_too_noisy=calls.noisy,
                             on_error=calls.error,
                             on_speech_start=calls.speech, on_speech_end=calls.speech_ended,
                             recognizer=recognizer)
    listener.start()
    time.sleep(0.8)  # the endpointer takes the room from its first frames: not the words
    try:
        yield listener, calls
    finally:
        listener.stop()


def settled(calls: Calls, timeout: float = 20.0) -> None:
    """Wait until every start of speech has had its end. The end comes once the words are
    decoded, at the machine's pace: with both cores under a CPU hog that is often more than the
    second an idle machine needs (scripts/stress-audio-tests)."""
    deadline = time.monotonic() + timeout
    while calls.ends != calls.starts and time.monotonic() < deadline:
        time.sleep(0.05)


def until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait for ``condition()``, which the listener's thread makes true at the machine's pace."""
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def wait_until(moment: float, extra: float = 1.2) -> None:
    time.sleep(max(0.0, moment - time.monotonic()) + extra)


def said(audio_server: AudioServer, pcm: bytes) -> None:
    """Feed ``pcm`` into the microphone and wait until its last sample is really written: the
    feeding thread keeps real time on an idle machine, and falls behind under a CPU hog."""
    _, written, _ = audio_server.say_and_mark(pcm)
    assert written.wait(timeout=60), "the microphone was never fed"


def heard(calls: Calls, wanted: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait until ``wanted()`` (a command, a "too noisy"), decoded at the machine's pace: a
    second or two here, more with a CPU hog on both cores (scripts/stress-audio-tests)."""
    deadline = time.monotonic() + timeout
    while not wanted() and time.monotonic() < deadline:
        calls.changed.wait(timeout=0.1)


def test_a_command_said_into_the_microphone_is_heard(
        audio_server: AudioServer, listening: tuple[VoiceListener, Calls]) -> None:
    _, calls = listening
    said(audio_server, speak("status"))
    heard(calls, lambda: bool(calls.commands))
    assert calls.commands == ["status"]
    assert calls.starts >= 1
    assert calls.errors == []
    settled(calls)
    # The end of the words is reported after the command they made: the game waits for it.
    assert calls.order[-2:] == ["status", "end"], calls.order


def test_every_start_of_speech_gets_its_end_even_when_the_game_talks_over_it(
        audio_server: AudioServer, listening: tuple[VoiceListener, Calls]) -> None:
    listener, calls = listening
    wait_until(audio_server.say_into_microphone(speak("the cat sat on the mat")))
    settled(calls)
    assert calls.starts >= 1 and calls.ends == calls.starts, calls.order
    # Cut off: the game starts speaking in the middle of a sentence (six seconds long, so its
    # start is heard well before its end even when decoding lags behind a CPU hog).
    before = calls.starts
    _, fed, _ = audio_server.say_and_mark(speak(
        "what a lucky run of cards that was for everyone at the table and for the dealer too"))
    until(lambda: calls.starts > before)
    assert calls.order[-1] == "start", calls.order  # words in progress
    assert not fed.is_set(), "the sentence was over before its start was heard"
    listener.set_output_activity(True, time.monotonic())
    until(lambda: calls.order[-1] == "end")
    assert calls.order[-1] == "end", calls.order
    listener.set_output_activity(False, time.monotonic())
    # The rest of the sentence, heard once the game is quiet, starts words of its own.
    assert fed.wait(timeout=60), "the microphone was never fed"
    settled(calls)
    assert calls.ends == calls.starts, calls.order


def test_ordinary_talk_into_the_microphone_triggers_no_command(
        audio_server: AudioServer, listening: tuple[VoiceListener, Calls]) -> None:
    _, calls = listening
    wait_until(audio_server.say_into_microphone(speak("the cat sat on the mat")))
    wait_until(audio_server.say_into_microphone(speak("seven of clubs")))
    settled(calls)  # every word heard is decoded before nothing is found in it
    assert calls.commands == []


def test_speech_while_the_game_talks_never_triggers(
        audio_server: AudioServer, listening: tuple[VoiceListener, Calls]) -> None:
    listener, calls = listening
    listener.set_output_activity(True, time.monotonic())
    said(audio_server, speak("status"))
    time.sleep(0.2)
    listener.set_output_activity(False, time.monotonic())
    time.sleep(1.2)
    assert calls.commands == [] and calls.unsure == [] and calls.starts == 0
    # ...and once the tail has passed, the same words are heard again.
    said(audio_server, speak("status"))
    heard(calls, lambda: bool(calls.commands))
    assert calls.commands == ["status"]


class Stall:
    """Holds the listener's thread still, as a starved machine does, while the microphone's sound
    piles up behind it: :meth:`begin` waits until it has stopped, :meth:`end` lets it go on."""

    def __init__(self, listener: VoiceListener) -> None:
        self._wanted, self._stopped, self._released = (threading.Event(), threading.Event(),
                                                       threading.Event())
        real = listener._deaf

        def deaf(start: float, end: float) -> bool:
            if self._wanted.is_set():
                self._wanted.clear()
                self._stopped.set()
                self._released.wait(timeout=60)
            return real(start, end)

        listener._deaf = deaf  # type: ignore[method-assign]

    def begin(self) -> None:
        self._wanted.set()
        assert self._stopped.wait(timeout=20), "the listener never came to read"

    def end(self) -> float:
        released = time.monotonic()
        self._released.set()
        return released


def test_a_listener_that_falls_behind_still_never_hears_the_game_speak(
        audio_server: AudioServer, listening: tuple[VoiceListener, Calls]) -> None:
    # The game's speech waits in the microphone's buffer while the listener is held up, and is
    # read only after the deaf tail is over by the clock: it is dated when it was captured.
    listener, calls = listening
    stall = Stall(listener)
    stall.begin()
    listener.set_output_activity(True, time.monotonic())
    said(audio_server, speak("status"))
    time.sleep(0.2)
    listener.set_output_activity(False, time.monotonic())
    time.sleep(ECHO_TAIL_S + 0.5)
    released = stall.end()
    until(lambda: listener.heard_quiet_until() > released + 0.5)  # all it missed, gone through
    settled(calls)
    assert calls.commands == [] and calls.unsure == [] and calls.starts == 0, calls.order


def test_words_a_held_up_listener_finds_late_are_dated_when_they_were_said(
        audio_server: AudioServer, listening: tuple[VoiceListener, Calls]) -> None:
    # The table counts its quiet gap over what the listener has heard: words said during the gap
    # but found late must not look as if they came after it.
    listener, calls = listening
    quiet_at_start: list[float] = []
    listener.on_speech_start = lambda: quiet_at_start.append(listener.heard_quiet_until())
    stall = Stall(listener)
    stall.begin()
    said(audio_server, speak("status"))
    spoken = time.monotonic()
    time.sleep(0.5)
    released = stall.end()
    heard(calls, lambda: bool(calls.commands))
    assert calls.commands == ["status"]
    assert quiet_at_start and quiet_at_start[0] < spoken < released, (quiet_at_start, spoken)


def test_a_command_in_a_noisy_room_is_not_acted_on_and_the_player_hears_why(
        audio_server: AudioServer, listening: tuple[VoiceListener, Calls]) -> None:
    _, calls = listening
    noisy = with_white_noise(speak("status") * 2, 12.0, seconds_before=4.0)
    said(audio_server, noisy)
    heard(calls, lambda: bool(calls.too_noisy or calls.commands))
    settled(calls)
    assert calls.commands == []
    assert calls.too_noisy, (calls.unsure, calls.too_noisy)


def test_an_unknown_microphone_name_is_one_clear_sentence(audio_server: AudioServer) -> None:
    listener = VoiceListener(CommandSet.load("en"), on_command=lambda _: None,
                             mic="no such microphone anywhere")
    with pytest.raises(MicrophoneUnavailable) as caught:
        listener.start()
    message = str(caught.value)
    assert message.startswith("There is no microphone called 'no such microphone anywhere'")
    assert "\n" not in message and message.endswith(".")


@pytest.mark.slow
def test_a_microphone_whose_sound_server_freezes_is_given_up_on_with_one_sentence(
        audio_server: AudioServer, recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch) -> None:
    from audio_server import start_audio_server

    del audio_server  # only to check that PulseAudio can run here
    server = start_audio_server()  # its own, to freeze
    try:
        for key, value in server.env.items():
            monkeypatch.setenv(key, value)
        calls = Calls()
        listener = VoiceListener(CommandSet.load("en"), on_command=calls.command,
                                 on_error=calls.error, recognizer=recognizer)
        listener.start()
        time.sleep(1.0)
        assert calls.errors == []  # a quiet room sends silence, which is not a hung microphone
        frozen = time.monotonic()
        server.freeze()  # the stream stays open and the read never returns, with no error
        assert calls.changed.wait(HUNG_AFTER_S + 5), "a frozen microphone was never reported"
        took = time.monotonic() - frozen
        assert HUNG_AFTER_S - 1 <= took <= HUNG_AFTER_S + 5, took
        assert calls.errors == [calls.errors[0]]
        assert calls.errors[0].startswith("The microphone stopped sending sound")
        stopping = time.monotonic()
        listener.stop()
        assert time.monotonic() - stopping < 5
        # The server comes back: the hung read returns into a stream nobody freed under it (that
        # used to corrupt the heap and crash the process), and nothing more is reported.
        server.thaw()
        time.sleep(1.5)
        assert len(calls.errors) == 1
    finally:
        server.stop()
