"""``SpeechOutput``: messages in, speech out, in order, cut short when something matters more.

Receives :class:`~voice_rang.messages.Message` objects from the table (any thread); emits sound
on one output device and, for the microphone's half-duplex, ``(True, t)``/``(False, t)``
activity calls bracketing every utterance. The contract is written out in ``docs/speech.md``.

Three threads, one lock (a ``Condition``):

* the caller's, which only queues (``say``), cancels (``stop``, urgent messages) and waits
  (this module);
* ``speech-synth``, which renders queued messages to PCM ahead of playback, in order, handing
  each ~50 ms buffer over as soon as espeak-ng makes it (:mod:`voice_rang.speech.rendering`);
* ``speech-play``, the only thread that touches the audio stream
  (:mod:`voice_rang.speech.playback`).

Policy (see :meth:`SpeechOutput.say`): in order; URGENT cuts older CHATTY speech,
playing or queued; queued CHATTY messages are dropped when the backlog grows past
``max_backlog``; ``stop()`` drops everything. A device that stalls or errs is reopened once
(a sound server that hiccups, restarts or leaves a stream stuck costs the sentence it cut, which
is said again, not the game's voice); a device that will not come back, or fails again within
:data:`~voice_rang.speech.playback.RECOVERY_INTERVAL`, is reported once through
``on_failure`` and turns this output into a silent no-op. Nothing here raises into the game
after construction, and nothing blocks it for longer than a lock hold.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from ..messages import Message, Priority
from .deadlines import START_TIMEOUT_S, SoundSystemNotAnswering, answer_within
from .playback import ActivityListener, Playback
from .player import STALL_SECONDS, PlaybackError, Player, PlayerUnavailable
from .rendering import Key, Utterance
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


class SpeechUnavailable(Exception):
    """Speech cannot work here; ``reason`` is one sentence to show or print, fix included."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SpeechOutput(Playback):
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

    plays_cues = True
    """Sound cues play on the same stream as the words (the system voice cannot play them)."""

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
        self._queue: deque[Utterance] = deque()
        self._to_render: deque[Utterance] = deque()
        self._to_prepare: deque[Key] = deque()
        self._cache: OrderedDict[Key, bytes] = OrderedDict()
        self._current: Utterance | None = None
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
        """Seconds from handing sound over to hearing it, as the open stream reports it."""
        return self._player.output_latency

    @property
    def sample_rate(self) -> int:
        return self._synth.sample_rate

    # ----- inside ------------------------------------------------------------------------------

    @staticmethod
    def _clamp(wpm: int) -> int:
        return min(max(int(wpm), MIN_RATE), MAX_RATE)
