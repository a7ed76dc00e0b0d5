#!/usr/bin/env python3
"""Command heads alone on one cached split of ``train_command_head.py``, each at its own operating
point on that split: how recipes are chosen on validation speakers (``--validate``), never on
held-out ones.

    .venv/bin/python scripts/compare_heads.py benchmarks/out/head/validate-3019-validation.npz \\
        A/command_head.npz B/command_head.npz

Receives the split (embeddings, labels, kinds, conditions) and heads. Emits one Markdown row per
head: its operating point on the split (:func:`train_head.operating_point`: at most 0.5 % of
commands become another, 0.5 % of talk and 10 % of near words become a command), commands right
there, clean, in noise and in a room, and what it takes of talk and near words.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from train_head import NEAR_KINDS, TALK_KINDS, _rates, conditions, operating_point, probabilities  # noqa: E402


def row(name: str, weights: dict[str, np.ndarray], split: dict[str, np.ndarray]) -> str:
    labels = tuple(str(x) for x in weights["labels"])
    p = probabilities(weights, split["x"])
    index = {label: n for n, label in enumerate(labels)}
    truth = np.array([index[str(label)] for label in split["label"]])
    accept, _ = operating_point(p, truth, split["kind"])
    cells = []
    for chosen in conditions(split["condition"]).values():
        right, wrong, _ = _rates(p[chosen & (truth > 0)], truth[chosen & (truth > 0)], accept)
        cells.append(f"{100 * right:.1f} / {100 * wrong:.1f} %")
    talk = np.isin(split["kind"], TALK_KINDS)
    near = np.isin(split["kind"], NEAR_KINDS)
    cells.append(f"{100 * _rates(p[talk], truth[talk], accept)[2]:.1f} %")
    cells.append(f"{100 * _rates(p[near], truth[near], accept)[2]:.1f} %")
    return f"| {name} | {accept:.2f} | " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("split", type=Path, help="a split cached by train_command_head.py")
    parser.add_argument("heads", nargs="+", type=Path)
    args = parser.parse_args(argv)
    with np.load(args.split) as data:
        split = {name: data[name] for name in data.files}
    print("| head | operating point | clean right / wrong | noisy | room | talk taken | near words taken |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for path in args.heads:
        with np.load(path) as data:
            weights = {name: data[name] for name in data.files}
        print(row(path.parent.name if path.name == "command_head.npz" else path.stem, weights, split))
    return 0


if __name__ == "__main__":
    sys.exit(main())
