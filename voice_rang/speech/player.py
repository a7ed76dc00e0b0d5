"""Interruptible PCM playback through one output stream that stays open.

The stream goes straight to the PulseAudio server when the output is the server's (the usual
case: :mod:`~voice_rang.speech.pulse`, whose buffer lives in the server and so outlasts a play
thread held up on a loaded machine), else through PortAudio. What follows holds for both; the
direct stream's buffer is larger, its idle cushion is the same 20 ms, and a stop drops what the
server holds (:meth:`Player.discard`).

Why we play audio ourselves: we must be able to stop mid-word and to know when sound starts
and ends (the microphone ignores our own voice in between).

How stopping stays fast without an "abort" call (PyAudio exposes only ``stop_stream``, which
drains): we never let PortAudio hold more than its own small buffer (a few tens of
milliseconds). Each write is sized to the space PortAudio reports free, so ``write`` never
blocks for long, the caller's stop flag is checked between writes, and what still sounds after
a stop is at most that buffer. The same polling gives a stall detector: a device that stops
taking audio for :data:`STALL_SECONDS` is reported lost instead of hanging the game.

The stream is opened once (at the synthesizer's rate when the device takes it, else at the
device's own rate with linear resampling here) and kept open: no device open per message.

Between messages the stream is kept topped up with a small cushion of silence (about 20 ms,
:meth:`Player.keep_alive`) rather than left to run dry. Measured here: a stream that runs dry is
corked by the ALSA pulse plugin, the sink goes back to sleep, and the next message waits up to
two seconds (a null sink) or loses its first syllable while a USB/Bluetooth device wakes up. The
speech itself is written without leading silence, and on the server's own stream its first sound
replaces the cushion (:meth:`Player.write`'s ``over_cushion``), so it starts from the frame being
played, not behind the cushion.
"""

from __future__ import annotations

import array
import sys
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from .deadlines import SoundSystemNotAnswering, close_without_waiting
from .devices import AudioDevice, DeviceNotFound, find_output_device, list_devices
from .portaudio import close_stream, latency_override_off, open_stream, portaudio, reopen_stream
from .pulse import PulseOutputStream, PulseUnavailable, pulse_server_configured

__all__ = ["STALL_SECONDS", "PlaybackError", "Player", "PlayerUnavailable"]

STALL_SECONDS = 4.0
"""How long the device may refuse audio before we call it lost (a PulseAudio null sink that
has gone idle sleeps for two seconds before it takes the first new frame)."""

_FRAMES_PER_BUFFER = 256
_MIN_WRITE_FRAMES = 64
_DIRECT_CUSHION_S = 0.02


class PlayerUnavailable(Exception):
    """The output device could not be opened; the message is one sentence for a person."""


class PlaybackError(Exception):
    """The output device failed while playing (unplugged, server gone, stalled)."""


_DEVICE_GONE = frozenset({-9999, -9987, -9986, -9985})
"""PortAudio's unanticipated host error, timed out, internal error and device unavailable: what a
stream reports mid-game when its device or server disappears."""


def _device_error(error: Exception) -> str:
    """What went wrong, for a person: PortAudio's own words ("[Errno -9999] Unanticipated host
    error") say nothing to a player, so its errors become what they mean here.

    >>> _device_error(OSError(-9999, "Unanticipated host error"))
    'the sound device or the sound server went away'
    >>> _device_error(ValueError("Stream closed"))
    'Stream closed'
    """
    if isinstance(error, OSError) and error.errno in _DEVICE_GONE:
        return "the sound device or the sound server went away"
    return str(error) or type(error).__name__


class _Resampler:
    """Linear resampling of PCM16 mono that carries its phase across chunks."""

    def __init__(self, source_rate: int, target_rate: int) -> None:
        self.step = source_rate / target_rate
        self.position = 0.0
        self.previous = 0

    def reset(self) -> None:
        self.position = 0.0
        self.previous = 0

    def convert(self, pcm: bytes) -> bytes:
        samples = array.array("h", pcm)
        if sys.byteorder == "big":
            samples.byteswap()
        out = array.array("h")
        count = len(samples)
        position, previous, step = self.position, self.previous, self.step
        while position < count:
            base = int(position)
            fraction = position - base
            left = previous if base == 0 else samples[base - 1]
            right = samples[base]
            out.append(int(left + (right - left) * fraction))
            position += step
        self.position = position - count
        if count:
            self.previous = samples[-1]
        if sys.byteorder == "big":
            out.byteswap()
        return out.tobytes()


