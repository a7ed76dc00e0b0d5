"""Messages rendered to speech ahead of playback, in order, with a cache of recent sentences.

The render half of :class:`~voice_rang.speech.spoken.SpeechOutput`. Receives queued
:class:`Utterance` objects (and texts to prepare) from the caller's thread; emits ~50 ms PCM
buffers into each utterance as soon as espeak-ng makes them, on the ``speech-synth`` thread, so
playback starts before synthesis ends. A finished sentence is kept (trimmed of its trailing
silence) so saying it again starts from memory. Everything shared is guarded by ``_cond``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, field

from ..messages import Message, Priority
from .cues import cue_pcm
from .pcm import trim_trailing_silence
from .synth import Synthesizer

__all__ = ["CACHE_ENTRIES", "CUE_GAP", "Key", "Rendering", "Utterance"]

CUE_GAP = 0.05
"""Silence between a message's sound cue and its words, so the two do not blur."""
CACHE_ENTRIES = 64
"""Rendered sentences kept for saying again."""

Key = tuple[str, int, float, "str | None"]
"""What a rendering depends on: text, rate (wpm), volume, voice."""


@dataclass(eq=False)
class Utterance:
    """One queued message and the audio rendered for it so far."""

    message: Message
    key: Key
    cue: bytes = b""
    """The message's sound cue, played before its words (with :data:`CUE_GAP` after it)."""
    chunks: deque[bytes] = field(default_factory=deque)
    rendered: bool = False
    cancelled: bool = False
    started: bool = False
    ended: bool = False


class Rendering:
    """The queue, the cache and the synthesis thread's loop; the state both halves share."""

    _synth: Synthesizer
    _voice: str | None
    _rate: int
    _volume: float
    _max_backlog: int
    _cond: threading.Condition
    _queue: deque[Utterance]
    _to_render: deque[Utterance]
    _to_prepare: deque[Key]
    _cache: OrderedDict[Key, bytes]
    _current: Utterance | None
    _closed: bool
    _failure: str | None

    def _key(self, text: str) -> Key:
        return (text, self._rate, self._volume, self._voice)

    def _utterance(self, message: Message, text: str) -> Utterance:
        """A new utterance of ``text`` (after ``message``'s cue, if any), from the cache or sent
        to be rendered. Lock held."""
        key = self._key(text)
        utterance = Utterance(message=message, key=key, cue=self._cue(message.cue, bool(text)))
        cached = self._cache.get(key)
        if not text:
            utterance.rendered = True
        elif cached is not None:
            self._cache.move_to_end(key)
            utterance.chunks.append(cached)
            utterance.rendered = True
        else:
            self._to_render.append(utterance)
        return utterance

    def _cue(self, name: str, then_words: bool) -> bytes:
        """The cue's samples at the synthesizer's rate and volume (with the gap before words);
        an unknown name plays nothing."""
        if not name:
            return b""
        try:
            pcm = cue_pcm(name, self._synth.sample_rate, self._volume)
        except ValueError:
            return b""
        return pcm + bytes(2 * int(self._synth.sample_rate * CUE_GAP)) if then_words else pcm

    def _drop_chatty_backlog(self) -> None:
        """Called with the lock held: keep the waiting line short by dropping old chatter."""
        while len(self._queue) > self._max_backlog:
            newest = self._queue[-1]
            for waiting in self._queue:
                if waiting is not newest and waiting.message.priority == Priority.CHATTY:
                    waiting.cancelled = True
                    self._queue.remove(waiting)
                    break
            else:
                return

    def _remember(self, key: Key, pcm: bytes) -> None:
        """Called with the lock held."""
        self._cache[key] = trim_trailing_silence(pcm)
        self._cache.move_to_end(key)
        while len(self._cache) > CACHE_ENTRIES:
            self._cache.popitem(last=False)

    def _synth_loop(self) -> None:
        while True:
            with self._cond:
                while True:
                    if self._closed or self._failure is not None:
                        return
                    while self._to_render and self._to_render[0].cancelled:
                        self._to_render.popleft()
                    if self._to_render or self._to_prepare:
                        break
                    self._cond.wait()
                utterance = self._to_render.popleft() if self._to_render else None
                key = utterance.key if utterance is not None else self._to_prepare.popleft()
            if utterance is not None:
                self._render_utterance(utterance)
            else:
                self._render_ahead(key)

    def _render_utterance(self, utterance: Utterance) -> None:
        parts: list[bytes] = []

        def sink(chunk: bytes) -> bool:
            with self._cond:
                if utterance.cancelled or self._closed:
                    return False
                utterance.chunks.append(chunk)
                parts.append(chunk)
                self._cond.notify_all()
                return True

        text, rate, volume, voice = utterance.key
        try:
            completed = self._synth.render(text, sink, rate=rate, volume=volume, voice=voice)
        except Exception:
            completed = False
        with self._cond:
            utterance.rendered = True
            if completed and parts:
                self._remember(utterance.key, b"".join(parts))
            self._cond.notify_all()

    def _render_ahead(self, key: Key) -> None:
        parts: list[bytes] = []
        text, rate, volume, voice = key

        def keep(chunk: bytes) -> bool:
            parts.append(chunk)
            return not self._closed

        try:
            completed = self._synth.render(text, keep, rate=rate, volume=volume, voice=voice)
        except Exception:
            completed = False
        with self._cond:
            if completed and parts:
                self._remember(key, b"".join(parts))
