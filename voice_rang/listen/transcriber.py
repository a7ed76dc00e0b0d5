"""A second ear for the utterances the first could not settle: Moonshine's English speech-to-text
model, asked how well each candidate command explains an utterance, against its own transcription.

Receives: one utterance's PCM16 (16 kHz mono) and the candidate command ids. Emits: a
:class:`Verdict`: the model's own transcription and its log-probability, and for each candidate
the log-probability of the likeliest of its phrases said alone ("Turn", then the end, or a full
stop, comma, "!" or "?" and then the end).

Why: the command head and the grammar decoders learnt or were tuned on synthetic voices, and
leave a fifth of held-out speakers' clean commands to a question or to silence. Moonshine was
trained on a great deal of people's speech. Its free transcription alone matches a command phrase
exactly too seldom ("Argoreville off."), so it is asked how likely each command is, next to how
likely it finds what it would write itself. It costs about 25 ms for the encoder and 15 ms a
token. Measured as a rescue for what the rule leaves, it heard more commands but took more near
words and talk on the training voices than the gate allowed (docs/voice-experiments.md, *A second
ear*), so it is an option of the benchmarks, not of the live path (``Rule.second_ear``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..commands import CommandSet
from .front import unit_samples
from .moonshine import END, HEAD_DIM, HEADS, LAYERS, START, VOCAB_SIZE, MoonshineModel

__all__ = ["Transcriber", "Verdict", "segmentations"]

CLOSINGS = (b".", b",", b"!", b"?")
"""Marks that may close a phrase said alone (then the end), besides the end itself."""
TOKENS_PER_SECOND = 6
"""Most tokens the free transcription may take per second of audio (then 4 more): a command is a
few tokens, and talk cut short only makes its score higher, so less like a command's."""
MAX_TOKENS = 16


@dataclass(frozen=True)
class Verdict:
    """What Moonshine made of one utterance."""

    text: str
    """Its own transcription (greedy)."""
    free: float
    """The log-probability of that transcription."""
    scores: Mapping[str, float] = field(default_factory=dict)
    """Each candidate command id -> the log-probability of its likeliest phrase said alone."""
    ms: float = 0.0

    def best(self) -> tuple[str | None, float, float]:
        """The likeliest candidate; how much likelier than the free transcription it is (0 or
        more when it is that transcription, closing aside; negative when the model would rather
        write something else); and its lead over the next candidate (infinite when alone).

        >>> Verdict("Turn.", -0.4, {"turn": -0.2, "stop": -9.0}).best()
        ('turn', 0.2, 8.8)
        """
        ranked = sorted(self.scores.items(), key=lambda item: -item[1])
        if not ranked:
            return None, -math.inf, 0.0
        command, score = ranked[0]
        lead = score - ranked[1][1] if len(ranked) > 1 else math.inf
        return command, round(score - self.free, 6), round(lead, 6)


def segmentations(text: str, index: Mapping[bytes, int]) -> list[list[int]]:
    """Every way of writing ``text`` in the fewest of the tokenizer's pieces (a space is ``▁``,
    and one starts the text), the way its tokenizer writes words it knows.

    >>> segmentations("ab", {"▁".encode(): 5, "▁a".encode(): 6, b"b": 7, "▁ab".encode(): 8})
    [[8]]
    """
    data = ("▁" + text.replace(" ", "▁")).encode()
    best: list[tuple[int, list[list[int]]] | None] = [None] * (len(data) + 1)
    best[0] = (0, [[]])
    for start in range(len(data)):
        here = best[start]
        if here is None:
            continue
        count, ways = here
        for end in range(start + 1, min(len(data), start + 24) + 1):
            token = index.get(data[start:end])
            if token is None:
                continue
            there = best[end]
            if there is None or there[0] > count + 1:
                best[end] = (count + 1, [[*way, token] for way in ways])
            elif there[0] == count + 1:
                best[end] = (count + 1, there[1] + [[*way, token] for way in ways])
    final = best[len(data)]
    return final[1] if final else []


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    logits = logits[..., :VOCAB_SIZE].astype(np.float64)
    top = logits.max(axis=-1, keepdims=True)
    return np.asarray(logits - top - np.log(np.exp(logits - top).sum(axis=-1, keepdims=True)))


