"""Score the recogniser on the synthetic corpus: command accuracy, false accepts, decode time.

Every file goes through the live pipeline (``decode_pcm``: endpointer, streaming decoder,
rejection), exactly like ``voice-rang recognize``. Voices are split in two: thresholds may be
chosen on the *tuning* voices only (``--sweep``), and the *held-out* voices report what to expect
from voices never looked at. The plain-grammar baseline (no garbage branch, no second decoder)
shows what rejection buys.

Run ``benchmarks/voice_corpus.py`` first, then::

    .venv/bin/python benchmarks/bench_recognition.py [--sweep] [--limit N]

The last line printed is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from voice_rang.commands import CommandSet  # noqa: E402
from voice_rang.listen.recognizer import (  # noqa: E402
    Recognizer,
    Tuning,
    decode_pcm,
    summarize,
)
from voice_rang.listen.wavfile import read_wav_16k  # noqa: E402

CORPUS = ROOT / "out" / "corpus"
HELD_OUT = {"en-us+f3", "en-gb-x-rp+f4", "en-gb-scotland", "en-us-nyc", "en-gb-x-gbcwmd+f5"}
"""Voices never used to choose thresholds."""
BASELINE = Tuning(lenient_garbage=-1e4, strict_garbage=-1e4)
"""The same grammar with the garbage branch priced out: a plain command grammar."""

_recognizer: Recognizer | None = None


def _init(tuning: dict[str, float]) -> None:
    global _recognizer
    _recognizer = Recognizer(CommandSet.load("en"), tuning=Tuning(**tuning))


def _decode(item: dict[str, Any]) -> dict[str, Any]:
    assert _recognizer is not None
    pcm = read_wav_16k(CORPUS / item["path"])
    began = time.perf_counter()
    results = list(decode_pcm(_recognizer, pcm))
    wall = (time.perf_counter() - began) * 1000
    result = summarize(results)
    return {**item, "command": result.command, "unsure": result.unsure, "heard": result.heard,
            "ms": max((r.ms for r in results), default=0.0), "wall_ms": wall}


def run(items: list[dict[str, Any]], tuning: Tuning, workers: int) -> list[dict[str, Any]]:
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(asdict(tuning),)) as pool:
        return list(pool.map(_decode, items, chunksize=16))


def figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy (clean, noisy), false accepts and unsure rates, for one set of decoded rows."""
    def rate(selected: list[dict[str, Any]], test: Any) -> float | None:
        return round(sum(1 for r in selected if test(r)) / len(selected), 4) if selected else None

    clean = [r for r in rows if r["kind"] == "command" and not r["noise"]]
    noisy = [r for r in rows if r["kind"] == "command" and r["noise"]]
    negatives = [r for r in rows if r["kind"] == "negative"]
    return {
        "clean_accuracy": rate(clean, lambda r: r["command"] == r["expected"]),
        "noisy_accuracy": rate(noisy, lambda r: r["command"] == r["expected"]),
        "clean_wrong_command": rate(clean, lambda r: r["command"] not in (None, r["expected"])),
        "clean_unsure": rate(clean, lambda r: r["command"] is None and r["unsure"]),
        "false_accepts": rate(negatives, lambda r: r["command"] is not None),
        "negatives_unsure": rate(negatives, lambda r: r["command"] is None and r["unsure"]),
        "n_clean": len(clean), "n_noisy": len(noisy), "n_negative": len(negatives),
    }


def split(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "all": figures(rows),
        "tuning_voices": figures([r for r in rows if r["voice"] not in HELD_OUT]),
        "held_out_voices": figures([r for r in rows if r["voice"] in HELD_OUT]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", action="store_true",
                        help="choose garbage weights on the tuning voices, report held-out")
    parser.add_argument("--limit", type=int, default=0, help="decode only every Nth file")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-baseline", action="store_true")
    args = parser.parse_args(argv)
    index = CORPUS / "index.jsonl"
    if not index.exists():
        print("no corpus: run benchmarks/voice_corpus.py first", file=sys.stderr)
        return 2
    items = [json.loads(line) for line in index.read_text().splitlines() if line.strip()]
    if args.limit:
        items = items[:: args.limit]
    tuning = Tuning()
    if args.sweep:
        tune_items = [it for it in items if it["voice"] not in HELD_OUT]
        best: tuple[float, Tuning] | None = None
        for lenient in (-10.0, -14.0, -18.0):
            for strict in (-6.0, -9.0):
                candidate = replace(tuning, lenient_garbage=lenient, strict_garbage=strict)
                got = figures(run(tune_items, candidate, args.workers))
                # Maximise accuracy subject to false accepts <= 1 %.
                fa = got["false_accepts"] or 0.0
                score = (got["clean_accuracy"] or 0.0) - (10.0 if fa > 0.01 else 0.0)
                print(f"lenient {lenient} strict {strict}: {got}", flush=True)
                if best is None or score > best[0]:
                    best = (score, candidate)
        assert best is not None
        tuning = best[1]
    rows = run(items, tuning, args.workers)
    report: dict[str, Any] = {"tuning": asdict(tuning), **split(rows)}
    decode = sorted(r["ms"] for r in rows)
    report["decode_ms_median"] = round(statistics.median(decode), 1)
    report["decode_ms_p90"] = round(decode[int(0.9 * (len(decode) - 1))], 1)
    per_voice: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if r["kind"] == "command" and not r["noise"]:
            per_voice[r["voice"]][0] += r["command"] == r["expected"]
            per_voice[r["voice"]][1] += 1
    report["clean_accuracy_by_voice"] = {v: round(a / b, 3) for v, (a, b) in per_voice.items()}
    confusions = Counter((r["text"], r["command"]) for r in rows
                         if r["kind"] == "command" and r["command"] not in (None, r["expected"]))
    report["top_confusions"] = [f"{t} -> {c} x{n}" for (t, c), n in confusions.most_common(8)]
    accepted = Counter((r["text"], r["command"]) for r in rows
                       if r["kind"] == "negative" and r["command"] is not None)
    report["false_accepts_seen"] = [f"{t} -> {c} x{n}" for (t, c), n in accepted.most_common(8)]
    if not args.no_baseline:
        base = split(run(items, BASELINE, args.workers))
        report["baseline_plain_grammar"] = {"all": base["all"]}
    for key in ("all", "tuning_voices", "held_out_voices"):
        print(f"{key}: {report[key]}")
    if "baseline_plain_grammar" in report:
        print(f"baseline (plain grammar): {report['baseline_plain_grammar']['all']}")
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
