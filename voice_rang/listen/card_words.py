"""The player's own card words: takes of each rank and suit in the player's own voice and language,
matched against the legal moves.

Receives: takes (16 kHz PCM16, three of each word: the thirteen ranks, the four suits and the
four answers to the game's questions, yes, no, the first, the second, said in whatever language
the player plays in) from ``voice-rang enroll --cards``, kept under
``voice_dir()/cards`` as ``<code>__<anything>.wav`` (``Q__take1.wav``, ``H__take2.wav``, ``10__take3.wav``);
then, for each utterance, its PCM and the legal moves as the card words that say them (a card: its
rank and its suit; a suit called as trumps: the suit; ``games.court_piece.spoken.Spoken.words``).
Emits a :class:`CardMatch`: the move (or answer) the utterance is closest to, how close, and how
much closer than to any other.

Why: the stock speech model hears English, and hears some people poorly; a child who says
"হরতনের বিবি" (the queen of hearts, in Bengali) is heard by nobody's model. Matching by example
needs no model of the language: each take and the utterance go through Moonshine's encoder (its
states carry the sounds of speech, whatever the language, far better than the raw spectrum), and
each legal move's words are aligned to the utterance by dynamic time warping. Only the legal
moves are compared, so the choice is among a few, as for the stock model.

How a move is aligned: its words in either order ("queen of hearts", "হরতনের বিবি" and "বিবি
হরতন" all match), a gap of up to :data:`GAP_S` between them for a joining word ("of", "-er"),
and up to :data:`EDGE_S` of other speech before the first and after the last ("the", "রং"); the
rest of the utterance must be the words themselves, so talk that merely contains a card word is
far from every move. The cost is the mean cosine distance between each word's frames and the
utterance's frames along the best path, each word counted equally; a word's frames may be said
at half to twice the speed of its take.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .front import MIN_SAMPLES, unit_samples
from .personal import voice_dir

__all__ = ["ANSWERS", "EDGE_S", "GAP_S", "RANK_CODES", "SKIP", "SUIT_CODES", "WORDS", "CardMatch", "CardWords",
           "card_words_dir", "speech_span"]

RANK_CODES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_CODES = ("C", "D", "H", "S")
ANSWERS = ("yes", "no", "first", "second")
"""The table's answers to its own questions ("Did you say …?", "this or that?"), taught with the
card words: a player whose card words the stock model cannot hear cannot answer in its words
either."""
WORDS = RANK_CODES + SUIT_CODES + ANSWERS
"""The words taught, by their codes (a card word's in the log, an answer's command id): a take's
file is named after its word's code."""
FRAMES_PER_S = 41.0
"""Moonshine's encoder gives about 41 states a second of audio."""
GAP_S = 0.6
"""Most time between the two words of a card: "of the", or a word's own ending ("হরতনের")."""
EDGE_S = 0.45
"""Most speech before the first word and after the last: "the", "play", "রং"."""
SKIP = 0.006
"""What each frame of speech the words leave unexplained adds to a sequence's cost (in the units
of a word's mean distance): a card said has a short "-er" or "the" around its words, talk that
holds a card word has whole words of its own."""
QUIET_BELOW_PEAK_DB = 30.0
"""Samples this far under the loudest 20 ms of a take or an utterance are silence around it."""


def card_words_dir() -> Path:
    """Where the takes of card words live: beside the takes of commands."""
    return voice_dir() / "cards"


def speech_span(samples: np.ndarray, rate: int = 16000) -> np.ndarray:
    """``samples`` (int16) without the silence before and after the speech (20 ms blocks under
    :data:`QUIET_BELOW_PEAK_DB` of the loudest, or in a noisy room near its noise floor), with
    40 ms kept each side.

    >>> quiet = np.zeros(8000, np.int16)
    >>> loud = (np.sin(np.arange(4800) / 3) * 8000).astype(np.int16)
    >>> len(speech_span(np.concatenate([quiet, loud, quiet])))
    6080
    """
    block = rate // 50
    count = len(samples) // block
    if count == 0:
        return samples
    power = (samples[:count * block].astype(np.float64).reshape(count, block) ** 2).mean(axis=1) + 1e-9
    db = 10.0 * np.log10(power)
    floor = float(np.percentile(db, 10))
    peak = float(db.max())
    # In a quiet room the speech's edges lie 30 dB under its peak; in a noisy one, well above the noise.
    loud = np.flatnonzero(db > max(peak - QUIET_BELOW_PEAK_DB, floor + min(10.0, (peak - floor) / 2)))
    if len(loud) == 0:  # one steady level throughout: nothing to cut
        return samples
    first = max(0, (int(loud[0]) - 2) * block)
    last = min(len(samples), (int(loud[-1]) + 3) * block)
    return samples[first:last]


