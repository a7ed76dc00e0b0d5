"""Speech through the system's own voice: pyttsx3's driver speaks and plays the words itself.

Why: on Windows (SAPI5) and macOS (NSSpeechSynthesizer) the system voice plays through the
system's own sound output, so speech needs neither PortAudio (PyAudio has no wheel for macOS)
nor the PulseAudio stream that Linux plays through (:mod:`.player`). What it cannot do is what
owning the samples gives: sound cues, and knowing the exact frame speech starts and stops.

Receives :class:`~voice_rang.messages.Message` objects from the table (any thread); emits speech
and, for the microphone's half-duplex, ``(True, t)``/``(False, t)`` activity calls around every
utterance, as :class:`~voice_rang.speech.spoken.SpeechOutput` does (the same policy: in order,
URGENT cuts older CHATTY speech, a CHATTY backlog is dropped, ``stop`` drops everything).

One thread, ``speech-driver``, owns the pyttsx3 engine (SAPI5 wants the thread that made it),
says one message at a time with ``runAndWait`` and stops it from pyttsx3's own word callback,
the one place its drivers can be stopped from (so a stop lands at the next word).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..messages import Message, Priority

__all__ = ["DriverSpeech", "open_spoken", "speaks_through_driver"]

DRIVERS = {"win32": "sapi5", "darwin": "nsss"}
"""pyttsx3's driver for the system voice, by platform."""
RATE_STEP = 25
MIN_RATE, MAX_RATE, DEFAULT_RATE = 80, 450, 175
START_TIMEOUT_S = 10.0
"""How long the system voice may take to start before speech is said to be off."""
TAIL_S = 0.3
"""How long after the driver says it finished the game still counts as speaking (the system's
output buffer, which the driver does not see)."""

ActivityListener = Callable[[bool, float], None]


def speaks_through_driver(platform: str | None = None) -> bool:
    """Whether speech on ``platform`` (this one by default) is the system's own voice (Windows,
    macOS) rather than samples played through PulseAudio or PortAudio (Linux).

    >>> speaks_through_driver("win32"), speaks_through_driver("darwin"), speaks_through_driver("linux")
    (True, True, False)
    """
    return (platform or sys.platform) in DRIVERS


@dataclass
class _Utterance:
    message: Message
    text: str
    cancelled: bool = False


