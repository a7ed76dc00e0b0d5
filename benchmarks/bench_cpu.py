"""CPU while listening: process time per second of microphone audio, through ``decode_pcm`` (the
live path's stages, without the device), for the released grammar recogniser and the live
neural path, in the same run on the same recording.

The recording is what a microphone at a card table hears over a minute: room noise at about
-50 dBFS throughout, and a command every few seconds (flite voices). Target: at most 30 % of one
core. Run: ``.venv/bin/python benchmarks/bench_cpu.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT.parent / "tests"))

from speech_samples import synthesize  # noqa: E402

from voice_rang.commands import CommandSet  # noqa: E402
from voice_rang.listen.neural import NeuralRecognizer  # noqa: E402
from voice_rang.listen.recognizer import Recognizer, decode_pcm  # noqa: E402


def recording(seconds: float = 60.0) -> bytes:
    rng = np.random.default_rng(5)
    audio = rng.standard_normal(int(16000 * seconds)) * 100.0
    words = ["turn", "status", "auto reveal on", "repeat", "stop", "turn", "help"]
    at = 16000
    for n in range(int(seconds // 4)):
        speech = np.frombuffer(synthesize(words[n % len(words)], ("kal16", "rms")[n % 2]), dtype="<i2")
        audio[at:at + len(speech)] += speech[: max(0, len(audio) - at)]
        at += 4 * 16000
    return np.clip(audio, -32768, 32767).astype("<i2").tobytes()


def main() -> int:
    pcm = recording()
    seconds = len(pcm) / 32000
    commands = CommandSet.load("en")
    for name, recognizer in (("released grammar recogniser", Recognizer(commands)),
                             ("live neural path", NeuralRecognizer(commands))):
        began = time.process_time()
        heard = [r.command for r in decode_pcm(recognizer, pcm) if r.command]
        used = time.process_time() - began
        print(f"{name:<28} {100 * used / seconds:5.1f} % of one core over {seconds:.0f} s "
              f"({len(heard)} commands acted on)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
