"""SpeechOutput on real parts: espeak-ng through pyttsx3, PortAudio, a private PulseAudio sink.

What reaches the speaker is read back from the sink's monitor with ``parec``; every block is
stamped on arrival with ``time.monotonic()`` so sound can be placed on the same clock as
``say()``, ``stop()`` and the activity callbacks. (A recording started and stopped per test
would not do: on a PulseAudio null sink every monitor stream that connects or leaves stalls
playback for a second or two, so one tap runs for the whole module, started before the test
speech and warmed through once.)
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from audio_server import AudioServer
from speaker_tap import SpeakerTap

from voice_rang.messages import Message, Priority
from voice_rang.speech import SpeechOutput, SpeechUnavailable, TextOutput
from voice_rang.speech.cues import cue_pcm
from voice_rang.speech.playback import OPENING_S
from voice_rang.speech.player import Player

pytestmark = pytest.mark.audio

RATE = 16000
LOUD = 300.0  # RMS of speech here is in the thousands; of the silent sink, 0
QUIET = 30.0

LONG = (
    "Guest one revealed the queen of hearts, then the seven of clubs, then the ace of "
    "spades, and the pile now holds twenty three cards, the longest pile of the game so far."
)


class Activity:
    """Records activity callbacks; ``starts``/``ends`` are monotonic times."""

    def __init__(self) -> None:
        self.events: list[tuple[bool, float]] = []
        self.started = threading.Event()

    def __call__(self, active: bool, when: float) -> None:
        self.events.append((active, when))
        if active:
            self.started.set()

    @property
    def starts(self) -> list[float]:
        return [when for active, when in self.events if active]

    @property
    def ends(self) -> list[float]:
        return [when for active, when in self.events if not active]


@contextmanager
def sound_server_of_its_own() -> Iterator[AudioServer]:
    """A second private sound server, the process's default for as long as the block runs: a
    device reopened after a failure must find the same server, as it would in a real session."""
    from audio_server import start_audio_server

    second = start_audio_server()
    saved = os.environ.get("PULSE_SERVER")
    os.environ["PULSE_SERVER"] = second.server
    try:
        yield second
    finally:
        if saved is not None:
            os.environ["PULSE_SERVER"] = saved
        second.stop()


@pytest.fixture
def activity(speech: SpeechOutput, tap: SpeakerTap) -> Iterator[Activity]:
    speech.stop()
    assert speech.wait_until_done(timeout=5)
    time.sleep(0.2)
    recorder = Activity()
    speech.add_activity_listener(recorder)
    yield recorder
    speech.remove_activity_listener(recorder)
    speech.stop()
    speech.wait_until_done(timeout=5)


def test_speech_reaches_the_speaker_soon_after_say(
    speech: SpeechOutput, tap: SpeakerTap, activity: Activity
) -> None:
    said = time.monotonic()
    speech.say(Message("Your turn. Say reveal."))
    assert speech.wait_until_done(timeout=10)
    # Silent before. The message is written over the idle cushion (the server rewinds the sink
    # for it), and the monitor's times for its first samples came out a little early, before
    # ``said``, here; the 30 ms left out is that cushion and the sink's own 10 ms.
    assert tap.rms(said - 0.3, said - 0.03) < QUIET
    span = tap.sound_span(said, activity.ends[-1] + 0.3)
    assert span is not None, "nothing reached the speaker"
    assert span[0] - said < 0.5
    assert tap.rms(span[0], span[1]) > LOUD


def test_a_message_after_silence_is_written_over_the_idle_cushion_and_reaches_the_speaker_whole(
    speech: SpeechOutput, tap: SpeakerTap, activity: Activity, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its first sound replaces the cushion of silence queued while idle instead of waiting
    behind it (docs/latency.md), and carries at least ``OPENING_S`` of sound, so it has as much
    ahead of the play position as before; the rest follows it in order."""
    player, writes = spied_writes(speech, monkeypatch)
    said = time.monotonic()
    speech.say(Message("Hearts on clubs, a miss. Reveal three of five thousand."))
    assert speech.wait_until_done(timeout=10)
    assert writes[0][1] and not any(over for _, over in writes[1:])
    assert writes[0][0] >= 2 * int(player.source_rate * OPENING_S)
    span = tap.sound_span(said, activity.ends[-1] + 0.3)
    assert span is not None, "nothing reached the speaker"
    assert tap.rms(span[0], span[1]) > LOUD


