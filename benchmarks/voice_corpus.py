"""Generate the synthetic voice corpus that ``bench_recognition.py`` scores the recogniser on.

Why synthetic: the benchmark must run on any developer's machine and in CI with nothing
downloaded, so every recording is made here with espeak-ng and sox. Synthetic voices are a
weak stand-in for people, so the corpus varies what it can (accent, sex, speed, pitch, noise)
and the benchmark holds whole voices out when it chooses thresholds.

Layout written under ``benchmarks/out/corpus/`` (not committed)::

    clean/<voice>/<id>.wav     every command phrase, several speeds and pitches per voice
    noisy/<noise>/<voice>/...  copies of part of the clean set at 10 dB SNR (white, pink, brown)
    negative/<voice>/<id>.wav  sentences, numbers, card names and the game's own narration
    index.jsonl                one object per file: path, kind, voice, noise, expected command

Run: ``.venv/bin/python benchmarks/voice_corpus.py [--quick]``.
"""

from __future__ import annotations

import argparse
import array
import json
import math
import shutil
import subprocess
import sys
import wave
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from voice_rang.commands import CommandSet, normalize  # noqa: E402

OUT = ROOT / "out" / "corpus"
RATE = 16000

VOICES = [
    "en-us", "en-us+m3", "en-us+f3", "en", "en+f2", "en-gb", "en-gb-x-rp", "en-gb-x-rp+f4",
    "en-gb-scotland", "en-029", "en-us-nyc", "en-gb-x-gbclan+m5", "en-gb-x-gbcwmd+f5",
]
"""espeak-ng voices and variants; the benchmark holds some of them out when choosing thresholds."""

STYLES = [(150, 50), (175, 35), (125, 65)]
"""(words per minute, pitch 0-99) combinations each phrase is spoken with."""

NEGATIVES = [
    "the cat sat on the mat",
    "what time is it",
    "I think it is my go now",
    "can you pass me the water please",
    "hold on a second",
    "that was a good game",
    "where did I put my glasses",
    "let me think about it",
    "okay",
    "hello there",
    "good morning everyone",
    "I am going to make some tea",
    "it is raining again",
    "how many cards do I have",
    "who is winning",
    "wait a moment",
    "seven",
    "twenty three",
    "forty two",
    "one hundred and five",
    "three point one four",
    "nine eight seven six",
    "the seven of clubs",
    "queen of hearts",
    "ace of spades",
    "the four of diamonds",
    "king of clubs",
    "jack of hearts",
    "ten of spades",
    "two of diamonds",
    "Guest 1 turned the four of clubs onto the seven of clubs: clubs on clubs, a match. "
    "Guest 1 takes 3 cards.",
    "Your turn.",
    "You turned the king of hearts.",
    "Guest 2 turned the queen of spades.",
    "Guest 3 has 12 cards left.",
    "Hearts on hearts, a match.",
    "The pile has 5 cards.",
    "You win with 30 cards.",
    "Auto reveal is on.",
    "Game over. Guest 2 wins.",
    "Nobody matched, the pile grows.",
    "Guest 1 is out of cards.",
    "I didn't catch that.",
    "Speech is faster now.",
    "Turning over the next card.",
    "returned",
    "tomorrow",
    "interesting",
    "stopwatch",
    "yesterday",
    "fast",
    "the repeat offender",
    "no way",
    "yes please",
    "a new gamer",
    "helpful",
    "backwards",
    "automatic",
]
"""Things people (and the game itself) say near the microphone that are not commands. Some contain
command words on purpose: a command must be the whole utterance, not a word inside one."""


@dataclass(frozen=True)
class Item:
    """One recording to make."""

    path: Path
    kind: str  # "command" | "negative"
    voice: str
    text: str
    expected: str | None
    wpm: int
    pitch: int
    noise: str | None = None


