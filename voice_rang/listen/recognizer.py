"""Command recognition with pocketsphinx 5, built to say "not a command" as readily as a command.

Why not a plain JSGF grammar: a grammar decoder always answers with *something* it knows, so on
ordinary talk near the microphone it "hears" a command nearly every time (pocketsphinx issue #75;
``benchmarks/bench_recognition.py`` measures it). Here the grammar has a second branch, a loop
over about 640 ordinary English words (the 500 most frequent, numbers, card names, the game's own
narration; never a command word or a homophone of one). Both branches compete inside one Viterbi
search, so their scores are comparable by construction: an utterance is a command only when the
command path beats every sequence of ordinary words. Two such decoders run side by side on the
same audio, one lenient (the garbage loop is expensive) and one strict (cheap): both agreeing is a
command; only the lenient one finding a command is *unsure* (the game says "I didn't catch that"
and does nothing); neither is not a command (silently ignored). Each pair of decoders hears the
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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..commands import CommandSet, normalize
from .levels import energy_db, frames, is_echo, presumed_floor_db
from .ordinary_words import COMMON, GAME

__all__ = [
    "MIN_GAP_MS",
    "SAMPLE_RATE",
    "STABLE_MS",
    "Completion",
    "Grammar",
    "Recognition",
    "Recognizer",
    "decode_pcm",
    "summarize",
]

SAMPLE_RATE = 16000
"""The acoustic model's rate: every caller resamples to it first."""

_FRAME_BYTES = SAMPLE_RATE // 100 * 2
"""One 10 ms frame of PCM16, the decoder's frame."""

MIN_GAP_MS = 400.0
"""Silence a command needs before it: less, and it is the next piece of someone's sentence."""

STATES_PER_PHONE = 3
"""Emitting states per phone in the bundled acoustic model, each held at least one 10 ms frame:
the fewest frames a word can take."""

SQUEEZE_SLACK_FRAMES = 1
"""A command word that took at most this many frames more than that fewest was squeezed in, not
said: the grammar must reach its end, so after "auto reveal" it fits "off" into 60 ms of the
fading tail. On the synthetic corpus no correctly heard word ever came closer than 3 frames."""

STABLE_MS = 60.0
"""How long both decoders must have agreed on a whole command before the endpointer may close
quickly on it: a guess that appears only in the fading tail of a word ("help" from the breath
after a fast "normal") has not held that long."""

_EXTRA_PRONUNCIATIONS = {
    # Words of the command phrases that CMUdict lacks.
    "verbosity": "V ER B AA S AH T IY",
}

_GARBAGE_WORDS = COMMON + GAME
"""Ordinary words the garbage branch can spell talk with (:mod:`.ordinary_words`). Command words
and their homophones are removed at start-up, so this list may contain them harmlessly."""

_WORD = re.compile(r"[a-z']+")

_ALTERNATIVE = re.compile(r"\(\d+\)$")
"""The suffix of an alternative pronunciation in the decoder's output: ``read(2)``."""


def _spoken(word: str) -> str | None:
    """A word of the decoder's output as the dictionary spells it, or ``None`` for what is not a
    word: silence (``<sil>``), fillers (``[NOISE]``, ``+breath+``).

    >>> _spoken("read(2)"), _spoken("<sil>"), _spoken("+breath+")
    ('read', None, None)
    """
    return None if word.startswith(("<", "[", "+")) else _ALTERNATIVE.sub("", word)


@dataclass(frozen=True)
class Recognition:
    """What one utterance was: a command, an unsure guess, or nothing for the game.

    ``command`` is a canonical id only when the recogniser is confident and the command is allowed
    now; ``unsure`` means it heard speech that might have been a command (the game asks "Did you
    say …?" about ``guess`` and never acts without a yes); ``heard`` is the raw grammar text
    (garbage words in brackets); ``ms`` is decode time, from the end of the audio to the answer.
    """

    command: str | None
    heard: str
    unsure: bool
    ms: float
    reason: str = ""
    """``command``, ``unsure``, ``too noisy``, ``cut short`` (a command word fitted into the last
    few frames: "auto reveal" said without "on"), ``poor match`` (the command won over ordinary
    words but matches the sound poorly: :attr:`Tuning.min_fit`), ``not a command``,
    ``not valid now``, ``part of longer talk``, ``too short``, ``too long``, ``silence``."""
    speech_ms: float = 0.0
    """Length of the audio decoded, for duration sanity and reports."""
    guess: str | None = None
    """The command the lenient decoder leaned to, even when not accepted (what an unsure answer
    asks about)."""
    snr_db: float = math.inf
    """How far the speech stood above the room's noise (from the endpointer; infinite if unknown)."""
    warp: float = 1.0
    """The vocal tract warp the answer was heard through (:attr:`Tuning.warps`)."""


