"""The live recogniser: the grammar decoders and the neural command head hear the same audio, and
one rule (:mod:`.decision`) decides.

Receives and emits exactly what :class:`.recognizer.Recognizer` does (the
:class:`.results.StreamingRecognizer` protocol), so the microphone listener, ``decode_pcm`` and
``voice-rang recognize`` drive either. The grammar decoders still give the endpointer its hint (a
whole command closes the utterance after 100 ms of silence) and a second opinion. The released
head reads Moonshine's encoder (:mod:`.front`), which is run on a thread of its own from the frame
before the endpoint, so the endpoint waits only for what that frame did not cover and the head (a
few milliseconds); a head on the speech embedding has it computed while the person speaks. With
a second ear loaded and ``Rule.second_ear`` on, an utterance the rule does not act on is heard
again by Moonshine (:mod:`.transcriber`, about 0.1 s); neither is part of the live path
(``Rule.second_ear``).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from ..commands import CommandSet
from .command_head import FRONT_MOONSHINE, HEARS_SUPPRESSED, CommandHead, HeadScores
from .decision import Lean, Rule, decide, hear_again, said_again, settle
from .embedding import EmbeddingStream, SpeechEmbedding
from .front import whole_utterance_reader
from .moonshine import MoonshineModel, shared_encoder
from .personal import PersonalMatch, PersonalVoice
from .recognizer import Recognizer, Tuning
from .results import Completion, Recognition
from .suppress import UtteranceSuppressor
from .transcriber import Transcriber, Verdict

__all__ = ["CANDIDATES", "NeuralRecognizer", "live_recognizer"]

CANDIDATES = 3
"""The head's likeliest commands (valid now) that the second ear weighs, with the grammar
decoders' guess: each costs the decoder a few tokens."""


