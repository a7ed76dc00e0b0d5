#!/usr/bin/env python3
"""Fine-tune the top of Moonshine's encoder together with a command head, against the same head on
the frozen encoder: a trial of whether the encoder's last layers, adapted to the commands, hear
new speakers better than the head alone can (``docs/voice-experiments.md``, *The top of
Moonshine's encoder fine-tuned with the head*). Not part of the released recipe.

    .venv/bin/python scripts/tune_encoder_top.py data                       # about 15 min: the takes
    .venv/bin/python scripts/tune_encoder_top.py fit --name base --layers 2 --encoder-lr 0
    .venv/bin/python scripts/tune_encoder_top.py fit --name top1 --layers 1 --encoder-lr 1e-4

``data`` makes the released recipe's takes with ``--validate`` (the validation speakers never
train: :func:`command_corpus.validation`) through ``train_command_head.py``, and keeps for each the
encoder's states where its top :data:`MAX_LAYERS` layers begin, at full time resolution.
``fit`` trains one conv head (:class:`train_head.ConvHead`, the released recipe's augmentation and
loss) on the encoder's last ``--layers`` layers run in torch, those layers learning too unless
``--encoder-lr 0``; the head's threshold is chosen on the tuning takes
(:func:`train_head.operating_point`) and the head alone is reported on the validation speakers'
takes, clean, in noise and in a room (JSON in ``--work``).

The layers run in torch by :class:`EncoderTop`, which executes the encoder's own ONNX nodes after
the cut (``onnxruntime``'s graph, so nothing of Moonshine is re-implemented by hand), every weight
matrix of them a parameter; ``tests/test_tune_encoder_top.py`` checks it gives onnxruntime's states.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from voice_rang.listen.front import MIN_SAMPLES, MOONSHINE_BINS, binned  # noqa: E402

WORK = HERE.parent / "benchmarks" / "out" / "encoder-top"
MAX_LAYERS = 2
"""The cut the data keeps: the states entering the encoder's last two of its eight layers."""
MAX_FRAMES = 320
"""Encoder states kept a take (8 s; the longest command take is about 3 s)."""
VALUES = 416
FINAL_NORM = "layer_norm.weight"
"""The encoder's last norm (a scale, no shift), which ``--layers 0`` puts on the cut."""


def cut_name(layers: int) -> str:
    """The encoder's residual stream entering its last ``layers`` layers (onnxruntime's names); for
    0, the cut the data keeps (the head then reads it frozen, through the final norm)."""
    return f"/layers.{7 - (layers or MAX_LAYERS)}/Add_1_output_0"


def _first_node(layers: int) -> str:
    return f"/layers.{8 - layers}/input_layernorm/ReduceMean"


def encoder_graph() -> Any:
    """The converted encoder (:func:`voice_rang.listen.moonshine.prepare`) as an ONNX graph."""
    import onnx

    from voice_rang.listen import moonshine

    return onnx.load(str(moonshine.prepare(parts=("encoder",)) / "encoder.onnx"))


def with_outputs(model: Any, names: list[str]) -> bytes:
    """``model`` with ``names`` as extra outputs, serialised for an onnxruntime session."""
    import onnx

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for name in names:
        copy.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    return copy.SerializeToString()


def top_inputs(model: Any, layers: int) -> list[str]:
    """What the last ``layers`` layers read besides their weights: the cut first, then the rotary
    tables (computed from the utterance's length earlier in the graph)."""
    nodes = _top_nodes(model, layers)
    made = {o for n in nodes for o in n.output}
    weights = {i.name for i in model.graph.initializer}
    outside = sorted({i for n in nodes for i in n.input if i and i not in made and i not in weights})
    return [cut_name(layers)] + [name for name in outside if name != cut_name(layers)]


def _top_nodes(model: Any, layers: int) -> list[Any]:
    start = next(i for i, n in enumerate(model.graph.node) if n.name == _first_node(layers))
    return list(model.graph.node[start:])