class Transcriber:
    """Moonshine over one utterance at a time. Not thread-safe: one recogniser owns it."""

    def __init__(self, commands: CommandSet, model: MoonshineModel) -> None:
        self.model = model
        index = {piece: number for number, piece in enumerate(model.pieces) if number > END}
        self._closings = [index[piece] for piece in CLOSINGS if piece in index] + [END]
        self._phrases: dict[str, list[list[int]]] = {}
        for command, phrases in commands.spoken().items():
            written = [phrase[:1].upper() + phrase[1:] for phrase in phrases]
            self._phrases[command] = [way for text in written for way in segmentations(text, index)]
        self._outputs = [output.name for output in model.decoder.get_outputs()]

    def hear(self, pcm: bytes | np.ndarray, candidates: Iterable[str]) -> Verdict:
        """Moonshine's verdict on ``pcm`` for ``candidates`` (command ids; unknown ones ignored)."""
        began = time.perf_counter()
        audio = unit_samples(pcm)[None]
        length = audio.shape[1]
        if length < 1600:  # under 0.1 s: pad, the encoder needs a few frames
            audio = np.pad(audio, ((0, 0), (0, 1600 - length)))
        hidden = self.model.encoder.run(None, {"input_values": audio})[0]
        empty = np.zeros((1, HEADS, 0, HEAD_DIM), np.float32)
        feeds = {"input_ids": np.array([[START]], np.int64), "encoder_hidden_states": hidden,
                 "use_cache_branch": np.array([False])}
        for layer in range(LAYERS):
            for part in ("decoder", "encoder"):
                for kind in ("key", "value"):
                    feeds[f"past_key_values.{layer}.{part}.{kind}"] = empty
        outputs = self.model.decoder.run(None, feeds)
        first = _log_softmax(outputs[0][0, -1])
        cache = dict(zip(self._outputs[1:], outputs[1:], strict=True))
        budget = min(MAX_TOKENS, 4 + math.ceil(TOKENS_PER_SECOND * length / 16000))
        text, free = self._free(hidden, first, cache, budget)
        scores = self._forced(hidden, first, cache, [c for c in dict.fromkeys(candidates) if c in self._phrases])
        return Verdict(text, free, scores, 1000.0 * (time.perf_counter() - began))

    def _step_feeds(self, hidden: np.ndarray, ids: np.ndarray, cache: dict[str, np.ndarray],
                    decoder: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        batch = ids.shape[0]
        feeds = {"input_ids": ids, "encoder_hidden_states": np.repeat(hidden, batch, axis=0),
                 "use_cache_branch": np.array([True])}
        for name, value in cache.items():
            if decoder is not None and ".decoder." in name:
                value = decoder[name]
            feeds[name.replace("present", "past_key_values")] = np.repeat(value, batch, axis=0) \
                if value.shape[0] != batch else value
        return feeds

    def _free(self, hidden: np.ndarray, first: np.ndarray, cache: dict[str, np.ndarray],
              budget: int) -> tuple[str, float]:
        """The greedy transcription and its log-probability (up to ``budget`` tokens)."""
        tokens: list[int] = []
        total = 0.0
        scores = first
        decoder = {name: value for name, value in cache.items() if ".decoder." in name}
        for _ in range(budget):
            token = int(scores.argmax())
            total += float(scores[token])
            if token == END:
                break
            tokens.append(token)
            outputs = self.model.decoder.run(
                None, self._step_feeds(hidden, np.array([[token]], np.int64), cache, decoder))
            decoder = {name: value for name, value in zip(self._outputs[1:], outputs[1:], strict=True)
                       if ".decoder." in name}
            scores = _log_softmax(outputs[0][0, -1])
        text = b"".join(self.model.pieces[t] for t in tokens).decode("utf-8", "replace")
        return text.replace("▁", " ").strip(), total

    def _forced(self, hidden: np.ndarray, first: np.ndarray, cache: dict[str, np.ndarray],
                candidates: list[str]) -> dict[str, float]:
        """Each candidate's likeliest phrase said alone, all of them in one batch: the phrase,
        then the end, or a closing mark and then the end (a mark with more after it is not a
        phrase said alone: "Yes, please.")."""
        ways = [(command, way) for command in candidates for way in self._phrases[command] if way]
        if not ways:
            return {}
        marks = self._closings[:-1]
        length = max(len(way) for _, way in ways) + 1
        ids = np.full((len(ways) * len(marks), length), END, np.int64)
        for row, (_, way) in enumerate(ways):
            for offset, mark in enumerate(marks):
                ids[row * len(marks) + offset, :len(way) + 1] = [*way, mark]
        logits = self.model.decoder.run(["logits"], self._step_feeds(hidden, ids, cache))[0]
        following = _log_softmax(logits)
        scores: dict[str, float] = {}
        for row, (command, way) in enumerate(ways):
            top = row * len(marks)
            total = float(first[way[0]])
            for position, token in enumerate(way[1:]):
                total += float(following[top, position, token])
            after = following[top, len(way) - 1]
            endings = [after[END]] + [after[mark] + following[top + offset, len(way), END]
                                      for offset, mark in enumerate(marks)]
            total += float(np.logaddexp.reduce(np.array(endings)))
            scores[command] = max(scores.get(command, -math.inf), total)
        return scores
