"""Command recognition with pocketsphinx 5, built to say "not a command" as readily as a command.

Why not a plain JSGF grammar: a grammar decoder always answers with *something* it knows, so on
ordinary talk near the microphone it "hears" a command nearly every time (pocketsphinx issue #75;
``benchmarks/bench_recognition.py`` measures it). Here the grammar has a second branch, a loop
over about 640 ordinary English words (the 500 most frequent, numbers, card names, the game's own
narration; never a command word or a homophone of one). Both branches compete inside one Viterbi
search, so their scores are comparable by construction: an utterance is a command only when the
command path beats every sequence of ordinary words. Two such decoders run side by side on the
same audio, one lenient (the garbage loop is expensive) and one strict (cheap): both agreeing is a
command; only the lenient one finding a command is *unsure* (the game asks "Did you say …?" and
acts only on a yes); neither is not a command (silently ignored). Each pair of decoders hears the
audio through one of a few vocal tract length warps (:attr:`Tuning.warps`), so that a child's or
a deep voice meets the adult model half way; the warp whose lenient decoder scores the utterance
best gives the answer, unless it heard no whole command and two other warps hear the same one.
Duration sanity (too short, too long) and "only what is valid now" (commands outside ``allowed``
are moved into the garbage branch, so saying them can never be mistaken for an allowed one)
complete the rejection.

Everything is streaming: :meth:`Recognizer.start`, :meth:`Recognizer.feed` per chunk while the
person speaks, :meth:`Recognizer.finish` at the endpoint. Models load once per
:class:`Recognizer`; grammars are cached per set of allowed commands.
"""

from __future__ import annotations

import math
import os
import re
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..commands import CommandSet
from .grammar_decoder import (
    _FRAME_BYTES,
    STATES_PER_PHONE,
    Grammar,
    _Decoder,
    _FrontEnds,
    _outvoted,
    _Pair,
    _spoken,
    _Verdict,
)
from .levels import energy_db, frames, presumed_floor_db
from .ordinary_words import COMMON, GAME
from .pronunciations import _EXTRA_PRONUNCIATIONS, garbage_vocabulary, narration_words, neighbour_words
from .pronunciations import pronunciations as _pronunciations
from .pronunciations import write_dictionary as _write_dictionary
from .results import MIN_GAP_MS, SAMPLE_RATE, STABLE_MS, Completion, Recognition, StreamingRecognizer, continues_talk

__all__ = [
    "MIN_GAP_MS",
    "SAMPLE_RATE",
    "STABLE_MS",
    "STATES_PER_PHONE",
    "Completion",
    "Grammar",
    "Recognition",
    "Recognizer",
    "Tuning",
    "_FrontEnds",
    "_Verdict",
    "_outvoted",
    "_pronunciations",
    "_spoken",
    "_write_dictionary",
    "decode_pcm",
    "summarize",
]

_GARBAGE_WORDS = COMMON + GAME
"""Ordinary words the garbage branch can spell talk with (:mod:`.ordinary_words`). Command words
and their homophones are removed at start-up, so this list may contain them harmlessly."""

_WORD = re.compile(r"[a-z']+")


