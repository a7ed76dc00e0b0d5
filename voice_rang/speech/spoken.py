"""``SpeechOutput``: messages in, speech out, in order, cut short when something matters more.

Receives :class:`~voice_rang.messages.Message` objects from the table (any thread); emits sound
on one output device and, for the microphone's half-duplex, ``(True, t)``/``(False, t)``
activity calls bracketing every utterance. The contract is written out in ``docs/speech.md``.

Three threads, one lock (a ``Condition``):

* the caller's, which only queues (``say``), cancels (``stop``, urgent messages) and waits;
* ``speech-synth``, which renders queued messages to PCM ahead of playback, in order, handing
  each ~50 ms buffer over as soon as espeak-ng makes it (so playback starts before synthesis
  ends);
* ``speech-play``, the only thread that touches the audio stream: it plays the head of the
  queue buffer by buffer, checks for cancellation between writes, and keeps the stream topped
  up with a little silence while idle so the device never falls asleep.

Policy (see :meth:`SpeechOutput.say`): in order; URGENT cuts older CHATTY speech,
playing or queued; queued CHATTY messages are dropped when the backlog grows past
``max_backlog``; ``stop()`` drops everything. A device that stalls or errs is reopened once
(a sound server that hiccups, restarts or leaves a stream stuck costs the sentence it cut, which
is said again, not the game's voice); a device that will not come back, or fails again within
:data:`RECOVERY_INTERVAL`, is reported once through ``on_failure`` and turns this output into a
silent no-op. Nothing here raises into the game after construction, and nothing blocks it for
longer than a lock hold.
"""

from __future__ import annotations

import array
import contextlib
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..messages import Message, Priority
from .cues import cue_pcm
from .devices import START_TIMEOUT_S, SoundSystemNotAnswering, answer_within
from .player import STALL_SECONDS, PlaybackError, Player, PlayerUnavailable
from .synth import Synthesizer, SynthUnavailable, open_synthesizer

__all__ = [
    "DEFAULT_RATE",
    "MAX_RATE",
    "MIN_RATE",
    "RATE_STEP",
    "SpeechOutput",
    "SpeechUnavailable",
]

DEFAULT_RATE = 175
MIN_RATE = 80
MAX_RATE = 450
RATE_STEP = 25
SPEAKING_TAIL = 0.15
"""Seconds after the last frame during which :attr:`SpeechOutput.is_speaking` stays True: room
for echo and for the device's own latency, which PortAudio cannot see past."""
PAUSE_BETWEEN = 0.12
"""Silence between two queued messages so they do not run together (skipped for URGENT)."""
RECOVERY_INTERVAL = 60.0
"""Seconds after reopening a failed device during which a second failure is final: a device
that keeps failing is lost, and speech that stops every few seconds is worse than text."""
_REOPEN_RETRY = 0.5
CUE_GAP = 0.05
"""Silence between a message's sound cue and its words, so the two do not blur."""
_SILENCE_LEVEL = 96
_CACHE_ENTRIES = 64


class SpeechUnavailable(Exception):
    """Speech cannot work here; ``reason`` is one sentence to show or print, fix included."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


ActivityListener = Callable[[bool, float], None]


@dataclass(eq=False)
class _Utterance:
    """One queued message and the audio rendered for it so far."""

    message: Message
    key: tuple[str, int, float, str | None]
    cue: bytes = b""
    """The message's sound cue, played before its words (with :data:`CUE_GAP` after it)."""
    chunks: deque[bytes] = field(default_factory=deque)
    rendered: bool = False
    cancelled: bool = False
    started: bool = False
    ended: bool = False


def _trim_leading_silence(pcm: bytes) -> bytes:
    """Drop the near-silent start of an utterance (keeping 1 ms) so sound starts at once."""
    samples = array.array("h", pcm)
    if sys.byteorder == "big":
        samples.byteswap()
    for index, value in enumerate(samples):
        if value > _SILENCE_LEVEL or value < -_SILENCE_LEVEL:
            return pcm[max(index - 22, 0) * 2:]
    return b""


def _is_silent(pcm: bytes) -> bool:
    samples = array.array("h", pcm)
    if sys.byteorder == "big":
        samples.byteswap()
    return not samples or (max(samples) <= _SILENCE_LEVEL and min(samples) >= -_SILENCE_LEVEL)


