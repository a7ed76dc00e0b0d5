"""Listening for a move among the legal ones: "queen of hearts", "the ten", "lowest spade",
"hearts are trumps", and the table's questions, decided by Moonshine's decoder scoring each phrase
that means something now.

Receives: the audio of each utterance (16 kHz mono PCM16, streamed as the listener hears it), and
at the start of each utterance the moves legal now (``{id: choice}``, each choice with its English
phrases and whether it deserves a question first) and the table's command ids valid now. Emits:
one :class:`.results.Recognition` per utterance: a move or command to act on; ``which`` with the
two moves heard alike (the game asks "The queen of hearts or the queen of spades?"); ``unsure``
with the one it leans to ("Did you say …?"); ``confirm`` for a move heard clearly that the game
asks about anyway (trumping a partner's winning trick, the last trump, revealing a hidden trump);
or nothing for the game.

How: Lichess's voice input listens only for what is legal now, matches against the legal moves,
acts at once when one candidate is clearly meant and otherwise asks with a short choice. Here the
candidates are scored by Moonshine (:class:`.moonshine_text.PhraseScorer`): the likeliest phrase of
each id, how far it is from what Moonshine would write itself (talk is far from every card), and
its lead over the next id (a card heard as two is a question, not a guess). A pocketsphinx grammar
of the same phrases runs while the person speaks: its hint closes the utterance after 100 ms of
silence after a whole card name instead of 300, what it leans to is a second opinion
(:func:`decide_choice`), and alone it is the benchmark's baseline.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Protocol

from ..commands import CommandSet, normalize
from .card_words import ANSWERS, CardMatch, CardWords
from .decision import GRAMMAR_DECIDES
from .levels import energy_db
from .moonshine import MoonshineUnavailable
from .moonshine_text import MoonshineModel, PhraseScorer, Verdict
from .pronunciations import _EXTRA_PRONUNCIATIONS, pronunciations
from .recognizer import Recognizer, Tuning
from .results import Completion, Recognition

__all__ = ["CardRule", "Choice", "ChoiceRecognizer", "ChoiceRule", "decide_card_words", "decide_choice",
           "live_choice_recognizer", "spoken_phrases", "with_card_words"]

QUIET_BELOW_PEAK_DB = 30.0
"""A chunk this far under the loudest of the utterance so far is silence after the speech: a
word's weakest sound (the "t" closing "heart") stands well above it. In a room with noise 10 dB
under the voice it never comes: there Moonshine hears the utterance at its end."""
QUIET_CHUNKS = 2
"""Quiet chunks in a row (the listener's 20 ms) before Moonshine starts early."""


class Choice(Protocol):
    """A legal move as it may be said (``games.court_piece.spoken.Spoken`` is one)."""

    @property
    def phrases(self) -> tuple[str, ...]: ...

    @property
    def caution(self) -> object | None: ...

    @property
    def words(self) -> tuple[tuple[str, ...], ...]: ...


@dataclass(frozen=True)
class ChoiceRule:
    """When a move is acted on, asked about or let go (natural-log units of Moonshine's
    probabilities). Chosen on the tuning voices only (``benchmarks/bench_cards.py --sweep``;
    docs/voice.md)."""

    within: float = 7.0
    """The likeliest phrase may be at most this much less likely than Moonshine's own
    transcription and still be acted on: Moonshine spells a card it hears rightly a little
    differently ("Green of hearts", "The tenor of clubs"); talk of about as many words is further
    from every card, and its lead small."""
    lead: float = 4.0
    """And it must be at least this much likelier than the likeliest phrase of any other id. On
    the tuning voices a card taken for another never led by more than 1.6 once the lengths were
    matched, talk never by more than 3.9; at 3 one noisy card in a hundred was another card."""
    ask_within: float = 9.0
    """Further from the transcription than ``within`` but within this, with the lead: the game
    asks "Did you say …?" and acts only on a yes (as it does for a lead between ``which_lead`` and
    ``lead``)."""
    which_lead: float = 2.0
    """Two moves within ``within`` of the transcription and within this of each other: the game
    asks which ("The queen of hearts or the queen of spades?")."""
    agree_within: float = 12.0
    """When the pocketsphinx grammar leans to the same id as Moonshine's likeliest (two models of
    different kinds naming one move), that id is acted on this far from the transcription..."""
    agree_lead: float = 2.0
    """...with this lead, where the grammar is trusted at all: its speech stood ``agree_min_snr_db``
    over the room. On the tuning voices this heard 3 more clean cards in a hundred and 9 more
    across a room, with no card taken for another and no talk taken."""
    agree_min_snr_db: float = 20.0
    """The grammar decoders' own noise guard (``recognizer.Tuning.min_snr_db``): in a noisier room
    what they lean to is no second opinion (held-out talk at 10 dB was leant to as a card)."""
    alone_needs_agreement: bool = True
    """A move said in one word ("Six", "Queen") is made only when the pocketsphinx grammar leans to
    it too; otherwise the game asks "Did you say the six of hearts?". One word is the easiest to
    hear in another: seat names said alone ("East", "North") were taken for "Six" and "Nine" by
    Moonshine alone, with a lead as wide as a card's."""
    word_slack: int = 1
    """The likeliest phrase may have at most this many words more or fewer than Moonshine's own
    transcription. A short phrase ending early can be more likely than a long transcription of
    something else: in noise "hmm, let me see" was written "Hake and Haeem what we see" and
    scored as "Eight." higher still. Said as a card, a card's name comes out about as many words
    long ("Green of hearts", "The tenor of clubs")."""


def decide_choice(verdict: Verdict, moves: Mapping[str, Choice], rule: ChoiceRule,
                  *, heard: str = "", speech_ms: float = 0.0, snr_db: float = math.inf,
                  grammar_leans: str | None = None) -> Recognition:
    """One answer for one utterance from Moonshine's ``verdict`` over the ids valid now
    (``moves``: the legal moves; every other id scored is one of the table's commands), and the
    id the pocketsphinx grammar leaned to (``grammar_leans``), if any.

    >>> class Move:
    ...     phrases, caution = ("Queen of hearts",), None
    >>> moves = {"play QH": Move(), "play QS": Move()}
    >>> rule = ChoiceRule()
    >>> said = {"play QH": "Queen of hearts", "play QS": "Queen of spades"}
    >>> def hear(text, scores):
    ...     return Verdict(text, -1.0, scores, 0, {k: {said[k]: v} for k, v in scores.items()})
    >>> decide_choice(hear("Queen of hearts.", {"play QH": -1.2, "play QS": -9.0}), moves, rule).command
    'play QH'
    >>> decide_choice(hear("Queen of hearts.", {"play QH": -1.2, "play QS": -2.0}), moves, rule).between
    ('play QH', 'play QS')
    >>> decide_choice(hear("The cat sat.", {"play QH": -30.0, "play QS": -32.0}), moves, rule).reason
    'not a command'
    """
    text = verdict.text
    words = len(normalize(text).split())

    def answer(command: str | None, unsure: bool, reason: str, guess: str | None = None,
               between: tuple[str, ...] = (), confidence: float = 0.0) -> Recognition:
        return Recognition(command, text or heard, unsure, verdict.ms, reason, speech_ms,
                           guess or command, snr_db, confidence=confidence, between=between)

    if not verdict.scores:
        return answer(None, False, "not a command")
    # Two models of different kinds naming one move: Moonshine's likeliest id, and the id the
    # pocketsphinx grammar leaned to.
    top, top_score = max(verdict.scores.items(), key=lambda item: (item[1], item[0]))
    top_lead = top_score - max((value for key, value in verdict.scores.items() if key != top), default=-math.inf)
    agreed = (grammar_leans == top and snr_db >= rule.agree_min_snr_db
              and top_score - verdict.free >= -rule.agree_within and top_lead >= rule.agree_lead)
    # Each id as likely as its likeliest phrase about as many words long as what Moonshine wrote:
    # a short phrase ending early ("Eight.") can outscore a long transcription of something else.
    fitting: dict[str, tuple[float, str]] = {}
    for key, phrases in verdict.phrases.items():
        for said, value in phrases.items():
            fits = abs(len(normalize(said).split()) - words) <= rule.word_slack
            if fits and value > fitting.get(key, (-math.inf, ""))[0]:
                fitting[key] = (value, said)
    if not agreed and (not fitting or not words):
        # Moonshine wrote no word at all: alone, it heard nothing to act on, whatever scores best.
        return answer(None, False, "not a command")
    best, (score, phrase) = max(fitting.items(), key=lambda item: (item[1][0], item[0])) if fitting \
        else (top, (top_score, ""))
    # Every other id at its likeliest, whatever its length: the lead is never overstated.
    others = sorted(((value, key) for key, value in verdict.scores.items() if key != best), reverse=True)
    ranked = [(best, score), *((key, value) for value, key in others)]
    near = score - verdict.free
    lead = score - ranked[1][1] if len(ranked) > 1 else math.inf
    confidence = float(math.exp(min(0.0, near)))
    if agreed and not (fitting and near >= -rule.within and lead >= rule.lead):
        best, near, lead = top, top_score - verdict.free, top_lead
    one_word = best in moves and len(phrase.split()) == 1 and rule.alone_needs_agreement and not agreed
    if ((near >= -rule.within and lead >= rule.lead) or agreed) and not one_word:
        choice = moves.get(best)
        if choice is not None and choice.caution is not None:
            return answer(None, True, "confirm", guess=best, confidence=confidence)
        return answer(best, False, "command", confidence=confidence)
    if near >= -rule.within and lead < rule.which_lead:
        second = ranked[1][0]
        if best in moves and second in moves:
            return answer(None, True, "which", guess=best, between=(best, second), confidence=confidence)
        return answer(None, True, "unsure", guess=best, confidence=confidence)
    if (near >= -rule.ask_within and lead >= rule.lead) or (near >= -rule.within and lead >= rule.which_lead):
        return answer(None, True, "unsure", guess=best, confidence=confidence)
    return answer(None, False, "not a command", guess=None)


@dataclass(frozen=True)
class CardRule:
    """When a move heard by the player's own card words (:class:`.card_words.CardMatch`) is acted
    on, asked about or let go (mean cosine distances of Moonshine's encoder states). Chosen on the
    tuning speakers only (``benchmarks/bench_card_words.py --voices tuning --sweep``; docs/voice.md)."""

    standout: float = 0.06
    """The move must cost at least this much less than the median card of the deck: a card said
    stands far out from the other 51, talk only a little from the card it sounds most like."""
    margin: float = 0.08
    """And lead every other legal move by this much, counted in the words that tell them apart
    (:class:`.card_words.CardMatch`); closer, the game asks which of the two. On the tuning
    speakers no card was taken for another and no line of talk was taken for a card at this
    margin; at 0.05, one line of talk in forty ("হরতন শেষ", hearts are gone, in noise) was."""
    ask_standout: float = 0.06
    """Standing out by this much but not :attr:`standout`, with the margin: "Did you say …?"
    (equal to :attr:`standout`: never; lower values only asked about more talk)."""
    min_snr_db: float = 20.0
    """Below this (speech over the room, as the endpointer measured it) a move the words hear
    clearly is asked about ("Did you say …?"), never made: in white noise 10 dB under the voice,
    held-out speakers' cards were taken for others (the grammar decoders keep the same guard,
    :attr:`ChoiceRule.agree_min_snr_db`)."""


def decide_card_words(match: CardMatch, rule: CardRule, moves: Mapping[str, Choice] | None = None, *,
                      heard: str = "", speech_ms: float = 0.0, snr_db: float = math.inf) -> Recognition:
    """One answer from the player's own card words alone.

    >>> from .card_words import CardMatch
    >>> rule = CardRule()
    >>> decide_card_words(CardMatch("play QH", 0.15, 0.1, "play QS", {}, 0.12), rule).command
    'play QH'
    >>> decide_card_words(CardMatch("play QH", 0.15, 0.1, "play QS", {}, 0.12), rule, snr_db=12.0).reason
    'unsure'
    >>> decide_card_words(CardMatch("play QH", 0.15, 0.01, "play QS", {}, 0.12), rule).between
    ('play QH', 'play QS')
    >>> decide_card_words(CardMatch("play QH", 0.30, 0.1, "play QS", {}, 0.02), rule).reason
    'not a command'
    """

    def answer(command: str | None, unsure: bool, reason: str, guess: str | None = None,
               between: tuple[str, ...] = ()) -> Recognition:
        return Recognition(command, heard, unsure, 0.0, reason, speech_ms, guess or command, snr_db,
                           confidence=max(0.0, 1.0 - match.cost), personal=True, between=between)

    best = match.move
    if best is None or not math.isfinite(match.cost):
        return answer(None, False, "not a command")
    if match.standout >= rule.standout and match.margin >= rule.margin:
        choice = (moves or {}).get(best)
        if choice is not None and choice.caution is not None:
            return answer(None, True, "confirm", guess=best)
        if snr_db < rule.min_snr_db:
            return answer(None, True, "unsure", guess=best)
        return answer(best, False, "command")
    if match.standout >= rule.standout and match.runner_up is not None:
        return answer(None, True, "which", guess=best, between=(best, match.runner_up))
    if match.standout >= rule.ask_standout and match.margin >= rule.margin:
        return answer(None, True, "unsure", guess=best)
    return answer(None, False, "not a command")


def with_card_words(own: Recognition, stock: Recognition, moves: Mapping[str, Choice], *, alone: bool) -> Recognition:
    """The answer when the player's own card words (``own``, :func:`decide_card_words`) and the
    stock model (``stock``, :func:`decide_choice`) both heard the utterance.

    ``alone``: the stock model does not hear the player's language (their words are Bengali), so
    a move their words hear clearly is made; when the stock model clearly names another move the
    game asks which of the two, and a move the stock model alone names is asked about. Otherwise
    (English) their words are a second opinion only: on the tuning speakers, English card words
    alone took one card in twelve for another ("nine" for "queen"; docs/voice.md), so the stock
    model's clear answer stands and the words settle a question it would ask (the move it half
    heard, or one of the two it heard alike)."""
    stock_move = stock.command if stock.command in moves else stock.guess if stock.reason == "confirm" else None
    own_move = own.command or (own.guess if own.reason == "confirm" else None)
    if alone and own_move is not None and stock_move is not None and stock_move != own_move:
        return replace(own, command=None, unsure=True, reason="which", guess=own_move, between=(own_move, stock_move))
    if alone and stock_move is not None and own_move is None and stock.command is not None:
        # Speech in the player's language heard by an English model as a card ("দক্ষিণ", South,
        # as "King"): asked about, never made, unless the player's words hear the same.
        return replace(stock, command=None, unsure=True, reason="unsure", guess=stock_move)
    if stock.command is not None or stock.reason == "confirm":
        return stock
    if own_move is not None:
        asked_about = (stock.guess,) if stock.reason == "unsure" else stock.between if stock.reason == "which" else ()
        if alone or own_move in asked_about:
            return own
        return stock
    if alone and own.reason in ("which", "unsure") and stock.reason not in ("which", "unsure"):
        return own
    return stock


_DIGITS = re.compile(r"\d")


def spoken_phrases(phrases: Iterable[str]) -> list[str]:
    """The phrases a pocketsphinx grammar can hold (written in words: "10 of clubs" is left to
    Moonshine, "ten of clubs" is kept), normalised.

    >>> spoken_phrases(["Ten of clubs", "10 of clubs", "The ten"])
    ['ten of clubs', 'the ten']
    """
    return list(dict.fromkeys(normalize(p) for p in phrases if not _DIGITS.search(p)))


class ChoiceRecognizer:
    """The streaming recogniser for a game of moves (:class:`.results.StreamingRecognizer`).

    ``moves`` is asked at the start of every utterance for the legal moves now (an empty mapping
    when it is not the player's turn: then only the table's commands are listened for);
    ``vocabulary`` holds every phrase a move can ever be said with, so the endpointer's grammar is
    built once. Not thread-safe: one listener owns it."""

    def __init__(self, commands: CommandSet, moves: Callable[[], Mapping[str, Choice]],
                 vocabulary: Iterable[str], *, language: str = "en", rule: ChoiceRule | None = None,
                 model: MoonshineModel | None = None, card_words: CardWords | None = None,
                 card_rule: CardRule | None = None, deck: Mapping[str, Sequence[Sequence[str]]] | None = None) -> None:
        self.commands = commands
        self.moves = moves
        self.rule = rule or ChoiceRule()
        self.language = language
        self.card_words = card_words
        """The player's own card words (``enroll --cards``), heard beside the stock model."""
        self.card_rule = card_rule or CardRule()
        self._matching = ThreadPoolExecutor(1, thread_name_prefix="voice-rang-card-words") if card_words else None
        self._deck = dict(deck or {})
        self._command_phrases = {command: tuple(p[:1].upper() + p[1:] for p in phrases)
                                 for command, phrases in commands.spoken().items()}
        universe = dict.fromkeys(spoken_phrases(vocabulary))
        for phrases in commands.spoken().values():
            universe.update(dict.fromkeys(spoken_phrases(phrases)))
        words = {word for phrase in universe for word in phrase.split()}
        known = set(pronunciations(words)) | set(_EXTRA_PRONUNCIATIONS)
        # A phrase with a word the dictionary lacks ("redeal") is Moonshine's alone.
        universe = {phrase: None for phrase in universe if set(phrase.split()) <= known}
        self._grammar_phrases = frozenset(universe)
        self._phrase_set = CommandSet(phrases={phrase: [phrase] for phrase in universe}, keys={})
        self.hints = Recognizer(self._phrase_set, language=language, tuning=Tuning(warps=(1.0,)))
        self.scorer = PhraseScorer(model or MoonshineModel.shared())
        self._scoring = ThreadPoolExecutor(1, thread_name_prefix="voice-rang-moves")
        """Where Moonshine hears an utterance, ahead of its end when it falls quiet (:meth:`feed`)."""
        self._ahead: tuple[int, Future[Verdict]] | None = None
        """Moonshine's verdict on the utterance up to a quiet moment, begun then: the sample count
        it covers and the verdict to come."""
        self._peak_db = -math.inf
        self._quiet = 0
        self._now: dict[str, tuple[str, ...]] = {}
        self._allowed: frozenset[str] = frozenset()
        self._moves_now: Mapping[str, Choice] = {}
        self._pcm = bytearray()
        self.last: list[tuple[Recognition, Verdict]] = []
        """What the grammar and Moonshine made of each utterance since :meth:`reset_stream`."""
        self.heard_words: list[CardMatch] = []
        """What the player's own card words made of each utterance since :meth:`reset_stream`."""

    def reset_stream(self) -> None:
        self.hints.reset_stream()
        self._restart()
        self.last = []
        self.heard_words = []

    def _restart(self) -> None:
        self._pcm = bytearray()
        self._peak_db = -math.inf
        self._quiet = 0
        self._drop_ahead()

    def _drop_ahead(self) -> None:
        if self._ahead is not None:
            self._ahead[1].cancel()
            self._ahead = None

    def listening_for(self, allowed: Iterable[str] | None) -> dict[str, tuple[str, ...]]:
        """The phrases of every id valid now: the legal moves and the table's ``allowed`` commands."""
        moves = self.moves()
        self._moves_now = moves
        phrases = {key: tuple(choice.phrases) for key, choice in moves.items()}
        for command in (self._command_phrases if allowed is None else allowed):
            if command in self._command_phrases and command not in phrases:
                phrases[command] = self._command_phrases[command]
        return phrases

    def start(self, allowed: Iterable[str] | None = None, *, after_talk: bool = False,
              gap_ms: float = math.inf) -> None:
        del gap_ms
        self._now = self.listening_for(allowed)
        self._allowed = frozenset(self._command_phrases if allowed is None else allowed)
        grammar = {phrase for texts in self._now.values() for phrase in spoken_phrases(texts)} & self._grammar_phrases
        self.hints.start(grammar, after_talk=after_talk)
        self._restart()

    def feed(self, pcm: bytes) -> None:
        """Take a chunk of the utterance. When the speech falls quiet after a whole phrase (the
        grammar's hint), Moonshine starts hearing what was said so far on a thread of its own:
        the endpointer waits 100 ms of silence or more before it closes the utterance, and that
        silence adds nothing to hear. Speech that comes back drops the early start."""
        self.hints.feed(pcm)
        self._pcm += pcm
        level = energy_db(pcm)
        if level > self._peak_db - QUIET_BELOW_PEAK_DB:
            self._peak_db = max(self._peak_db, level)
            self._quiet = 0
            self._drop_ahead()
            return
        self._quiet += 1
        if self._ahead is None and self._quiet >= QUIET_CHUNKS and self.hints.completion() is Completion.COMPLETE:
            self._ahead = (len(self._pcm), self._scoring.submit(self.scorer.hear, bytes(self._pcm), self._now))

    def completion(self) -> Completion:
        return self.hints.completion()

    def prepare(self) -> None:
        """Nothing here: Moonshine starts early from :meth:`feed`, when the speech falls quiet."""

    def abort(self) -> None:
        self.hints.abort()
        self._restart()

    def finish(self, snr_db: float = math.inf) -> Recognition:
        began = time.perf_counter()
        grammar = self.hints.finish(snr_db)
        ahead, self._ahead = self._ahead, None
        if grammar.reason in GRAMMAR_DECIDES:
            if ahead is not None:
                ahead[1].cancel()
            return grammar
        own = self._own_words(bytes(self._pcm))
        if ahead is not None:
            verdict = ahead[1].result()
        else:
            verdict = self._scoring.submit(self.scorer.hear, bytes(self._pcm), self._now).result()
        result = decide_choice(verdict, self._moves_now, self.rule, heard=grammar.heard,
                               speech_ms=grammar.speech_ms, snr_db=snr_db,
                               grammar_leans=self.owner(grammar.command or grammar.guess))
        if own is not None:
            match = own.result()
            self.heard_words.append(match)
            mine = decide_card_words(match, self.card_rule, self._moves_now, heard=verdict.text or grammar.heard,
                                     speech_ms=grammar.speech_ms, snr_db=snr_db)
            result = with_card_words(mine, result, self._moves_now, alone=self.language != "en")
        self.last.append((grammar, verdict))
        return replace(result, ms=grammar.ms + 1000.0 * (time.perf_counter() - began))

    def _own_words(self, pcm: bytes) -> Future[CardMatch] | None:
        """The player's own card words heard on a thread of their own, beside Moonshine; ``None``
        when the player taught none, or no legal move is a card or a suit."""
        with_words = {key: choice.words for key, choice in self._moves_now.items() if choice.words}
        if self.card_words is None or self._matching is None:
            return None
        # The answers to a question open now, where the player taught them.
        answers = {answer: ((answer,),) for answer in ANSWERS
                   if answer in self._allowed and self.card_words.knows([answer])}
        if not with_words and not answers:
            return None
        return self._matching.submit(self.card_words.match, pcm, {**with_words, **answers}, self._deck)

    def owner(self, phrase: str | None) -> str | None:
        """The id valid now that ``phrase`` (normalised, as the grammar heard it) means, when only
        one has it."""
        if phrase is None:
            return None
        owners = [key for key, texts in self._now.items() if phrase in spoken_phrases(texts)]
        return owners[0] if len(owners) == 1 else None


def live_choice_recognizer(commands: CommandSet, moves: Callable[[], Mapping[str, Choice]],
                           vocabulary: Iterable[str], *, language: str = "en",
                           deck: Mapping[str, Sequence[Sequence[str]]] | None = None,
                           personal: bool = True) -> ChoiceRecognizer:
    """What a game of moves said by name listens with (``play court-piece``, and ``recognize
    --game court-piece`` for recordings): the stock model, and the player's own card words when
    they taught the game some (``personal``; ``deck``: every card by its words, the cohort a
    card heard must stand out from). It needs Moonshine's model, which has no package for some
    computers: then :class:`.moonshine.MoonshineUnavailable`, in one sentence."""
    from .neural import neural_front_missing

    why = neural_front_missing()
    if why is not None:
        raise MoonshineUnavailable(f"{why}, and moves said by name are heard with it")
    card_words = CardWords.load() if personal and deck else None
    return ChoiceRecognizer(commands, moves, vocabulary, language=language, card_words=card_words, deck=deck)
