"""Hands-free play: a background thread that turns microphone audio into command ids.

Receives audio from PyAudio (16 kHz mono PCM16, 20 ms frames; the endpointer learns the
room's noise as it listens); emits calls: ``on_command(id)`` for a confident, currently valid
command, ``on_unsure(result)`` when someone probably spoke to the game but it is not sure what
(``result.guess`` is the command it half heard, so the game can ask), ``on_too_noisy(result)``
when it heard a command but the room is too noisy to trust it,
``on_speech_start()`` when speech begins (so the game can stop talking and wait),
``on_speech_end()`` when those words are done with (after any of the calls above, or when they
were cut off), and ``on_error(sentence)`` once if the microphone fails and cannot be opened
again, or hangs (then the listener stops and the game goes on by keyboard). A microphone that
fails is reopened first, for a few seconds, once a minute at most: a sound server that restarts
costs a moment of deafness, not voice play. One that hangs is given up on after
:data:`HUNG_AFTER_S`: a sound server that freezes never reports an error, it just stops sending.

Half-duplex: the speech output reports when it plays (:meth:`VoiceListener.set_output_activity`);
audio captured while it plays and for a tail after never reaches the recogniser, so the game's
own narration can never become a command.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from ..commands import CommandSet
from ..speech.deadlines import SoundSystemNotAnswering, close_without_waiting
from ..speech.portaudio import close_stream, open_stream, portaudio, reopen_stream
from .endpoint import Endpointer
from .recognizer import SAMPLE_RATE, Recognition, Recognizer
from .results import StreamingRecognizer, continues_talk

__all__ = ["ECHO_TAIL_S", "HUNG_AFTER_S", "TURN_TAKING_GAP_S", "MicrophoneUnavailable",
           "VoiceListener", "check_microphone", "find_microphone", "pyaudio_fix"]

FRAME_MS = 20
ECHO_TAIL_S = 0.3
"""How long after our own speech ends the microphone stays deaf (room echo, device latency)."""

REOPEN_FOR_S = 4.0
"""How long a microphone that failed mid-game is tried again before the game goes on by keys."""
REOPEN_INTERVAL_S = 60.0
"""A microphone that fails again this soon after being reopened is given up on."""
_REOPEN_RETRY_S = 0.5

HUNG_AFTER_S = 5.0
"""A read from the microphone that has not returned after this long is hung. A frame is due every
20 ms, so this is no slow machine: it is a sound server that froze with the stream open (stopped,
or stuck), which never answers and never fails."""
_WATCH_EVERY_S = 0.5

TURN_TAKING_GAP_S = ECHO_TAIL_S + 0.9
"""Silence a listening, talking game leaves after it stops talking before a card turns by itself
(``Table.quiet_gap``): the microphone is deaf while the game speaks and for the echo's tail, so
this is the player's chance to start a sentence. Once they do, the game waits for them."""


class MicrophoneUnavailable(Exception):
    """The microphone cannot be used; the message is one sentence for the player."""


def find_microphone(pa: Any, mic: str | int | None) -> int | None:
    """The PyAudio input device index for ``--mic NAME|INDEX`` (``None``: the default device)."""
    if mic is None or mic == "":
        try:
            pa.get_default_input_device_info()
        except OSError:
            raise MicrophoneUnavailable("No microphone was found; plug one in or choose one "
                                        "with --mic.") from None
        return None
    inputs = []
    for index in range(pa.get_device_count()):
        info = pa.get_device_info_by_index(index)
        if int(info.get("maxInputChannels", 0)) > 0:
            inputs.append((index, str(info.get("name", ""))))
    names = ", ".join(name for _, name in inputs) or "none"
    if isinstance(mic, int) or str(mic).isdigit():
        wanted = int(mic)
        if any(index == wanted for index, _ in inputs):
            return wanted
        raise MicrophoneUnavailable(f"There is no microphone number {wanted}; "
                                    f"the microphones are: {names}.")
    exact = [index for index, name in inputs if name.lower() == str(mic).lower()]
    partial = [index for index, name in inputs if str(mic).lower() in name.lower()]
    if exact or partial:
        return (exact or partial)[0]
    raise MicrophoneUnavailable(f"There is no microphone called {mic!r}; "
                                f"the microphones are: {names}.")


