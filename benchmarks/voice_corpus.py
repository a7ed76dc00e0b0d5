"""Generate the synthetic voice corpus that ``bench_recognition.py`` scores the recogniser on.

Why synthetic: the benchmark must run on any developer's machine and in CI with nothing
downloaded, so every recording is made here with flite, festival, espeak-ng and sox. Synthetic
voices are a weak stand-in for people, so the corpus varies what it can (speaker, engine, speed,
pitch, noise) and the benchmark holds whole *speakers* out when it chooses thresholds.

Two sets, reported separately:

* **primary**: the more natural synthesizers, which the bundled en-us acoustic model hears
  roughly as it hears people: flite (kal16, awb, rms, slt) and festival (kal_diphone,
  cmu_us_slt_arctic_hts). flite kal16 and festival kal_diphone are the same speaker (Kal), as are
  flite slt and festival slt_hts (the CMU ARCTIC "slt" speaker).
* **stress**: espeak-ng's formant voices. The en-us model barely recognises them at all ("status"
  decodes as "the the" even with the full English language model), so they measure the
  synthesizer more than the recogniser; they are kept, in their own rows, as a stress test.

Layout written under ``benchmarks/out/corpus/`` (not committed)::

    clean/<voice>/<id>.wav      every command phrase, three speed/pitch styles per voice
    noisy/<noise>/<voice>/...   10 dB SNR copies: white, pink, brown, babble (rotating)
    room/<room>/<voice>/...     the same recordings heard in a reverberant room (two, rotating)
    negative/<voice>/<id>.wav   talk, numbers, card names, single words, the game's narration
    index.jsonl                 one object per file (path, set, kind, voice, speaker, noise, ...)

Run: ``.venv/bin/python benchmarks/voice_corpus.py [--quick]`` (about two minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import array
import itertools
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
import wave
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from voice_rang.commands import CommandSet, normalize  # noqa: E402

OUT = ROOT / "out" / "corpus"
RATE = 16000


@dataclass(frozen=True)
class Voice:
    name: str
    engine: str  # "flite" | "festival" | "espeak"
    speaker: str
    """Who the recordings behind the voice are: held-out splits hold out whole speakers."""
    set: str = "primary"


VOICES = [
    Voice("kal16", "flite", "kal"),
    Voice("awb", "flite", "awb"),
    Voice("rms", "flite", "rms"),
    Voice("slt", "flite", "slt"),
    Voice("kal_diphone", "festival", "kal"),
    Voice("cmu_us_slt_arctic_hts", "festival", "slt"),
    Voice("en-us", "espeak", "espeak-en-us", "stress"),
    Voice("en-gb", "espeak", "espeak-en-gb", "stress"),
    Voice("en-us+f3", "espeak", "espeak-en-us-f3", "stress"),
]

STYLES = [("normal", 1.0, 0), ("fast-high", 0.82, 250), ("slow-low", 1.25, -250)]
"""(name, duration stretch, pitch shift in cents). Speed comes from the engine where it has a
control (flite ``duration_stretch``, espeak-ng words per minute), otherwise from sox ``tempo``;
pitch always from sox ``pitch``, so every engine gets the same shifts."""

NOISES = ("white", "pink", "brown", "babble")

ROOMS = {"0.5s": ("40", "50", "50"), "0.8s": ("50", "50", "60")}
"""Reverberant rooms by reverberation time (RT60, measured on a click through sox ``reverb``
with these reverberance, damping and room-scale settings): a furnished living room, and a
livelier one. The echo is mixed with the direct sound, as a microphone across a table hears it.
People at a table are rarely close to the microphone; a recogniser that only works on dry
studio speech would fail in the room it is played in."""

TALK = [
    "the cat sat on the mat", "what time is it", "I think it is my go now",
    "can you pass me the water please", "hold on a second", "that was a good game",
    "where did I put my glasses", "let me think about it", "okay", "hello there",
    "good morning everyone", "I am going to make some tea", "it is raining again",
    "how many cards do I have", "who is winning", "wait a moment", "is it my go",
    "nobody knows the answer", "I never said that", "let me see your cards",
    "put the kettle on", "that is not fair", "whose go is it", "I have got a question",
    "do you want another drink", "she turned it over", "the weather is lovely today",
    "no way", "yes please", "a new gamer", "the repeat offender", "turn it down a bit",
]
NUMBERS = [
    "seven", "twenty three", "forty two", "one hundred and five", "three point one four",
    "nine eight seven six", "twelve", "fifteen", "thirty", "five thousand",
]
CARDS = [
    "the seven of clubs", "queen of hearts", "ace of spades", "the four of diamonds",
    "king of clubs", "jack of hearts", "ten of spades", "two of diamonds", "hearts", "spades",
]
WORDS = [
    "yesterday", "nobody", "know", "note", "turned", "return", "stopwatch", "yellow", "nose",
    "now", "yet", "yeah", "nope", "burn", "learn", "term", "quite", "helper", "statue",
    "faster than that", "slowly", "fast", "backwards", "automatic", "helpful", "returned",
    "tomorrow", "interesting", "score board", "forwarding",
]
"""Single words and short bits that sound like commands (yes-like, no-like, turn-like) or contain
one: a command must be the whole utterance, not a word near it or inside it."""

NARRATION_FALLBACK = [
    "Guest 1 turned the four of clubs onto the seven of clubs: clubs on clubs, a match! "
    "Guest 1 takes all 3 cards. Reveal 12 of 5,000.",
    "Your turn: say turn, or press space.",
]

_FILL = {
    "who": "guest 2", "Who": "Guest 2", "whose": "guest 2's", "Whose": "Guest 2's",
    "card": "the king of hearts", "under": "the seven of hearts", "suit": "hearts",
    "under_suit": "hearts", "n": "12", "cap": "5,000", "moved": "3", "pile": "4", "seats": "3",
    "each": "17", "list": "you, guest 1 and guest 2", "top": "the ace of spades", "cards": "9",
    "count": "2", "stacks": "you 10, guest 1 7", "collected": "you 3", "rate": "190",
    "level": "brief", "index": "3", "total": "8", "text": "Reveal 12 of 5,000.",
    "holdings": "Cards held: you 30, guest 1 22", "flags": "", "number": "1", "name": "Guest 1",
    "stack": "8", "reason": "no audio device.",
}


def narration() -> list[str]:
    """The game's own lines (``[messages]`` of the prompts file), placeholders filled in."""
    try:
        from voice_rang.prompts import load_prompts

        messages = load_prompts("en").messages
    except Exception:
        return NARRATION_FALLBACK
    lines: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            text = re.sub(r"\{(\w+)[^}]*\}", lambda m: _FILL.get(m.group(1), "two"), value)
            if len(text.split()) >= 3:
                lines.append(text)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            pass  # word lists (ranks) are not sentences

    for section in ("reveal", "events", "prompt", "answer", "status"):
        walk(messages.get(section, {}))
    picked = lines[::2]  # every other line keeps the corpus small; both ends of each section
    return [*NARRATION_FALLBACK, *picked][:30]