@dataclass(frozen=True)
class Tuning:
    """The numbers rejection hangs on (natural-log units per garbage word, before the language
    weight). Chosen by ``bench_recognition.py --sweep`` on the tuning speakers (flite and festival
    kal, awb, rms) and checked on a held-out speaker (slt): see ``docs/voice-experiments.md``."""

    lenient_garbage: float = -11.0
    strict_garbage: float = -9.0
    garbage_entry: float = -2.0
    neighbours: bool = False
    """Add to the garbage branch every CMUdict pronunciation one phone away from a command word
    (a rhyme or a longer form: "burn", "term", "turned" for "turn"), so a near miss has a
    competitor of its own instead of only the command. Off: on the tuning voices it traded about
    four points of clean accuracy for one and a half of false accepts, and grew start-up by 0.4 s
    and decoding by 60 % (``bench_recognition.py --neighbours``)."""
    min_speech_ms: float = 120.0
    max_speech_ms: float = 3500.0
    warps: tuple[float, ...] = (0.85, 1.0, 1.4)
    """Vocal tract length warps (pocketsphinx ``inverse_linear``) decoded side by side; each
    utterance is taken from the warp whose lenient decoder scores it best (unless outvoted:
    :attr:`warp_vote`). The bundled model was trained on adult voices and hears a short vocal
    tract (a child's, a high voice) poorly: on the corpus's raised-pitch voices it found the right
    command about three times in four, and one in three for the high female voice. A warp of 1.4
    covers a child; 0.85 a deep voice. One warp, ``(1.0,)``, is the plain model
    (``bench_recognition.py --warps 1.0``). Each warp costs a pair of decoders' CPU while someone
    speaks; a fourth (1.2) changed no clean figure of the corpus and put the answer's median
    latency over 150 ms (``bench_latency.py``)."""
    echo_tails: bool = True
    """Drop ordinary words after a command when they are only its echo dying away in the room
    (:func:`.levels.is_echo`). Without it, in a room of 0.8 s reverberation the corpus's commands
    came back right about half the time: the echo was spelled as a word ("stop [all]") and the
    command taken for talk (``bench_recognition.py --no-echo-tails``; docs/voice-experiments.md)."""
    warp_vote: bool = True
    """When the warp that fits best hears no whole command, two other warps that each hear the
    same whole command, with no warp leaning to any other, outvote it (:func:`_outvoted`). The
    best fit is chosen on small score differences, and across a room it is often the warp that
    spells the echo as a word: on the corpus's room copies this took commands heard from about
    72 % to 76 %, with dry speech and false accepts unchanged (``bench_recognition.py
    --no-warp-vote``; docs/voice-experiments.md). One warp alone never outvotes the best: that heard more
    commands but made about one more real person's word in fifty a command."""
    min_fit: float = -0.006
    """The poorest acoustic fit a command may have and still be acted on: the mean, over the
    frames of the command's words, of the natural log of their acoustic score (pocketsphinx's
    scale: each frame's score is relative to the best-scoring senone of that frame, so a word
    said as the model expects scores near 0, whatever the voice or the room). The command path
    can beat every ordinary word and still match the sound poorly ("car" heard as "stop"), and
    then the game asks. Set just under the poorest-fitting command heard right on the tuning
    speakers' dry and room recordings (-0.0056); recordings of people saying what their
    transcripts say fit far better (a median of -0.0012 a recording, none of 746 under this),
    while the talk of theirs taken for a command fitted at a median of -0.0048 (docs/voice-experiments.md,
    ``bench_recognition.py --min-fit=-inf``)."""
    min_snr_db: float = 20.0
    """Below this signal-to-noise ratio (the endpointer's measure) a command is *too noisy*: never
    acted on, and the player is told why. The bundled model is fragile in noise: on the 10 dB
    copies of the corpus it took about one noisy command in five for the wrong one and a third of
    noisy talk for a command (``bench_recognition.py``; see docs/voice-experiments.md). Speech close to the
    microphone in a quiet room stands 30 dB or more above the noise and is not affected."""