class VoiceListener:
    """Listens in a background thread and calls back with commands.

    A game loop creates one, passes ``on_command`` that puts the id on its input queue (the same
    queue the keyboard feeds), calls :meth:`start` (which raises :class:`MicrophoneUnavailable`
    with one sentence if there is no usable microphone), has its speech output call
    :meth:`set_output_activity`, and calls :meth:`stop` at the end.
    """

    def __init__(self, commands: CommandSet, *, on_command: Callable[[str], None],
                 on_unsure: Callable[[Recognition], None] | None = None,
                 on_too_noisy: Callable[[Recognition], None] | None = None,
                 on_error: Callable[[str], None] | None = None,
                 on_speech_start: Callable[[], None] | None = None,
                 on_speech_end: Callable[[], None] | None = None,
                 mic: str | int | None = None, allowed: Callable[[], set[str]] | None = None,
                 recognizer: StreamingRecognizer | None = None, language: str = "en") -> None:
        self.commands = commands
        self.on_command = on_command
        self.on_unsure = on_unsure
        self.on_too_noisy = on_too_noisy or on_unsure
        self.on_error = on_error
        self.on_speech_start = on_speech_start
        self.on_speech_end = on_speech_end
        self.mic = mic
        self.allowed = allowed
        self._recognizer = recognizer
        self._language = language
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._reopened = False  # set by _frames, read by _run: the listener's own thread
        self._stream: Any = None
        self._device_lock = threading.Lock()  # stop() may come from two threads at once
        self._ending = threading.Lock()  # the microphone is given up on once, never after stop()
        self._reading_since: float | None = None  # when the read now waiting began (watchdog)
        self._output_lock = threading.Lock()
        self._speaking_since: float | None = None
        self._deaf_until = 0.0
        self._quiet_until = -math.inf

    # ----- half-duplex ------------------------------------------------------------------------

    def set_output_activity(self, speaking: bool, at: float) -> None:
        """The speech output's audio started (``True``) or ended (``False``) at monotonic ``at``."""
        with self._output_lock:
            if speaking:
                if self._speaking_since is None or at < self._speaking_since:
                    self._speaking_since = at
            else:
                self._speaking_since = None
                self._deaf_until = max(self._deaf_until, at + ECHO_TAIL_S)

    def heard_quiet_until(self) -> float:
        """The monotonic capture time up to which the listener has gone through the microphone's
        audio and found nobody starting to speak (or was deaf: the game spoke). A listener that
        falls behind on a busy machine hears a player's first words late; the table counts its
        quiet gap over this, not the clock, so a card never turns over words not yet heard."""
        return self._quiet_until

    def _deaf(self, start: float, end: float) -> bool:
        """Does audio captured between ``start`` and ``end`` overlap our own speech or its tail?"""
        with self._output_lock:
            if self._speaking_since is not None and end >= self._speaking_since:
                return True
            return start < self._deaf_until

    # ----- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Open the microphone and start listening; :class:`MicrophoneUnavailable` if it can't."""
        if self._thread is not None:
            return
        pyaudio = _pyaudio()
        if self._recognizer is None:
            self._recognizer = Recognizer(self.commands, language=self._language)
        self._stream = _open_microphone(pyaudio, self.mic)
        self._stop.clear()
        self._reading_since = time.monotonic()  # the first read is waiting from now
        self._thread = threading.Thread(target=self._run, name="voice-listener", daemon=True)
        self._thread.start()
        threading.Thread(target=self._watch, name="voice-watchdog", daemon=True).start()

    def stop(self) -> None:
        """Stop listening and close the microphone (safe to call twice; never hangs).

        A listener thread still stuck in a read after two seconds (a frozen sound server) is left
        to close the microphone itself if that read ever returns: closing the stream under a
        read in progress frees what PortAudio is reading into, and the process crashes.
        """
        with self._ending:
            self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2)
            if thread.is_alive():
                return
        self._close()

    def _close(self) -> None:
        """Close the stream (the process's PortAudio stays, for the speaker and the next
        stream), waiting a second at most: a frozen sound server hangs the close for ever, and
        the game must still exit. Only the thread that reads the stream, or any thread once that
        one has ended, may call this."""
        with self._device_lock:
            stream, self._stream = self._stream, None
        if stream is not None:
            close_without_waiting(lambda: close_stream(stream, stop=True), name="microphone-close")

    # ----- the loop ---------------------------------------------------------------------------

    def _run(self) -> None:
        recognizer = self._recognizer
        assert recognizer is not None
        endpointer = Endpointer(sample_rate=SAMPLE_RATE, frame_ms=FRAME_MS)
        frame_samples = SAMPLE_RATE * FRAME_MS // 1000
        frame_s = FRAME_MS / 1000
        recognizer.reset_stream()
        try:
            in_utterance = False
            previous: Recognition | None = None
            for frame, captured in self._frames(frame_samples):
                gap, self._reopened = self._reopened, False
                if gap or self._deaf(captured - frame_s - 0.05, captured):
                    if in_utterance:
                        recognizer.abort()
                        in_utterance = False
                        self._speech_ended()
                    endpointer.reset()
                    previous = None
                    self._quiet_until = captured
                    continue
                for event in endpointer.process(frame, recognizer.completion):
                    if event.kind == "start":
                        recognizer.start(self.allowed() if self.allowed else None,
                                         after_talk=continues_talk(event.gap_ms, previous), gap_ms=event.gap_ms)
                        recognizer.feed(event.audio)
                        in_utterance = True
                        if self.on_speech_start is not None:
                            self.on_speech_start()
                    elif event.kind == "audio" and in_utterance:
                        recognizer.feed(event.audio)
                    elif event.kind == "abandon" and in_utterance:
                        recognizer.abort()
                        in_utterance = False
                        previous = None
                        self._speech_ended()
                    elif event.kind == "end" and in_utterance:
                        in_utterance = False
                        result = previous = recognizer.finish(event.snr_db)
                        if result.command is not None:
                            self.on_command(result.command)
                        elif result.reason == "too noisy" and self.on_too_noisy is not None:
                            self.on_too_noisy(result)
                        elif result.unsure and self.on_unsure is not None:
                            self.on_unsure(result)
                        self._speech_ended()
                if not in_utterance:
                    self._quiet_until = captured
                elif endpointer.may_close_next(recognizer.completion):
                    recognizer.prepare()  # while the next frame is on its way
        except _MicrophoneLost as lost:
            self._give_up(str(lost))
        finally:
            self._close()

    def _give_up(self, sentence: str) -> None:
        """Stop listening and say why, once; not after :meth:`stop` (the game is ending)."""
        with self._ending:
            if self._stop.is_set():
                return
            self._stop.set()
        if self.on_error is not None:
            self.on_error(sentence)

    def _watch(self) -> None:
        """Give up on a microphone whose read has hung for :data:`HUNG_AFTER_S`. The listener's
        own thread cannot: it is the one stuck in the read, until the sound server answers."""
        while not self._stop.wait(_WATCH_EVERY_S):
            since = self._reading_since
            if since is not None and time.monotonic() - since > HUNG_AFTER_S:
                self._give_up(_HUNG)  # the listener closes the stream if its read returns
                return

    def _speech_ended(self) -> None:
        if self.on_speech_end is not None:
            self.on_speech_end()

    def _frames(self, frame_samples: int) -> Iterator[tuple[bytes, float]]:
        """Frames with the monotonic time their last sample was captured; a gap where the
        microphone had to be reopened shows as a jump in that time.

        The capture time is the audio's own clock: a read that had to wait for sound is live (now);
        one that returned at once came from what piled up while the listener was busy, and is one
        frame later than the frame before it. The time a read returns would date words that waited
        in the buffer too late: the game's own speech would outlast its deaf tail, and a player's
        first words would seem to come after the pause they were said in."""
        reopened_at: float | None = None
        frame_s = frame_samples / SAMPLE_RATE
        captured: float | None = None
        while not self._stop.is_set():
            stream = self._stream
            if stream is None:
                return
            try:
                self._reading_since = asked = time.monotonic()
                data = bytes(stream.read(frame_samples, exception_on_overflow=False))
                self._reading_since = None
                if self._stop.is_set():  # given up on, or stopped, while the read hung
                    return
            except (OSError, ValueError, AttributeError) as error:
                self._reading_since = None
                if self._stop.is_set():
                    return
                now = time.monotonic()
                if (reopened_at is None or now - reopened_at > REOPEN_INTERVAL_S) and self._reopen():
                    reopened_at = time.monotonic()
                    captured = None
                    continue
                raise _MicrophoneLost(_why(error, lost=True)) from None
            now = time.monotonic()
            waited = now - asked >= frame_s / 2  # live sound, not the backlog
            captured = now if waited or captured is None else min(now, captured + frame_s)
            yield data, captured

    def _reopen(self) -> bool:
        """Close the failed stream and open the same microphone again through the process's one
        PortAudio (the open waits for the close), once a child process has opened it
        (:func:`reopen_stream`), for up to :data:`REOPEN_FOR_S`; False if it would not open (or
        listening was stopped)."""
        import pyaudio

        self._close()
        deadline = time.monotonic() + REOPEN_FOR_S
        while not self._stop.is_set():
            try:
                stream = _open_stream(pyaudio, self.mic, deadline=deadline)
            except MicrophoneUnavailable:
                if time.monotonic() >= deadline:
                    return False
                self._stop.wait(_REOPEN_RETRY_S)
                continue
            self._stream = stream
            self._reopened = True  # words cut by the gap are dropped, not joined across it
            return True
        return False


