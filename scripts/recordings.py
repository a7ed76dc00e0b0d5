"""Recorded sound from Debian packages: music for the radio in the room, and people talking.

Each package is fetched with ``apt-get download`` and unpacked under ``benchmarks/out/downloads``
(never committed), and what is decoded from it is cached there too; ffmpeg decodes every format
(tracker modules through its libopenmpt, Ogg, MP3). Which packages, and which are held out, is in
:mod:`command_corpus` (``TRAIN_MUSIC``, ``HELD_OUT_MUSIC``) and here (:data:`REAL_TALK_PACKAGE`).
"""

from __future__ import annotations

import random
import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RATE = 16000

MUSIC_DOWNLOADS = ROOT / "benchmarks" / "out" / "downloads"
MUSIC_SECONDS = 600
"""At most this much of a package's music is used (its files in name order): enough to vary."""


def music_track(package: str, downloads: Path = MUSIC_DOWNLOADS) -> np.ndarray:
    """A Debian music package's files (tracker modules, Ogg, MP3: ffmpeg decodes them all, the
    modules through its libopenmpt) as one 16 kHz mono float track of at most
    :data:`MUSIC_SECONDS`. ``apt-get download`` and the decoded track are cached in ``downloads``."""
    cached = downloads / f"{package}.16k-{MUSIC_SECONDS}s.wav"
    if not cached.exists():
        root = debian_package(package, downloads)
        files = sorted(p for p in root.rglob("*") if p.suffix.lower() in (".xm", ".mod", ".it", ".s3m",
                                                                           ".ogg", ".mp3", ".flac"))
        if not files:
            raise FileNotFoundError(f"no music files in Debian package {package}")
        parts: list[bytes] = []
        left = MUSIC_SECONDS * RATE * 2
        for path in files:
            if left <= 0:
                break
            parts.append(_pcm16(path)[:left])
            left -= len(parts[-1])
        partial_wav = cached.with_suffix(".partial")
        with wave.open(str(partial_wav), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(RATE)
            out.writeframes(b"".join(parts))
        partial_wav.rename(cached)
    with wave.open(str(cached), "rb") as track:
        return np.frombuffer(track.readframes(track.getnframes()), dtype="<i2").astype(np.float32)


REAL_TALK_PACKAGE = "warzone2100-data"
"""People talking, to train on as what is not a command (``--real-talk``): Warzone 2100's spoken
messages (GPL-2+), its commander's reports, tutorial, pilots and countdowns ("Missile launch in
ten minutes", "Ten, nine, eight…"), read by actors and heard through the game's radio effect.
Never among ``benchmarks/human_corpus.py``'s recordings, which are the figures' real people."""
REAL_TALK_FOLDERS = ("audio/tutorial/", "audio/extra/", "audio/memressp/", "audio/vtoltalk/", "audio/countdown/")
REAL_TALK_LEFT_OUT = frozenset({"audio/memressp/tutorial/pcv431.ogg"})
"""Clips that are a command said alone ("No."), found by transcribing every clip: not talk."""


def debian_package(name: str, downloads: Path = MUSIC_DOWNLOADS) -> Path:
    """``apt-get download`` one package (cached in ``downloads``) and unpack it; its root directory.

    It is unpacked beside its final name and then renamed, so that an interrupted run leaves no
    half-unpacked tree for the next run to trust."""
    downloads.mkdir(parents=True, exist_ok=True)
    debs = sorted(downloads.glob(f"{name}_*.deb"))
    if not debs:
        subprocess.run(["apt-get", "download", name], check=True, capture_output=True, cwd=downloads)
        debs = sorted(downloads.glob(f"{name}_*.deb"))
        if not debs:
            raise FileNotFoundError(f"apt-get download {name} left no {name}_*.deb in {downloads}")
    root = downloads / name
    if not root.exists():
        partial = downloads / f"{name}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run(["dpkg-deb", "-x", str(debs[-1]), str(partial)], check=True, capture_output=True)
        partial.rename(root)
    return root


def _pcm16(source: Path | bytes) -> bytes:
    """Any audio ffmpeg reads (a file, or its bytes), as 16 kHz mono 16-bit samples."""
    given = ["-i", "-"] if isinstance(source, bytes) else ["-i", str(source)]
    return subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", *given, "-ac", "1", "-ar", str(RATE),
                           "-f", "s16le", "-"], input=source if isinstance(source, bytes) else None,
                          check=True, capture_output=True).stdout


def real_talk(downloads: Path = MUSIC_DOWNLOADS) -> list[tuple[str, np.ndarray]]:
    """(name, samples) of every spoken clip of :data:`REAL_TALK_PACKAGE`, in name order; decoded
    once and cached in ``downloads``."""
    import zipfile

    cached = downloads / f"{REAL_TALK_PACKAGE}.talk.npz"
    if not cached.exists():
        archive = next(debian_package(REAL_TALK_PACKAGE, downloads).rglob("base.wz"))
        clips: dict[str, np.ndarray] = {}
        with zipfile.ZipFile(archive) as wz:
            for name in sorted(wz.namelist()):
                if name.endswith(".ogg") and name.startswith(REAL_TALK_FOLDERS):
                    clips[name] = np.frombuffer(_pcm16(wz.read(name)), dtype="<i2").astype(np.float32)
        partial = cached.with_suffix(".partial.npz")
        np.savez_compressed(partial, **clips)  # type: ignore[arg-type]
        partial.rename(cached)
    with np.load(cached) as data:
        return [(name, data[name]) for name in sorted(data.files) if name not in REAL_TALK_LEFT_OUT]


def pieces(samples: np.ndarray, rng: random.Random) -> list[np.ndarray]:
    """A clip as the endpointer might cut a long stretch of talk: pieces of 1.0-2.5 s one after
    another (a clip that short is one piece; a last piece under half a second is dropped)."""
    out, at = [], 0
    while len(samples) - at >= RATE // 2:
        length = len(samples) - at if len(samples) - at <= int(2.6 * RATE) else int(rng.uniform(1.0, 2.5) * RATE)
        out.append(samples[at:at + length])
        at += length
    return out