class Player:
    """One open output stream and the arithmetic of what is still queued in it."""

    stream_rate: int
    """The rate the open stream runs at (a reopen tries this one)."""

    def __init__(
        self, sample_rate: int, device: str | int | None = None, *,
        stall_seconds: float = STALL_SECONDS,
    ) -> None:
        self.stall_seconds = stall_seconds
        try:
            pa = portaudio()
        except ImportError as error:
            raise PlayerUnavailable(
                "PyAudio is not installed: run scripts/dev setup, or play with your screen reader."
            ) from error
        except SoundSystemNotAnswering as error:
            raise PlayerUnavailable(f"{error} Play with your screen reader.") from error
        except Exception as error:
            raise PlayerUnavailable(
                f"The audio system would not start ({error}): play with your screen reader."
            ) from error
        self._lock = threading.Lock()
        self._stream: Any = None
        self._resampler: _Resampler | None = None
        self._portaudio_latency = 0.0
        self.direct = False
        """Whether the stream goes straight to the PulseAudio server (not through PortAudio)."""
        try:
            self.device: AudioDevice = find_output_device(list_devices(pa), device)
        except DeviceNotFound as error:
            raise PlayerUnavailable(str(error)) from error
        self._open(sample_rate)

    def _open(self, sample_rate: int, *, again: bool = False) -> None:
        """Open the stream: straight to the PulseAudio server when the device is the server's
        (:mod:`~voice_rang.speech.pulse`), else through PortAudio at ``sample_rate`` or the
        device's own rate. ``again`` (after a failure) tries only the way that worked."""
        if again and self.direct:
            self._open_direct(sample_rate)
            return
        if not again and self._wants_direct():
            with suppress(PlayerUnavailable):
                self._open_direct(sample_rate)
                return
        self._open_portaudio(sample_rate, again=again)

    def _wants_direct(self) -> bool:
        """Whether the chosen output is the sound server's own (its PortAudio names are "pulse"
        and "default"), and a server is there to talk to."""
        return self.device.name.casefold() in {"pulse", "default"} and pulse_server_configured()

    def _open_direct(self, sample_rate: int) -> None:
        """Open a :class:`PulseOutputStream`; raises :class:`PlayerUnavailable` (no server, or
        one that is restarting: a reopen tries again)."""
        try:
            stream = PulseOutputStream(sample_rate, connecting=latency_override_off)
        except (PulseUnavailable, SoundSystemNotAnswering) as error:
            raise PlayerUnavailable(
                f"The sound server would not take a stream ({error}): "
                "run voice-rang doctor, or play with your screen reader."
            ) from error
        self._stream = stream
        self.direct = True
        self._last_progress = time.monotonic()
        self.stream_rate = self.source_rate = sample_rate
        self._resampler = None
        self.buffer_frames = stream.buffer_frames

    def _open_portaudio(self, sample_rate: int, *, again: bool) -> None:
        """Open a PortAudio stream at ``sample_rate``, else at the device's own rate; ``again``
        tries only the rate that worked, through :func:`reopen_stream`."""
        import pyaudio

        self.direct = False
        rates = [sample_rate]
        device_rate = int(self.device.default_sample_rate)
        if again:
            rates = [self.stream_rate]
        elif device_rate and device_rate != sample_rate:
            rates.append(device_rate)
        opener: Callable[..., Any] = reopen_stream if again else open_stream
        last_error: Exception | None = None
        for rate in rates:
            try:
                stream = opener(
                    format=pyaudio.paInt16,
                    channels=1,
                    rate=rate,
                    output=True,
                    output_device_index=self.device.index,
                    frames_per_buffer=_FRAMES_PER_BUFFER,
                )
            except SoundSystemNotAnswering as error:
                raise PlayerUnavailable(f"{error} Play with your screen reader.") from error
            except Exception as error:  # OSError, ValueError for unsupported formats
                last_error = error
                continue
            self._stream = stream
            self._last_progress = time.monotonic()
            self.stream_rate = rate
            self.source_rate = sample_rate
            self._resampler = _Resampler(sample_rate, rate) if rate != sample_rate else None
            self._portaudio_latency = float(stream.get_output_latency() or 0.0)
            try:
                self.buffer_frames = max(int(stream.get_write_available()), _MIN_WRITE_FRAMES)
            except Exception:
                self.buffer_frames = _FRAMES_PER_BUFFER * 3
            return
        raise PlayerUnavailable(
            f"The audio output {self.device.name!r} would not open ({last_error}): "
            "run voice-rang doctor, or play with your screen reader."
        )

    def _target_frames(self) -> int:
        """The cushion of silence kept queued while idle: most of PortAudio's small buffer, or
        :data:`_DIRECT_CUSHION_S` of the server's large one (speech queues behind it)."""
        if self.direct:
            return max(int(self.stream_rate * _DIRECT_CUSHION_S), _MIN_WRITE_FRAMES)
        return max(self.buffer_frames * 2 // 3, _MIN_WRITE_FRAMES)

    def keep_alive(self) -> float:
        """Top the stream up with silence to the cushion; returns how long to wait until next.

        Raises :class:`PlaybackError` when the device fails or has taken nothing for
        ``stall_seconds``.
        """
        stream = self._stream
        if stream is None:
            raise PlaybackError("the audio output is closed")
        now = time.monotonic()
        try:
            free = int(stream.get_write_available())
            queued = self.buffer_frames - free
            missing = self._target_frames() - queued
            if missing >= _MIN_WRITE_FRAMES:
                count = min(missing, free)
                stream.write(b"\0\0" * count, count)
                self._last_progress = now
            elif now - self._last_progress > self.stall_seconds:
                raise PlaybackError("the audio output stopped taking sound")
        except PlaybackError:
            raise
        except Exception as error:
            raise PlaybackError(_device_error(error)) from error
        return max(min(queued, self._target_frames()) / self.stream_rate / 2, 0.002)

    def warm_up(self, timeout: float = STALL_SECONDS) -> bool:
        """Start the stream and wait until the device takes audio; False if it never does.

        Done once when speech starts, so the first message does not pay for a sleeping sink.
        """
        deadline = time.monotonic() + timeout
        self.keep_alive()
        stream = self._stream
        while time.monotonic() < deadline:
            try:
                free = int(stream.get_write_available())
            except Exception:
                return False
            if free >= self.buffer_frames - self._target_frames() + _MIN_WRITE_FRAMES:
                return True
            time.sleep(0.005)
        return False

    @property
    def output_latency(self) -> float:
        """Seconds from a write to its sound: what the server holds now (the idle cushion and
        the sink's own buffer) when direct, else what PortAudio reports for its stream."""
        if self.direct:
            return self.queued_seconds()
        return self._portaudio_latency

    @property
    def last_progress(self) -> float:
        """``time.monotonic()`` of the last write the device accepted."""
        return self._last_progress

    @property
    def is_open(self) -> bool:
        return self._stream is not None

    def write(self, pcm: bytes, should_stop: Callable[[], bool], *,
              over_cushion: bool = False) -> bool:
        """Play ``pcm`` (source-rate PCM16 mono); False as soon as ``should_stop()`` says so.

        ``over_cushion``: only the idle cushion of silence is queued, and ``pcm`` holds at least
        as much sound: on the server's own stream it then replaces the cushion instead of waiting
        behind it, so a message after silence starts up to :data:`_DIRECT_CUSHION_S` sooner (a
        PortAudio stream cannot, and plays it after). Returns after the last frame is handed
        over, not after it has sounded: see :meth:`queued_seconds`. Raises
        :class:`PlaybackError` when the device fails or stalls.
        """
        stream = self._stream
        if stream is None:
            raise PlaybackError("the audio output is closed")
        data = self._resampler.convert(pcm) if self._resampler else pcm
        total = len(data) // 2
        done = 0
        last_progress = time.monotonic()
        rate = self.stream_rate
        try:
            while done < total:
                if should_stop():
                    return False
                free = int(stream.get_write_available())
                want = min(total - done, _MIN_WRITE_FRAMES)
                if free < want:
                    now = time.monotonic()
                    if now - last_progress > self.stall_seconds:
                        raise PlaybackError("the audio output stopped taking sound")
                    time.sleep(max((want - max(free, 0)) / rate, 0.001))
                    continue
                count = min(free, total - done)
                if over_cushion and self.direct:
                    stream.write(data[done * 2:(done + count) * 2], count, at_play=True)
                    over_cushion = False
                else:
                    stream.write(data[done * 2:(done + count) * 2], count)
                done += count
                last_progress = self._last_progress = time.monotonic()
        except PlaybackError:
            raise
        except Exception as error:  # OSError from PortAudio, or a closed stream
            raise PlaybackError(_device_error(error)) from error
        return True

    def discard(self) -> None:
        """Silence what is written and not yet played, at once (a stop). PortAudio's buffer is
        too short to matter; the server's is not."""
        stream = self._stream
        if self.direct and stream is not None:
            with suppress(Exception):
                stream.flush()

    def queued_seconds(self) -> float:
        """How much written audio has not yet sounded: the server's and the sink's buffers when
        direct, else what has not left PortAudio's buffer."""
        stream = self._stream
        if stream is None:
            return 0.0
        if self.direct:
            return float(stream.queued_seconds())
        try:
            free = int(stream.get_write_available())
        except Exception:
            return 0.0
        queued = max(self.buffer_frames - free, 0) / self.stream_rate
        return queued

    def new_utterance(self) -> None:
        """Forget resampling state so one message does not bleed into the next."""
        if self._resampler is not None:
            self._resampler.reset()

    def reopen(self) -> None:
        """Close the stream and open a new one on the same device, through the process's one
        PortAudio, once a child process has opened it (:func:`reopen_stream`); the open waits
        for the close (they are never run at once).

        Raises :class:`PlayerUnavailable` if the device will not open.
        """
        self.close()
        with self._lock:
            self._open(self.source_rate, again=True)

    def close(self) -> None:
        """Close the stream (PortAudio stays, for the microphone and the next stream); never
        raises, never waits more than a second (a close that hangs on a frozen sound server
        goes on, on its own thread)."""
        with self._lock:
            stream, self._stream = self._stream, None
        if stream is None:
            return
        if isinstance(stream, PulseOutputStream):
            stream.close()
        else:
            close_without_waiting(lambda: close_stream(stream), name="speech-close")