def _trim_trailing_silence(pcm: bytes) -> bytes:
    """Drop the near-silent end of an utterance (espeak-ng ends each with about a third of a
    second of it): the pause between messages is :data:`PAUSE_BETWEEN`, not the synthesizer's."""
    samples = array.array("h", pcm)
    if sys.byteorder == "big":
        samples.byteswap()
    for index in range(len(samples) - 1, -1, -1):
        value = samples[index]
        if value > _SILENCE_LEVEL or value < -_SILENCE_LEVEL:
            return pcm[:min(index + 23, len(samples)) * 2]
    return b""


class SpeechOutput:
    """Spoken output: non-blocking ``say``, barge-in ``stop``, priorities, activity callbacks.

    Construct once per game and keep it: the synthesizer stays loaded and the output stream
    stays open. Raises :class:`SpeechUnavailable` (one sentence) if there is no synthesizer, no
    such voice, or no working output device.

    A message's sound cue (``Message.cue``, see :mod:`voice_rang.speech.cues`) plays first, on
    the same stream, as part of the same utterance: in order with the words, cut by ``stop`` and
    by urgent messages like them. ``words=False`` plays the cues alone (sounds for a player who
    reads the lines with a screen reader).

    ``max_backlog``: how many messages may wait behind the one playing before old CHATTY ones
    are dropped. ``stall_timeout``: seconds a device may take no audio before it is reported
    lost (longer than a sleeping PulseAudio sink's two-second wake-up).
    """

    def __init__(
        self,
        *,
        voice: str | None = None,
        rate: int | None = None,
        volume: float | None = None,
        device: str | int | None = None,
        on_failure: Callable[[str], None] | None = None,
        max_backlog: int = 2,
        stall_timeout: float = STALL_SECONDS,
        words: bool = True,
    ) -> None:
        self._words = words
        try:
            self._synth: Synthesizer = open_synthesizer()
            self._voice = self._synth.check_voice(voice) if voice else None
        except SynthUnavailable as error:
            raise SpeechUnavailable(str(error)) from error
        try:
            self._player = Player(self._synth.sample_rate, device, stall_seconds=stall_timeout)
        except PlayerUnavailable as error:
            raise SpeechUnavailable(str(error)) from error
        try:
            warmed = self._player.warm_up()
        except PlaybackError as error:
            warmed = False
            detail = str(error)
        else:
            detail = "it takes no sound"
        if not warmed:
            name = self._player.device.name
            self._player.close()
            raise SpeechUnavailable(
                f"The audio output {name!r} is not playing ({detail}): "
                "run voice-rang doctor, or play with your screen reader."
            )
        self._rate = self._clamp(rate if rate is not None else DEFAULT_RATE)
        self._volume = 1.0 if volume is None else min(max(float(volume), 0.0), 1.0)
        self._on_failure = on_failure
        self._max_backlog = max(int(max_backlog), 0)
        self._cond = threading.Condition()
        self._queue: deque[_Utterance] = deque()
        self._to_render: deque[_Utterance] = deque()
        self._to_prepare: deque[tuple[str, int, float, str | None]] = deque()
        self._cache: OrderedDict[tuple[str, int, float, str | None], bytes] = OrderedDict()
        self._current: _Utterance | None = None
        self._listeners: list[ActivityListener] = []
        self._spoken: list[str] = []
        self._cues_played: list[tuple[str, float]] = []
        self._audible_until = 0.0
        self._closed = False
        self._failure: str | None = None
        self._reopening_since = 0.0
        self._reopened_at: float | None = None
        self._synth_thread = threading.Thread(
            target=self._synth_loop, name="speech-synth", daemon=True
        )
        self._play_thread = threading.Thread(target=self._play_loop, name="speech-play", daemon=True)
        self._watchdog_thread = threading.Thread(
            target=self._watchdog, name="speech-watchdog", daemon=True
        )
        self._synth_thread.start()
        self._play_thread.start()
        self._watchdog_thread.start()

    @classmethod
    def open(cls, *, timeout: float = START_TIMEOUT_S, **options: Any) -> SpeechOutput:
        """``SpeechOutput(**options)``, or :class:`SpeechUnavailable` if the sound system does
        not answer within ``timeout`` seconds (a frozen server hangs PortAudio for ever; one
        that answers late is closed)."""
        try:
            return answer_within(timeout, lambda: cls(**options), name="speech-open",
                                 discard=lambda speech: speech.close())
        except SoundSystemNotAnswering as error:
            raise SpeechUnavailable(f"{error} Play with your screen reader.") from None

    # ----- what the game loop calls ------------------------------------------------------------

    def say(self, message: Message) -> None:
        """Queue ``message``; returns at once. Never raises once speech has failed or closed.

        URGENT cuts every older CHATTY message (the one playing stops now, queued ones are
        dropped) and starts without the pause; queued CHATTY messages are dropped, oldest first,
        while more than ``max_backlog`` messages wait; everything else is spoken in order. A
        NORMAL message (a reveal) is never cut by what follows it: "your turn" or the end comes
        after the card it follows, so the card and its sound are always heard.
        """
        text = " ".join(message.text.split()) if self._words else ""
        if not text and not message.cue:
            return
        with self._cond:
            if self._closed or self._failure is not None:
                return
            utterance = self._utterance(message, text)
            if not text and not utterance.cue:
                return
            if message.priority >= Priority.URGENT:
                for waiting in self._queue:
                    if waiting.message.priority == Priority.CHATTY:
                        waiting.cancelled = True
                current = self._current
                if current is not None and current.message.priority == Priority.CHATTY:
                    current.cancelled = True
                self._queue = deque(u for u in self._queue if not u.cancelled)
            self._queue.append(utterance)
            self._drop_chatty_backlog()
            self._cond.notify_all()

    def stop(self) -> None:
        """Barge-in: silence the message playing now and drop everything queued."""
        with self._cond:
            if self._current is not None:
                self._current.cancelled = True
            for waiting in self._queue:
                waiting.cancelled = True
            self._queue.clear()
            self._to_render.clear()
            self._cond.notify_all()

    def wait_until_done(self, timeout: float | None = None) -> bool:
        """Block until nothing is queued and the last frame has played; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._queue or self._current is not None:
                if self._closed or self._failure is not None:
                    return True
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._cond.wait(remaining if remaining is not None else 0.5)
            return True

    @property
    def is_speaking(self) -> bool:
        """Audio is playing now, or stopped less than ``SPEAKING_TAIL`` seconds ago."""
        with self._cond:
            if self._current is not None and self._current.started:
                return True
            return time.monotonic() < self._audible_until + SPEAKING_TAIL

    def add_activity_listener(self, callback: ActivityListener) -> None:
        """Call ``callback(True, t)`` when an utterance's first frame starts, ``(False, t)`` after
        its last frame has played (``t`` from ``time.monotonic()``; see docs/speech.md).

        Called on the playback thread: keep it short and do not call back into this object's
        blocking methods from it.
        """
        with self._cond:
            self._listeners.append(callback)

    def remove_activity_listener(self, callback: ActivityListener) -> None:
        with self._cond:
            if callback in self._listeners:
                self._listeners.remove(callback)

    @property
    def rate(self) -> int:
        """Speaking rate in words per minute."""
        return self._rate

    def set_rate(self, wpm: int) -> None:
        """Set the rate for messages rendered from now on (clamped to 80..450 wpm)."""
        with self._cond:
            self._rate = self._clamp(wpm)

    def faster(self) -> int:
        """Speak 25 wpm faster (up to 450); returns the new rate."""
        self.set_rate(self._rate + RATE_STEP)
        return self._rate

    def slower(self) -> int:
        """Speak 25 wpm slower (down to 80); returns the new rate."""
        self.set_rate(self._rate - RATE_STEP)
        return self._rate

    def prepare(self, message: Message) -> None:
        """Render ``message`` in the background so a later ``say`` of the same text (at the same
        rate, volume and voice) starts from memory."""
        text = " ".join(message.text.split())
        with self._cond:
            if not text or self._closed or self._failure is not None:
                return
            key = self._key(text)
            if key not in self._cache and key not in self._to_prepare:
                self._to_prepare.append(key)
                self._cond.notify_all()

    def close(self) -> None:
        """Stop speaking, end the threads and release the device. Safe to call twice."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            current = self._current
            if current is not None:
                current.cancelled = True
            self._queue.clear()
            self._to_render.clear()
            self._cond.notify_all()
        self._play_thread.join(timeout=1.0)
        self._synth_thread.join(timeout=1.0)
        if not self._play_thread.is_alive():
            self._player.close()
        # else the playback thread is stuck inside PortAudio (a frozen sound server): closing
        # the stream under it could crash the process, so the stream is left to the OS.

    def __enter__(self) -> SpeechOutput:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ----- what tests and tools look at --------------------------------------------------------

    @property
    def spoken_texts(self) -> list[str]:
        """Texts whose audio has started playing, in order (what a listener actually heard)."""
        with self._cond:
            return list(self._spoken)

    @property
    def cues_played(self) -> list[tuple[str, float]]:
        """Cues that started playing, in order, each with when its first frame was handed to the
        device (``time.monotonic()``)."""
        with self._cond:
            return list(self._cues_played)

    @property
    def failure(self) -> str | None:
        """The reason speech stopped working, or None while it works."""
        return self._failure

    @property
    def device_name(self) -> str:
        return self._player.device.name

    @property
    def output_latency(self) -> float:
        """PortAudio's reported output latency of the open stream, in seconds."""
        return self._player.output_latency

    @property
    def sample_rate(self) -> int:
        return self._synth.sample_rate

    # ----- inside ------------------------------------------------------------------------------

    @staticmethod
    def _clamp(wpm: int) -> int:
        return min(max(int(wpm), MIN_RATE), MAX_RATE)

    def _key(self, text: str) -> tuple[str, int, float, str | None]:
        return (text, self._rate, self._volume, self._voice)

    def _utterance(self, message: Message, text: str) -> _Utterance:
        """A new utterance of ``text`` (after ``message``'s cue, if any), from the cache or sent
        to be rendered. Lock held."""
        key = self._key(text)
        utterance = _Utterance(message=message, key=key, cue=self._cue(message.cue, bool(text)))
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

    def _remember(self, key: tuple[str, int, float, str | None], pcm: bytes) -> None:
        """Called with the lock held."""
        self._cache[key] = _trim_trailing_silence(pcm)
        self._cache.move_to_end(key)
        while len(self._cache) > _CACHE_ENTRIES:
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

    def _render_utterance(self, utterance: _Utterance) -> None:
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

    def _render_ahead(self, key: tuple[str, int, float, str | None]) -> None:
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

    def _notify(self, active: bool, when: float) -> None:
        with self._cond:
            listeners = list(self._listeners)
        for listener in listeners:
            with contextlib.suppress(Exception):
                listener(active, when)

    def _end(self, utterance: _Utterance, when: float) -> None:
        """Send the one ``(False, when)`` that every started utterance gets."""
        with self._cond:
            if not utterance.started or utterance.ended:
                return
            utterance.ended = True
        self._notify(False, when)

    def _play_loop(self) -> None:
        try:
            self._serve_queue()
        except PlaybackError as error:
            self._fail(str(error))
        except Exception as error:  # a bug must not take the game down with it
            self._fail(f"{type(error).__name__}: {error}")

    def _serve_queue(self) -> None:
        """Play the queue until closed or failed; raises :class:`PlaybackError` once the device
        cannot be reopened."""
        while True:
            with self._cond:
                if self._closed or self._failure is not None:
                    return
                utterance = self._queue.popleft() if self._queue else None
                self._current = utterance
                if utterance is None:
                    self._cond.notify_all()
            try:
                if utterance is None:
                    wait = self._player.keep_alive()
                    with self._cond:
                        if not self._queue and not self._closed:
                            self._cond.wait(wait)
                    continue
                self._pause_before(utterance)
                self._play(utterance)
            except PlaybackError:
                if not self._reopen(utterance):
                    raise

    def _reopen(self, interrupted: _Utterance | None) -> bool:
        """Open the stream of a device that stalled or erred again; False if it is lost.

        Keeps trying for one stall period (a restarting sound server needs a moment), then gives
        up. ``interrupted``, the sentence the failure cut (if any), is queued again, whole, at
        the front. A second failure within :data:`RECOVERY_INTERVAL` of a reopen is final.
        """
        now = time.monotonic()
        if self._reopened_at is not None and now - self._reopened_at < RECOVERY_INTERVAL:
            return False
        with self._cond:
            if self._closed or self._failure is not None:
                return False
            self._reopening_since = now
            if interrupted is not None and not interrupted.cancelled:
                # Queued before the device is back, so waiting for speech to end waits for it
                # and stop() still drops it.
                self._queue.appendleft(self._utterance(interrupted.message, interrupted.key[0]))
        player = self._player
        deadline = now + player.stall_seconds
        while True:
            try:
                player.reopen()
                if player.warm_up(timeout=player.stall_seconds):
                    break
            except (PlayerUnavailable, PlaybackError):
                pass
            with self._cond:
                if self._closed or self._failure is not None or time.monotonic() >= deadline:
                    return False
            time.sleep(_REOPEN_RETRY)
        with self._cond:
            if self._closed or self._failure is not None:
                return False
            self._reopened_at = time.monotonic()
            self._cond.notify_all()
        return True

    def _pause_before(self, utterance: _Utterance) -> None:
        if utterance.message.priority >= Priority.URGENT:
            return
        until = self._audible_until + PAUSE_BETWEEN
        while time.monotonic() < until and not utterance.cancelled and not self._closed:
            self._player.keep_alive()
            time.sleep(0.005)

    def _play(self, utterance: _Utterance) -> None:
        started_at: float | None = None
        leading = True
        cue = utterance.cue
        held: list[bytes] = []  # silent chunks kept until sound follows: no trailing silence
        self._player.new_utterance()
        try:
            while True:
                if cue:
                    sound, cue = cue, b""
                    if utterance.cancelled or self._closed:
                        break
                    started_at = self._begin(utterance, cue=True)
                    if not self._player.write(sound, lambda: utterance.cancelled or self._closed):
                        break
                    continue
                chunk: bytes | None
                with self._cond:
                    while (
                        not utterance.chunks
                        and not utterance.rendered
                        and not utterance.cancelled
                        and not self._closed
                    ):
                        self._cond.wait(0.005)
                        if not utterance.chunks:
                            break
                    if utterance.cancelled or self._closed:
                        break
                    if not utterance.chunks:
                        if utterance.rendered:
                            break
                        chunk = None
                    else:
                        chunk = utterance.chunks.popleft()
                if chunk is None:
                    self._player.keep_alive()
                    continue
                if leading:
                    chunk = _trim_leading_silence(chunk)
                    if not chunk:
                        continue
                    leading = False
                    with self._cond:
                        self._spoken.append(" ".join(utterance.message.text.split()))
                elif _is_silent(chunk):
                    held.append(chunk)
                    continue
                if started_at is None:
                    started_at = self._begin(utterance, cue=False)
                if held:
                    chunk, held = b"".join(held) + chunk, []
                if not self._player.write(chunk, lambda: utterance.cancelled or self._closed):
                    break
        finally:
            ended = time.monotonic() + self._player.queued_seconds()
            if started_at is not None and not utterance.cancelled:
                # Keep the cushion filled while the tail drains, so the end is real sound.
                try:
                    while (
                        time.monotonic() < ended and not utterance.cancelled and not self._closed
                    ):
                        self._player.keep_alive()
                        time.sleep(0.003)
                except PlaybackError:
                    pass  # the write loop's own error, or the next keep_alive, reports it
                ended = min(ended, time.monotonic())
            with self._cond:
                if started_at is not None:
                    self._audible_until = ended
                if self._current is utterance:
                    self._current = None
                self._cond.notify_all()
            self._end(utterance, ended)

    def _begin(self, utterance: _Utterance, *, cue: bool) -> float:
        """The utterance's first frame (its cue's, or its words' when it has none) is about to be
        handed over: say so to the activity listeners; returns when."""
        now = time.monotonic()
        with self._cond:
            if cue:
                self._cues_played.append((utterance.message.cue, now))
            utterance.started = True
        self._notify(True, now)
        return now

    def _watchdog(self) -> None:
        """Report a device that hangs *inside* a PortAudio call, where the playback thread's own
        stall check cannot run (seen with a frozen PulseAudio server)."""
        limit = self._player.stall_seconds + 1.0
        while True:
            with self._cond:
                if self._closed or self._failure is not None:
                    return
                self._cond.wait(0.5)
                if self._closed or self._failure is not None:
                    return
            progress = max(self._player.last_progress, self._reopening_since)
            if time.monotonic() - progress > limit:
                self._fail("the audio output stopped responding", close_player=False)
                return

    def _fail(self, detail: str, *, close_player: bool = True) -> None:
        with self._cond:
            if self._failure is not None or self._closed:
                return
            # What is wrong and how to check it; the game's own line says that play goes on.
            reason = f"The speaker was lost ({detail}); run voice-rang doctor to check it."
            self._failure = reason
            for waiting in self._queue:
                waiting.cancelled = True
            self._queue.clear()
            self._to_render.clear()
            stuck = self._current
            self._current = None
            self._cond.notify_all()
        if close_player:
            self._player.close()
        if stuck is not None:
            self._end(stuck, time.monotonic())
        callback = self._on_failure
        if callback is not None:
            with contextlib.suppress(Exception):
                callback(reason)
