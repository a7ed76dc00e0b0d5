"""Speech for tests and benchmarks, made on the spot: flite's voices, 16 kHz mono PCM16.

flite's voices are used rather than espeak-ng's because pocketsphinx's acoustic model, trained
on people, hears flite roughly as it hears people and hears espeak-ng's formant voices hardly
at all (see docs/voice.md).
"""

from __future__ import annotations

import array
import os
import subprocess
import tempfile

__all__ = ["RATE", "synthesize", "trim"]

RATE = 16000


def trim(pcm: bytes, threshold: int = 300) -> bytes:
    """Cut leading and trailing silence so the clip ends where the last word does."""
    samples = array.array("h", pcm)
    loud = [index for index, value in enumerate(samples) if abs(value) > threshold]
    return samples[loud[0] : loud[-1] + 1].tobytes() if loud else b""


def synthesize(text: str, voice: str = "rms") -> bytes:
    """``text`` spoken by a flite voice, trimmed, as 16 kHz mono PCM16."""
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
