"""The command head: an utterance's speech embeddings -> a probability for each command and for
"not a command".

Receives: ``(HEAD_FRAMES, 96)`` from :mod:`.embedding`. Emits: :class:`HeadScores`. A small
convolutional network (two 1-D convolutions over time, max and mean pooling, two dense layers)
trained by ``scripts/train_command_head.py`` from synthetic voices alone, held-out speakers kept
apart (docs/model-card.md). Its weights ship in the package (``models/command_head.npz``, well
under a megabyte), are checked against :data:`WEIGHTS_SHA256` when loaded, and run in numpy.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

__all__ = ["NOT_A_COMMAND", "WEIGHTS_SHA256", "CommandHead", "HeadScores", "ModelCorrupt"]

NOT_A_COMMAND = ""
"""The label of everything that is not a command (talk, near words, noise, the game's own voice)."""

WEIGHTS_SHA256 = "b4d0a73314dde602786f37b7ac3d7662bb247262c4fceee9b7e02a0510eb3031"
"""The hash of the released weights; ``scripts/train_command_head.py`` writes it here."""


class ModelCorrupt(RuntimeError):
    """The weights file is missing or not the one released with this version."""


@dataclass(frozen=True)
class HeadScores:
    """Probabilities over ``labels`` (command ids, and ``""`` for not a command)."""

    labels: tuple[str, ...]
    probabilities: tuple[float, ...]

    def of(self, label: str) -> float:
        return self.probabilities[self.labels.index(label)] if label in self.labels else 0.0

    def best(self, allowed: frozenset[str] | None = None) -> tuple[str | None, float, float]:
        """The likeliest command among ``allowed`` (all when ``None``), its probability, and the
        probability of the runner-up command (any command, allowed or not: a near tie between two
        commands is the error that matters most)."""
        ranked = sorted(((p, label) for label, p in zip(self.labels, self.probabilities, strict=True)
                         if label != NOT_A_COMMAND), reverse=True)
        choices = [(p, label) for p, label in ranked if allowed is None or label in allowed]
        if not choices:
            return None, 0.0, 0.0
        p, label = choices[0]
        runner = max((q for q, other in ranked if other != label), default=0.0)
        return label, p, runner


def _relu(x: np.ndarray) -> np.ndarray:
    return np.asarray(np.maximum(x, 0.0))


def _conv(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """1-D convolution over time, 'same' padding: ``x`` (T, Cin), ``weight`` (Cout, Cin, K)."""
    k = weight.shape[2]
    pad = k // 2
    padded = np.pad(x, ((pad, pad), (0, 0)))
    out = np.broadcast_to(bias, (x.shape[0], weight.shape[0])).copy()
    for i in range(k):
        out += padded[i:i + x.shape[0]] @ weight[:, :, i].T
    return np.asarray(out)


class CommandHead:
    """The trained head, loaded once (:meth:`released`) or from a file (training, tests)."""

    _released: CommandHead | None = None
    _lock = threading.Lock()

    def __init__(self, path: str | Path, *, sha256: str | None = None) -> None:
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise ModelCorrupt(f"the command model {path} cannot be read ({error.strerror})") from error
        if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
            raise ModelCorrupt(f"the command model {path} is not the one released with this version")
        import io

        with np.load(io.BytesIO(data), allow_pickle=False) as weights:
            self.params = {name: weights[name].astype(np.float32) for name in weights.files
                           if name not in ("labels", "thresholds")}
            self.labels = tuple(str(x) for x in weights["labels"])
            thresholds = weights["thresholds"] if "thresholds" in weights.files else np.array([0.9, 0.5])
        self.accept = float(thresholds[0])
        """Probability from which a command is acted on (chosen on training speakers' held-back takes)."""
        self.ask = float(thresholds[1])
        """Probability from which the game asks "Did you say …?" instead."""

    @classmethod
    def released(cls) -> CommandHead:
        """The head shipped in the package, checked by its hash; loaded once per process."""
        with cls._lock:
            if cls._released is None:
                path = resources.files("voice_rang.listen") / "models" / "command_head.npz"
                cls._released = cls(str(path), sha256=WEIGHTS_SHA256)
            return cls._released

    def pooled(self, features: np.ndarray) -> np.ndarray:
        """The utterance as one vector (the convolutions pooled over time): what the player's own
        takes are compared in (:mod:`.personal`), a space trained to keep commands apart and to
        ignore rooms and noise."""
        p = self.params
        x = (features.astype(np.float32) - p["mean"]) / p["std"]
        x = _relu(_conv(x, p["conv1.weight"], p["conv1.bias"]))
        x = _relu(_conv(x, p["conv2.weight"], p["conv2.bias"]))
        return np.concatenate([x.max(axis=0), x.mean(axis=0)])

    def logits(self, features: np.ndarray) -> np.ndarray:
        p = self.params
        hidden = _relu(p["fc1.weight"] @ self.pooled(features) + p["fc1.bias"])
        return np.asarray(p["fc2.weight"] @ hidden + p["fc2.bias"])

    def scores(self, features: np.ndarray) -> HeadScores:
        logits = self.logits(features)
        exp = np.exp(logits - logits.max())
        probabilities = exp / exp.sum()
        return HeadScores(self.labels, tuple(float(x) for x in probabilities))
