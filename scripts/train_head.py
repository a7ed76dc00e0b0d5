"""The torch half of training the command head: fit the network, choose its thresholds, report.

The networks are the ones :class:`voice_rang.listen.command_head.CommandHead` runs in numpy; their
weights are exported by name (``m<member>.<torch name>``). torch is a training-only dependency
(``pip install torch==2.13.0``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

CHANNELS = 64
HIDDEN = 64
NEGATIVE_WEIGHT = 2.0

try:
    import torch
    from torch import nn
except ImportError as error:  # pragma: no cover - the message is the point
    raise SystemExit("training the command head needs torch: .venv/bin/pip install torch==2.13.0") from error


@dataclass(frozen=True)
class Recipe:
    """How one head is fitted (``train_command_head.py`` flags; docs/voice-experiments.md has what
    each was measured to do on speakers left out of training)."""

    arch: str = "conv"
    """``conv``: two 1-D convolutions, max and mean pooling. ``gru``: a bidirectional GRU over
    the 20 embeddings, attention and max pooling (no better on speakers left out of training,
    2.5 times slower to train and 20 times slower to run)."""
    members: int = 3
    """An ensemble: this many heads from different seeds, their probabilities averaged."""
    epochs: int = 40
    smoothing: float = 0.1
    """Label smoothing: the head is never trained to be certain, so its probabilities mean more."""
    time_masks: int = 2
    """SpecAugment-style: this many spans of 1-3 embeddings replaced by the mean, per example."""
    channel_mask: int = 12
    """And up to this many of every 96 input values (the embedding's 96; 52 of Moonshine's 416)
    masked for the whole utterance."""
    mixup: float = 0.0
    """Mix pairs of examples (and their labels) with a Beta(mixup, mixup) weight; 0 is off."""
    dropout: float = 0.2
    channels: int = CHANNELS
    """Channels of each convolution (of the GRU's state in each direction)."""
    hidden: int = HIDDEN
    """Width of the dense layer before the output."""


class ConvHead(nn.Module):
    def __init__(self, classes: int, dropout: float, channels: int = CHANNELS, hidden: int = HIDDEN,
                 values: int = 96) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(values, channels, 3, padding=1)
        self.conv2 = nn.Conv1d(channels, channels, 3, padding=1)
        self.fc1 = nn.Linear(2 * channels, hidden)
        self.fc2 = nn.Linear(hidden, classes)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (batch, frames, values), normalised
        x = x.transpose(1, 2)
        x = torch.relu(self.conv1(self.drop(x)))
        x = torch.relu(self.conv2(x))
        pooled = torch.cat([x.amax(dim=2), x.mean(dim=2)], dim=1)
        return self.fc2(self.drop(torch.relu(self.fc1(self.drop(pooled)))))


class GruHead(nn.Module):
    def __init__(self, classes: int, dropout: float, channels: int = CHANNELS, hidden: int = HIDDEN,
                 values: int = 96) -> None:
        super().__init__()
        self.gru = nn.GRU(values, channels, batch_first=True, bidirectional=True)
        self.att = nn.Linear(2 * channels, 1)
        self.fc1 = nn.Linear(4 * channels, hidden)
        self.fc2 = nn.Linear(hidden, classes)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.gru(self.drop(x))
        weights = torch.softmax(self.att(h).squeeze(2), dim=1).unsqueeze(2)
        pooled = torch.cat([(weights * h).sum(dim=1), h.amax(dim=1)], dim=1)
        return self.fc2(self.drop(torch.relu(self.fc1(self.drop(pooled)))))


def _augment(features: torch.Tensor, recipe: Recipe, generator: torch.Generator) -> torch.Tensor:
    """The endpointer's cut varies (a shift of up to two embeddings, a tenth of them dropped), and
    masks make the head use all of an utterance rather than one telling spot."""
    shift = int(torch.randint(-2, 3, (1,), generator=generator))
    features = torch.roll(features, shift, dims=1)
    batch, frames, dims = features.shape
    keep = (torch.rand((batch, frames), generator=generator) > 0.1).float()
    for _ in range(recipe.time_masks):
        start = torch.randint(0, frames, (batch, 1), generator=generator)
        width = torch.randint(1, 4, (batch, 1), generator=generator)
        span = torch.arange(frames).unsqueeze(0)
        keep = keep * ~((span >= start) & (span < start + width))
    features = features * keep.unsqueeze(2)
    if recipe.channel_mask:
        count = torch.randint(0, recipe.channel_mask * dims // 96 + 1, (batch, 1), generator=generator)
        rank = torch.rand((batch, dims), generator=generator).argsort(dim=1).argsort(dim=1)
        features = features * (rank >= count).float().unsqueeze(1)
    return features


def _fit_one(xt: torch.Tensor, yt: torch.Tensor, classes: int, recipe: Recipe, seed: int) -> dict[str, np.ndarray]:
    torch.manual_seed(seed)
    shape = GruHead if recipe.arch == "gru" else ConvHead
    model: nn.Module = shape(classes, recipe.dropout, recipe.channels, recipe.hidden, xt.shape[2])
    # Each example counts alike, and one of "not a command" NEGATIVE_WEIGHT times: a false command
    # is worse than a miss. (Balancing the classes instead gave the one class of everything that
    # is not a command the weight of one command, and a fifth of the training talk was taken for
    # commands.)
    weight = torch.ones(classes)
    weight[0] = NEGATIVE_WEIGHT
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-3)
    steps = recipe.epochs * (len(yt) // 128 + 1)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps)
    loss_fn = nn.CrossEntropyLoss(weight=weight, label_smoothing=recipe.smoothing)
    generator = torch.Generator().manual_seed(seed)
    for epoch in range(recipe.epochs):
        model.train()
        order = torch.randperm(len(yt), generator=generator)
        total = 0.0
        for start in range(0, len(yt), 128):
            batch = order[start:start + 128]
            features = _augment(xt[batch], recipe, generator)
            target = yt[batch]
            optimiser.zero_grad()
            if recipe.mixup > 0:
                lam = float(torch.distributions.Beta(recipe.mixup, recipe.mixup).sample())
                partner = torch.randperm(len(batch), generator=generator)
                logits = model(lam * features + (1 - lam) * features[partner])
                loss = lam * loss_fn(logits, target) + (1 - lam) * loss_fn(logits, target[partner])
            else:
                loss = loss_fn(model(features), target)
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(batch)
        if epoch % 10 == 0 or epoch == recipe.epochs - 1:
            print(f"seed {seed} epoch {epoch}: loss {total / len(yt):.4f}", flush=True)
    return {name: value.detach().numpy().copy() for name, value in model.state_dict().items()}


def fit(data: dict[str, np.ndarray], labels: tuple[str, ...], *, recipe: Recipe, seed: int) -> dict[str, Any]:
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    x = data["x"].astype(np.float32)
    index = {label: n for n, label in enumerate(labels)}
    y = np.array([index[str(label)] for label in data["label"]])
    mean = x.reshape(-1, x.shape[2]).mean(axis=0)
    std = x.reshape(-1, x.shape[2]).std(axis=0) + 1e-3
    xt = torch.tensor((x - mean) / std)
    yt = torch.tensor(y)
    weights: dict[str, Any] = {"mean": mean.astype(np.float32), "std": std.astype(np.float32),
                               "arch": np.array(recipe.arch), "members": np.array(recipe.members)}
    for member in range(recipe.members):
        for name, value in _fit_one(xt, yt, len(labels), recipe, seed + 1000 * member).items():
            weights[f"m{member}.{name}"] = value
    return weights


def probabilities(weights: dict[str, Any], x: np.ndarray) -> np.ndarray:
    """The numpy network, batched (the same arithmetic as ``CommandHead.scores``)."""
    from voice_rang.listen.command_head import CommandHead

    head = CommandHead.from_weights(weights, ("",) * 1)
    return np.stack([head.probabilities(row) for row in x.astype(np.float32)])


def _rates(p: np.ndarray, truth: np.ndarray, threshold: float) -> tuple[float, float, float]:
    best = p[:, 1:].argmax(axis=1) + 1
    confident = p[:, 1:].max(axis=1) >= threshold
    positive = truth > 0
    right = float(np.mean(confident[positive] & (best[positive] == truth[positive]))) if positive.any() else 0.0
    wrong = float(np.mean(confident[positive] & (best[positive] != truth[positive]))) if positive.any() else 0.0
    false = float(np.mean(confident[~positive])) if (~positive).any() else 0.0
    return right, wrong, false


TALK_KINDS = ("talk", "number", "card", "narration", "noise")
NEAR_KINDS = ("near", "word", "partial")


def operating_point(p: np.ndarray, truth: np.ndarray, kinds: np.ndarray) -> tuple[float, float]:
    """The issue's targets as a threshold: the lowest probability at which at most 0.5 % of
    commands become another command, at most 0.5 % of talk, numbers, cards, narration and noise
    become a command, and at most 10 % of near words and partial commands do; and the lowest at
    which at most 2 % of the talk would be asked about."""
    talk = (truth > 0) | np.isin(kinds, TALK_KINDS)
    near = (truth > 0) | np.isin(kinds, NEAR_KINDS)
    grid = [round(x, 2) for x in np.arange(0.3, 0.995, 0.01)]

    def fits(t: float) -> bool:
        _, wrong, _ = _rates(p, truth, t)
        return wrong <= 0.005 and _rates(p[talk], truth[talk], t)[2] <= 0.005 \
            and _rates(p[near], truth[near], t)[2] <= 0.10

    accept = next((t for t in grid if fits(t)), 0.99)
    ask = next((t for t in grid if _rates(p[talk], truth[talk], t)[2] <= 0.02), accept)
    return accept, min(ask, accept)


def thresholds(weights: dict[str, Any], labels: tuple[str, ...], tune: dict[str, np.ndarray]) -> tuple[float, float]:
    """Chosen on the tuning takes (training voices, never held-out ones): :func:`operating_point`."""
    p = probabilities(weights, tune["x"])
    index = {label: n for n, label in enumerate(labels)}
    truth = np.array([index[str(label)] for label in tune["label"]])
    accept, ask = operating_point(p, truth, tune["kind"])
    print("tuning takes at accept", accept, "right/wrong/false", _rates(p, truth, accept), flush=True)
    return accept, ask


def conditions(described: np.ndarray) -> dict[str, np.ndarray]:
    """Masks of a split's takes heard clean, in noise and in a room (a take may be both of the last
    two), from the descriptions :func:`augment.condition` gave them."""
    return {"clean": np.array(["dB" not in c and "room" not in c for c in described]),
            "noisy": np.array(["dB" in c for c in described]),
            "room": np.array(["room" in c for c in described])}


def report(weights: dict[str, Any], labels: tuple[str, ...], data: dict[str, np.ndarray]) -> dict[str, Any]:
    """The head alone on a split, by condition: for the model card (the live path's figures are
    ``benchmarks/bench_neural.py``'s)."""
    p = probabilities(weights, data["x"])
    index = {label: n for n, label in enumerate(labels)}
    truth = np.array([index[str(label)] for label in data["label"]])
    accept = float(weights["thresholds"][0])
    out: dict[str, Any] = {}
    for name, chosen in (("all", np.ones(len(truth), bool)), *conditions(data["condition"]).items()):
        right, wrong, false = _rates(p[chosen], truth[chosen], accept)
        positive = chosen & (truth > 0)
        top = float(np.mean(p[positive][:, 1:].argmax(axis=1) + 1 == truth[positive])) if positive.any() else 0.0
        near = chosen & np.isin(data["kind"], NEAR_KINDS)
        talk = chosen & np.isin(data["kind"], TALK_KINDS)
        out[name] = {"right": round(right, 4), "wrong": round(wrong, 4), "false": round(false, 4),
                     "near": round(_rates(p[near], truth[near], accept)[2], 4) if near.any() else 0.0,
                     "talk": round(_rates(p[talk], truth[talk], accept)[2], 4) if talk.any() else 0.0,
                     "top1": round(top, 4), "n": int(chosen.sum())}
    return out