class Recognizer:
    """Streaming command recogniser: load once, then ``start`` / ``feed`` / ``finish`` per
    utterance (or :meth:`recognize` for a whole buffer). Not thread-safe: one listener owns it.

    >>> r = Recognizer(CommandSet.load("en"))
    >>> r.recognize(b"\\0" * 3200).reason
    'too short'
    """

    def __init__(self, commands: CommandSet, *, language: str = "en",
                 tuning: Tuning | None = None) -> None:
        self.commands = commands
        self.grammar = Grammar(commands)
        self.tuning = tuning or Tuning()
        if not self.tuning.warps:
            raise ValueError("the recogniser needs at least one warp")
        self._lock = threading.Lock()
        command_words = self.grammar.words()
        candidates = set(_WORD.findall(_GARBAGE_WORDS.lower())) | narration_words(language)
        # A typed-only phrase said aloud is talk: its words spell it, not the nearest command.
        candidates |= {w for p in commands.typed_only for w in _WORD.findall(p.lower())}
        pronunciations = _pronunciations(candidates | command_words)
        for word in command_words - set(pronunciations):
            phones = _EXTRA_PRONUNCIATIONS.get(word)
            if phones is None:
                raise ValueError(f"no pronunciation for the command word {word!r}")
            pronunciations[word] = [phones]
        if self.tuning.neighbours:
            neighbours = set(neighbour_words(pronunciations[w][0] for w in command_words))
            pronunciations |= _pronunciations(neighbours)
            candidates |= neighbours
        garbage = garbage_vocabulary(pronunciations, self.grammar, candidates)
        dictionary = _write_dictionary(pronunciations, [*command_words, *garbage])
        try:
            self._pairs = [
                _Pair(warp,
                      _Decoder(self.grammar, garbage, self.tuning.lenient_garbage,
                               self.tuning.garbage_entry, dictionary=dictionary, warp=warp),
                      _Decoder(self.grammar, garbage, self.tuning.strict_garbage,
                               self.tuning.garbage_entry, dictionary=dictionary, warp=warp))
                for warp in self.tuning.warps]
        finally:
            os.unlink(dictionary)
        self.garbage_words = frozenset(garbage)
        self._allowed: frozenset[str] | None = None
        self._samples = 0
        self._levels: list[float] = []
        """Level of each 10 ms frame of the utterance so far (the decoders' frames)."""
        self._unleveled = b""
        self._started = False
        self._unfinished: list[_Decoder] = []
        """Decoders of the warps not chosen for the last utterance, still to be ended."""
        self._after_talk = False
        for decoder in self._decoders():
            decoder.build(None)

    def _decoders(self) -> Iterator[_Decoder]:
        for pair in self._pairs:
            yield from pair.decoders

    def _leader(self) -> _Pair:
        """The warp that matches the utterance so far best (by its lenient decoder)."""
        if len(self._pairs) == 1:
            return self._pairs[0]
        return max(self._pairs, key=lambda pair: pair.score)

    def reset_stream(self) -> None:
        """A new audio stream begins: start from the model's cepstral mean, not the last one's.

        Within a stream the decoders keep adapting to the voice and the room (live CMN); between
        recordings this makes each file decode the same whatever came before it.
        """
        self.abort()
        for decoder in self._decoders():
            decoder.reset_stream()

    # ----- streaming --------------------------------------------------------------------------

    def start(self, allowed: Iterable[str] | None = None, *, after_talk: bool = False,
              gap_ms: float = math.inf) -> None:
        """Begin an utterance, listening only for ``allowed`` command ids (all when ``None``).

        ``after_talk``: speech began right after other speech (a short pause inside a sentence);
        it is decoded but never taken as a command, because a command is said on its own.
        ``gap_ms`` (the silence before it) is the neural rule's (a command said again); the
        grammar decoders judge each utterance alone.
        """
        self.abort()
        self._after_talk = after_talk
        self._allowed = None if allowed is None else frozenset(allowed)
        for pair in self._pairs:
            pair.start(self._allowed)
        self._samples = 0
        self._levels = []
        self._unleveled = b""
        self._started = True

    def feed(self, pcm: bytes) -> None:
        """Decode a chunk of 16 kHz mono PCM16 as it arrives."""
        if not self._started:
            self.start(self._allowed)
        self._samples += len(pcm) // 2
        for pair in self._pairs:
            pair.feed(pcm, self._samples)
        if self.tuning.echo_tails:
            pending = self._unleveled + pcm
            whole = len(pending) - len(pending) % _FRAME_BYTES
            self._levels.extend(energy_db(frame) for frame in frames(pending, _FRAME_BYTES))
            self._unleveled = pending[whole:]

    def prepare(self) -> None:
        """Nothing to do ahead: the decoders have read every frame as it came."""

    def completion(self) -> Completion:
        """How complete the command heard so far is: the endpointer's hint for its hangover.

        Asked of the warp that leads now, since that is the one :meth:`finish` would most likely
        take the answer from."""
        if not self._started:
            return Completion.NONE
        pair = self._leader()
        hints = {self.grammar.completion(text, self._allowed) for text in pair.heard}
        if len(pair.heard) == 1:
            hint = hints.pop()
            held_ms = 1000.0 * (self._samples - pair.agreed[1]) / SAMPLE_RATE
            if hint is Completion.COMPLETE and held_ms < STABLE_MS:
                return Completion.NONE
            return hint
        # The decoders disagree, so the utterance would not be accepted as it stands: never
        # close it early; wait as long as the most hopeful of them needs.
        for hint in (Completion.PREFIX, Completion.COMPLETE_PREFIX):
            if hint in hints:
                return hint
        return Completion.NONE

    def abort(self) -> None:
        """Drop the utterance in progress (the game started speaking over it)."""
        if self._started:
            self._unfinished = list(self._decoders())
            self._started = False
        self._end_unfinished()

    def _end_unfinished(self) -> None:
        for decoder in self._unfinished:
            decoder.finish()
        self._unfinished = []

    def finish(self, snr_db: float = math.inf) -> Recognition:
        """End the utterance and decide: command, unsure, or not a command.

        ``snr_db``: the endpointer's measure of how far the speech stood above the noise."""
        began = time.perf_counter()
        speech_ms = 1000.0 * self._samples / SAMPLE_RATE
        if not self._started:
            return Recognition(None, "", False, 0.0, "silence")
        # The warp is chosen on the scores with all the audio in; only its decoders are ended
        # now, the others when the next utterance starts, so the answer does not wait for them,
        # unless it found no whole command and the other warps get a vote.
        pair = self._leader()
        verdict = self._verdict(pair)
        others = sorted((p for p in self._pairs if p is not pair),
                        key=lambda p: p.score, reverse=True)
        self._unfinished = [d for other in others for d in other.decoders]
        self._started = False
        in_length = self.tuning.min_speech_ms <= speech_ms <= self.tuning.max_speech_ms
        if self.tuning.warp_vote and in_length and not verdict.whole and len(others) >= 2:
            self._unfinished = []
            verdict = _outvoted(verdict, [self._verdict(other) for other in others]) or verdict
        ms = 1000.0 * (time.perf_counter() - began)
        heard, guess, strict = verdict.heard, verdict.guess, verdict.strict

        def result(command: str | None, unsure: bool, reason: str) -> Recognition:
            return Recognition(command, heard, unsure, ms, reason, speech_ms, guess, snr_db,
                               verdict.warp)

        if speech_ms < self.tuning.min_speech_ms:
            return result(None, False, "too short")
        if speech_ms > self.tuning.max_speech_ms:
            return result(None, False, "too long")
        if guess is None:
            return result(None, False, "not a command")
        if self._after_talk:
            return result(None, False, "part of longer talk")
        if self._allowed is not None and guess not in self._allowed:
            return result(None, False, "not valid now")
        if verdict.squeezed:
            return result(None, True, "cut short")
        if strict != guess:
            return result(None, True, "unsure")
        if snr_db < self.tuning.min_snr_db:
            return result(None, True, "too noisy")
        if verdict.fit < self.tuning.min_fit:
            return result(None, True, "poor match")
        return result(guess, False, "command")

    def _verdict(self, pair: _Pair) -> _Verdict:
        """End ``pair``'s utterance and read what its decoders heard (without the echo)."""
        lenient_text, strict_text = pair.lenient.finish(), pair.strict.finish()
        if self.tuning.echo_tails:
            lenient_text = pair.lenient.without_echo(lenient_text, self._levels)
            strict_text = pair.strict.without_echo(strict_text, self._levels)
        return _Verdict(pair.warp, self._display(lenient_text), self._command_of(lenient_text),
                        self._command_of(strict_text), bool(pair.lenient.squeezed()),
                        pair.lenient.fit())

    def recognize(self, pcm: bytes, allowed: Iterable[str] | None = None) -> Recognition:
        """Decode one whole utterance already cut from its surroundings."""
        with self._lock:
            self.reset_stream()
            self.start(allowed)
            for offset in range(0, len(pcm), 3200):
                self.feed(pcm[offset:offset + 3200])
            return self.finish()

    # ----- helpers ----------------------------------------------------------------------------

    def _words(self, text: str | None) -> list[str]:
        return [word for w in (text or "").split() if (word := _spoken(w)) is not None]

    def _command_of(self, text: str | None) -> str | None:
        words = self._words(text)
        if not words or any(w in self.garbage_words for w in words):
            return None
        return self.grammar.phrases.get(" ".join(words))

    def _display(self, text: str | None) -> str:
        """The raw text heard, ordinary (garbage) words in brackets: ``[the] [cat]``."""
        words = self._words(text)
        if any(w in self.garbage_words for w in words) or " ".join(words) not in self.grammar.phrases:
            return " ".join(f"[{w}]" if w in self.garbage_words else w for w in words)
        return " ".join(words)


