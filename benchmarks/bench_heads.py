"""Other command heads weighed on a decoding ``bench_neural.py score`` already made: the same
utterances, the same grammar decoders' answers and the same enrolled takes, each head through the
live rule at its own thresholds. Decoding is what costs (pocketsphinx's six decoders on every
utterance); a head costs milliseconds, so heads are compared here in seconds rather than in a new
score run each.

    .venv/bin/python benchmarks/bench_neural.py score --limit 2        # decodes once, keeps embeddings
    .venv/bin/python benchmarks/bench_heads.py NEW.npz [OTHER.npz ...] # [--set radio] [--voices training]
    .venv/bin/python benchmarks/bench_heads.py NEW.npz --voices training --rule trust_min_head=0.1
    .venv/bin/python benchmarks/bench_heads.py NEW.npz --set human --rows rows.jsonl  # people; every answer

Receives the rows of ``scores-<set>.jsonl`` and the embeddings of ``features-<set>.npz`` beside
them (:func:`bench_neural.features_path`). Emits ``bench_neural``'s table: the released recogniser
(the grammar decoders alone) and the live rule with the released head, as decoded, then for each
head given its live rule, and the same with the enrolled takes matched in that head's space.
``--rule NAME=VALUE`` changes a number or switch of :class:`Rule` for the heads given (tune a rule
on ``--voices training`` only).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent))

import bench_neural  # noqa: E402

from voice_rang.listen.command_head import HEARS_GIVEN, CommandHead  # noqa: E402
from voice_rang.listen.decision import Rule, decide  # noqa: E402
from voice_rang.listen.recognizer import summarize  # noqa: E402
from voice_rang.listen.results import Recognition  # noqa: E402

RECOGNITION_FIELDS = {f.name for f in fields(Recognition)}


def rule_changes(pairs: list[str]) -> dict[str, Any]:
    """``["trust_min_head=0.1", "grammar_trust=false"]`` as :class:`Rule` field values.

    >>> rule_changes(["trust_min_head=0.1", "grammar_trust=false"])
    {'trust_min_head': 0.1, 'grammar_trust': False}
    """
    kinds = {f.name: f.type for f in fields(Rule)}
    changes: dict[str, Any] = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        if name not in kinds:
            raise SystemExit(f"bench_heads: no rule number {name!r}; the rule has {', '.join(kinds)}")
        changes[name] = value.lower() == "true" if kinds[name] in (bool, "bool") else float(value)
    return changes


def grammar_answers(said: list[dict[str, Any]]) -> list[Recognition]:
    """The grammar decoders' answer for each utterance of a row, as ``score`` stored them."""
    return [Recognition(**{k: v for k, v in s["grammar"].items() if k in RECOGNITION_FIELDS}) for s in said]


def stored_width(features: Any, head: CommandHead) -> int | None:
    """How many values a frame a decoding's kept features hold, when ``head`` reads another number
    (a head on another front than the one that decoded them); ``None`` when it can read them."""
    stored = features[features.files[0]].shape[-1] if features.files else None
    return stored if stored is not None and stored != head.mean.shape[-1] else None


def weigh(rows: list[dict[str, Any]], features: Any, head: CommandHead, name: str, root: Path,
          changes: dict[str, Any] | None = None) -> None:
    """Add ``name`` and ``name, personal`` answers to every row that was decoded into utterances."""
    rule = replace(bench_neural.rules(head.accept, head.ask)["live rule (+ trust)"], **(changes or {}))
    for number, row in enumerate(rows):
        said = row.get("said") or []
        if not said:
            row[name] = row[f"{name}, personal"] = {"command": None, "unsure": False, "reason": "silence"}
            continue
        grammar = grammar_answers(said)
        utterances = features[str(number)].astype(np.float32)
        scores = [head.scores(u) for u in utterances]
        answer = summarize([decide(g, s, None, rule, None) for g, s in zip(grammar, scores, strict=True)])
        row[name] = {"command": answer.command, "unsure": answer.unsure, "reason": answer.reason}
        takes = bench_neural._personal({**row, "_root": str(root)}, head)
        if takes is not None:
            matches = [takes.match(u) for u in utterances]
            answer = summarize([decide(g, s, None, rule, m) for g, s, m in zip(grammar, scores, matches, strict=True)])
            row[f"{name}, personal"] = {"command": answer.command, "unsure": answer.unsure, "reason": answer.reason}


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """Every row with each column's answer (not the utterances' decodings), one JSON line each."""
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "said"}) + "\n" for r in rows),
                    encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("heads", nargs="+", type=Path, help="command_head.npz files to weigh")
    parser.add_argument("--set", choices=("heldout", "radio", "human"), default="heldout")
    parser.add_argument("--voices", choices=tuple(bench_neural.VOICE_SETS), default="heldout")
    parser.add_argument("--rule", nargs="*", default=[], metavar="NAME=VALUE",
                        help="change the live rule's numbers for the heads given (Rule's fields)")
    parser.add_argument("--decoded", type=Path, default=None, metavar="JSONL",
                        help="weigh on this decoding (scores-<set>-<head>.jsonl of bench_neural.py score --head, "
                             "its features beside it) instead of the last one: for a head that reads something "
                             "else than the released head (the speech embedding, a noise suppressor's sound)")
    parser.add_argument("--rows", type=Path, default=None, metavar="JSONL",
                        help="also write every row with each head's answers (for a look by voice or noise)")
    args = parser.parse_args(argv)
    changes = rule_changes(args.rule)
    root = bench_neural._out(args)
    scores = args.decoded or root / f"scores-{args.set}.jsonl"
    if not scores.exists() or not bench_neural.features_path(scores).exists():
        print(f"no decoding with embeddings at {scores}: run bench_neural.py score first", file=sys.stderr)
        return 1
    rows = [json.loads(line) for line in scores.read_text().splitlines()]
    bench_neural._state["personal"] = {}
    columns = ["released", "live rule (+ trust)"]
    if any("personal" in r for r in rows):
        columns.append("personal")
    with np.load(bench_neural.features_path(scores)) as features:
        for path in args.heads:
            head = CommandHead(path)
            stored = stored_width(features, head)
            if stored is not None:
                print(f"bench_heads: {path} reads {head.mean.shape[-1]} values a frame ({head.front}) and the "
                      f"decoding stored {stored}: give --decoded a decoding made with such a head", file=sys.stderr)
                return 2
            if head.hears != HEARS_GIVEN and args.decoded is None:
                print(f"bench_heads: {path} learnt on {head.hears} sound and the stored embeddings are of the "
                      "microphone's: score it with bench_neural.py score --head", file=sys.stderr)
                return 2
            name = "head " + (path.parent.name if path.name == "command_head.npz" else path.stem) + \
                "".join(f" {pair}" for pair in args.rule)
            weigh(rows, features, head, name, root, changes)
            columns += [name, f"{name}, personal"]
            print(f"{name}: accept {head.accept:.2f}, ask {head.ask:.2f}", file=sys.stderr)
    print("\n".join(bench_neural.table(rows, columns)))
    if args.rows is not None:
        write_rows(args.rows, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
