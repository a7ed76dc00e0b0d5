"""Speech for tests and benchmarks, made on the spot: flite's voices, 16 kHz mono PCM16.

flite's voices are used rather than espeak-ng's because pocketsphinx's acoustic model, trained
on people, hears flite roughly as it hears people and hears espeak-ng's formant voices hardly
at all (see docs/voice.md).
"""

from __future__ import annotations

import array
import functools
import math
import os
import random
import subprocess
import tempfile

__all__ = ["RATE", "synthesize", "trim", "with_white_noise"]

RATE = 16000


def trim(pcm: bytes, threshold: int = 300) -> bytes:
    """Cut leading and trailing silence so the clip ends where the last word does."""
    samples = array.array("h", pcm)
    loud = [index for index, value in enumerate(samples) if abs(value) > threshold]
    return samples[loud[0] : loud[-1] + 1].tobytes() if loud else b""


@functools.cache
def synthesize(text: str, voice: str = "rms") -> bytes:
    """``text`` spoken by a flite voice, trimmed, as 16 kHz mono PCM16. Made once a process (flite
    is deterministic): two programs run for every phrase take a moment on a busy machine, and a
    test that says something the moment the game falls quiet must not speak late."""
    handle, path = tempfile.mkstemp(suffix=".wav")
    os.close(handle)
    try:
        subprocess.run(["flite", "-voice", voice, "-t", text, "-o", path], check=True,
                       capture_output=True)
        raw = subprocess.run(["sox", "-R", path, "-t", "raw", "-r", str(RATE), "-e", "signed", "-b", "16",
                              "-c", "1", "-"], check=True, capture_output=True).stdout
    finally:
        os.unlink(path)
    return trim(raw)


def with_white_noise(pcm: bytes, snr_db: float, *, seconds_before: float = 0.0,
                     seed: int = 7) -> bytes:
    """``pcm`` in a room with steady white noise ``snr_db`` below its loud part, the noise also
    over its silences and, with ``seconds_before``, already there that long before it."""
    samples = array.array("h", pcm)
    loud = [s for s in samples if abs(s) > 300]
    noise_rms = math.sqrt(sum(s * s for s in loud) / len(loud)) / 10 ** (snr_db / 20)
    room = array.array("h", bytes(2 * int(RATE * seconds_before))) + samples
    rng = random.Random(seed)
    return array.array("h", (max(-32768, min(32767, s + round(rng.gauss(0.0, noise_rms))))
                             for s in room)).tobytes()


ROOM_REVERB = {0.5: ("40", "50", "50"), 0.8: ("50", "50", "60")}
"""sox ``reverb`` settings (reverberance, damping, room scale) by the reverberation time they
give, measured on a click (the corpus script uses the same: benchmarks/voice_corpus.py)."""


@functools.lru_cache(maxsize=256)
def in_a_room(pcm: bytes, rt60_s: float = 0.8) -> bytes:
    """``pcm`` as a microphone across a reverberant room hears it: direct sound plus the echo
    (sox is deterministic with ``-R``, so each is made once a process)."""
    return subprocess.run(
        ["sox", "-R", "-t", "raw", "-r", str(RATE), "-c", "1", "-b", "16", "-e", "signed", "-",
         "-t", "raw", "-", "reverb", *ROOM_REVERB[rt60_s], "channels", "1"],
        input=pcm, check=True, capture_output=True).stdout