def espeak(text: str, voice: str, wpm: int, pitch: int, path: Path) -> None:
    """Synthesise with espeak-ng, then sox to 16 kHz mono 16-bit with a little room around it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    synth = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(wpm), "-p", str(pitch), "--stdout", text],
        check=True, capture_output=True,
    ).stdout
    subprocess.run(
        ["sox", "-t", "wav", "-", "-r", str(RATE), "-c", "1", "-b", "16", str(path),
         "pad", "0.25", "0.35"],
        input=synth, check=True, capture_output=True,
    )


def read_pcm(path: Path) -> array.array[int]:
    with wave.open(str(path), "rb") as wav:
        samples = array.array("h")
        samples.frombytes(wav.readframes(wav.getnframes()))
    return samples


def add_noise(clean: Path, noisy: Path, noise: str, snr_db: float) -> None:
    """Mix sox-generated noise (``white``, ``pink``, ``brown``) at ``snr_db`` below the speech.

    The SNR is measured on the speech portion (samples above 2 % of the peak), the usual way a
    "10 dB SNR" is meant for short commands padded with silence.
    """
    speech = read_pcm(clean)
    seconds = len(speech) / RATE
    raw = subprocess.run(
        ["sox", "-n", "-r", str(RATE), "-c", "1", "-b", "16", "-t", "raw", "-",
         "synth", f"{seconds:.3f}", f"{noise}noise", "vol", "0.5"],
        check=True, capture_output=True,
    ).stdout
    noise_pcm = array.array("h")
    noise_pcm.frombytes(raw[: 2 * len(speech)])
    noise_pcm.extend([0] * (len(speech) - len(noise_pcm)))
    peak = max(1, max(abs(s) for s in speech))
    voiced = [s for s in speech if abs(s) > 0.02 * peak] or list(speech)
    p_speech = sum(s * s for s in voiced) / len(voiced)
    p_noise = sum(s * s for s in noise_pcm) / max(1, len(noise_pcm)) or 1.0
    gain = math.sqrt(p_speech / (p_noise * 10 ** (snr_db / 10)))
    mixed = array.array("h", (max(-32768, min(32767, int(s + gain * n)))
                              for s, n in zip(speech, noise_pcm, strict=False)))
    noisy.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(noisy), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(RATE)
        wav.writeframes(mixed.tobytes())


def slug(text: str) -> str:
    return normalize(text).replace(" ", "_")[:40] or "x"


def plan(quick: bool) -> Iterator[Item]:
    commands = CommandSet.load("en")
    voices = VOICES[::3] if quick else VOICES
    styles = STYLES[:1] if quick else STYLES
    for voice in voices:
        vdir = voice.replace("+", "_")
        for command, phrases in commands.phrases.items():
            for phrase in phrases:
                for wpm, pitch in styles:
                    yield Item(OUT / "clean" / vdir / f"{slug(phrase)}_{wpm}_{pitch}.wav",
                               "command", voice, phrase, command, wpm, pitch)
        for number, text in enumerate(NEGATIVES):
            wpm, pitch = STYLES[number % len(STYLES)]
            yield Item(OUT / "negative" / vdir / f"{number:02d}_{slug(text)}.wav",
                       "negative", voice, text, None, wpm, pitch)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few voices, one style: for a smoke run")
    parser.add_argument("--snr", type=float, default=10.0, help="SNR of the noisy copies, dB")
    args = parser.parse_args(argv)
    for tool in ("espeak-ng", "sox"):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed (apt-get install espeak-ng sox)", file=sys.stderr)
            return 2
    if OUT.exists():
        shutil.rmtree(OUT)
    items = list(plan(args.quick))
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda it: espeak(it.text, it.voice, it.wpm, it.pitch, it.path), items))
    noisy: list[tuple[Item, Item]] = []
    noises = ("white", "pink", "brown")
    for item in items:
        # Noisy copies: every command in the first style, every negative; noise type rotates.
        if item.kind == "command" and (item.wpm, item.pitch) != STYLES[0]:
            continue
        noise = noises[len(noisy) % len(noises)]
        target = OUT / "noisy" / noise / item.path.relative_to(OUT)
        noisy.append((item, Item(target, item.kind, item.voice, item.text, item.expected,
                                 item.wpm, item.pitch, noise)))
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda pair: add_noise(pair[0].path, pair[1].path, pair[1].noise or "white",
                                             args.snr), noisy))
    with open(OUT / "index.jsonl", "w", encoding="utf-8") as index:
        for item in [*items, *(copy for _, copy in noisy)]:
            index.write(json.dumps({
                "path": str(item.path.relative_to(OUT)), "kind": item.kind, "voice": item.voice,
                "text": item.text, "expected": item.expected, "noise": item.noise,
                "snr": args.snr if item.noise else None, "wpm": item.wpm, "pitch": item.pitch,
            }) + "\n")
    clean = sum(1 for it in items if it.kind == "command")
    print(f"{clean} command recordings, {len(items) - clean} negatives, {len(noisy)} noisy copies "
          f"in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