class NeuralRecognizer:
    """Grammar decoders + speech embedding + command head (+ the player's takes), one answer.

    Not thread-safe: one listener owns it (as :class:`.recognizer.Recognizer`)."""

    def __init__(self, commands: CommandSet, *, language: str = "en", tuning: Tuning | None = None,
                 rule: Rule | None = None, head: CommandHead | None = None,
                 personal: PersonalVoice | None = None) -> None:
        self.commands = commands
        self.grammar = Recognizer(commands, language=language, tuning=tuning)
        self.head = head or CommandHead.released()
        self.rule = rule or Rule(accept=self.head.accept, ask=self.head.ask)
        self.personal = personal if personal else None
        self._stream: EmbeddingStream | None = None
        """The speech embedding as the person speaks, for a head that reads it; ``None`` for a head
        on an encoder, which reads the whole utterance kept in ``_pcm``."""
        self._encoding: ThreadPoolExecutor | None = None
        """Where the encoder runs ahead of the endpoint, beside the listener's next frame."""
        self._whole = whole_utterance_reader(self.head.front)
        """What the head reads of a whole utterance (an encoder's states); ``None`` for the speech
        embedding, read as the person speaks."""
        if self.head.front == FRONT_MOONSHINE:
            shared_encoder()  # loaded now, where a missing model can be said, not at the first word
        elif self._whole is not None:
            self._whole(b"\0\0" * 1600)  # the same
        if self._whole is not None:
            self._encoding = ThreadPoolExecutor(1, thread_name_prefix="voice-rang-encoder")
        else:
            self._stream = EmbeddingStream(SpeechEmbedding.shared())
        self._suppressor: UtteranceSuppressor | None = None
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
        self.transcriber: Transcriber | None = None
        """The second ear (benchmarks only: ``Rule.second_ear``); ``None`` until
        :meth:`load_second_ear`."""
        self.last: list[tuple[Recognition, HeadScores, PersonalMatch | None, np.ndarray]] = []
        """What each model said of each utterance since :meth:`reset_stream`, and the utterance's
        embeddings, for benchmarks that weigh other rules or heads on the same decoding."""
        self.verdicts: list[Verdict | None] = []
        """The second ear's verdict on each utterance of :attr:`last` (``None`` where it was not
        asked)."""
        self.audio: list[bytes] = []
        """Each utterance of :attr:`last` as the second ear hears it (PCM16; empty without a
        second ear), for benchmarks."""
        self.keep_read = False
        """Keep in :attr:`read` what the head read of each utterance (benchmarks)."""
        self.read: list[bytes] = []
        """Each utterance of :attr:`last` as the head read it (PCM16), when :attr:`keep_read`."""

    def load_second_ear(self) -> None:
        """Load Moonshine (about a second; its first use in a cache converts it, several);
        :class:`.moonshine.MoonshineUnavailable` with one sentence when it cannot be."""
        self.transcriber = Transcriber(self.commands, MoonshineModel.shared())

    def reset_stream(self) -> None:
        self.grammar.reset_stream()
        self._restart()
        self._before = None
        self.last = []
        self.verdicts = []
        self.audio = []
        self.read = []

    def _restart(self) -> None:
        if self._stream is not None:
            self._stream.start()
        self._suppressor = (UtteranceSuppressor() if self._stream is not None and self.head.hears == HEARS_SUPPRESSED
                            else None)
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
        heard = pcm if self._suppressor is None else self._suppressor.process(pcm)
        if heard and self._stream is not None:
            self._stream.feed(heard)
        if self.transcriber is not None or self._stream is None:
            self._pcm += pcm
        self._last_chunk = len(pcm) // 2

    def prepare(self) -> None:
        """The utterance may end with the next frame: compute now what :meth:`finish` will give
        the head, while that frame is still on its way. The head reads the utterance up to the
        frame before the endpointer's last (a frame of room, never of the word: the endpointer
        closes after 100 ms of silence or more), then the closing silence; so this is the same
        answer computed a frame early, and :meth:`finish` computes it itself when the end comes
        at another frame. The closing's mel frames and embeddings, about 7 ms, are then no part
        of the wait for an answer. (The head itself, about 1 ms, stays at the end: run here too,
        the answers came no sooner in ``bench_latency.py``.) Moonshine's encoder, 20-40 ms, longer
        than a frame, runs on its own thread, so the listener takes in the next frame meanwhile
        and :meth:`finish` waits only for what is left of it."""
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
            if self._suppressor is not None and (held := self._suppressor.flush()):
                self._stream.feed(held)  # an utterance shorter than the room the suppressor learns from
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
            assert self._stream is not None  # a head not read whole reads the embedding as it comes
            utterance = self._stream.finish(leave_out=self._last_chunk)
        if self.keep_read and self._stream is None:
            self.read.append(bytes(self._pcm[:2 * read]))
        scores = self.head.scores(utterance)
        match = self.personal.match(utterance, self._allowed) if self.personal else None
        self.last.append((heard, scores, match, utterance))
        result = decide(heard, scores, self._allowed, self.rule, match)
        verdict = None
        audio = bytes(self._pcm) if self.transcriber is not None else b""
        self.audio.append(audio)
        if self.transcriber is not None and hear_again(result, self.rule):
            verdict = self.transcriber.hear(audio, self.candidates(heard, scores))
            result = settle(result, verdict, self._allowed, self.rule)
        lean = scores.best(self._allowed)[:2]
        result = said_again(result, lean, self._earlier, self.rule)
        self._before, self._earlier = (result, lean), None
        self.verdicts.append(verdict)
        ms = heard.ms + 1000.0 * (time.perf_counter() - began)
        return Recognition(result.command, result.heard, result.unsure, ms, result.reason,
                           result.speech_ms, result.guess, result.snr_db, result.warp,
                           result.confidence, result.personal)

    def candidates(self, heard: Recognition, scores: HeadScores) -> list[str]:
        """What the second ear weighs: the head's :data:`CANDIDATES` likeliest commands valid
        now, and the grammar decoders' guess."""
        ranked = sorted((label for label in scores.labels if label
                         and (self._allowed is None or label in self._allowed)),
                        key=lambda label: -scores.of(label))[:CANDIDATES]
        guess = heard.command or heard.guess
        if guess and guess not in ranked and (self._allowed is None or guess in self._allowed):
            ranked.append(guess)
        return ranked

    def recognize(self, pcm: bytes, allowed: Iterable[str] | None = None) -> Recognition:
        """Decode one whole utterance already cut from its surroundings, fed in the listener's
        frames; as in play, the head reads it up to its last frame."""
        with self._lock:
            self.reset_stream()
            self.start(allowed)
            for offset in range(0, len(pcm), 640):  # the listener's 20 ms frames
                self.feed(pcm[offset:offset + 640])
            return self.finish()


def live_recognizer(commands: CommandSet, *, language: str = "en",
                    personal: bool = True) -> NeuralRecognizer:
    """What ``voice-rang play`` and ``voice-rang recognize`` listen with: the neural rule, with
    the player's enrolled takes when there are some (and ``personal``).

    Without takes the neural rule still heard more of held-out voices' commands than the grammar
    decoders alone in every condition, with fewer of them wrong, and under a radio that stays on
    it heard commands the grammar decoders heard none of (docs/voice.md). Every language listens
    for the same English phrases (``prompts/*.toml``); ``language`` gives the grammar decoders that
    language's narration as words that are not commands. ``recognize --no-personal`` leaves the
    takes out."""
    voice = PersonalVoice.load(known=set(commands.phrases)) if personal else None
    return NeuralRecognizer(commands, language=language, personal=voice)
