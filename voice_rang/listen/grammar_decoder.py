"""The grammar decoders: pocketsphinx with a command-or-ordinary-words grammar, in lenient and
strict pairs, one pair per vocal tract warp. :class:`.recognizer.Recognizer` runs them and
decides; this module only decodes and reports what each decoder heard and how well it fitted.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..commands import CommandSet, normalize
from .levels import is_echo
from .results import SAMPLE_RATE, Completion

_FRAME_BYTES = SAMPLE_RATE // 100 * 2
"""One 10 ms frame of PCM16, the decoder's frame."""

STATES_PER_PHONE = 3
"""Emitting states per phone in the bundled acoustic model, each held at least one 10 ms frame:
the fewest frames a word can take."""

SQUEEZE_SLACK_FRAMES = 1
"""A command word that took at most this many frames more than that fewest was squeezed in, not
said: the grammar must reach its end, so after "auto reveal" it fits "off" into 60 ms of the
fading tail. On the synthetic corpus no correctly heard word ever came closer than 3 frames."""

_ALTERNATIVE = re.compile(r"\(\d+\)$")
"""The suffix of an alternative pronunciation in the decoder's output: ``read(2)``."""


def _spoken(word: str) -> str | None:
    """A word of the decoder's output as the dictionary spells it, or ``None`` for what is not a
    word: silence (``<sil>``), fillers (``[NOISE]``, ``+breath+``).

    >>> _spoken("read(2)"), _spoken("<sil>"), _spoken("+breath+")
    ('read', None, None)
    """
    return None if word.startswith(("<", "[", "+")) else _ALTERNATIVE.sub("", word)


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
