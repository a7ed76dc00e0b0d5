"""A trial, not in the game: two heads that agree. Where the live rule leaves an utterance (asked
about, "too noisy", or not a command), act on the released head's likeliest command when it gives
it at least ``a`` and the head before (on Google's speech embedding) names the same command with
at least ``b``. The two heads read different fronts and miss different takes at 10 dB
(``bench_ceiling.py``), so their agreement might be surer than either head's own number.

    .venv/bin/python benchmarks/bench_agreement.py benchmarks/out/neural-tuning-diphone/scores-heldout.jsonl \\
        benchmarks/out/neural-tuning-diphone/scores-heldout-emb.jsonl

Receives: the released head's decoding of a set and the head before's decoding of the same files
(``bench_neural.py score``, then ``score --head DIR/command_head.npz`` with the b9dab90 weights);
the two cut every file alike, utterance for utterance. Emits: for the live rule and for each pair
of ``a`` and ``b``, commands right / wrong and other lines taken, by kind and condition.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent))

from bench_heads import grammar_answers  # noqa: E402

from voice_rang.listen.command_head import HeadScores  # noqa: E402
from voice_rang.listen.decision import Rule, decide  # noqa: E402
from voice_rang.listen.personal import PersonalMatch  # noqa: E402
from voice_rang.listen.recognizer import summarize  # noqa: E402
from voice_rang.listen.results import Recognition  # noqa: E402

LEFT = frozenset({"unsure", "too noisy", "not a command"})
"""What the rescue may turn into a command: never a doubt (the models named different commands),
nor what duration, "said on its own" or the commands valid now ruled out."""
GRID = (0.2, 0.3, 0.4, 0.5, 0.6)


def rescue(first: Recognition, mine: HeadScores, theirs: HeadScores | None, a: float, b: float) -> Recognition:
    """``first`` (the live rule's answer), or the command both heads name when ``first`` is left.

    >>> left = Recognition(None, "[burn]", True, 1.0, "unsure", 500.0, guess="turn")
    >>> mine = HeadScores(("", "turn", "stop"), (0.5, 0.45, 0.05))
    >>> rescue(left, mine, HeadScores(("", "turn", "stop"), (0.3, 0.6, 0.1)), 0.4, 0.5).command
    'turn'
    >>> rescue(left, mine, HeadScores(("", "turn", "stop"), (0.3, 0.1, 0.6)), 0.4, 0.5).command is None
    True
    """
    if first.command is not None or first.reason not in LEFT or theirs is None:
        return first
    command, p, _ = mine.best(None)
    other, q, _ = theirs.best(None)
    if command is None or command != other or p < a or q < b:
        return first
    return replace(first, command=command, unsure=False, reason="command", guess=command)


def group(row: dict[str, Any]) -> str:
    """``commands 10dB``, ``enrolled clean``, ``near words room``, ``talk clean``…"""
    condition = row["condition"].split()[0]
    if row["kind"] in ("command", "test"):
        return f"{'commands' if row['kind'] == 'command' else 'enrolled'} {condition}"
    return f"{'near words' if row.get('neg_type') in ('near', 'word') else 'talk'} {condition}"


def tally(prepared: list[tuple[dict[str, Any], list[tuple[Recognition, HeadScores, HeadScores | None]]]],
          pair: tuple[float, float] | None) -> dict[str, list[int]]:
    """Right, wrong (or taken) and n by group, with the rescue at ``pair`` (none: the live rule)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for row, utterances in prepared:
        answers = [first if pair is None else rescue(first, mine, theirs, *pair) for first, mine, theirs in utterances]
        result = summarize(answers)
        entry = counts[group(row)]
        entry[2] += 1
        if row["kind"] in ("command", "test"):
            entry[0] += result.command == row["expected"]
            entry[1] += result.command not in (None, row["expected"])
        else:
            entry[1] += result.command is not None
    return dict(sorted(counts.items()))


def prepare(rows: list[dict[str, Any]], before: dict[str, dict[str, Any]], labels: tuple[str, ...],
            rule: Rule) -> list[tuple[dict[str, Any], list[tuple[Recognition, HeadScores, HeadScores | None]]]]:
    """Each row's utterances as the live rule answered them, with both heads' scores (the head
    before's only where its decoding cut the file into as many utterances)."""
    prepared = []
    for row in rows:
        theirs = before.get(row["path"], {}).get("said", [])
        if len(theirs) != len(row["said"]):
            theirs = [None] * len(row["said"])
        utterances = []
        for said, grammar, other in zip(row["said"], grammar_answers(row["said"]), theirs, strict=True):
            mine = HeadScores(labels, tuple(said["head"]))
            personal = PersonalMatch(**said["personal"]) if row["kind"] == "test" and said.get("personal") else None
            first = decide(grammar, mine, None, rule, personal)
            utterances.append((first, mine, None if other is None else HeadScores(labels, tuple(other["head"]))))
        prepared.append((row, utterances))
    return prepared


def line(name: str, counts: dict[str, list[int]]) -> str:
    return f"{name:<12}" + "  ".join(f"{key} {right}/{wrong}" if key.startswith(("commands", "enrolled"))
                                     else f"{key} {wrong}" for key, (right, wrong, _) in counts.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, help="the released head's decoding")
    parser.add_argument("before", type=Path, help="the head before's decoding of the same files")
    args = parser.parse_args(argv)
    from bench_neural import rules

    from voice_rang.listen.command_head import CommandHead

    head = CommandHead.released()
    try:
        rows = [json.loads(text) for text in args.rows.read_text(encoding="utf-8").splitlines()]
        before = {r["path"]: r for r in map(json.loads, args.before.read_text(encoding="utf-8").splitlines())}
    except (OSError, json.JSONDecodeError) as error:
        raise SystemExit(f"bench_agreement: cannot read the decodings ({error}); make them with "
                         "benchmarks/bench_neural.py score") from None
    prepared = prepare(rows, before, head.labels, rules(head.accept, head.ask)["live rule (+ trust)"])
    live = tally(prepared, None)
    print("right/wrong for commands; taken for the rest; n: "
          + ", ".join(f"{key} {n}" for key, (_, _, n) in live.items()))
    print(line("live rule", live))
    for a in GRID:
        for b in GRID:
            print(line(f"a {a} b {b}", tally(prepared, (a, b))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
