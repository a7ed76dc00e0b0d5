"""The player's takes two ways: the command head's last layer adapted to them, against templates.

``voice-rang enroll`` keeps the takes as templates in the head's pooled space
(:mod:`voice_rang.listen.personal`). The other way a head can learn a voice is to adapt: here
each member's output layer is fitted again to the enrolled takes, each heard as recorded and in
``--copies`` of the training's own conditions (``scripts/augment.condition``: a simulated room
half the time, noise at 0-30 dB four times in five, the babble made of the player's own takes
played backwards), with a quarter as many stretches of that noise alone as "not a command". The
fit starts at the released weights and is held near them (an L2 pull of ``--pull`` towards them),
since the takes hold no talk and nothing else says what is not a command.

Receives the decoding ``bench_neural.py score`` made (its rows and embeddings, as
``bench_heads.py``) and the enrolled voices' takes ``bench_neural.py make`` wrote. Emits
``bench_neural``'s table with the live rule without takes, with the templates (as released), with
the adapted head alone, and with the adapted head and the templates. Every utterance is heard by
the head adapted to one enrolled voice, as a game where the player enrolled hears everyone in the
room (``bench_neural._enrolled_folder``).

    .venv/bin/python benchmarks/bench_neural.py make --voices training
    .venv/bin/python benchmarks/bench_neural.py score --voices training
    .venv/bin/python benchmarks/bench_adapt.py --voices training [--pull 1.0] [--copies 10]

Needs ``scripts/augment.py`` (numpy only); the fit is numpy too (plain gradient descent on the
output layer, the layers below it fixed): about half a minute a voice on a 2-core machine, most
of it embedding the copies.
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
sys.path.insert(0, str(ROOT.parent / "scripts"))

import augment  # noqa: E402
import bench_heads  # noqa: E402
import bench_neural  # noqa: E402
from speech_embedding import features  # noqa: E402

from voice_rang.listen.command_head import NOT_A_COMMAND, CommandHead  # noqa: E402
from voice_rang.listen.decision import decide  # noqa: E402
from voice_rang.listen.recognizer import summarize  # noqa: E402


def examples(takes: dict[str, list[np.ndarray]], copies: int, seed: int) -> tuple[list[np.ndarray], list[str]]:
    """Each take's embeddings as recorded and in ``copies`` training conditions, labelled with its
    command, and a quarter as many of noise alone, labelled not a command."""
    rng = np.random.default_rng(seed)
    backwards = [take[::-1].astype(np.float32) for samples in takes.values() for take in samples]
    heard: list[np.ndarray] = []
    labels: list[str] = []
    for command, samples in takes.items():
        for take in samples:
            take = take.astype(np.float32)
            versions = [take] + [augment.condition(rng, take, backwards)[0] for _ in range(copies)]
            heard += [features(v.astype(np.int16)) for v in versions]
            labels += [command] * len(versions)
    for _ in range(len(heard) // 4):
        alone, _kind = augment.noise_alone(rng, backwards)
        heard.append(features(alone.astype(np.int16)))
        labels.append(NOT_A_COMMAND)
    return heard, labels


def adapted(head: CommandHead, heard: list[np.ndarray], labels: list[str], *, pull: float,
            steps: int = 300, rate: float = 0.5) -> CommandHead:
    """``head`` with each member's output layer fitted to ``heard`` (cross-entropy, plus ``pull``
    times the squared distance from the released layer), everything below it as released."""
    target = np.eye(len(head.labels))[[head.labels.index(label) for label in labels]]
    pooled = [head._pools(x) for x in heard]
    members = []
    for number, member in enumerate(head.members):
        hidden = np.maximum(np.stack([p[number] for p in pooled]) @ member["fc1.weight"].T + member["fc1.bias"], 0.0)
        start_w, start_b = member["fc2.weight"].astype(np.float64), member["fc2.bias"].astype(np.float64)
        weight, bias = start_w.copy(), start_b.copy()
        for _ in range(steps):
            logits = hidden @ weight.T + bias
            probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
            probabilities /= probabilities.sum(axis=1, keepdims=True)
            error = (probabilities - target) / len(target)
            weight -= rate * (error.T @ hidden + pull * (weight - start_w))
            bias -= rate * (error.sum(axis=0) + pull * (bias - start_b))
        members.append({**member, "fc2.weight": weight.astype(np.float32), "fc2.bias": bias.astype(np.float32)})
    weights: dict[str, np.ndarray] = {"mean": head.mean, "std": head.std, "members": np.array(len(members)),
                                      "thresholds": np.array([head.accept, head.ask])}
    for number, member in enumerate(members):
        weights.update({f"m{number}.{name}": value for name, value in member.items()})
    return CommandHead.from_weights(weights, head.labels)


def weigh(rows: list[dict[str, Any]], embeddings: Any, root: Path, heads: dict[Path, CommandHead],
          name: str) -> None:
    """Add ``name`` (the adapted head, no templates) and ``name + templates`` to every row."""
    released = CommandHead.released()
    rule = bench_neural.rules(released.accept, released.ask)["live rule (+ trust)"]
    for number, row in enumerate(rows):
        said = row.get("said") or []
        if not said:
            row[name] = row[f"{name} + templates"] = {"command": None, "unsure": False, "reason": "silence"}
            continue
        grammar = bench_heads.grammar_answers(said)
        utterances = embeddings[str(number)].astype(np.float32)
        item = {**row, "_root": str(root)}
        folder = bench_neural._enrolled_folder(item)
        head = heads.get(folder, released) if folder is not None else released
        scores = [head.scores(u) for u in utterances]
        answer = summarize([decide(g, s, None, rule, None) for g, s in zip(grammar, scores, strict=True)])
        row[name] = {"command": answer.command, "unsure": answer.unsure, "reason": answer.reason}
        takes = bench_neural._personal(item, released)
        matches = [takes.match(u) if takes is not None else None for u in utterances]
        answer = summarize([decide(g, s, None, rule, m) for g, s, m in zip(grammar, scores, matches, strict=True)])
        row[f"{name} + templates"] = {"command": answer.command, "unsure": answer.unsure, "reason": answer.reason}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voices", choices=tuple(bench_neural.VOICE_SETS), default="training")
    parser.add_argument("--copies", type=int, default=10, help="noisy copies of each take")
    parser.add_argument("--pull", type=float, default=1.0, help="how hard the fit is held near the released layer")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    root = bench_neural._out(args)
    scores = root / "scores-heldout.jsonl"
    if not scores.exists() or not bench_neural.features_path(scores).exists():
        print(f"no decoding with embeddings at {scores}: run bench_neural.py score first", file=sys.stderr)
        return 1
    rows = [json.loads(line) for line in scores.read_text().splitlines()]
    released = CommandHead.released()
    bench_neural._state["personal"] = {}
    bench_neural._state["recognizer"] = argparse.Namespace(head=released)
    heads = {}
    for folder in bench_neural._enrolled_folders(root):
        heard, labels = examples(bench_neural.enrolled_takes(folder), args.copies, args.seed)
        heads[folder] = adapted(released, heard, labels, pull=args.pull)
        print(f"{folder.name}: output layer fitted to {len(heard)} examples", file=sys.stderr)
    name = f"adapted (pull {args.pull:g}, {args.copies} copies)"
    with np.load(bench_neural.features_path(scores)) as embeddings:
        weigh(rows, embeddings, root, heads, name)
    columns = ["released", "live rule (+ trust)", "personal", name, f"{name} + templates"]
    print("\n".join(bench_neural.table(rows, columns)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