_HUNG = ("The microphone stopped sending sound (is the sound system stuck? restarting PulseAudio "
         "or PipeWire may help).")


class _MicrophoneLost(Exception):
    """The stream failed mid-game (unplugged, taken away)."""


def pyaudio_fix(platform: str = sys.platform) -> str:
    """How to get PyAudio, which opens the microphone, on ``platform``: a wheel on Windows, built
    from source against PortAudio elsewhere (``pyproject.toml``'s ``voice`` extra).

    >>> pyaudio_fix("darwin")
    "brew install portaudio, then pipx install --force 'voice-rang[voice]'"
    """
    if platform == "win32":
        return "pipx install --force voice-rang"
    if platform == "darwin":
        return "brew install portaudio, then pipx install --force 'voice-rang[voice]'"
    return ("sudo apt-get install portaudio19-dev python3-dev, then pipx install --force 'voice-rang[voice]' "
            "(in a checkout, scripts/dev setup)")


def _pyaudio() -> Any:
    """The PyAudio module; :class:`MicrophoneUnavailable` with one sentence if it is missing."""
    try:
        import pyaudio
    except ImportError:
        raise MicrophoneUnavailable(f"Voice input needs PyAudio, which is not installed: {pyaudio_fix()}.") from None
    return pyaudio


