"""The noise suppressor the endpointer decides on: steady noise down, the voice kept."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from speech_samples import synthesize

from voice_rang.listen.levels import energy_db
from voice_rang.listen.suppress import NoiseSuppressor

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
