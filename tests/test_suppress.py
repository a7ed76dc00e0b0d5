"""The noise suppressor the endpointer decides on: steady noise down, the voice kept; and the
training scripts' takes heard through it (``scripts/suppressed_takes.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from speech_samples import synthesize

from voice_rang.listen.levels import energy_db
from voice_rang.listen.suppress import NoiseSuppressor

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from suppressed_takes import UtteranceSuppressor, suppress_utterance

FRAME = 640


def _levels(suppressor: NoiseSuppressor, pcm: bytes) -> list[float]:
    return [energy_db(suppressor.process(pcm[at:at + FRAME]))
            for at in range(0, len(pcm) - FRAME + 1, FRAME)]


def test_a_steady_hiss_is_taken_down_by_more_than_10_db_once_learnt() -> None:
    hiss = (np.random.default_rng(5).standard_normal(16000 * 3) * 1000).astype("<i2")
    before = energy_db(hiss.tobytes())
    after = _levels(NoiseSuppressor(), hiss.tobytes())
    assert max(after[50:]) < before - 10.0  # after the first second


def test_a_voice_in_a_quiet_room_keeps_its_level() -> None:
    word = synthesize("auto reveal off", "rms")
    before = [energy_db(word[at:at + FRAME]) for at in range(0, len(word) - FRAME + 1, FRAME)]
    after = _levels(NoiseSuppressor(), word)
    assert max(after) > max(before) - 3.0


def test_frames_that_are_not_whole_10_ms_chunks_are_refused() -> None:
    with pytest.raises(ValueError, match="multiple of 320 bytes"):
        NoiseSuppressor().process(b"\0" * 100)


@given(st.binary(min_size=0, max_size=8).map(lambda seed: seed * 80))
def test_any_whole_frame_comes_back_the_same_length(noise: bytes) -> None:
    frame = (noise + b"\0" * FRAME)[:FRAME]
    assert len(NoiseSuppressor().process(frame)) == FRAME


def _hiss_and_word(snr_db: float = 5.0) -> bytes:
    """Room hiss, then "turn" over it, then more hiss: an utterance as the endpointer cuts it."""
    word = np.frombuffer(synthesize("turn", "rms"), dtype="<i2").astype(np.float32)
    room = np.zeros(4800, dtype=np.float32)
    voice = np.concatenate([room, word, room])
    hiss = np.random.default_rng(7).standard_normal(len(voice)).astype(np.float32)
    hiss *= np.sqrt(np.mean(word ** 2) / 10 ** (snr_db / 10))
    return np.clip(voice + hiss, -32768, 32767).astype("<i2").tobytes()


def test_an_utterance_is_heard_through_the_room_it_began_in_and_comes_back_whole() -> None:
    pcm = _hiss_and_word()
    suppressed = suppress_utterance(pcm)
    assert len(suppressed) == len(pcm)
    room = slice(0, 4000)  # the hiss before the word, its first frames included: learnt beforehand
    assert energy_db(suppressed[room]) < energy_db(pcm[room]) - 10.0
    word = slice(len(pcm) // 2 - 3200, len(pcm) // 2 + 3200)
    assert energy_db(suppressed[word]) > energy_db(pcm[word]) - 6.0


def test_fed_frame_by_frame_an_utterance_is_suppressed_as_it_is_whole() -> None:
    pcm = _hiss_and_word()
    suppressor = UtteranceSuppressor()
    pieces = [suppressor.process(pcm[at:at + FRAME]) for at in range(0, len(pcm), FRAME)]
    assert not pieces[0] and not pieces[1]  # the room is still being heard
    assert b"".join(pieces) + suppressor.flush() == suppress_utterance(pcm)


@given(st.integers(min_value=0, max_value=12000))
def test_an_utterance_of_any_length_comes_back_the_same_length(samples: int) -> None:
    pcm = (np.arange(samples) % 200 * 40).astype("<i2").tobytes()
    assert len(suppress_utterance(pcm)) == len(pcm)