def check_microphone(mic: str | int | None) -> None:
    """:class:`MicrophoneUnavailable` with one sentence if ``mic`` is missing; nothing is opened.

    The game checks before it loads the recogniser (about half a second), so that a player
    without a microphone hears at the start of the game that voice commands are off, not after
    the first cards."""
    _pyaudio()
    with _said_as_unavailable():
        find_microphone(portaudio(), mic)


@contextmanager
def _said_as_unavailable() -> Iterator[None]:
    """PortAudio's failures (and a sound server that does not answer) as
    :class:`MicrophoneUnavailable` with one sentence for the player."""
    try:
        yield
    except SoundSystemNotAnswering as error:
        raise MicrophoneUnavailable(str(error)) from None
    except (OSError, ValueError) as error:
        raise MicrophoneUnavailable(_why(error)) from None


def _open_microphone(pyaudio: Any, mic: str | int | None) -> Any:
    """An open 16 kHz mono input stream on ``mic``, through the process's one PortAudio
    (started here if need be; a frozen sound server is caught, not waited on);
    :class:`MicrophoneUnavailable` with one sentence if it can't."""
    return _open_stream(pyaudio, mic)


def _open_stream(pyaudio: Any, mic: str | int | None, *, deadline: float | None = None) -> Any:
    """A 16 kHz mono input stream on ``mic``; :class:`MicrophoneUnavailable` if it won't open.
    With a ``deadline`` it is a reopen after a failure, tried in a child first (:func:`reopen_stream`)."""
    with _said_as_unavailable():
        index = find_microphone(portaudio(), mic)
        opener: Callable[..., Any] = open_stream if deadline is None else partial(reopen_stream, deadline=deadline)
        return opener(format=pyaudio.paInt16, channels=1, rate=SAMPLE_RATE, input=True,
                      input_device_index=index,
                      frames_per_buffer=SAMPLE_RATE * FRAME_MS // 1000)


def _why(error: Exception, *, lost: bool = False) -> str:
    """One sentence for the player from PortAudio's error: what is wrong and how to mend it. The
    game adds that play goes on by keyboard."""
    text = str(error).lower()
    if "invalid sample rate" in text or "sample rate" in text:
        return "The microphone does not support 16000 Hz recording; choose another with --mic."
    if "permission" in text or "denied" in text:
        return ("The microphone cannot be opened (permission denied); allow this user to record "
                "sound.")
    if lost:
        return "The microphone stopped working (was it unplugged?)."
    return "The microphone could not be opened; check it is plugged in, or choose another with --mic."
