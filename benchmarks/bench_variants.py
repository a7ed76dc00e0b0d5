"""The command head heard again on changed copies of an utterance it is unsure of: does
averaging it over a speaker's likely differences let the live rule act on more commands?

    .venv/bin/python benchmarks/bench_neural.py score --voices training-diphone --without-second-ear --variants
    .venv/bin/python benchmarks/bench_variants.py --voices training-diphone

Receives the rows of ``scores-<set>.jsonl``, the features the head read (``features-<set>.npz``)
and the same utterances changed (``variants-<set>.npz``, ``scripts/variants.py``),
all from one ``score --variants`` run. Emits ``bench_neural``'s table: the live rule as decoded,
and for each set of changes the rule again where the live rule did not act on an utterance, on
the head's probabilities averaged over the utterance and its changed copies (acted on only when
that answer acts; otherwise the live answer stands), with and without the player's takes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent))

import bench_heads  # noqa: E402
import bench_neural  # noqa: E402

from voice_rang.listen.command_head import CommandHead, HeadScores  # noqa: E402
from voice_rang.listen.decision import decide  # noqa: E402
from voice_rang.listen.recognizer import summarize  # noqa: E402
from voice_rang.listen.results import Recognition  # noqa: E402

CANDIDATES = {
    "tape": ("tape 0.92", "tape 1.08"),
    "formants": ("formants 0.9", "formants 1.1"),
    "tape + formants": ("tape 0.92", "tape 1.08", "formants 0.9", "formants 1.1"),
}
"""The sets of changes weighed, written down before any was scored."""


def averaged(head: CommandHead, features: list[np.ndarray]) -> HeadScores:
    """The head's probabilities over several copies of one utterance, averaged."""
    scores = [head.scores(f) for f in features]
    mean = np.mean([s.probabilities for s in scores], axis=0)
    return HeadScores(scores[0].labels, tuple(float(p) for p in mean))


def again(first: Recognition, heard: Recognition, scores: HeadScores, rule: Any, match: Any) -> Recognition:
    """The live answer, unless it acts on nothing and the averaged scores act."""
    if first.command is not None:
        return first
    second = decide(heard, scores, None, rule, match)
    return second if second.command is not None else first


def answer(result: Recognition) -> dict[str, Any]:
    return {"command": result.command, "unsure": result.unsure, "reason": result.reason}


def weigh(rows: list[dict[str, Any]], features: Any, variants: Any, root: Path) -> list[str]:
    """Add each candidate's answers to every row; the columns added."""
    head = CommandHead.released()
    rule = bench_neural.rules(head.accept, head.ask)["live rule (+ trust)"]
    bench_neural._state["personal"] = {}
    columns = ["live, replayed", *CANDIDATES]
    for number, row in enumerate(rows):
        said = row.get("said") or []
        if not said:
            for name in columns:
                row[name] = row[f"{name}, personal"] = answer(Recognition(None, "", False, 0.0, "silence"))
            continue
        grammar = bench_heads.grammar_answers(said)
        utterances = features[str(number)].astype(np.float32)
        scores = [head.scores(u) for u in utterances]
        takes = bench_neural._personal({**row, "_root": str(root)}, head)
        matches = [takes.match(u) for u in utterances] if takes is not None else [None] * len(utterances)
        firsts = [decide(g, s, None, rule, None) for g, s in zip(grammar, scores, strict=True)]
        personal = [decide(g, s, None, rule, m) for g, s, m in zip(grammar, scores, matches, strict=True)]
        row["live, replayed"] = answer(summarize(firsts))
        if takes is not None:
            row["live, replayed, personal"] = answer(summarize(personal))
        for name, changes in CANDIDATES.items():
            copies = [variants[f"{number}|{change}"].astype(np.float32) for change in changes]
            mixed = [averaged(head, [u, *(c[i] for c in copies)]) for i, u in enumerate(utterances)]
            row[name] = answer(summarize(again(f, g, s, rule, None)
                                         for f, g, s in zip(firsts, grammar, mixed, strict=True)))
            if takes is not None:
                row[f"{name}, personal"] = answer(summarize(
                    again(f, g, s, rule, m) for f, g, s, m in zip(personal, grammar, mixed, matches, strict=True)))
    if any("live, replayed, personal" in r for r in rows):
        columns += ["live, replayed, personal", *(f"{name}, personal" for name in CANDIDATES)]
    return columns


def condition(row: dict[str, Any]) -> str:
    return "clean" if row["condition"] == "clean" else row["condition"].split()[0].replace("10dB", "10 dB")


def counts(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    """Each column's counts by condition (clean / 10 dB / room): commands right and wrong, talk
    taken, near words taken, and the enrolled voices' takes right and wrong."""
    kinds = {"commands": lambda r: r["kind"] == "command", "enrolled": lambda r: r["kind"] == "test",
             "talk": lambda r: r["kind"] == "negative" and r.get("neg_type") != "near",
             "near": lambda r: r["kind"] == "negative" and r.get("neg_type") == "near"}
    lines = ["| column | commands right (wrong) | enrolled right (wrong) | talk taken | near words taken |",
             "| --- | --- | --- | --- | --- |"]
    for column in columns:
        cells = []
        for kind, test in kinds.items():
            parts = []
            for place in ("clean", "10", "room"):
                chosen = [r for r in rows if test(r) and condition(r).startswith(place) and column in r]
                if kind in ("commands", "enrolled"):
                    right = sum(r[column]["command"] == r["expected"] for r in chosen)
                    wrong = sum(r[column]["command"] not in (None, r["expected"]) for r in chosen)
                    parts.append(f"{right} ({wrong})/{len(chosen)}")
                else:
                    parts.append(f"{sum(r[column]['command'] is not None for r in chosen)}/{len(chosen)}")
            cells.append(" · ".join(parts))
        lines.append(f"| {column} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("heldout", "radio", "human"), default="heldout")
    parser.add_argument("--voices", choices=tuple(bench_neural.VOICE_SETS), default="heldout")
    parser.add_argument("--rows", type=Path, default=None, metavar="JSONL",
                        help="also write every row with each candidate's answers")
    args = parser.parse_args(argv)
    root = bench_neural._out(args)
    scores = root / f"scores-{args.set}.jsonl"
    paths = (scores, bench_neural.features_path(scores), bench_neural.variants_path(scores))
    if not all(p.exists() for p in paths):
        print(f"no decoding with variants at {scores}: run bench_neural.py score --variants first", file=sys.stderr)
        return 1
    rows = [json.loads(line) for line in scores.read_text().splitlines()]
    with np.load(paths[1]) as features, np.load(paths[2]) as variants:
        columns = weigh(rows, features, variants, root)
    print("\n".join(bench_neural.table(rows, ["released", "live rule (+ trust)", *columns])))
    print()
    print("\n".join(counts(rows, ["live rule (+ trust)", *columns])))
    if args.rows is not None:
        bench_heads.write_rows(args.rows, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