class DriverSpeech:
    """Spoken output by pyttsx3's driver, with :class:`~voice_rang.speech.spoken.SpeechOutput`'s
    methods that the game uses. Raises :class:`~voice_rang.speech.spoken.SpeechUnavailable` (one
    sentence) when the system voice does not start."""

    plays_cues = False
    """Sound cues need samples of their own to play: with the system voice, words only."""

    def __init__(self, *, voice: str | None = None, rate: int | None = None, volume: float | None = None,
                 on_failure: Callable[[str], None] | None = None, max_backlog: int = 2,
                 driver: str | None = None) -> None:
        from .spoken import SpeechUnavailable

        self._driver_name = driver or DRIVERS.get(sys.platform)
        self._voice = voice
        self._rate = self._clamp(DEFAULT_RATE if rate is None else rate)
        self._volume = 1.0 if volume is None else min(max(float(volume), 0.0), 1.0)
        self._on_failure = on_failure
        self._max_backlog = max(int(max_backlog), 0)
        self._cond = threading.Condition()
        self._queue: deque[_Utterance] = deque()
        self._current: _Utterance | None = None
        self._listeners: list[ActivityListener] = []
        self._spoken: list[str] = []
        self._audible_until = 0.0
        self._closed = False
        self._failure: str | None = None
        self._engine: Any = None
        self._started = threading.Event()
        self._start_error: str | None = None
        self._thread = threading.Thread(target=self._run, name="speech-driver", daemon=True)
        self._thread.start()
        if not self._started.wait(START_TIMEOUT_S):
            self.close()
            raise SpeechUnavailable("The system voice did not start in time: play with your screen reader.")
        if self._start_error is not None:
            raise SpeechUnavailable(self._start_error)

    @classmethod
    def open(cls, **options: Any) -> DriverSpeech:
        return cls(**options)

    # ----- what the game loop calls ------------------------------------------------------------

    def say(self, message: Message) -> None:
        """Queue ``message``; returns at once, and never raises once speech has failed or closed."""
        text = " ".join(message.text.split())
        if not text:
            return
        with self._cond:
            if self._closed or self._failure is not None:
                return
            if message.priority >= Priority.URGENT:
                self._queue = deque(u for u in self._queue if u.message.priority != Priority.CHATTY)
                if self._current is not None and self._current.message.priority == Priority.CHATTY:
                    self._current.cancelled = True
            self._queue.append(_Utterance(message, text))
            chatty = [u for u in self._queue if u.message.priority == Priority.CHATTY]
            while len(self._queue) > self._max_backlog + 1 and chatty:
                self._queue.remove(chatty.pop(0))
            self._cond.notify_all()

    def stop(self) -> None:
        """Barge-in: the message speaking now stops at its next word, and nothing queued is said."""
        with self._cond:
            if self._current is not None:
                self._current.cancelled = True
            self._queue.clear()
            self._cond.notify_all()

    def wait_until_done(self, timeout: float | None = None) -> bool:
        """Block until nothing is queued or speaking; False on timeout."""
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
        with self._cond:
            return self._current is not None or time.monotonic() < self._audible_until

    def add_activity_listener(self, callback: ActivityListener) -> None:
        """``callback(True, t)`` as an utterance starts, ``(False, t)`` after it ends (called on
        the speech thread: keep it short)."""
        with self._cond:
            self._listeners.append(callback)

    def remove_activity_listener(self, callback: ActivityListener) -> None:
        with self._cond:
            if callback in self._listeners:
                self._listeners.remove(callback)

    @property
    def rate(self) -> int:
        return self._rate

    def set_rate(self, wpm: int) -> None:
        with self._cond:
            self._rate = self._clamp(wpm)

    def faster(self) -> int:
        self.set_rate(self._rate + RATE_STEP)
        return self._rate

    def slower(self) -> int:
        self.set_rate(self._rate - RATE_STEP)
        return self._rate

    def prepare(self, message: Message) -> None:
        """Nothing to make ahead: the system voice renders as it speaks."""

    def close(self) -> None:
        """Stop speaking and end the speech thread. Safe to call twice."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            if self._current is not None:
                self._current.cancelled = True
            self._queue.clear()
            self._cond.notify_all()
        self._thread.join(timeout=2.0)

    def __enter__(self) -> DriverSpeech:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def spoken_texts(self) -> list[str]:
        """Texts the system voice began to say, in order."""
        with self._cond:
            return list(self._spoken)

    @property
    def failure(self) -> str | None:
        return self._failure

    @property
    def device_name(self) -> str:
        return f"the system voice ({self._driver_name})"

    @property
    def output_latency(self) -> float:
        """Unknown to the driver: the system plays the sound."""
        return 0.0

    # ----- the speech thread -------------------------------------------------------------------

    @staticmethod
    def _clamp(wpm: int) -> int:
        return min(max(int(wpm), MIN_RATE), MAX_RATE)

    def _run(self) -> None:
        from .synth import SynthUnavailable

        try:
            import pyttsx3

            self._engine = pyttsx3.init(self._driver_name)
            if self._voice:
                self._voice = self._voice_id(self._voice)
            self._engine.connect("started-word", self._on_word)
        except SynthUnavailable as error:  # no such voice
            self._start_error = str(error)
            self._started.set()
            return
        except Exception as error:
            self._start_error = (f"The system voice would not start ({error}): "
                                 "play with your screen reader.")
            self._started.set()
            return
        self._started.set()
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                utterance = self._current = self._queue.popleft()
                self._spoken.append(utterance.text)
                rate, volume = self._rate, self._volume
            self._notify(True, time.monotonic())
            try:
                self._speak(utterance.text, rate, volume)
            except Exception as error:
                self._fail(f"The system voice stopped ({error}).")
                return
            finally:
                ended = time.monotonic()
                with self._cond:
                    self._current = None
                    self._audible_until = ended + TAIL_S
                    self._cond.notify_all()
                self._notify(False, ended + TAIL_S)

    def _speak(self, text: str, rate: int, volume: float) -> None:
        engine = self._engine
        # Queue the whole utterance before the loop starts, as on the engine's first run: an idle
        # driver runs each command the moment it is queued, and the loop's start would then run
        # its own end while the system voice still speaks, cutting it off.
        engine.proxy.setBusy(True)
        engine.setProperty("rate", rate)
        engine.setProperty("volume", volume)
        if self._voice:
            engine.setProperty("voice", self._voice)
        engine.say(text)
        engine.runAndWait()

    def _voice_id(self, wanted: str) -> str:
        """The id of the voice named ``wanted`` (an id or a name)."""
        from .synth import checked_voice, voice_infos

        return checked_voice(voice_infos(self._engine.getProperty("voices")), wanted)

    def _on_word(self, name: object = None, location: int = 0, length: int = 0) -> None:
        """pyttsx3's word callback, on the speech thread: stop here when the message was cut."""
        del name, location, length
        current = self._current
        if current is not None and (current.cancelled or self._closed):
            with contextlib.suppress(Exception):
                self._engine.stop()

    def _notify(self, active: bool, when: float) -> None:
        with self._cond:
            listeners = list(self._listeners)
        for listener in listeners:
            with contextlib.suppress(Exception):
                listener(active, when)

    def _fail(self, reason: str) -> None:
        with self._cond:
            if self._failure is not None:
                return
            self._failure = reason
            self._queue.clear()
            self._cond.notify_all()
        if self._on_failure is not None:
            with contextlib.suppress(Exception):
                self._on_failure(reason)


def open_spoken(*, words: bool = True, device: str | int | None = None, **options: Any) -> Any:
    """The spoken output for this computer: the system voice on Windows and macOS
    (:class:`DriverSpeech`), else samples played through PulseAudio or PortAudio
    (:class:`~voice_rang.speech.spoken.SpeechOutput`), which also plays sound cues alone
    (``words=False``) and a ``device`` chosen by name. Raises
    :class:`~voice_rang.speech.spoken.SpeechUnavailable` with the first reason."""
    from .spoken import SpeechOutput, SpeechUnavailable

    if not (words and device is None and speaks_through_driver()):
        return SpeechOutput.open(words=words, device=device, **options)
    driver_options = {key: value for key, value in options.items()
                      if key in ("voice", "rate", "volume", "on_failure", "max_backlog")}
    try:
        return DriverSpeech.open(**driver_options)
    except SpeechUnavailable as first:
        try:
            return SpeechOutput.open(words=words, **options)
        except (SpeechUnavailable, ImportError):
            raise first from None
