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
token. Measured as a rescue for what the live rule leaves, it heard more commands but took more
near words and talk on the training voices than the gate allowed (docs/voice-experiments.md,
*A second ear*), so it is a benchmark's (``bench_neural.py``, ``bench_ceiling.py``), not part of
the game: the game ships only Moonshine's encoder, which the command head reads.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from voice_rang.commands import CommandSet
from voice_rang.listen.command_head import HeadScores
from voice_rang.listen.decision import SETTLED
from voice_rang.listen.moonshine_text import (
    END,
    MoonshineModel,
    Verdict,
    begin,
    log_softmax,
    segmentations,
    step_feeds,
)
from voice_rang.listen.results import Recognition

__all__ = ["CANDIDATES", "EarRule", "MoonshineModel", "Transcriber", "Verdict", "candidates", "hear_again",
           "segmentations", "settle"]

CLOSINGS = (b".", b",", b"!", b"?")
"""Marks that may close a phrase said alone (then the end), besides the end itself."""
TOKENS_PER_SECOND = 6
"""Most tokens the free transcription may take per second of audio (then 4 more): a command is a
few tokens, and talk cut short only makes its score higher, so less like a command's."""
MAX_TOKENS = 16
CANDIDATES = 3
"""The head's likeliest commands (valid now) that the second ear weighs, with the grammar
decoders' guess: each costs the decoder a few tokens."""


@dataclass(frozen=True)
class EarRule:
    """When the second ear's command stands (:func:`settle`). With these numbers the strictest
    pair measured (the fewest lines taken), not a chosen operating point: none passed."""

    within: float = 1.0
    """The second ear's command may be at most this much less likely (natural log) than what
    Moonshine would write itself."""
    lead: float = 8.0
    """And at least this much likelier than the next candidate command."""


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
        hidden, first, cache, length = begin(self.model, pcm, self._outputs)
        budget = min(MAX_TOKENS, 4 + math.ceil(TOKENS_PER_SECOND * length / 16000))
        text, free = self._free(hidden, first, cache, budget)
        scores = self._forced(hidden, first, cache, [c for c in dict.fromkeys(candidates) if c in self._phrases])
        return Verdict(text, free, scores, 1000.0 * (time.perf_counter() - began))

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
                None, step_feeds(hidden, np.array([[token]], np.int64), cache, decoder))
            decoder = {name: value for name, value in zip(self._outputs[1:], outputs[1:], strict=True)
                       if ".decoder." in name}
            scores = log_softmax(outputs[0][0, -1])
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
        logits = self.model.decoder.run(["logits"], step_feeds(hidden, ids, cache))[0]
        following = log_softmax(logits)
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


def hear_again(result: Recognition) -> bool:
    """Whether the live rule's answer leaves the utterance to the second ear: nothing acted on,
    and nothing that rules a command out whatever was said.

    >>> said = Recognition(None, "[the] [cat]", False, 1.0, "not a command", 500.0)
    >>> hear_again(said), hear_again(replace(said, reason="too short"))
    (True, False)
    """
    return result.command is None and result.reason not in SETTLED


def settle(result: Recognition, verdict: Verdict, allowed: frozenset[str] | None,
           rule: EarRule = EarRule()) -> Recognition:
    """The live rule's answer, or the second ear's command when Moonshine is sure of it: the
    command's phrase nearly as likely as Moonshine's own transcription (``within``) and clearly
    likelier than any other candidate's (``lead``). Otherwise the answer stands, so a question
    stays a question and silence stays silence.

    >>> said = Recognition(None, "[burn]", True, 1.0, "unsure", 500.0, guess="turn")
    >>> settle(said, Verdict("Turn.", -0.5, {"turn": -0.3, "stop": -9.0}), None).command
    'turn'
    >>> settle(said, Verdict("Burn.", -0.5, {"turn": -6.0, "stop": -12.0}), None).reason
    'unsure'
    """
    command, within, lead = verdict.best()
    if command is None or (allowed is not None and command not in allowed):
        return result
    if within < -rule.within or lead < rule.lead:
        return result
    return replace(result, command=command, unsure=False, reason="command", guess=command)


def candidates(heard: Recognition, scores: HeadScores, allowed: frozenset[str] | None = None) -> list[str]:
    """What the second ear weighs: the head's :data:`CANDIDATES` likeliest commands valid now,
    and the grammar decoders' guess."""
    ranked = sorted((label for label in scores.labels if label and (allowed is None or label in allowed)),
                    key=lambda label: -scores.of(label))[:CANDIDATES]
    guess = heard.command or heard.guess
    if guess and guess not in ranked and (allowed is None or guess in allowed):
        ranked.append(guess)
    return ranked
