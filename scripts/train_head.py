"""The torch half of training the command head: fit the network, choose its thresholds, report.

The network is the one :class:`voice_rang.listen.command_head.CommandHead` runs in numpy; its
weights are exported by name. torch is a training-only dependency (``pip install torch==2.13.0``).
"""

from __future__ import annotations

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


class Head(nn.Module):
    def __init__(self, classes: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(96, CHANNELS, 3, padding=1)
        self.conv2 = nn.Conv1d(CHANNELS, CHANNELS, 3, padding=1)
        self.fc1 = nn.Linear(2 * CHANNELS, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, classes)
        self.drop = nn.Dropout(0.2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (batch, frames, 96), normalised
        x = x.transpose(1, 2)
        x = torch.relu(self.conv1(self.drop(x)))
        x = torch.relu(self.conv2(x))
        pooled = torch.cat([x.amax(dim=2), x.mean(dim=2)], dim=1)
        return self.fc2(self.drop(torch.relu(self.fc1(self.drop(pooled)))))


def fit(data: dict[str, np.ndarray], labels: tuple[str, ...], *, epochs: int, seed: int) -> dict[str, Any]:
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    x = data["x"].astype(np.float32)
    index = {label: n for n, label in enumerate(labels)}
    y = np.array([index[str(label)] for label in data["label"]])
    mean = x.reshape(-1, 96).mean(axis=0)
    std = x.reshape(-1, 96).std(axis=0) + 1e-3
    xt = torch.tensor((x - mean) / std)
    yt = torch.tensor(y)
    # Each example counts alike, and one of "not a command" NEGATIVE_WEIGHT times: a false command
    # is worse than a miss. (Balancing the classes instead gave the one class of everything that
    # is not a command the weight of one command, and a fifth of the training talk was taken for
    # commands.)
    weight = np.ones(len(labels), dtype=np.float32)
    weight[0] = NEGATIVE_WEIGHT
    model = Head(len(labels))
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-3)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=epochs * (len(y) // 128 + 1))
    loss_fn = nn.CrossEntropyLoss(weight=torch.tensor(weight), label_smoothing=0.0)
    generator = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(y), generator=generator)
        total = 0.0
        for start in range(0, len(y), 128):
            batch = order[start:start + 128]
            features = xt[batch]
            # Frame dropout and a shift of up to two frames: the endpointer's cut varies.
            shift = int(torch.randint(-2, 3, (1,), generator=generator))
            features = torch.roll(features, shift, dims=1)
            mask = (torch.rand(features.shape[:2], generator=generator) > 0.1).float().unsqueeze(2)
            optimiser.zero_grad()
            loss = loss_fn(model(features * mask), yt[batch])
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(batch)
        if epoch % 5 == 0 or epoch == epochs - 1:
            print(f"epoch {epoch}: loss {total / len(y):.4f}", flush=True)
    weights = {name: value.detach().numpy().copy() for name, value in model.state_dict().items()}
    weights["mean"] = mean.astype(np.float32)
    weights["std"] = std.astype(np.float32)
    return weights


def probabilities(weights: dict[str, Any], x: np.ndarray) -> np.ndarray:
    """The numpy network, batched (the same arithmetic as ``CommandHead.logits``)."""
    from voice_rang.listen.command_head import CommandHead

    head = CommandHead.__new__(CommandHead)
    head.params = {k: np.asarray(v, dtype=np.float32) for k, v in weights.items()
                   if k not in ("labels", "thresholds")}
    logits = np.stack([head.logits(row) for row in x.astype(np.float32)])
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


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


def thresholds(weights: dict[str, Any], labels: tuple[str, ...], tune: dict[str, np.ndarray]) -> tuple[float, float]:
    """Chosen on the tuning takes (training voices, never held-out ones), after the issue's
    targets. Accept: the lowest probability at which at most 0.5 % of commands become another
    command, at most 0.5 % of talk, numbers, cards, narration and noise become a command, and at
    most 10 % of near words and partial commands do. Ask: the lowest at which at most 2 % of the
    talk would be asked about."""
    p = probabilities(weights, tune["x"])
    index = {label: n for n, label in enumerate(labels)}
    truth = np.array([index[str(label)] for label in tune["label"]])
    kinds = tune["kind"]
    talk = (truth > 0) | np.isin(kinds, TALK_KINDS)
    near = (truth > 0) | np.isin(kinds, NEAR_KINDS)
    grid = [round(x, 2) for x in np.arange(0.5, 0.995, 0.01)]

    def fits(t: float) -> bool:
        _, wrong, _ = _rates(p, truth, t)
        return wrong <= 0.005 and _rates(p[talk], truth[talk], t)[2] <= 0.005 \
            and _rates(p[near], truth[near], t)[2] <= 0.10

    accept = next((t for t in grid if fits(t)), 0.99)
    ask = next((t for t in grid if _rates(p[talk], truth[talk], t)[2] <= 0.02), accept)
    print("tuning takes at accept", accept, "right/wrong/false", _rates(p, truth, accept),
          "talk", _rates(p[talk], truth[talk], accept)[2], "near", _rates(p[near], truth[near], accept)[2],
          flush=True)
    return accept, min(ask, accept)


def report(weights: dict[str, Any], labels: tuple[str, ...], data: dict[str, np.ndarray]) -> dict[str, Any]:
    """The head alone on a split, by condition: for the model card (the live path's figures are
    ``benchmarks/bench_neural.py``'s)."""
    p = probabilities(weights, data["x"])
    index = {label: n for n, label in enumerate(labels)}
    truth = np.array([index[str(label)] for label in data["label"]])
    accept = float(weights["thresholds"][0])
    out: dict[str, Any] = {}
    for name, chosen in (("all", np.ones(len(truth), bool)),
                         ("clean", np.array(["dB" not in c and "room" not in c for c in data["condition"]])),
                         ("noisy", np.array(["dB" in c for c in data["condition"]])),
                         ("room", np.array(["room" in c for c in data["condition"]]))):
        right, wrong, false = _rates(p[chosen], truth[chosen], accept)
        out[name] = {"right": round(right, 4), "wrong": round(wrong, 4), "false": round(false, 4),
                     "n": int(chosen.sum())}
    return out
