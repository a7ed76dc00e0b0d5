"""The command head: what an utterance sounds like -> a probability for each command and for
"not a command".

Receives: what :func:`.front.head_features` gives the head: ``(MOONSHINE_BINS, 416)`` states of
Moonshine's encoder for the released head (the heads before it read 20 speech embeddings of 96
values, a front the training scripts keep). Emits: :class:`HeadScores`. A small ensemble of
networks (each two 1-D convolutions over time or a bidirectional GRU, pooled, and two dense
layers; :class:`CommandHead`) trained by
``scripts/train_command_head.py`` from synthetic voices alone, held-out speakers kept apart
(docs/model-card.md). Its weights ship in the package (``models/command_head.npz``, about 1.2
MB), are checked against :data:`WEIGHTS_SHA256` when loaded, and run in numpy.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

__all__ = ["FRONT_BOTH", "FRONT_EMBEDDING", "FRONT_MOONSHINE", "FRONT_WHISPER",
           "HEARS_GIVEN", "HEARS_SUPPRESSED", "NOT_A_COMMAND", "WEIGHTS_SHA256", "CommandHead", "HeadScores",
           "ModelCorrupt"]

NOT_A_COMMAND = ""
"""The label of everything that is not a command (talk, near words, noise, the game's own voice)."""

HEARS_GIVEN = "given"
"""A head that learnt on the sound as the microphone gives it."""
HEARS_SUPPRESSED = "suppressed"
"""A head that learnt on each take through the noise suppressor (:mod:`.suppress`; training's
``--suppressed``)."""
FRONT_EMBEDDING = "embedding"
"""A head that reads the speech embedding: the heads before the released one (a head file that
names no front is one of them). Its front is the training scripts' (``scripts/fronts.py``)."""
FRONT_MOONSHINE = "moonshine"
"""A head that reads Moonshine's encoder states (:mod:`.front`): the released one."""
FRONT_WHISPER = "whisper"
"""A head that reads Whisper base's encoder states, binned as Moonshine's (a training trial's)."""
FRONT_BOTH = "moonshine+whisper"
"""A head that reads both encoders' binned states side by side (a training trial's)."""
WEIGHTS_SHA256 = "acfda189cfa4ab150ffb0a28c9a1912f1b4a09c14fb158691765d5069dce7c40"
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


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-x)))


