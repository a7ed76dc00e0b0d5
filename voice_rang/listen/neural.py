"""The live recogniser: the grammar decoders and the neural command head hear the same audio, and
one rule (:mod:`.decision`) decides.

Receives and emits exactly what :class:`.recognizer.Recognizer` does (the
:class:`.results.StreamingRecognizer` protocol), so the microphone listener, ``decode_pcm`` and
``voice-rang recognize`` drive either. The grammar decoders still give the endpointer its hint (a
whole command closes the utterance after 100 ms of silence) and a second opinion. The released
head reads Moonshine's encoder (:mod:`.front`), which is run on a thread of its own from the frame
before the endpoint, so the endpoint waits only for what that frame did not cover and the head (a
few milliseconds); a head on a streaming front (:class:`.front.StreamingFront`, which the
benchmarks add for the heads before it) has it computed while the person speaks.

Where Moonshine's model cannot be had (it has no package for the platform, or it cannot be
made ready), :func:`live_recognizer` listens with the grammar decoders alone and says why once.
"""

from __future__ import annotations

import importlib.util
import math
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from ..commands import CommandSet
from .command_head import FRONT_MOONSHINE, CommandHead, HeadScores, ModelCorrupt
from .decision import Lean, Rule, decide, said_again
from .front import StreamingFront, front_of
from .moonshine import PACKAGE, MoonshineUnavailable, shared_encoder
from .personal import PersonalMatch, PersonalVoice
from .recognizer import Recognizer, Tuning
from .results import Completion, Recognition, StreamingRecognizer
from .wheel_files import package_folder

__all__ = ["NeuralRecognizer", "live_recognizer", "neural_front_missing"]


