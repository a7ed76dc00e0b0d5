"""The synthesizer: pyttsx3's espeak-ng driver, streamed as PCM chunks, no device needed."""

from __future__ import annotations

import array
import time

import pytest

from voice_rang.speech.synth import SynthUnavailable, open_synthesizer

TEXT = "Guest one revealed the queen of hearts, and the pile now holds twelve cards."


def render(text: str, rate: int = 175) -> list[bytes]:
    chunks: list[bytes] = []
    synth = open_synthesizer()
    assert synth.render(text, lambda c: chunks.append(c) or True, rate=rate, volume=1.0,
                        voice=None)
    return chunks


def test_synthesizer_is_shared_and_stays_loaded() -> None:
    assert open_synthesizer() is open_synthesizer()


def test_speech_comes_in_many_small_chunks_of_real_sound() -> None:
    chunks = render(TEXT)
    synth = open_synthesizer()
    assert len(chunks) > 10
    assert max(len(c) for c in chunks) / 2 / synth.sample_rate < 0.1
    samples = array.array("h", b"".join(chunks))
    assert len(samples) / synth.sample_rate > 2.0
    assert max(abs(s) for s in samples) > 3000


def test_first_chunk_arrives_long_before_synthesis_ends() -> None:
    synth = open_synthesizer()
    stamps: list[float] = []
    started = time.perf_counter()
    synth.render(TEXT * 3, lambda c: stamps.append(time.perf_counter()) is None, rate=175,
                 volume=1.0, voice=None)
    ended = time.perf_counter()
    assert stamps[0] - started < (ended - started) / 3


def test_returning_false_aborts_synthesis_at_once() -> None:
    synth = open_synthesizer()
    chunks: list[bytes] = []
    completed = synth.render(TEXT * 5, lambda c: chunks.append(c) or len(chunks) < 2, rate=175,
                             volume=1.0, voice=None)
    assert not completed
    assert len(chunks) == 2


def test_faster_rate_makes_shorter_audio() -> None:
    slow = sum(len(c) for c in render(TEXT, rate=120))
    fast = sum(len(c) for c in render(TEXT, rate=350))
    assert fast < slow * 0.6


def test_voices_are_listed_and_found_by_name_or_id() -> None:
    synth = open_synthesizer()
    voices = synth.voices()
    assert len(voices) > 10
    assert synth.check_voice("english") == synth.check_voice("gmw/en")


def test_unknown_voice_is_one_clear_sentence() -> None:
    with pytest.raises(SynthUnavailable, match=r"^No voice named 'zz-none': run voice-rang doctor"):
        open_synthesizer().check_voice("zz-none")