def negatives() -> list[tuple[str, str]]:
    """(type, text) of everything that is not a command."""
    return ([("talk", t) for t in TALK] + [("number", t) for t in NUMBERS]
            + [("card", t) for t in CARDS] + [("word", t) for t in WORDS]
            + [("narration", t) for t in narration()])


@dataclass(frozen=True)
class Item:
    """One recording to make."""

    path: Path
    kind: str  # "command" | "negative"
    voice: Voice
    text: str
    expected: str | None
    style: str
    stretch: float
    cents: int
    neg_type: str | None = None
    noise: str | None = None
    room: str | None = None


def _run(args: list[str], data: bytes | None = None) -> bytes:
    return subprocess.run(args, input=data, check=True, capture_output=True).stdout


def _festival_batch(voice: str, texts: list[str], directory: Path) -> dict[str, Path]:
    """One festival process per voice (start-up is most of festival's cost): text -> wav."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = [f"(voice_{voice})"]
    paths: dict[str, Path] = {}
    for number, text in enumerate(texts):
        path = directory / f"{voice}_{number}.wav"
        quoted = text.replace("\\", " ").replace('"', " ")
        lines.append(f'(utt.save.wave (utt.synth (Utterance Text "{quoted}")) "{path}" \'riff)')
        paths[text] = path
    script = directory / f"{voice}.scm"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _run(["festival", "--batch", str(script)])
    return paths


def synthesize(item: Item, festival: dict[tuple[str, str], Path]) -> None:
    """Synthesise one item, then sox to 16 kHz mono 16-bit with its pitch and a little room."""
    item.path.parent.mkdir(parents=True, exist_ok=True)
    voice = item.voice
    effects: list[str] = []
    if voice.engine == "flite":
        with tempfile.NamedTemporaryFile(suffix=".wav") as tmp:
            _run(["flite", "-voice", voice.name, "--setf", f"duration_stretch={item.stretch}",
                  "-t", item.text, "-o", tmp.name])
            source = Path(tmp.name).read_bytes()
    elif voice.engine == "festival":
        source = festival[(voice.name, item.text)].read_bytes()
        if item.stretch != 1.0:
            effects += ["tempo", "-s", f"{1 / item.stretch:.3f}"]
    else:
        wpm = round(165 / item.stretch)
        source = _run(["espeak-ng", "-v", voice.name, "-s", str(wpm), "--stdout", item.text])
    if item.cents:
        effects += ["pitch", str(item.cents)]
    _run(["sox", "-R", "-t", "wav", "-", "-r", str(RATE), "-c", "1", "-b", "16", str(item.path),
          *effects, "pad", "0.25", "0.35"], source)


def read_pcm(path: Path) -> array.array[int]:
    with wave.open(str(path), "rb") as wav:
        samples = array.array("h")
        samples.frombytes(wav.readframes(wav.getnframes()))
    return samples


BABBLE_TEXTS = [
    ("kal16", "I went down to the market on Saturday and bought three kinds of bread and cheese."),
    ("awb", "The train was late again so we sat in the station and talked about the weather."),
    ("rms", "My brother says the garden needs a lot of work before the summer comes round."),
    ("slt", "She called her mother on the phone and they talked for nearly an hour about it."),
    ("kal16", "Nobody could remember where the keys were, so we looked under every chair."),
    ("awb", "There is a small restaurant near the river that serves very good fish soup."),
]


def make_babble(path: Path) -> array.array[int]:
    """Babble: six synthetic sentences by four speakers, overlapped into one 12 s loop."""
    path.parent.mkdir(parents=True, exist_ok=True)
    parts: list[str] = []
    for number, (voice, text) in enumerate(BABBLE_TEXTS):
        part = path.parent / f"babble_{number}.wav"
        raw = path.parent / f"babble_{number}_raw.wav"
        _run(["flite", "-voice", voice, "-t", f"{text} {text}", "-o", str(raw)])
        _run(["sox", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", str(part),
              "pad", f"{0.7 * number:.1f}", "0", "trim", "0", "12", "norm", "-3"])
        parts.append(str(part))
    _run(["sox", "-m", *parts, str(path), "norm", "-3"])
    return read_pcm(path)


def add_noise(clean: Path, noisy: Path, noise: str, snr_db: float,
              babble: array.array[int]) -> None:
    """Mix noise (sox ``white``/``pink``/``brown``, or the babble loop) ``snr_db`` below speech.

    The SNR is measured on the speech portion (samples above 2 % of the peak), the usual way a
    "10 dB SNR" is meant for short commands padded with silence.
    """
    speech = read_pcm(clean)
    if noise == "babble":
        start = zlib.crc32(str(clean).encode()) % max(1, len(babble) - len(speech))
        noise_pcm = babble[start:start + len(speech)]
    else:
        raw = _run(["sox", "-R", "-n", "-r", str(RATE), "-c", "1", "-b", "16", "-t", "raw", "-",
                    "synth", f"{len(speech) / RATE:.3f}", f"{noise}noise", "vol", "0.5"])
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


def add_room(dry: Path, wet: Path, room: str) -> None:
    """The recording as heard in ``room`` (:data:`ROOMS`), level kept where it was."""
    wet.parent.mkdir(parents=True, exist_ok=True)
    _run(["sox", "-R", str(dry), str(wet), "reverb", *ROOMS[room], "channels", "1", "norm", "-3"])


def slug(text: str) -> str:
    return normalize(text).replace(" ", "_")[:40] or "x"


def plan(quick: bool) -> Iterator[Item]:
    """Primary voices: every phrase in every style, every negative in one style (rotating).
    Stress voices (espeak-ng): every phrase and every other negative, one style. Typed-only
    phrases are made too, so the copies stay where they were; ``bench_recognition.py`` leaves
    them out."""
    commands = CommandSet.load("en")
    voices = VOICES[::3] if quick else VOICES
    for voice in voices:
        vdir = voice.name.replace("+", "_")
        styles = STYLES if voice.set == "primary" and not quick else STYLES[:1]
        for command, phrases in commands.phrases.items():
            for phrase in phrases:
                for style, stretch, cents in styles:
                    yield Item(OUT / "clean" / vdir / f"{slug(phrase)}_{style}.wav", "command",
                               voice, phrase, command, style, stretch, cents)
        negs = negatives() if voice.set == "primary" else negatives()[::2]
        for number, (kind, text) in enumerate(negs):
            style, stretch, cents = STYLES[(number + len(vdir)) % len(STYLES)]
            yield Item(OUT / "negative" / vdir / f"{number:03d}_{slug(text)}_{style}.wav",
                       "negative", voice, text, None, style, stretch, cents, kind)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few voices, one style: for a smoke run")
    parser.add_argument("--snr", type=float, default=10.0, help="SNR of the noisy copies, dB")
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args(argv)
    for tool in ("flite", "festival", "espeak-ng", "sox"):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed (apt-get install flite festival festvox-kallpc16k "
                  "festvox-us-slt-hts espeak-ng sox)", file=sys.stderr)
            return 2
    if OUT.exists():
        shutil.rmtree(OUT)
    items = list(plan(args.quick))
    festival: dict[tuple[str, str], Path] = {}
    festival_voices = sorted({it.voice.name for it in items if it.voice.engine == "festival"})
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        batches = {v: pool.submit(_festival_batch, v,
                                  sorted({it.text for it in items if it.voice.name == v}),
                                  OUT / "tmp" / "festival")
                   for v in festival_voices}
        for voice, batch in batches.items():
            festival.update({(voice, text): path for text, path in batch.result().items()})
        list(pool.map(lambda it: synthesize(it, festival), items))
    babble = make_babble(OUT / "tmp" / "babble.wav")
    noisy: list[tuple[Item, Item]] = []
    for item in items:
        # Noisy copies: every command; the negatives in the first style; noise type rotates.
        if item.kind == "negative" and item.style != STYLES[0][0] and item.voice.set == "primary":
            continue
        noise = NOISES[len(noisy) % len(NOISES)]
        target = OUT / "noisy" / noise / item.path.relative_to(OUT)
        noisy.append((item, replace(item, path=target, noise=noise)))
    # Copies in a room: the same recordings as the noisy copies; the room alternates.
    rooms = [(item, replace(copy, path=OUT / "room" / room / item.path.relative_to(OUT),
                            noise=None, room=room))
             for (item, copy), room in zip(noisy, itertools.cycle(ROOMS), strict=False)]
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        list(pool.map(lambda pair: add_noise(pair[0].path, pair[1].path, pair[1].noise or "white",
                                             args.snr, babble), noisy))
        list(pool.map(lambda pair: add_room(pair[0].path, pair[1].path, pair[1].room or "0.5s"),
                      rooms))
    shutil.rmtree(OUT / "tmp" / "festival", ignore_errors=True)
    with open(OUT / "index.jsonl", "w", encoding="utf-8") as index:
        for item in [*items, *(copy for _, copy in noisy), *(copy for _, copy in rooms)]:
            index.write(json.dumps({
                "path": str(item.path.relative_to(OUT)), "set": item.voice.set,
                "kind": item.kind, "voice": item.voice.name, "engine": item.voice.engine,
                "speaker": item.voice.speaker, "text": item.text, "expected": item.expected,
                "neg_type": item.neg_type, "noise": item.noise,
                "snr": args.snr if item.noise else None, "room": item.room, "style": item.style,
            }) + "\n")
    for corpus_set in ("primary", "stress"):
        chosen = [it for it in items if it.voice.set == corpus_set]
        clean = sum(1 for it in chosen if it.kind == "command")
        copies = sum(1 for _, it in noisy if it.voice.set == corpus_set)
        print(f"{corpus_set}: {clean} command recordings, {len(chosen) - clean} negatives, "
              f"{copies} noisy copies, as many in a room")
    print(f"in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