def encoder_top(model: Any, layers: int) -> Any:
    """The last ``layers`` layers and the final norm as a torch module (:class:`EncoderTop`)."""
    import torch
    from onnx import helper, numpy_helper

    class EncoderTop(torch.nn.Module):
        """Executes the encoder's own nodes after the cut; float weights of more than 16 values
        are parameters, named in :attr:`onnx_names` by their initializer."""

        def __init__(self) -> None:
            super().__init__()
            self.nodes = _top_nodes(model, layers)
            self.inputs = top_inputs(model, layers)
            used = {i for n in self.nodes for i in n.input}
            self.weights = torch.nn.ParameterDict()
            self.onnx_names: dict[str, str] = {}
            self.constants: dict[str, torch.Tensor] = {}
            for initializer in model.graph.initializer:
                if initializer.name not in used:
                    continue
                value = numpy_helper.to_array(initializer)
                if value.dtype == np.float32 and value.size > 16:
                    key = f"w{len(self.onnx_names)}"
                    self.onnx_names[key] = initializer.name
                    self.weights[key] = torch.nn.Parameter(torch.tensor(value))
                else:
                    self.constants[initializer.name] = torch.tensor(value)

        def forward(self, feeds: dict[str, torch.Tensor], until: str = "last_hidden_state") -> torch.Tensor:
            """The encoder's states (or the tensor named ``until``, the nodes after it not run)."""
            env: dict[str, torch.Tensor] = dict(self.constants)
            env.update({self.onnx_names[key]: value for key, value in self.weights.items()})
            env.update(feeds)
            for node in self.nodes:
                attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
                env[node.output[0]] = _run(node.op_type, [env[i] if i else None for i in node.input], attrs)
                if node.output[0] == until:
                    break
            return env[until]

    return EncoderTop()


def _ints(value: Any) -> list[int]:
    return [int(v) for v in value.reshape(-1).tolist()]


def _run(op: str, x: list[Any], attrs: dict[str, Any]) -> Any:
    """One ONNX node in torch: the operators the encoder's layers use, and no more."""
    import torch

    binary: dict[str, Callable[[Any, Any], Any]] = {
        "Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": torch.div, "Pow": torch.pow,
        "MatMul": torch.matmul}
    if op in binary:
        return binary[op](x[0], x[1])
    if op in ("Sqrt", "Neg", "Erf"):
        return {"Sqrt": torch.sqrt, "Neg": torch.neg, "Erf": torch.erf}[op](x[0])
    if op == "Softmax":
        return torch.softmax(x[0], dim=attrs.get("axis", -1))
    if op == "ReduceMean":
        return x[0].mean(dim=tuple(attrs["axes"]), keepdim=bool(attrs.get("keepdims", 1)))
    if op == "Shape":
        return torch.tensor(list(x[0].shape), dtype=torch.int64)
    if op == "Gather":
        axis = attrs.get("axis", 0)
        picked = torch.index_select(x[0], axis, x[1].reshape(-1).long())
        return picked.reshape([*x[0].shape[:axis], *x[1].shape, *x[0].shape[axis + 1:]])
    if op == "Unsqueeze":
        out = x[0]
        for axis in sorted(a % (out.dim() + x[1].numel()) for a in _ints(x[1])):
            out = out.unsqueeze(axis)
        return out
    if op == "Concat":
        return torch.cat([t if t.dim() else t.reshape(1) for t in x], dim=attrs["axis"])
    if op == "Reshape":
        shape = [x[0].shape[i] if s == 0 else s for i, s in enumerate(_ints(x[1]))]
        return x[0].reshape(shape)
    if op == "Transpose":
        return x[0].permute(*attrs["perm"])
    if op == "Slice":
        starts, ends = _ints(x[1]), _ints(x[2])
        axes = _ints(x[3]) if len(x) > 3 and x[3] is not None else list(range(len(starts)))
        steps = _ints(x[4]) if len(x) > 4 and x[4] is not None else [1] * len(starts)
        out = x[0]
        for start, end, axis, step in zip(starts, ends, axes, steps, strict=True):
            index = [slice(None)] * out.dim()
            index[axis % out.dim()] = slice(start, min(end, out.shape[axis]) if end >= 0 else end, step)
            out = out[tuple(index)]
        return out
    raise NotImplementedError(f"ONNX operator {op} is not one the encoder's layers were found to use")