def _encode(samples: np.ndarray) -> np.ndarray:
    """Speech (int16, trimmed) -> Moonshine's encoder states, each row of unit length."""
    from .moonshine import shared_encoder

    audio = unit_samples(samples)[None]
    if audio.shape[1] < MIN_SAMPLES // 2:
        audio = np.pad(audio, ((0, 0), (0, MIN_SAMPLES // 2 - audio.shape[1])))
    hidden: np.ndarray = shared_encoder().run(None, {"input_values": audio})[0][0].astype(np.float64)
    hidden -= hidden.mean(axis=1, keepdims=True)
    return np.asarray(hidden / (np.linalg.norm(hidden, axis=1, keepdims=True) + 1e-9))


def _align(cost: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The cheapest path of a word through the utterance, ending at each of its frames.

    ``cost``: (word frames, utterance frames) distances; ``start``: (paths, utterance frames), the
    cost already paid before the word's first frame lies on each utterance frame (``inf`` where it
    may not begin), one row for each way of arriving. Each word frame is counted once; the
    utterance moves on one or two frames a word frame, or two word frames share one utterance
    frame: half to twice the take's speed.

    >>> cost = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]])
    >>> _align(cost, np.array([[0.0, math.inf, math.inf]])).tolist()
    [[inf, 0.0, 1.0]]
    """
    before: np.ndarray = start + cost[0]
    ahead = np.full_like(before, math.inf)  # the row before ``before``: two word frames, one step
    step = np.empty_like(before)
    for n in range(1, len(cost)):
        step[:, 0] = math.inf
        step[:, 1:] = before[:, :-1]
        np.minimum(step[:, 2:], before[:, :-2], out=step[:, 2:])
        np.minimum(step[:, 1:], ahead[:, :-1] + cost[n - 1, 1:], out=step[:, 1:])
        step += cost[n]
        ahead, before, step = before, step, ahead
    return before


def _after(ends: np.ndarray, gap: int, skip: float = 0.0) -> np.ndarray:
    """Where the next word may begin: each frame's cost is the cheapest end 1 to ``gap`` + 1
    frames before it, plus ``skip`` for each frame between (rows: paths).

    >>> _after(np.array([[3.0, 1.0, 2.0, 5.0]]), 1).tolist()
    [[inf, 3.0, 1.0, 1.0]]
    >>> _after(np.array([[3.0, 1.0, 2.0, 5.0]]), 1, skip=0.5).tolist()
    [[inf, 3.0, 1.0, 1.5]]
    """
    entry = np.full_like(ends, math.inf)
    for shift in range(1, min(gap + 2, ends.shape[1])):
        np.minimum(entry[:, shift:], ends[:, :-shift] + skip * (shift - 1), out=entry[:, shift:])
    return entry


@dataclass(frozen=True)
class CardMatch:
    """The move an utterance is closest to (``None``: no move could be compared), its cost (mean
    cosine distance, 0 is the take itself) and its lead over the nearest other move, counted in
    the words that tell the two apart."""

    move: str | None
    cost: float = math.inf
    margin: float = 0.0
    runner_up: str | None = None
    costs: Mapping[str, float] = field(default_factory=dict)
    """Every move's cost."""
    standout: float = 0.0
    """The cohort's median cost minus this move's: how far it stands out from any card at all."""


def _share(ways: Sequence[Sequence[str]], others: Sequence[Sequence[str]]) -> float:
    """How much of a move's cost the words that tell it from another move make up, inverted: 2
    for cards of one suit or one rank (one word of two differs), 1 when every word differs.

    >>> _share([("Q", "H")], [("Q", "S")]), _share([("Q", "H")], [("K", "S")]), _share([("H",)], [("S",)])
    (2.0, 1.0, 1.0)
    """
    words, other = ways[0], others[0]
    differ = max(1, len(set(words) - set(other)))
    return len(words) / differ