class NeuralRecognizer:
    """Grammar decoders + the command head on its front (+ the player's takes), one answer.

    Not thread-safe: one listener owns it (as :class:`.recognizer.Recognizer`)."""

    def __init__(self, commands: CommandSet, *, language: str = "en", tuning: Tuning | None = None,
                 rule: Rule | None = None, head: CommandHead | None = None,
                 personal: PersonalVoice | None = None) -> None:
        self.commands = commands
        self.grammar = Recognizer(commands, language=language, tuning=tuning)
        self.head = head or CommandHead.released()
        self.rule = rule or Rule(accept=self.head.accept, ask=self.head.ask)
        self.personal = personal if personal else None
        front = front_of(self.head)
        self._stream: StreamingFront | None = None
        """The head's front as the person speaks, for a front computed so; ``None`` for a head on
        an encoder, which reads the whole utterance kept in ``_pcm``."""
        self._encoding: ThreadPoolExecutor | None = None
        """Where the encoder runs ahead of the endpoint, beside the listener's next frame."""
        self._whole: Callable[[bytes | np.ndarray], np.ndarray] | None = None
        """What the head reads of a whole utterance (an encoder's states); ``None`` for a front
        read as the person speaks."""
        if front.stream is not None:
            self._stream = front.stream(self.head)
        else:
            head = self.head
            self._whole = lambda pcm: front.whole(pcm, head)
            if self.head.front == FRONT_MOONSHINE:
                shared_encoder()  # loaded now, where a missing model can be said, not at the first word
            else:
                self._whole(b"\0\0" * 1600)  # the same
            self._encoding = ThreadPoolExecutor(1, thread_name_prefix="voice-rang-encoder")
        self._last_chunk = 0
        self._prepared: tuple[int, np.ndarray | Future[np.ndarray]] | None = None
        self._allowed: frozenset[str] | None = None
        self._before: tuple[Recognition, Lean] | None = None
        """The answer to the last utterance and the head's lean on it, for a command said again
        (:func:`.decision.said_again`); ``None`` after talk too long to decode or the game's speech."""
        self._earlier: tuple[Recognition, Lean] | None = None
        """``_before`` when the utterance now in progress began soon enough after it."""
        self._lock = threading.Lock()
        self._pcm = bytearray()
        self.last: list[tuple[Recognition, HeadScores, PersonalMatch | None, np.ndarray]] = []
        """What each model said of each utterance since :meth:`reset_stream`, and what the head
        read of it, for benchmarks that weigh other rules or heads on the same decoding."""
        self.keep_audio = False
        """Keep in :attr:`audio` each whole utterance (benchmarks hear it again with other models)."""
        self.audio: list[bytes] = []
        """Each utterance of :attr:`last` as the microphone gave it (PCM16), when :attr:`keep_audio`."""
        self.keep_read = False
        """Keep in :attr:`read` what the head read of each utterance (benchmarks)."""
        self.read: list[bytes] = []
        """Each utterance of :attr:`last` as the head read it (PCM16), when :attr:`keep_read`."""

    def reset_stream(self) -> None:
        self.grammar.reset_stream()
        self._restart()
        self._before = None
        self.last = []
        self.audio = []
        self.read = []

    def _restart(self) -> None:
        if self._stream is not None:
            self._stream.start()
        self._last_chunk = 0
        self._drop_prepared()
        self._pcm = bytearray()

    def start(self, allowed: Iterable[str] | None = None, *, after_talk: bool = False,
              gap_ms: float = math.inf) -> None:
        self._allowed = None if allowed is None else frozenset(allowed)
        self._earlier = self._before if gap_ms <= self.rule.again_within_ms else None
        self.grammar.start(allowed, after_talk=after_talk)
        self._restart()

    def feed(self, pcm: bytes) -> None:
        self.grammar.feed(pcm)
        if self._stream is not None:
            self._stream.feed(pcm)
        if self.keep_audio or self._stream is None:
            self._pcm += pcm
        self._last_chunk = len(pcm) // 2

    def prepare(self) -> None:
        """The utterance may end with the next frame: compute now what :meth:`finish` will give
        the head, while that frame is still on its way. The head reads the utterance up to the
        frame before the endpointer's last (a frame of room, never of the word: the endpointer
        closes after 100 ms of silence or more); so this is the same answer computed a frame
        early, and :meth:`finish` computes it itself when the end comes at another frame.
        Moonshine's encoder, 20-40 ms, longer than a frame, runs on its own thread, so the
        listener takes in the next frame meanwhile and :meth:`finish` waits only for what is left
        of it; a streaming front finishes here at once. (The head itself, about 1 ms, stays at the
        end: run here too, the answers came no sooner in ``bench_latency.py``.)"""
        if self._stream is not None:
            self._prepared = (self._stream.samples, self._stream.finish())
        elif self._encoding is not None and self._whole is not None:  # the encoder, beside the next frame
            self._drop_prepared()  # the utterance went on: that answer is never read
            self._prepared = (len(self._pcm) // 2, self._encoding.submit(self._whole, bytes(self._pcm)))

    def _drop_prepared(self) -> None:
        """Forget the answer made ahead; an encoding not yet begun is cancelled, so the next one
        does not wait behind it."""
        if self._prepared is not None and isinstance(self._prepared[1], Future):
            self._prepared[1].cancel()
        self._prepared = None

    def completion(self) -> Completion:
        return self.grammar.completion()

    def abort(self) -> None:
        """Drop the utterance in progress (the game spoke over it, or it was talk too long to
        decode), and with it what was heard before: what comes next is not said again."""
        self.grammar.abort()
        self._restart()
        self._before = self._earlier = None

    def finish(self, snr_db: float = math.inf) -> Recognition:
        began = time.perf_counter()
        heard = self.grammar.finish(snr_db)
        if heard.reason == "silence":
            return heard
        if self._stream is None:
            read = max(len(self._pcm) // 2 - self._last_chunk, 0)
        else:
            self._stream.close()
            read = self._stream.samples - self._last_chunk
        prepared, self._prepared = self._prepared, None
        ahead = prepared[1] if prepared is not None and prepared[0] == read else None
        utterance: np.ndarray
        if isinstance(ahead, Future):
            utterance = ahead.result()
        elif ahead is not None:
            utterance = ahead
        elif self._whole is not None:
            utterance = self._whole(bytes(self._pcm[:2 * read]))
        else:
            assert self._stream is not None  # a head not read whole reads its front as it comes
            utterance = self._stream.finish(leave_out=self._last_chunk)
        if self.keep_read and self._stream is None:
            self.read.append(bytes(self._pcm[:2 * read]))
        scores = self.head.scores(utterance)
        match = self.personal.match(utterance, self._allowed) if self.personal else None
        self.last.append((heard, scores, match, utterance))
        result = decide(heard, scores, self._allowed, self.rule, match)
        if self.keep_audio:
            self.audio.append(bytes(self._pcm))
        lean = scores.best(self._allowed)[:2]
        result = said_again(result, lean, self._earlier, self.rule)
        self._before, self._earlier = (result, lean), None
        ms = heard.ms + 1000.0 * (time.perf_counter() - began)
        return Recognition(result.command, result.heard, result.unsure, ms, result.reason,
                           result.speech_ms, result.guess, result.snr_db, result.warp,
                           result.confidence, result.personal)

    def recognize(self, pcm: bytes, allowed: Iterable[str] | None = None) -> Recognition:
        """Decode one whole utterance already cut from its surroundings, fed in the listener's
        frames; as in play, the head reads it up to its last frame."""
        with self._lock:
            self.reset_stream()
            self.start(allowed)
            for offset in range(0, len(pcm), 640):  # the listener's 20 ms frames
                self.feed(pcm[offset:offset + 640])
            return self.finish()


def neural_front_missing() -> str | None:
    """Why the command head cannot listen here, in one sentence, or ``None`` when it can: its
    front is Moonshine's encoder, run by onnxruntime, and neither comes as a wheel for every
    platform (``pyproject.toml`` installs them where they do)."""
    if package_folder(PACKAGE) is None:
        return "Moonshine's speech model has no package for this computer"
    if importlib.util.find_spec("onnxruntime") is None:
        return "onnxruntime, which runs Moonshine's speech model, is not installed"
    return None


def live_recognizer(commands: CommandSet, *, language: str = "en", personal: bool = True,
                    plain: Callable[[str], None] | None = None) -> StreamingRecognizer:
    """What ``voice-rang play`` and ``voice-rang recognize`` listen with: the neural rule, with
    the player's enrolled takes when there are some (and ``personal``).

    Without takes the neural rule still heard more of held-out voices' commands than the grammar
    decoders alone in every condition, with fewer of them wrong, and under a radio that stays on
    it heard commands the grammar decoders heard none of (docs/voice.md). Every language listens
    for the same English phrases (``prompts/*.toml``); ``language`` gives the grammar decoders that
    language's narration as words that are not commands. ``recognize --no-personal`` leaves the
    takes out.

    Where the command head cannot be had (:func:`neural_front_missing`, a model that cannot be
    made ready, a damaged head), the grammar decoders listen alone, as they did before the head:
    voice play goes on with less, and ``plain`` is told why, once, in one sentence."""
    why = neural_front_missing()
    if why is None:
        try:
            voice = PersonalVoice.load(known=set(commands.phrases)) if personal else None
            return NeuralRecognizer(commands, language=language, personal=voice)
        except (MoonshineUnavailable, ModelCorrupt) as error:
            why = str(error).rstrip(".")
    if plain is not None:
        plain(why)
    return Recognizer(commands, language=language)