def data(work: Path, workers: int, tiny: bool = False) -> None:
    """The released recipe's takes with ``--validate``, each kept as the states at the cut."""
    import onnxruntime as ort
    import train_command_head

    model = encoder_graph()
    names = top_inputs(model, MAX_LAYERS)
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = ort.InferenceSession(with_outputs(model, names), options, providers=["CPUExecutionProvider"])
    longest: dict[str, Any] = {}
    lock = threading.Lock()

    def states(samples: np.ndarray) -> np.ndarray:
        """A take -> ``(MAX_FRAMES + 1, 416)``: its length in the first row, then its states."""
        audio = (np.asarray(samples).astype(np.float32) / 32768.0)[None]
        if audio.shape[1] < MIN_SAMPLES:
            audio = np.pad(audio, ((0, 0), (0, MIN_SAMPLES - audio.shape[1])))
        cut, *rotary = session.run(names, {"input_values": audio})
        frames = min(len(cut[0]), MAX_FRAMES)
        with lock:
            if len(cut[0]) > longest.get("frames", 0):  # positions 0..n-1 are the same in any longer table
                longest.update(frames=len(cut[0]), tables=rotary)
        out = np.zeros((MAX_FRAMES + 1, VALUES), np.float32)
        out[0, 0] = frames
        out[1:frames + 1] = cut[0][:frames]
        return out

    # The training script's own takes and splits, with this cut in place of the head's front.
    train_command_head.moonshine_features = states
    seen: dict[str, Any] = {}
    cached = train_command_head.cached

    def keeping_args(split: str, args: argparse.Namespace, seed: int) -> dict[str, np.ndarray]:
        seen["args"] = args
        return cached(split, args, seed)

    train_command_head.cached = keeping_args
    train_command_head.main(["--front", "moonshine", "--kokoro-voices", "--validate", "--data-only",
                             "--work", str(work), "--workers", str(workers), *(["--tiny"] if tiny else [])])
    cached("validate", seen["args"], seen["args"].seed + 3000)
    with (work / "rotary.pkl").open("wb") as out:
        pickle.dump(longest, out)


def _split(work: Path, name: str) -> dict[str, np.ndarray]:
    path = min(work.glob(f"{name}-*-ms.npz"))
    with np.load(path) as stored:
        return {k: stored[k] for k in stored.files}


def _bins(frames: int) -> np.ndarray:
    """The averaging matrix of :func:`voice_rang.listen.front.binned` for ``frames`` states (so torch
    bins a batch as play bins one utterance): the identity's rows, binned."""
    return binned(np.eye(frames, dtype=np.float32), MOONSHINE_BINS)


def _batches(lengths: np.ndarray, size: int, rng: np.random.Generator | None = None) -> list[np.ndarray]:
    """Takes of one length together (the encoder has no padding mask), shuffled when ``rng``."""
    groups: dict[int, list[int]] = {}
    for number, frames in enumerate(lengths):
        groups.setdefault(int(frames), []).append(number)
    batches = []
    for members in groups.values():
        order = np.array(members)
        if rng is not None:
            order = order[rng.permutation(len(order))]
        batches += [order[a:a + size] for a in range(0, len(order), size)]
    return [batches[i] for i in rng.permutation(len(batches))] if rng is not None else batches