def decode_pcm(recognizer: StreamingRecognizer, pcm: bytes, *, allowed: Iterable[str] | None = None,
               frame_ms: int = 20) -> Iterator[Recognition]:
    """Run a recording through the live pipeline: endpointer, streaming decoder, rejection.

    Yields one :class:`Recognition` per utterance the endpointer finds, exactly as the microphone
    listener would, so ``voice-rang recognize`` measures what play does.

    The endpointer learns the room from the recording's start, as live play learns it from the
    microphone; but a clip cut tight around the word has no room in it, and its first frame would
    make the word itself the noise floor, so that nothing is heard. A recording with no stretch of
    room in which the endpointer, so started, hears nothing is presumed made in a quiet room
    (:func:`.levels.presumed_floor_db`). Only then: babble and low rumble leave no steady
    stretch either, and presuming a quiet room there would let noisy speech pass for clean.
    """
    from .endpoint import Endpointer

    endpointer = Endpointer(sample_rate=SAMPLE_RATE, frame_ms=frame_ms)
    frame_bytes = endpointer.frame_bytes
    floor = presumed_floor_db(pcm, frame_bytes, frame_ms)
    if floor is not None:
        listener = Endpointer(sample_rate=SAMPLE_RATE, frame_ms=frame_ms)
        if not any(event.kind == "start"
                   for frame in frames(pcm, frame_bytes) for event in listener.process(frame)):
            endpointer.set_noise_floor(floor)
    recognizer.reset_stream()
    allowed_set = None if allowed is None else frozenset(allowed)
    pcm = pcm + b"\0" * (frame_bytes * int(1000 / frame_ms))  # a second of trailing silence
    previous: Recognition | None = None
    for frame in frames(pcm, frame_bytes):
        for event in endpointer.process(frame, recognizer.completion):
            if event.kind == "start":
                recognizer.start(allowed_set, after_talk=continues_talk(event.gap_ms, previous),
                                 gap_ms=event.gap_ms)
                recognizer.feed(event.audio)
            elif event.kind == "audio":
                recognizer.feed(event.audio)
            elif event.kind == "end":
                previous = recognizer.finish(event.snr_db)
                yield previous
            elif event.kind == "abandon":
                recognizer.feed(event.audio)
                result = recognizer.finish()
                recognizer.abort()  # long talk: nothing to say again
                previous = None
                yield Recognition(None, result.heard, False, result.ms, "too long",
                                  result.speech_ms, result.guess, warp=result.warp,
                                  confidence=result.confidence)
        if endpointer.may_close_next(recognizer.completion):
            recognizer.prepare()  # as the listener does, while the next frame is on its way


def summarize(results: Iterable[Recognition]) -> Recognition:
    """One answer for a recording: its first command, else its first unsure utterance, else what
    was heard first (or silence). A recording is meant to hold one command."""
    seen = list(results)
    for wanted in (lambda r: r.command is not None, lambda r: r.unsure, lambda r: True):
        for result in seen:
            if wanted(result):
                return result
    return Recognition(None, "", False, 0.0, "silence")
