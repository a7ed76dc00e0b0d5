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

__all__ = ["RATE", "espeak", "in_a_room", "loud_power", "sox", "sox_from_wav", "synthesize", "trim", "varied_take",
           "with_white_noise"]

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


@functools.cache
def espeak(text: str, voice: str = "bn") -> bytes:
    """``text`` spoken by espeak-ng's ``voice`` (a language, with a variant: ``bn+f2``), trimmed,
    as 16 kHz mono PCM16: the only Bengali speech the registries hold."""
    raw = subprocess.run(["espeak-ng", "-v", voice, "--stdout", text], check=True, capture_output=True).stdout
    return trim(sox_from_wav(raw))


def sox_from_wav(wav: bytes) -> bytes:
    """A WAV file's bytes as 16 kHz mono PCM16."""
    return subprocess.run(["sox", "-R", "-t", "wav", "-", "-t", "raw", "-r", str(RATE), "-e", "signed", "-b", "16",
                           "-c", "1", "-"], input=wav, check=True, capture_output=True).stdout


def loud_power(pcm: bytes, threshold: int = 300) -> float:
    """Mean power of the samples louder than ``threshold``: a word's level, whatever silence is
    around it (0.0 for a clip with none)."""
    loud = [value * value for value in array.array("h", pcm) if abs(value) > threshold]
    return sum(loud) / len(loud) if loud else 0.0


def with_white_noise(pcm: bytes, snr_db: float, *, seconds_before: float = 0.0,
                     seed: int = 7) -> bytes:
    """``pcm`` in a room with steady white noise ``snr_db`` below its loud part, the noise also
    over its silences and, with ``seconds_before``, already there that long before it."""
    samples = array.array("h", pcm)
    noise_rms = math.sqrt(loud_power(pcm)) / 10 ** (snr_db / 20)
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


def sox(pcm: bytes, *effects: str) -> bytes:
    """16 kHz mono PCM16 through sox's ``effects``, back as the same."""
    raw = ["-t", "raw", "-r", str(RATE), "-e", "signed", "-b", "16", "-c", "1"]
    return subprocess.run(["sox", *raw, "-", *raw, "-", *effects], input=pcm, check=True,
                          capture_output=True).stdout


def varied_take(text: str, voice: str, tempo: float, cents: int, *, room_rt60_s: float | None = None) -> bytes:
    """``text`` by a flite voice a little faster or slower and higher or lower (a new take of
    it), trimmed; with ``room_rt60_s``, across a room with that reverberation (:data:`ROOM_REVERB`)."""
    effects = ["tempo", str(tempo), "pitch", str(cents)]
    if room_rt60_s is not None:
        effects += ["reverb", *ROOM_REVERB[room_rt60_s], "channels", "1"]
    return trim(sox(synthesize(text, voice), *effects))