def fit(work: Path, name: str, layers: int, encoder_lr: float, epochs: int, seed: int) -> dict[str, Any]:
    """Train and report one head (see the module's docstring)."""
    import command_corpus as corpus
    import torch
    import train_head as th
    from onnx import numpy_helper

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    with (work / "rotary.pkl").open("rb") as stored:
        cos, sin = (torch.tensor(t) for t in pickle.load(stored)["tables"])
    model = encoder_graph()
    top = encoder_top(model, max(layers, 1))
    cut = cut_name(layers)
    first = encoder_top(model, MAX_LAYERS) if 0 < layers < MAX_LAYERS else None  # frozen, up to the cut
    norm_weight = torch.tensor(numpy_helper.to_array(
        next(i for i in model.graph.initializer if i.name == FINAL_NORM)))
    labels = ("", *sorted({c for c, _ in corpus.command_phrases()}))
    index = {label: n for n, label in enumerate(labels)}
    recipe = th.Recipe()
    head = th.ConvHead(len(labels), recipe.dropout, recipe.channels, recipe.hidden, VALUES)
    matrices: dict[int, torch.Tensor] = {}

    def at_cut(split: dict[str, np.ndarray], batch: np.ndarray) -> torch.Tensor:
        frames = min(int(split["x"][batch[0], 0, 0]), MAX_FRAMES)
        states = torch.tensor(split["x"][batch, 1:frames + 1].astype(np.float32))
        if first is None:
            return states
        feeds = dict(zip(first.inputs, (states, cos[:, :, :frames], sin[:, :, :frames]), strict=True))
        with torch.no_grad():  # run the lower layers, stopping where the top begins
            return first(feeds, until=cut)

    def binned(states: torch.Tensor) -> torch.Tensor:
        frames = states.shape[1]
        if frames not in matrices:
            matrices[frames] = torch.tensor(_bins(frames))
        if layers == 0:  # the cut itself, through the encoder's final norm
            normed = torch.nn.functional.layer_norm(states, (VALUES,), weight=norm_weight, eps=1e-5)
            return torch.einsum("bt,ntd->nbd", matrices[frames], normed)
        feeds = dict(zip(top.inputs, (states, cos[:, :, :frames], sin[:, :, :frames]), strict=True))
        return torch.einsum("bt,ntd->nbd", matrices[frames], top(feeds))

    def lengths(split: dict[str, np.ndarray]) -> np.ndarray:
        return np.minimum(split["x"][:, 0, 0].astype(int), MAX_FRAMES)

    @torch.no_grad()
    def features(split: dict[str, np.ndarray]) -> np.ndarray:
        out = np.zeros((len(split["x"]), MOONSHINE_BINS, VALUES), np.float32)
        for batch in _batches(lengths(split), 128):
            out[batch] = binned(at_cut(split, batch)).numpy()
        return out

    train, tune, validate = _split(work, "train"), _split(work, "tune"), _split(work, "validate")
    frozen = features(train)
    mean, std = frozen.reshape(-1, VALUES).mean(0), frozen.reshape(-1, VALUES).std(0) + 1e-3
    mean_t, std_t = torch.tensor(mean), torch.tensor(std)
    target = torch.tensor([index[str(label)] for label in train["label"]])
    for weight in top.weights.values():
        weight.requires_grad_(encoder_lr > 0)
    groups: list[dict[str, Any]] = [{"params": list(head.parameters()), "lr": 3e-3}]
    if encoder_lr > 0:
        groups.append({"params": list(top.weights.values()), "lr": encoder_lr, "weight_decay": 0.0})
    optimiser = torch.optim.AdamW(groups, lr=3e-3, weight_decay=1e-3)
    rng = np.random.default_rng(seed)
    generator = torch.Generator().manual_seed(seed)
    steps = epochs * len(_batches(lengths(train), 64)) + 1
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=[g["lr"] for g in groups], total_steps=steps)
    class_weight = torch.ones(len(labels))
    class_weight[0] = th.NEGATIVE_WEIGHT
    loss_fn = torch.nn.CrossEntropyLoss(weight=class_weight, label_smoothing=recipe.smoothing)
    frozen_t = torch.tensor((frozen - mean) / std)
    for epoch in range(epochs):
        head.train()
        total, began = 0.0, time.monotonic()
        for batch in _batches(lengths(train), 64, rng):
            x = (binned(at_cut(train, batch)) - mean_t) / std_t if encoder_lr > 0 else frozen_t[batch]
            loss = loss_fn(head(th._augment(x, recipe, generator)), target[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(batch)
        print(f"{name} epoch {epoch}: loss {total / len(target):.4f} ({time.monotonic() - began:.0f} s)", flush=True)
    head.eval()

    def probabilities(split: dict[str, np.ndarray]) -> np.ndarray:
        with torch.no_grad():
            return torch.softmax(head(torch.tensor((features(split) - mean) / std)), dim=1).numpy()

    def truth(split: dict[str, np.ndarray]) -> np.ndarray:
        return np.array([index[str(label)] for label in split["label"]])

    accept, _ = th.operating_point(probabilities(tune), truth(tune), tune["kind"])
    p, t = probabilities(validate), truth(validate)
    report: dict[str, Any] = {"name": name, "layers": layers, "encoder_lr": encoder_lr, "epochs": epochs,
                              "seed": seed, "accept": accept, "validation": {}}
    for threshold in sorted({accept, 0.7, 0.8, 0.9}):
        rows = {}
        for condition, chosen in (("all", np.ones(len(t), bool)), *th.conditions(validate["condition"]).items()):
            right, wrong, _ = th._rates(p[chosen], t[chosen], threshold)
            near = chosen & np.isin(validate["kind"], th.NEAR_KINDS)
            talk = chosen & np.isin(validate["kind"], th.TALK_KINDS)
            rows[condition] = {"right": round(100 * right, 1), "wrong": round(100 * wrong, 1),
                               "talk": round(100 * th._rates(p[talk], t[talk], threshold)[2], 2),
                               "near": round(100 * th._rates(p[near], t[near], threshold)[2], 1),
                               "commands": int((chosen & (t > 0)).sum())}
        report["validation"][f"{threshold:.2f}"] = rows
    (work / f"result-{name}.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(json.dumps(report, indent=1))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=WORK, help=f"where takes and results go (default {WORK})")
    steps = parser.add_subparsers(dest="step", required=True)
    made = steps.add_parser("data", help="make the takes and keep their states at the cut")
    made.add_argument("--workers", type=int, default=2)
    made.add_argument("--tiny", action="store_true", help="a few voices and phrases: seconds (proves it runs)")
    trained = steps.add_parser("fit", help="train one head and report it on the validation speakers")
    trained.add_argument("--name", required=True)
    trained.add_argument("--layers", type=int, choices=range(MAX_LAYERS + 1), default=1,
                         help="the encoder's last layers the head reads through (and tunes); 0: none, the "
                              f"head reads the states entering the last {MAX_LAYERS} through the final norm")
    trained.add_argument("--encoder-lr", type=float, default=1e-4, help="0 keeps the encoder frozen")
    trained.add_argument("--epochs", type=int, default=12)
    trained.add_argument("--seed", type=int, default=19)
    args = parser.parse_args(argv)
    if args.step == "fit" and args.layers == 0 and args.encoder_lr > 0:
        parser.error("--layers 0 reads the encoder's states as they are: give --encoder-lr 0")
    if args.step == "fit" and not (args.work / "rotary.pkl").is_file():
        parser.error(f"no takes in {args.work}: make them first with tune_encoder_top.py --work {args.work} data")
    args.work.mkdir(parents=True, exist_ok=True)
    if args.step == "data":
        data(args.work, args.workers, args.tiny)
    else:
        fit(args.work, args.name, args.layers, args.encoder_lr, args.epochs, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
