"""A command said again: how often a player who is not answered the first time is answered the
second, and how often two lines that are not commands become one (``decision.said_again``).

The issue's table (``bench_neural.py``) weighs one utterance at a time; a player who gets no answer
says the command again. Each recording here is a pair: a take, 1.0-2.0 s of the room, and a second
take by the same voice (its own synthesis, speed and pitch drawn again, then played 0.92-1.08
times as fast), dry, at 10 dB SNR (one noise over the whole file) and across a room (one sox
room over the whole file). The pairs that are not commands are two different lines of talk,
numbers, cards or narration by one voice, and one near word ("burn", "yeah") said twice, the
hardest case for this rule.

    .venv/bin/python benchmarks/bench_again.py make --voices training-diphone   # where m is chosen
    .venv/bin/python benchmarks/bench_again.py score --voices training-diphone
    .venv/bin/python benchmarks/bench_again.py make                             # held-out voices
    .venv/bin/python benchmarks/bench_again.py score

Receives: the voices of ``bench_neural.py``'s sets (the held-out speakers by default). Emits, for
the live rule without the said-again rule and with it at each ``again_min``: command pairs
answered at the first take, at the second, asked about, or made another command; pairs that are
not commands taken for one or asked about. Every file is decoded once through ``decode_pcm``
(the live path) with the rule off; the rule is then replayed on each utterance's answer, the
head's lean and the silence before it, which is all the recogniser keeps between utterances
(``NeuralRecognizer.finish``), so each ``again_min`` costs no decoding.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import bench_neural as neural
import numpy as np
from bench_neural import augment, corpus, voice_corpus

from voice_rang.commands import CommandSet
from voice_rang.listen.decision import Lean, Rule, said_again
from voice_rang.listen.results import Recognition
from voice_rang.listen.wavfile import read_wav_16k

ROOT = Path(__file__).resolve().parent
OUT = {name: ROOT / "out" / f"again-{name}" for name in neural.VOICE_SETS}
MINIMA = (0.1, 0.15, 0.2, 0.3)
OFF = 2.0
"""``again_min`` that no probability reaches: the live rule without the said-again rule."""


def make(args: argparse.Namespace) -> int:
    out = OUT[args.voices]
    held_out = args.voices in neural.HELD_OUT_SETS
    seed = args.seed if held_out else args.seed + neural.TUNING_SEED
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    voices = corpus.voices(held_out=held_out, diphone=args.voices == "training-diphone")
    people = [v for v in voices if v.engine != "espeak"]
    espeak = [v for v in voices if v.engine == "espeak"]

    def take(voice: corpus.Voice, text: str, again: bool) -> np.ndarray:
        if voice.engine == "festival":
            samples = corpus.festival_batch(voice, [text])[text]
        else:
            samples = corpus.synthesize(voice, text, random.Random(rng.randrange(1 << 30)))
        samples = augment.trim(samples)
        return augment.resample(samples, nprng.uniform(0.92, 1.08)) if again else samples

    def pair(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        level = 10 ** (nprng.uniform(-20, -6) / 20) * 32767
        first, second = (s / (np.max(np.abs(s)) + 1e-9) * level for s in (first, second))
        pause = np.zeros(int(nprng.uniform(1.0, 2.0) * augment.RATE), dtype=np.float32)
        whole = np.concatenate([augment.frame(nprng, first), pause, augment.frame(nprng, second)])
        return whole + nprng.standard_normal(len(whole)) * 2.0

    talk_audio = [take(rng.choice(espeak), t, False) for t in voice_corpus.TALK[:8]]
    index: list[dict[str, Any]] = []

    def add(samples: np.ndarray, row: dict[str, Any]) -> None:
        count = len(index) // 3 + 1
        base = out / "clean" / f"{count:05d}.wav"
        neural._write(base, samples)
        index.append({**row, "path": str(base.relative_to(out)), "condition": "clean"})
        kind = ("white", "pink", "brown", "babble")[count % 4]
        noisy = samples + augment.noise(nprng, kind, len(samples), talk_audio) * np.sqrt(
            augment.speech_power(samples) / 10)
        neural._write(out / "noisy" / f"{count:05d}.wav", noisy)
        index.append({**row, "path": f"noisy/{count:05d}.wav", "condition": f"10dB {kind}"})
        room = list(neural.ROOMS)[count % len(neural.ROOMS)]
        neural._room(base, out / "room" / f"{count:05d}.wav", room)
        index.append({**row, "path": f"room/{count:05d}.wav", "condition": f"room {room}"})

    for command, phrase in corpus.command_phrases():
        speakers = people if held_out else rng.sample(people, 2)
        for voice in [*speakers, *rng.sample(espeak, args.espeak_takes)]:
            add(pair(take(voice, phrase, False), take(voice, phrase, True)),
                {"kind": "command", "text": phrase, "expected": command, "voice": f"{voice.engine}:{voice.name}"})
    lines = ([t for t in voice_corpus.TALK] + list(voice_corpus.NUMBERS) + list(voice_corpus.CARDS)
             + list(voice_corpus.narration()))
    for first, second in zip(lines, lines[1:] + lines[:1], strict=True):
        for voice in [rng.choice(people), rng.choice(espeak)]:
            add(pair(take(voice, first, False), take(voice, second, False)),
                {"kind": "talk", "text": f"{first} / {second}", "expected": None,
                 "voice": f"{voice.engine}:{voice.name}"})
    for word in sorted(set(voice_corpus.WORDS) - {"know"}):
        for voice in [rng.choice(people), rng.choice(espeak)]:
            add(pair(take(voice, word, False), take(voice, word, True)),
                {"kind": "near", "text": word, "expected": None, "voice": f"{voice.engine}:{voice.name}"})
    (out / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in index), encoding="utf-8")
    print(f"{len(index)} recordings of {len(index) // 3} pairs in {out}")
    return 0


_state: dict[str, Any] = {}


def recording(rule: Rule | None = None) -> Any:
    """The live recogniser with the said-again rule off (``rule``, else the released one), noting
    in ``said`` what the rule would weigh: each answer, the head's lean and the silence before."""
    from voice_rang.listen.neural import NeuralRecognizer

    class Recording(NeuralRecognizer):
        said: list[dict[str, Any]]
        gap_ms = math.inf

        def start(self, allowed: Any = None, *, after_talk: bool = False, gap_ms: float = math.inf) -> None:
            self.gap_ms = gap_ms
            super().start(allowed, after_talk=after_talk, gap_ms=gap_ms)

        def finish(self, snr_db: float = math.inf) -> Recognition:
            count = len(self.last)
            result = super().finish(snr_db)
            lean = self.last[-1][1].best(self._allowed)[:2] if len(self.last) > count else (None, 0.0)
            self.said.append({"result": dataclasses.asdict(result), "lean": list(lean), "gap_ms": self.gap_ms})
            return result

        def abort(self) -> None:
            self.said.append({"abort": True})  # talk too long to decode: the recogniser forgets
            super().abort()

    recognizer = Recording(CommandSet.load("en"))
    recognizer.rule = replace(rule or recognizer.rule, again_min=OFF)
    recognizer.said = []
    return recognizer