class Completion(Enum):
    """How far a partial hypothesis is through a command: the endpointer's hint."""

    NONE = "none"
    """Nothing command-like yet (or ordinary words): normal hangover."""
    PREFIX = "prefix"
    """The start of a longer command ("auto reveal"): wait longer."""
    COMPLETE_PREFIX = "complete-prefix"
    """A whole command that a longer one extends: wait longer."""
    COMPLETE = "complete"
    """A whole command nothing extends: close the utterance after a short silence."""


@dataclass(frozen=True)
class Tuning:
    """The numbers rejection hangs on (natural-log units per garbage word, before the language
    weight). Chosen by ``bench_recognition.py --sweep`` on the tuning speakers (flite and festival
    kal, awb, rms) and checked on a held-out speaker (slt): see ``docs/voice.md``."""

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
    command taken for talk (``bench_recognition.py --no-echo-tails``; docs/voice.md)."""
    warp_vote: bool = True
    """When the warp that fits best hears no whole command, two other warps that each hear the
    same whole command, with no warp leaning to any other, outvote it (:func:`_outvoted`). The
    best fit is chosen on small score differences, and across a room it is often the warp that
    spells the echo as a word: on the corpus's room copies this took commands heard from about
    72 % to 76 %, with dry speech and false accepts unchanged (``bench_recognition.py
    --no-warp-vote``; docs/voice.md). One warp alone never outvotes the best: that heard more
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
    while the talk of theirs taken for a command fitted at a median of -0.0048 (docs/voice.md,
    ``bench_recognition.py --min-fit=-inf``)."""
    min_snr_db: float = 20.0
    """Below this signal-to-noise ratio (the endpointer's measure) a command is *too noisy*: never
    acted on, and the player is told why. The bundled model is fragile in noise: on the 10 dB
    copies of the corpus it took about one noisy command in five for the wrong one and a third of
    noisy talk for a command (``bench_recognition.py``; see docs/voice.md). Speech close to the
    microphone in a quiet room stands 30 dB or more above the noise and is not affected."""


@dataclass
class Grammar:
    """The spoken command phrases of one :class:`CommandSet` as word sequences, and their
    prefixes."""

    commands: CommandSet
    phrases: dict[str, str] = field(default_factory=dict)
    """Normalised phrase -> command id."""

    def __post_init__(self) -> None:
        for command, phrases in self.commands.spoken().items():
            for phrase in phrases:
                self.phrases.setdefault(normalize(phrase), command)

    def words(self) -> set[str]:
        return {word for phrase in self.phrases for word in phrase.split()}

    def completion(self, text: str, allowed: frozenset[str] | None = None) -> Completion:
        """Where ``text`` (normalised words) stands against the phrases allowed now.

        >>> g = Grammar(CommandSet.load("en"))
        >>> g.completion("auto reveal").value, g.completion("status").value
        ('prefix', 'complete')
        """
        text = normalize(text)
        if not text:
            return Completion.NONE
        phrases = [p for p, c in self.phrases.items() if allowed is None or c in allowed]
        whole = text in phrases
        longer = any(p.startswith(text + " ") for p in phrases)
        if whole:
            return Completion.COMPLETE_PREFIX if longer else Completion.COMPLETE
        return Completion.PREFIX if longer else Completion.NONE


class _FrontEnds:
    """Builds every decoder's front end, so that each really hears through its own warp.

    pocketsphinx keeps the vocal tract warp in process-wide state (``fe_warp_inverse_linear.c``):
    every decoder made or rebuilt without a warp switches warping off for all, and a warp given
    as the same text as the last one parsed is not parsed again, so it stays off. Each front end
    builds its filter bank from that state when it is (re)built. Left alone, a lone warped
    decoder, or the second of two with the same warp, silently heard the plain model whenever a
    decoder without a warp had been built just before. Here every build is serialised, and a
    warp is always given as text that differs from the last parsed ("1.4", then "1.4 "), so it
    is parsed again.
    """

    _lock = threading.Lock()
    _last_parsed = ""

    @classmethod
    def decoder(cls, warp: float, **options: Any) -> Any:
        """A pocketsphinx ``Decoder`` whose front end warps by ``warp`` (1.0: not at all)."""
        import pocketsphinx

        with cls._lock:
            ps = pocketsphinx.Decoder(**options)
            cls._rebuild(ps, warp)
            return ps

    @classmethod
    def rebuild(cls, ps: Any, warp: float) -> None:
        """Rebuild ``ps``'s front end (after a config change), keeping its warp."""
        with cls._lock:
            cls._rebuild(ps, warp)

    @classmethod
    def _rebuild(cls, ps: Any, warp: float) -> None:
        if warp != 1.0:
            # Front-end settings must go through the config and reinit_feat(): as Decoder
            # arguments they are overridden by the model's feat.params.
            text = f"{warp:g}"
            if text == cls._last_parsed:
                text += " "  # read as the same number, but parsed again
            ps.config["warp_type"] = "inverse_linear"
            ps.config["warp_params"] = text
            cls._last_parsed = text
        ps.reinit_feat()


class _Decoder:
    """One pocketsphinx decoder with a command-or-garbage grammar per allowed set."""

    def __init__(self, grammar: Grammar, garbage: list[str], garbage_logp: float,
                 entry_logp: float, *, dictionary: str, warp: float = 1.0) -> None:
        import pocketsphinx

        self.grammar = grammar
        self.command_words = grammar.words()
        self.garbage = garbage
        self.garbage_logp = garbage_logp
        self.entry_logp = entry_logp
        self.warp = warp
        self.ps = _FrontEnds.decoder(
            warp, hmm=pocketsphinx.get_model_path("en-us/en-us"), dict=dictionary,
            lm=None, bestpath=False, loglevel="FATAL", samprate=SAMPLE_RATE,
        )
        self.lw = float(self.ps.config["lw"])
        self._searches: dict[frozenset[str] | None, str] = {}
        self._grammars: list[object] = []
        self._active_search = ""
        self._cmninit = str(self.ps.config["cmninit"])
        self.active: frozenset[str] | None = None

    def _log(self, ln_prob: float) -> int:
        """Natural-log probability to the decoder's log base, scaled by the language weight."""
        return int(self.ps.logmath.ln_to_log(ln_prob) * self.lw)

    def build(self, allowed: frozenset[str] | None) -> str:
        """The search for this allowed set (built once, then cached)."""
        name = self._searches.get(allowed)
        if name is not None:
            return name
        import pocketsphinx

        name = f"commands-{len(self._searches)}"
        allowed_phrases = [p for p, c in self.grammar.phrases.items()
                           if allowed is None or c in allowed]
        barred_words = sorted({w for p, c in self.grammar.phrases.items()
                               if not (allowed is None or c in allowed) for w in p.split()}
                              - {w for p in allowed_phrases for w in p.split()})
        garbage = [*self.garbage, *barred_words]
        states = 2 + sum(len(p.split()) for p in allowed_phrases)
        fsg = pocketsphinx.FsgModel(name, self.ps.logmath, self.lw, states)
        start, final = 0, 1
        fsg.set_start_state(start)
        fsg.set_final_state(final)
        next_state = 2
        choose = self._log(-math.log(max(1, len(allowed_phrases))))
        for phrase in allowed_phrases:
            src = start
            words = phrase.split()
            for index, word in enumerate(words):
                dst = final if index == len(words) - 1 else next_state
                if dst != final:
                    next_state += 1
                fsg.trans_add(src, dst, choose if index == 0 else 0, fsg.word_add(word))
                src = dst
        # The garbage branch: start -(entry, word)-> final, then final -(word)-> final. It ends
        # in the final state itself because fsg_search does not follow a null transition into the
        # final state at the last frame; a command followed by ordinary words also lands here.
        per_word = self._log(self.garbage_logp)
        entry = self._log(self.entry_logp) + per_word
        for word in garbage:
            wid = fsg.word_add(word)
            fsg.trans_add(start, final, entry, wid)
            fsg.trans_add(final, final, per_word, wid)
        self.ps.add_fsg(name, fsg)
        self._grammars.append(fsg)  # the search borrows it: keep it alive as long as the decoder
        self._searches[allowed] = name
        return name

    def reset_stream(self) -> None:
        """Forget what the front end learnt from earlier audio (cepstral mean, noise estimate):
        ``set_cmn`` alone leaves the noise-removal state behind, and the decoder writes its running
        mean back into ``cmninit``, so both are restored or decoding would depend on history."""
        self.ps.config["cmninit"] = self._cmninit
        _FrontEnds.rebuild(self.ps, self.warp)

    def start(self, allowed: frozenset[str] | None) -> None:
        name = self.build(allowed)
        if self._active_search != name:  # (current_search() crashes before any activation)
            self.ps.activate_search(name)
            self._active_search = name
        self.active = allowed
        self.ps.start_utt()

    def feed(self, pcm: bytes) -> None:
        if pcm:
            self.ps.process_raw(pcm, False, False)

    def hypothesis(self) -> tuple[str, float]:
        """The best path so far: its words and its score (log base of the decoder; higher is a
        better match; minus infinity before any path)."""
        hyp = self.ps.hyp()
        return ("", -math.inf) if hyp is None else (hyp.hypstr, float(hyp.score))

    def partial(self) -> str:
        return self.hypothesis()[0]

    def finish(self) -> str | None:
        """The final hypothesis; ``None`` when no path reached the end of the grammar."""
        self.ps.end_utt()
        hyp = self.ps.hyp()
        return None if hyp is None else hyp.hypstr

    def without_echo(self, text: str | None, levels: Sequence[float]) -> str | None:
        """The final text without the ordinary words after an allowed command when they are
        only the command's echo (:func:`.levels.is_echo`; ``levels``: the utterance's 10 ms
        frames, as the decoder's). Any other text comes back as it was."""
        if text is None:
            return None
        words = [(word, segment.end_frame) for segment in self.ps.seg() or []
                 if (word := _spoken(segment.word)) is not None]
        for length in range(len(words) - 1, 0, -1):
            phrase = " ".join(word for word, _ in words[:length])
            command = self.grammar.phrases.get(phrase)
            if command is not None and (self.active is None or command in self.active):
                if is_echo(levels, words[length - 1][1], words[-1][1]):
                    return phrase
                break
        return text

    def _command_segments(self) -> list[tuple[Any, int]]:
        """The final path's command-word segments, each with the frames it took."""
        return [(segment, segment.end_frame - segment.start_frame + 1)
                for segment in self.ps.seg() or []
                if _spoken(segment.word) in self.command_words]

    def fit(self) -> float:
        """Mean natural-log acoustic score per frame of the final path's command words (0 when
        it has none): how closely the sound matches them, each frame scored against the best
        senone of that frame. Read after :meth:`finish`."""
        segments = self._command_segments()
        count = sum(length for _, length in segments)
        # ascore is a probability here (the binding exponentiates the log score)
        score = sum(math.log(max(segment.ascore, 1e-300)) for segment, _ in segments)
        return score / count if count else 0.0

    def squeezed(self) -> list[str]:
        """Command words of the final path held for (nearly) the fewest frames the model allows
        (ordinary words are not asked about: an echo after the command may be short)."""
        words = []
        for segment, length in self._command_segments():
            phones = self.ps.lookup_word(segment.word)
            if phones and length <= STATES_PER_PHONE * len(phones.split()) + SQUEEZE_SLACK_FRAMES:
                words.append(segment.word)
        return words


@dataclass
class _Pair:
    """A lenient and a strict decoder hearing the audio through one vocal tract warp."""

    warp: float
    lenient: _Decoder
    strict: _Decoder
    heard: set[str] = field(default_factory=set)
    """What each decoder holds so far (normalised partial hypotheses)."""
    agreed: tuple[str, int] = ("", 0)
    """The text both decoders last agreed on ("" while they differ), and the sample count when
    that began."""
    score: float = -math.inf
    """The lenient decoder's best path score so far: how well this warp fits the utterance."""

    @property
    def decoders(self) -> tuple[_Decoder, _Decoder]:
        return self.lenient, self.strict

    def start(self, allowed: frozenset[str] | None) -> None:
        for decoder in self.decoders:
            decoder.start(allowed)
        self.heard = set()
        self.agreed = ("", 0)
        self.score = -math.inf

    def feed(self, pcm: bytes, samples: int) -> None:
        """Decode a chunk; ``samples`` is the utterance length after it."""
        for decoder in self.decoders:
            decoder.feed(pcm)
        (lenient, self.score), (strict, _) = (d.hypothesis() for d in self.decoders)
        self.heard = {normalize(lenient), normalize(strict)}
        agreed = next(iter(self.heard)) if len(self.heard) == 1 else ""
        if agreed != self.agreed[0]:
            self.agreed = (agreed, samples)


@dataclass(frozen=True)
class _Verdict:
    """What one warp's pair of decoders made of a finished utterance."""

    warp: float
    heard: str
    """The lenient decoder's text, ordinary words in brackets."""
    guess: str | None
    """The command the lenient decoder heard, if any."""
    strict: str | None
    """The command the strict decoder heard, if any."""
    squeezed: bool
    """A command word of the lenient path took (nearly) the fewest frames the model allows."""
    fit: float = 0.0
    """How well the lenient path's command words match the sound (:attr:`Tuning.min_fit`)."""

    @property
    def whole(self) -> bool:
        """Both decoders hold the same command, and none of its words was squeezed in."""
        return self.guess is not None and self.strict == self.guess and not self.squeezed


def _outvoted(best: _Verdict, others: Sequence[_Verdict]) -> _Verdict | None:
    """The verdict that replaces ``best`` (the best-fitting warp's) when it heard no whole
    command: the first of ``others`` to hear one, if at least two of them hear it whole and no
    warp at all leans to a different command. ``None`` keeps ``best``.

    >>> talk = _Verdict(1.4, "[those]", None, None, False)
    >>> yes = _Verdict(0.85, "yes", "yes", "yes", False)
    >>> _outvoted(talk, [yes, yes]).heard, _outvoted(talk, [yes, talk])
    ('yes', None)
    >>> help_ = _Verdict(1.0, "help", "help", None, False)
    >>> _outvoted(help_, [yes, yes]) is None   # a warp leaning to another command blocks it
    True
    """
    if best.whole:
        return None
    guesses = {v.guess for v in (best, *others) if v.guess is not None}
    whole = [v for v in others if v.whole]
    return whole[0] if len(guesses) == 1 and len(whole) >= 2 else None


def _pronunciations(words: set[str]) -> dict[str, list[str]]:
    """CMUdict's pronunciations (first the main one) of the words given that it knows.

    Reading the 135,000-word dictionary once here and giving each decoder only the words it can
    hear makes a decoder load in a tenth of the time (17 ms, not 170), which matters with six."""
    import pocketsphinx

    found: dict[str, list[str]] = {}
    with open(pocketsphinx.get_model_path("en-us/cmudict-en-us.dict"), encoding="utf-8") as dic:
        for line in dic:
            entry, _, phones = line.strip().partition(" ")
            word = entry.split("(", 1)[0]
            if word in words:
                found.setdefault(word, []).append(" ".join(phones.split()))
    return found


def _write_dictionary(pronunciations: dict[str, list[str]], words: Iterable[str]) -> str:
    """A pocketsphinx dictionary file of just ``words``; the caller deletes it."""
    import tempfile

    lines = [f"{word if n == 0 else f'{word}({n + 1})'} {phones}"
             for word in sorted(set(words)) for n, phones in enumerate(pronunciations[word])]
    with tempfile.NamedTemporaryFile("w", suffix=".dict", delete=False, encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    return out.name


def _garbage_vocabulary(pronunciations: dict[str, list[str]], grammar: Grammar,
                        candidates: Iterable[str]) -> list[str]:
    """Ordinary words minus command words and anything that sounds like a command word."""
    command_words = grammar.words()
    command_sounds = {pronunciations[w][0] for w in command_words}
    chosen: list[str] = []
    for word in sorted(set(candidates)):
        if word in command_words or word not in pronunciations:
            continue
        if pronunciations[word][0] in command_sounds:
            continue
        chosen.append(word)
    return chosen


_NEIGHBOURS: dict[tuple[str, ...], list[str]] = {}


def _neighbour_words(command_prons: Iterable[str]) -> list[str]:
    """One spelling per CMUdict pronunciation that differs from a command word's by one phone:
    substituted anywhere, or added at either end. Homophones (distance 0) are not neighbours."""
    import pocketsphinx

    targets = {tuple(p.split()) for p in command_prons if len(p.split()) >= 2}
    key = tuple(sorted(" ".join(t) for t in targets))
    cached = _NEIGHBOURS.get(key)
    if cached is not None:
        return cached
    substituted = {(i, t[:i] + t[i + 1:]) for t in targets for i in range(len(t))}
    lengths = {len(t) for t in targets}
    chosen: dict[tuple[str, ...], str] = {}
    with open(pocketsphinx.get_model_path("en-us/cmudict-en-us.dict"), encoding="utf-8") as dic:
        for line in dic:
            word, *phones = line.split()
            if not word.isalpha() or len(word) < 2:
                continue
            pron = tuple(phones)
            if pron in targets or pron in chosen:
                continue
            if (pron[1:] in targets or pron[:-1] in targets
                    or (len(pron) in lengths
                        and any((i, pron[:i] + pron[i + 1:]) in substituted
                                for i in range(len(pron))))):
                chosen[pron] = word
    _NEIGHBOURS[key] = sorted(chosen.values())
    return _NEIGHBOURS[key]


def _narration_words(language: str) -> set[str]:
    """Words of the game's own messages: what the microphone will hear from the loudspeaker."""
    try:
        from ..prompts import load_prompts

        messages = load_prompts(language).messages
    except Exception:
        return set()
    words: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            words.update(_WORD.findall(re.sub(r"\{[^}]*\}", " ", value.lower())))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(messages)
    return words


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
        candidates = set(_WORD.findall(_GARBAGE_WORDS.lower())) | _narration_words(language)
        # A typed-only phrase said aloud is talk: its words spell it, not the nearest command.
        candidates |= {w for p in commands.typed_only for w in _WORD.findall(p.lower())}
        pronunciations = _pronunciations(candidates | command_words)
        for word in command_words - set(pronunciations):
            phones = _EXTRA_PRONUNCIATIONS.get(word)
            if phones is None:
                raise ValueError(f"no pronunciation for the command word {word!r}")
            pronunciations[word] = [phones]
        if self.tuning.neighbours:
            neighbours = set(_neighbour_words(pronunciations[w][0] for w in command_words))
            pronunciations |= _pronunciations(neighbours)
            candidates |= neighbours
        garbage = _garbage_vocabulary(pronunciations, self.grammar, candidates)
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

    def start(self, allowed: Iterable[str] | None = None, *, after_talk: bool = False) -> None:
        """Begin an utterance, listening only for ``allowed`` command ids (all when ``None``).

        ``after_talk``: speech began right after other speech (a short pause inside a sentence);
        it is decoded but never taken as a command, because a command is said on its own.
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


def decode_pcm(recognizer: Recognizer, pcm: bytes, *, allowed: Iterable[str] | None = None,
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
    for frame in frames(pcm, frame_bytes):
        for event in endpointer.process(frame, recognizer.completion):
            if event.kind == "start":
                recognizer.start(allowed_set, after_talk=event.gap_ms < MIN_GAP_MS)
                recognizer.feed(event.audio)
            elif event.kind == "audio":
                recognizer.feed(event.audio)
            elif event.kind == "end":
                yield recognizer.finish(event.snr_db)
            elif event.kind == "abandon":
                recognizer.feed(event.audio)
                result = recognizer.finish()
                yield Recognition(None, result.heard, False, result.ms, "too long",
                                  result.speech_ms, result.guess, warp=result.warp)


def summarize(results: Iterable[Recognition]) -> Recognition:
    """One answer for a recording: its first command, else its first unsure utterance, else what
    was heard first (or silence). A recording is meant to hold one command."""
    seen = list(results)
    for wanted in (lambda r: r.command is not None, lambda r: r.unsure, lambda r: True):
        for result in seen:
            if wanted(result):
                return result
    return Recognition(None, "", False, 0.0, "silence")