def _conv(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """1-D convolution over time, 'same' padding: ``x`` (T, Cin), ``weight`` (Cout, Cin, K)."""
    k = weight.shape[2]
    pad = k // 2
    padded = np.pad(x, ((pad, pad), (0, 0)))
    out = np.broadcast_to(bias, (x.shape[0], weight.shape[0])).copy()
    for i in range(k):
        out += padded[i:i + x.shape[0]] @ weight[:, :, i].T
    return np.asarray(out)


def _grus(x: np.ndarray, stacked: tuple[np.ndarray, ...]) -> np.ndarray:
    """Every member's bidirectional GRU at once (torch's arithmetic, gates in the order reset,
    update, new): ``x`` (T, Cin) -> (2 M, T, H), the backward directions run from the end.
    ``stacked``: the input and hidden weights and biases of all 2 M directions, stacked."""
    w_ih, w_hh, b_ih, b_hh = stacked
    directions, size = w_hh.shape[0], w_hh.shape[2]
    inputs = np.einsum("tc,dgc->dtg", x, w_ih) + b_ih[:, None, :]
    inputs[1::2] = inputs[1::2, ::-1]
    h = np.zeros((directions, size), dtype=np.float32)
    out = np.zeros((directions, len(x), size), dtype=np.float32)
    for t in range(len(x)):
        hidden = np.einsum("dgh,dh->dg", w_hh, h) + b_hh
        gate = _sigmoid(inputs[:, t, :2 * size] + hidden[:, :2 * size])
        r, z = gate[:, :size], gate[:, size:]
        n = np.tanh(inputs[:, t, 2 * size:] + r * hidden[:, 2 * size:])
        h = (1.0 - z) * n + z * h
        out[:, t] = h
    out[1::2] = out[1::2, ::-1]
    return out


class CommandHead:
    """The trained head, loaded once (:meth:`released`) or from a file (training, tests).

    One or more members (an ensemble of heads trained from different seeds), each a small network
    of one of two shapes: ``gru`` (a bidirectional GRU over the embeddings, attention and max
    pooling, two dense layers) or ``conv`` (two 1-D convolutions, max and mean pooling, two dense
    layers). Their probabilities are averaged. A convolutional member may carry its own
    normalisation (``m<i>.mean``, ``m<i>.std``), so members of heads trained apart can be averaged
    (``scripts/merge_heads.py``); otherwise all share the file's."""

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

        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as weights:
                loaded = {name: weights[name] for name in weights.files}
        except (OSError, ValueError) as error:
            raise ModelCorrupt(f"the command model {path} is not a model file ({error})") from error
        self._setup(loaded, tuple(str(x) for x in loaded["labels"]))

    @classmethod
    def from_weights(cls, weights: dict[str, np.ndarray], labels: tuple[str, ...]) -> CommandHead:
        """A head from weights in memory (training chooses thresholds with it)."""
        head = cls.__new__(cls)
        head._setup(weights, labels)
        return head

    def _setup(self, weights: dict[str, np.ndarray], labels: tuple[str, ...]) -> None:
        self.labels = labels
        self.arch = str(weights["arch"]) if "arch" in weights else "conv"
        self.hears = str(weights["hears"]) if "hears" in weights else HEARS_GIVEN
        """The sound the head learnt on, so the one it must be fed: :data:`HEARS_GIVEN` (the
        microphone's) or :data:`HEARS_SUPPRESSED` (through the noise suppressor, as the training
        scripts' ``suppressed_takes.py`` hears a take)."""
        self.front = str(weights["front"]) if "front" in weights else FRONT_EMBEDDING
        """What the head reads of an utterance (:func:`.front.head_features`)."""
        count = int(weights["members"]) if "members" in weights else 1
        self.mean = np.asarray(weights["mean"], dtype=np.float32)
        self.std = np.asarray(weights["std"], dtype=np.float32)
        self.members: list[dict[str, np.ndarray]] = []
        for member in range(count):
            prefix = f"m{member}." if "members" in weights else ""
            self.members.append({name[len(prefix):]: np.asarray(value, dtype=np.float32)
                                 for name, value in weights.items() if name.startswith(prefix)
                                 and name not in ("labels", "thresholds", "arch", "members", "mean", "std",
                                                  "hears", "front")})
        if self.arch == "gru":
            self._stacked = tuple(np.stack([p[f"gru.{kind}_l0{suffix}"] for p in self.members
                                            for suffix in ("", "_reverse")])
                                  for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))
        thresholds = weights["thresholds"] if "thresholds" in weights else np.array([0.9, 0.5])
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

    def _pools(self, features: np.ndarray) -> list[np.ndarray]:
        """Each member's utterance vector (its time axis pooled)."""
        raw = features.astype(np.float32)
        x = (raw - self.mean) / self.std
        if self.arch == "gru":
            states = _grus(x, self._stacked)
            pools = []
            for member, p in enumerate(self.members):
                h = np.concatenate([states[2 * member], states[2 * member + 1]], axis=1)
                score = (h @ p["att.weight"].T).ravel() + p["att.bias"]
                attention = np.exp(score - score.max())
                attention /= attention.sum()
                pools.append(np.concatenate([attention @ h, h.max(axis=0)]))
            return pools
        pools = []
        for p in self.members:
            own = (raw - p["mean"]) / p["std"] if "mean" in p else x
            y = _relu(_conv(own, p["conv1.weight"], p["conv1.bias"]))
            y = _relu(_conv(y, p["conv2.weight"], p["conv2.bias"]))
            pools.append(np.concatenate([y.max(axis=0), y.mean(axis=0)]))
        return pools

    def pooled(self, features: np.ndarray) -> np.ndarray:
        """The utterance as one vector (each member's pooled time axis, side by side): what the
        player's own takes are compared in (:mod:`.personal`), a space trained to keep commands
        apart and to ignore rooms and noise."""
        return np.concatenate(self._pools(features))

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """The members' probabilities for each label, averaged."""
        total = np.zeros(len(self.members[0]["fc2.bias"]), dtype=np.float64)
        for p, pooled in zip(self.members, self._pools(features), strict=True):
            hidden = _relu(p["fc1.weight"] @ pooled + p["fc1.bias"])
            logits = p["fc2.weight"] @ hidden + p["fc2.bias"]
            exp = np.exp(logits - logits.max())
            total += exp / exp.sum()
        return np.asarray(total / len(self.members))

    def scores(self, features: np.ndarray) -> HeadScores:
        return HeadScores(self.labels, tuple(float(x) for x in self.probabilities(features)))