class CardWords:
    """The takes of the card words, encoded once when loaded."""

    def __init__(self, takes: Mapping[str, Sequence[np.ndarray]]) -> None:
        self.templates: dict[str, list[np.ndarray]] = {
            word: [_encode(speech_span(take)) for take in samples] for word, samples in takes.items() if samples}

    @classmethod
    def load(cls, directory: Path | None = None) -> CardWords | None:
        """The takes under ``directory`` (:func:`card_words_dir`); ``None`` when there are none."""
        from .personal import read_takes

        takes = read_takes(directory or card_words_dir(), set(WORDS))
        return cls(takes) if takes else None

    def knows(self, words: Iterable[str]) -> bool:
        return all(word in self.templates for word in words)

    def match(self, pcm: bytes | np.ndarray, moves: Mapping[str, Sequence[Sequence[str]]],
              cohort: Mapping[str, Sequence[Sequence[str]]] | None = None) -> CardMatch:
        """The move of ``moves`` (id -> the word sequences that say it) that ``pcm`` is closest to.
        Nothing is compared unless every move can be (all its words enrolled): a move that cannot
        be heard this way might be the one said. ``cohort``: other word sequences scored alongside
        (every card of the deck), whose median cost says how far the best move stands from what
        any card would cost: talk is about as far from every card."""
        if not moves or not all(any(self.knows(words) for words in ways) for ways in moves.values()):
            return CardMatch(None)
        samples = np.frombuffer(pcm, dtype="<i2") if isinstance(pcm, bytes) else pcm
        utterance = _encode(speech_span(samples))
        every = {("move", key): ways for key, ways in moves.items()}
        every.update({("cohort", key): ways for key, ways in (cohort or {}).items()})
        orders = sorted({order for ways in every.values() for words in ways
                         if self.knows(words) and 0 < len(words) <= 2  # a card, a suit or an answer
                         for order in (tuple(words), tuple(reversed(words)))})
        cost_of = self._costs(utterance, orders)
        def cheapest(ways: Sequence[Sequence[str]]) -> float:
            return min((cost_of.get(order, math.inf) for words in ways
                        for order in (tuple(words), tuple(reversed(words)))), default=math.inf)

        costs = {key: cheapest(ways) for (kind, key), ways in every.items() if kind == "move"}
        others = [cheapest(ways) for (kind, _), ways in every.items() if kind == "cohort"]
        move, cost = min(costs.items(), key=lambda item: (item[1], item[0]))
        # Two cards that share a word differ only in the other: their costs differ by half what
        # the word alone does, so the lead is counted in the words that tell them apart.
        leads = {key: (value - cost) * _share(moves[move], ways)
                 for key, ways in moves.items() if key != move for value in (costs[key],)}
        runner_up, lead = min(leads.items(), key=lambda item: (item[1], item[0])) if leads else (None, math.inf)
        finite = [value for value in others if math.isfinite(value)]
        typical = float(np.median(finite)) if finite else math.inf
        return CardMatch(move, cost, lead, runner_up, costs, typical - cost)

    def _costs(self, utterance: np.ndarray, orders: Sequence[tuple[str, ...]]) -> dict[tuple[str, ...], float]:
        """Each word sequence's cost in ``utterance``: the mean of its words' mean distances along
        the cheapest path, beginning and ending within :data:`EDGE_S` of the utterance's edges."""
        length = len(utterance)
        edge = round(EDGE_S * FRAMES_PER_S)
        gap = round(GAP_S * FRAMES_PER_S)
        frames = np.arange(length)
        # Speech the words leave unexplained costs :data:`SKIP` a frame, before, between and after.
        begin = np.where(frames <= edge, SKIP * frames, math.inf)[None]
        ending = np.where(frames >= length - 1 - edge, SKIP * (length - 1 - frames), math.inf)
        distances = {word: [1.0 - take @ utterance.T for take in self.templates[word]]
                     for word in {word for order in orders for word in order}}

        def word_ends(word: str, start: np.ndarray) -> np.ndarray:
            # Paths arriving at ``start`` (the mean cost so far, each word counted once), through
            # ``word`` at its likeliest take: the sum of the word means so far, ending at each frame.
            return np.asarray(np.min([_align(cost, start * len(cost)) / len(cost) for cost in distances[word]],
                                     axis=0))

        firsts = {word: word_ends(word, begin) for word in {order[0] for order in orders}}
        found: dict[tuple[str, ...], float] = {}
        for order in orders:
            if len(order) == 1:
                found[order] = float((firsts[order[0]][0] + ending).min())
        pairs = [order for order in orders if len(order) == 2]
        for second in sorted({order[1] for order in pairs}):
            group = [order for order in pairs if order[1] == second]
            entries = _after(np.concatenate([firsts[order[0]] for order in group]), gap, SKIP)
            ends = word_ends(second, entries)
            for order, row in zip(group, ends, strict=True):
                found[order] = float((row + ending).min()) / 2.0
        return found
