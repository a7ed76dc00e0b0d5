#!/usr/bin/env python3
"""Average command heads trained apart: one file holding every member of the heads given, each
member with its own head's normalisation, and thresholds chosen again on training voices' takes.

    .venv/bin/python scripts/merge_heads.py A/command_head.npz B/command_head.npz \\
        --tune benchmarks/out/head/tune-1019-120-3-r2-mb.npz --out /tmp/merged

Receives convolutional heads with the same labels (``scripts/train_command_head.py --out``) and a
tuning split that script cached (training voices only, never held-out speakers). Emits
``OUT/command_head.npz``, which ``benchmarks/bench_heads.py`` weighs like any other head. Heads of
different recipes err on different takes; their average may hold what each gets right.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))


def merged(heads: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The members of ``heads`` side by side, each with its normalisation (no thresholds yet)."""
    labels = [tuple(str(x) for x in head["labels"]) for head in heads]
    if len(set(labels)) != 1:
        raise ValueError("the heads do not have the same labels")
    if any(str(head.get("arch", "conv")) != "conv" for head in heads):
        raise ValueError("only convolutional heads can be merged")
    heard = {(str(head.get("front", "embedding")), str(head.get("hears", "given"))) for head in heads}
    if len(heard) != 1:
        raise ValueError("the heads do not read the same sound (front and hears must agree)")
    out: dict[str, np.ndarray] = {"mean": heads[0]["mean"], "std": heads[0]["std"], "arch": np.array("conv"),
                                  "labels": heads[0]["labels"]}
    out.update({key: heads[0][key] for key in ("front", "hears") if key in heads[0]})
    number = 0
    for head in heads:
        count = int(head["members"]) if "members" in head else 1
        for member in range(count):
            prefix = f"m{member}." if "members" in head else ""
            shared = ("labels", "thresholds", "arch", "members", "front", "hears", *(() if prefix else ("mean", "std")))
            for name, value in head.items():
                if name.startswith(prefix) and name[len(prefix):] not in shared:
                    out[f"m{number}.{name[len(prefix):]}"] = value
            out.setdefault(f"m{number}.mean", head["mean"])
            out.setdefault(f"m{number}.std", head["std"])
            number += 1
    out["members"] = np.array(number)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("heads", nargs="+", type=Path)
    parser.add_argument("--tune", type=Path, required=True, help="a tuning split cached by train_command_head.py")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="a folder to write command_head.npz into")
    args = parser.parse_args(argv)
    if args.out.suffix == ".npz" or args.out.is_file():
        parser.error(f"--out names a folder (command_head.npz is written into it), not {args.out}")
    from train_head import thresholds  # the numpy half of the training side

    heads = []
    for path in args.heads:
        with np.load(path) as data:
            heads.append({name: data[name] for name in data.files})
    weights = merged(heads)
    labels = tuple(str(x) for x in weights["labels"])
    with np.load(args.tune) as data:
        tune = {name: data[name] for name in data.files}
    weights["thresholds"] = np.array(thresholds(weights, labels, tune), dtype=np.float32)
    args.out.mkdir(parents=True, exist_ok=True)
    np.savez(args.out / "command_head.npz", **weights)  # type: ignore[arg-type]
    print(f"{int(weights['members'])} members, thresholds {weights['thresholds'].tolist()}: "
          f"{args.out / 'command_head.npz'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