def test_a_cued_message_after_silence_writes_its_cue_over_the_idle_cushion_and_its_words_behind_it(
    speech: SpeechOutput, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With sounds on, most answers open with a cue: the cue is the first sound, so it is what
    replaces the cushion (the benchmark's answer to "turn" is one); the words queue after it."""
    player, writes = spied_writes(speech, monkeypatch)
    speech.say(Message("Hearts on clubs.", cue="miss you"))
    assert speech.wait_until_done(timeout=10)
    cue = cue_pcm("miss you", player.source_rate)
    assert writes[0][1] and writes[0][0] >= len(cue)  # the cue, and the gap before its words
    assert len(writes) > 1 and not any(over for _, over in writes[1:])


def spied_writes(
    speech: SpeechOutput, monkeypatch: pytest.MonkeyPatch
) -> tuple[Player, list[tuple[int, bool]]]:
    """The speaker's player, and each write to it from now on: its length in bytes and whether
    it was written over the idle cushion."""
    player = speech._player
    assert player is not None and player.direct
    writes: list[tuple[int, bool]] = []
    write = player.write

    def spy(pcm: bytes, should_stop: Callable[[], bool], *, over_cushion: bool = False) -> bool:
        writes.append((len(pcm), over_cushion))
        return write(pcm, should_stop, over_cushion=over_cushion)

    monkeypatch.setattr(player, "write", spy)
    return player, writes


def test_speech_goes_through_portaudio_where_no_sound_server_is_found(
    tap: SpeakerTap, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a PulseAudio socket to talk to (an ALSA-only machine, a device by its ALSA
    name), the speaker is PortAudio's, and speech is heard all the same."""
    import voice_rang.speech.player as player

    monkeypatch.setattr(player, "pulse_server_configured", lambda: False)
    through_portaudio = SpeechOutput()
    try:
        streams = subprocess.run(["pactl", "list", "sink-inputs"], capture_output=True,
                                 text=True, check=True, timeout=10).stdout
        assert "ALSA plug-in" in streams, "the speaker did not go through PortAudio"
        said = time.monotonic()
        through_portaudio.say(Message("Your turn. Say reveal."))
        assert through_portaudio.wait_until_done(timeout=10)
        span = tap.sound_span(said, time.monotonic() + 0.3)
        assert span is not None, "nothing reached the speaker"
        assert tap.rms(span[0], span[1]) > LOUD
    finally:
        through_portaudio.close()


def test_activity_callbacks_bracket_the_sound(
    speech: SpeechOutput, tap: SpeakerTap, activity: Activity
) -> None:
    said = time.monotonic()
    speech.say(Message("Guest two revealed the king of spades."))
    assert speech.wait_until_done(timeout=10)
    assert [active for active, _ in activity.events] == [True, False]
    (start,), (end,) = activity.starts, activity.ends
    span = tap.sound_span(said, end + 1.0)
    assert span is not None
    first_sound, last_sound = span
    assert start <= first_sound + 0.02, "started was reported after the sound began"
    assert last_sound <= end + 0.1, "ended was reported long before the sound ended"
    assert end - last_sound < 0.3, "ended was reported long after the sound ended"
    assert not speech.is_speaking or time.monotonic() < end + 0.2


def test_stop_silences_within_a_tenth_of_a_second_and_drops_the_rest(
    speech: SpeechOutput, tap: SpeakerTap, activity: Activity
) -> None:
    speech.say(Message(LONG))
    speech.say(Message("This queued message must never be heard."))
    assert activity.started.wait(timeout=5)
    time.sleep(0.6)
    assert speech.is_speaking
    stopped = time.monotonic()
    speech.stop()
    assert speech.wait_until_done(timeout=1)
    assert time.monotonic() - stopped < 0.3
    time.sleep(1.5)
    assert tap.rms(stopped - 0.4, stopped) > LOUD, "it was not speaking before stop()"
    assert tap.rms(stopped + 0.1, stopped + 1.5) < QUIET, "sound went on after stop()"
    assert activity.ends and activity.ends[-1] - stopped < 0.1
    assert speech.spoken_texts[-1] == " ".join(LONG.split())
    assert not speech.is_speaking


def test_urgent_message_cuts_a_chatty_one_at_once(
    speech: SpeechOutput, tap: SpeakerTap, activity: Activity
) -> None:
    speech.say(Message(LONG, Priority.CHATTY))
    speech.say(Message("Older chatter that nobody needs now.", Priority.CHATTY))
    assert activity.started.wait(timeout=5)
    time.sleep(0.5)
    urgent_at = time.monotonic()
    speech.say(Message("Your turn.", Priority.URGENT))
    assert speech.wait_until_done(timeout=10)
    spoken = speech.spoken_texts
    assert spoken[-2:] == [" ".join(LONG.split()), "Your turn."]
    assert len(activity.starts) == 2
    chatty_end, urgent_start = activity.ends[0], activity.starts[1]
    assert chatty_end - urgent_at < 0.1
    assert urgent_start - urgent_at < 0.2
    # The chatty message's remaining seconds never played: all sound is over quickly.
    span = tap.sound_span(urgent_at - 0.2, urgent_at + 2)
    assert span is not None and span[1] - urgent_at < 1.5


def test_messages_play_in_order_and_old_chatter_is_dropped_when_it_piles_up(
    speech: SpeechOutput, activity: Activity
) -> None:
    speech.say(Message("One.", Priority.NORMAL))
    assert activity.started.wait(timeout=5)  # "One." plays; the rest wait behind it
    for n in ("two", "three", "four", "five"):
        speech.say(Message(f"Chatter {n}.", Priority.CHATTY))
    speech.say(Message("Six.", Priority.NORMAL))
    assert speech.wait_until_done(timeout=15)
    heard = speech.spoken_texts[-3:]
    assert heard == ["One.", "Chatter five.", "Six."]


def test_urgent_never_cuts_an_equally_urgent_message(
    speech: SpeechOutput, activity: Activity
) -> None:
    speech.say(Message("Game over.", Priority.URGENT))
    speech.say(Message("You won.", Priority.URGENT))
    assert speech.wait_until_done(timeout=10)
    assert speech.spoken_texts[-2:] == ["Game over.", "You won."]


def test_printed_and_spoken_text_are_the_same_messages(
    speech: SpeechOutput, activity: Activity
) -> None:
    import io

    printed = io.StringIO()
    text = TextOutput(printed)
    before = len(speech.spoken_texts)
    for message in (Message("Your turn."), Message("Guest one revealed\nthe two of clubs.")):
        text.say(message)
        speech.say(message)
    assert speech.wait_until_done(timeout=10)
    assert speech.spoken_texts[before:] == text.lines
    assert printed.getvalue().splitlines() == text.lines


def test_prepared_message_is_spoken_the_same(speech: SpeechOutput, activity: Activity) -> None:
    message = Message("Say reveal, or press space.")
    speech.prepare(message)
    time.sleep(0.1)
    said = time.monotonic()
    speech.say(message)
    assert activity.started.wait(timeout=2)
    assert activity.starts[0] - said < 0.1
    assert speech.wait_until_done(timeout=10)
    assert speech.spoken_texts[-1] == message.text


def test_rate_steps_and_clamps(speech: SpeechOutput) -> None:
    original = speech.rate
    try:
        speech.set_rate(440)
        assert speech.faster() == 450
        speech.set_rate(10)
        assert speech.rate == 80
        assert speech.slower() == 80
        assert speech.faster() == 105
    finally:
        speech.set_rate(original)


def test_unknown_output_device_raises_one_clear_sentence(audio_server: object) -> None:
    with pytest.raises(SpeechUnavailable) as raised:
        SpeechOutput(device="no such speaker anywhere")
    reason = raised.value.reason
    assert "no such speaker anywhere" in reason and "voice-rang doctor" in reason
    assert reason.count(".") == 1 and "\n" not in reason


def test_unknown_voice_raises_one_clear_sentence(audio_server: object) -> None:
    with pytest.raises(SpeechUnavailable, match="No voice named 'nobody at all'"):
        SpeechOutput(voice="nobody at all")


def test_lost_device_is_reported_once_and_later_says_do_nothing(audio_server: object) -> None:
    with sound_server_of_its_own() as second:  # a sound server of its own, to pull the plug on
        failures: list[str] = []
        lost = threading.Event()
        speech = SpeechOutput(on_failure=lambda reason: (failures.append(reason), lost.set()))
        try:
            activity = Activity()
            speech.add_activity_listener(activity)
            speech.say(Message(LONG))
            assert activity.started.wait(timeout=5)
            second.stop()  # the device disappears mid-sentence, and stays away
            assert lost.wait(timeout=6), "the lost device was never reported"
            started = time.monotonic()
            speech.say(Message("Anyone there?"))
            speech.say(Message("Your turn.", Priority.URGENT))
            speech.stop()
            assert speech.wait_until_done(timeout=1)
            assert time.monotonic() - started < 0.5
            assert not speech.is_speaking or time.monotonic() - started < 0.2
            time.sleep(0.3)
            assert len(failures) == 1
            assert failures[0].startswith("The speaker was lost (") and "doctor" in failures[0]
            assert speech.failure == failures[0]
            assert activity.events[-1][0] is False
        finally:
            speech.close()


def test_frozen_sound_server_is_reported_and_never_blocks_the_game(audio_server: object) -> None:
    with sound_server_of_its_own() as second:
        lost = threading.Event()
        speech = SpeechOutput(on_failure=lambda reason: lost.set(), stall_timeout=2.5)
        activity = Activity()
        speech.add_activity_listener(activity)
        try:
            speech.say(Message(LONG))
            assert activity.started.wait(timeout=5)
            second.freeze()  # the server hangs instead of going away
            started = time.monotonic()
            speech.say(Message("Your turn.", Priority.URGENT))
            speech.stop()
            speech.prepare(Message("Say reveal."))
            assert time.monotonic() - started < 0.1
            assert lost.wait(timeout=10), "a frozen device was never reported"
            assert speech.wait_until_done(timeout=1)
            assert [active for active, _ in activity.events].count(False) == len(activity.starts)
        finally:
            second.thaw()
            closing = time.monotonic()
            speech.close()
            assert time.monotonic() - closing < 2.5


def test_a_sound_server_that_pauses_and_comes_back_costs_a_sentence_not_the_voice(
    audio_server: object,
) -> None:
    with sound_server_of_its_own() as second:
        failures: list[str] = []
        speech = SpeechOutput(on_failure=failures.append, stall_timeout=2.5)
        activity = Activity()
        speech.add_activity_listener(activity)
        try:
            speech.say(Message(LONG))
            assert activity.started.wait(timeout=5)
            time.sleep(0.5)
            second.freeze()  # longer than the stall limit: the stream stops taking sound
            time.sleep(3.0)
            second.thaw()
            # The stream is reopened and the cut sentence starts again (0.1 s after the thaw, here,
            # with a CPU hog on both cores), then plays whole.
            deadline = time.monotonic() + 20
            while len(activity.starts) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(activity.starts) >= 2, "the sentence the freeze cut never started again"
            assert speech.wait_until_done(timeout=20)
            speech.say(Message("Still here."))
            assert speech.wait_until_done(timeout=10)
            assert failures == [] and speech.failure is None
            spoken = speech.spoken_texts
            assert spoken.count(" ".join(LONG.split())) == 2, spoken  # the cut sentence, said again
            assert spoken[-1] == "Still here."
        finally:
            second.thaw()
            speech.close()