def _init() -> None:
    _state["recognizer"] = recording()


def decode(recognizer: Any, pcm: bytes) -> list[dict[str, Any]]:
    """What :func:`replay` needs of one recording, decoded through the live path."""
    from voice_rang.listen.recognizer import decode_pcm

    recognizer.said = []
    list(decode_pcm(recognizer, pcm))
    return list(recognizer.said)


def _decode(item: dict[str, Any]) -> dict[str, Any]:
    said = decode(_state["recognizer"], read_wav_16k(item["_path"]))
    return {**{k: v for k, v in item.items() if not k.startswith("_")}, "said": said}


def replay(said: list[dict[str, Any]], rule: Rule) -> list[Recognition]:
    """Each utterance's answer with the said-again rule, as ``NeuralRecognizer`` gives it."""
    answers: list[Recognition] = []
    before: tuple[Recognition, Lean] | None = None
    for utterance in said:
        if utterance.get("abort"):
            before = None
            continue
        result = Recognition(**utterance["result"])
        earlier = before if utterance["gap_ms"] <= rule.again_within_ms else None
        if result.reason == "silence":
            answers.append(result)
            continue
        lean: Lean = (utterance["lean"][0], float(utterance["lean"][1]))
        result = said_again(result, lean, earlier, rule)
        before = (result, lean)
        answers.append(result)
    return answers


def outcome(row: dict[str, Any], rule: Rule) -> str:
    answers = replay(row["said"], rule)
    acted = [(n, a.command) for n, a in enumerate(answers) if a.command is not None]
    if row["expected"] is None:
        return "taken" if acted else "asked" if any(a.unsure for a in answers) else "left"
    if any(command != row["expected"] for _, command in acted):
        return "wrong"
    if acted:
        first_take = sum(1 for a in answers[:acted[0][0]] if a.reason != "silence") == 0
        return "at once" if first_take else "second"
    return "asked" if any(a.unsure for a in answers) else "missed"


def score(args: argparse.Namespace) -> int:
    out = OUT[args.voices]
    scores = out / "scores.jsonl"
    if args.action == "score":
        items = [{**json.loads(line), "_path": str(out / json.loads(line)["path"])}
                 for line in (out / "index.jsonl").read_text().splitlines()]
        with ProcessPoolExecutor(args.workers, initializer=_init) as pool:
            rows = list(pool.map(_decode, items, chunksize=4))
        scores.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rows = [json.loads(line) for line in scores.read_text().splitlines()]
    from voice_rang.listen.command_head import CommandHead

    head = CommandHead.released()
    rule = Rule(accept=head.accept, ask=head.ask)
    print("| pairs | condition | n | " + " | ".join(["off", *[f"again_min {m}" for m in MINIMA]]) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in range(len(MINIMA) + 1)) + " |")
    for kind in ("command", "talk", "near"):
        for condition in ("clean", "10dB", "room"):
            chosen = [r for r in rows if r["kind"] == kind and r["condition"].startswith(condition)]
            cells = []
            for m in (OFF, *MINIMA):
                counts: dict[str, int] = {}
                for row in chosen:
                    result = outcome(row, replace(rule, again_min=m))
                    counts[result] = counts.get(result, 0) + 1
                if kind == "command":
                    cells.append(" / ".join(str(counts.get(k, 0)) for k in ("at once", "second", "asked", "wrong")))
                else:
                    cells.append(f"taken {counts.get('taken', 0)}, asked {counts.get('asked', 0)}")
            print(f"| {kind} | {condition} | {len(chosen)} | " + " | ".join(cells) + " |")
    print("command cells: answered at the first take / at the second / asked about / made another command")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("make", "score", "table"))
    parser.add_argument("--voices", choices=sorted(neural.VOICE_SETS), default="heldout")
    parser.add_argument("--seed", type=int, default=2021)
    parser.add_argument("--espeak-takes", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if args.voices.startswith("kokoro-") or args.voices == "training":
        parser.error("pairs are made for --voices heldout or training-diphone")
    return make(args) if args.action == "make" else score(args)


if __name__ == "__main__":
    sys.exit(main())
