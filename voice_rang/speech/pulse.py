"""A playback stream straight to the PulseAudio server, whose buffer lives in the server.

Why not PortAudio for speech: through ALSA's pulse plugin, what PortAudio holds stays in this
process and moves to the server only when this process runs. A play thread held up for
40-200 ms (the interpreter busy, a loaded machine: measured in docs/robustness.md) then leaves
a hole in the sound, and a hole inside a sound cue shifts the rest of it. Here the data is
handed to the server as soon as it is written, and the server holds up to
:data:`SERVER_BUFFER_MS` of it ahead of the sink, so the play thread may be away that long
without a gap. A stop still silences at once: :meth:`PulseOutputStream.flush` drops what the
server holds.

The same narrow face as the PyAudio stream :class:`~voice_rang.speech.player.Player` writes to
(``get_write_available``, ``write``, ``close``), plus ``flush`` and ``queued_seconds``. Nothing
here waits on a callback: state is polled under the threaded mainloop's lock with a deadline, so a
frozen server makes an open fail in time instead of hanging, and a stream that stops taking sound
shows as no space to write (the player's stall check). libpulse is loaded with ctypes, so nothing
extra is installed: it is the library the ALSA plugin itself uses, present wherever PulseAudio or
PipeWire's pulse server is.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext, suppress
from typing import Any

__all__ = [
    "OPEN_TIMEOUT_S",
    "SERVER_BUFFER_MS",
    "PulseOutputStream",
    "PulseUnavailable",
    "pulse_server_configured",
]

SERVER_BUFFER_MS = 300
"""Sound the server holds ahead of the sink while speech plays: longer than the longest stall
of the play thread measured under load (195 ms)."""
_REQUEST_MS = 10
_PREBUFFER_MS = 10
"""What a stream that ran dry (its play thread held up) must hold again before the server plays
it: well under the idle cushion the player keeps (20 ms, topped up only once 64 frames, 3 ms, are
missing). At 20 ms, the cushion's own size, a stream that ran dry on a loaded machine could be
topped up to a frame short of it and then never play again: the player saw its cushion full, the
server waited for that frame, and four seconds later the speaker was given up as lost."""
_PLAYING_MIN_S = 0.005
"""What the server must still hold for a write at the play position (:meth:`PulseOutputStream._playing`)."""
_TIMING_WAIT_S = 0.2
"""How long :meth:`PulseOutputStream.queued_seconds` waits for the server's timing answer."""
OPEN_TIMEOUT_S = 3.0
"""How long connecting and opening may take before the server is taken to be not answering."""

_S16LE = 3
_CONTEXT_NOAUTOSPAWN = 1
_CONTEXT_READY, _CONTEXT_FAILED, _CONTEXT_TERMINATED = 4, 5, 6
_STREAM_READY, _STREAM_FAILED, _STREAM_TERMINATED = 2, 3, 4
_STREAM_INTERPOLATE_TIMING = 0x0002
_STREAM_AUTO_TIMING_UPDATE = 0x0008
_STREAM_EARLY_REQUESTS = 0x4000
_SEEK_RELATIVE = 0
_SEEK_RELATIVE_ON_READ = 2
_WRITABLE_FAILED = ctypes.c_size_t(-1).value
"""``pa_stream_writable_size``'s answer when the stream has failed."""


class PulseUnavailable(OSError):
    """No PulseAudio server to talk to, or it would not open a stream in time."""


class _SampleSpec(ctypes.Structure):
    _fields_ = [("format", ctypes.c_int), ("rate", ctypes.c_uint32),
                ("channels", ctypes.c_uint8)]


class _BufferAttr(ctypes.Structure):
    _fields_ = [("maxlength", ctypes.c_uint32), ("tlength", ctypes.c_uint32),
                ("prebuf", ctypes.c_uint32), ("minreq", ctypes.c_uint32),
                ("fragsize", ctypes.c_uint32)]


_library: Any = None


def _libpulse() -> Any:
    """libpulse with the few signatures used here; raises :class:`PulseUnavailable`."""
    global _library
    if _library is not None:
        return _library
    name = ctypes.util.find_library("pulse") or "libpulse.so.0"
    try:
        lib = ctypes.CDLL(name)
    except OSError as error:
        raise PulseUnavailable(f"libpulse is not installed ({error})") from error
    p, c_int, size = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
    signatures: dict[str, tuple[Any, list[Any]]] = {
        "pa_threaded_mainloop_new": (p, []),
        "pa_threaded_mainloop_start": (c_int, [p]),
        "pa_threaded_mainloop_stop": (None, [p]),
        "pa_threaded_mainloop_free": (None, [p]),
        "pa_threaded_mainloop_lock": (None, [p]),
        "pa_threaded_mainloop_unlock": (None, [p]),
        "pa_threaded_mainloop_get_api": (p, [p]),
        "pa_context_new": (p, [p, ctypes.c_char_p]),
        "pa_context_connect": (c_int, [p, ctypes.c_char_p, c_int, p]),
        "pa_context_get_state": (c_int, [p]),
        "pa_context_disconnect": (None, [p]),
        "pa_context_unref": (None, [p]),
        "pa_stream_new": (p, [p, ctypes.c_char_p, ctypes.POINTER(_SampleSpec), p]),
        "pa_stream_connect_playback": (
            c_int, [p, ctypes.c_char_p, ctypes.POINTER(_BufferAttr), c_int, p, p]),
        "pa_stream_get_state": (c_int, [p]),
        "pa_stream_writable_size": (size, [p]),
        "pa_stream_write": (c_int, [p, p, size, p, ctypes.c_int64, c_int]),
        "pa_stream_flush": (p, [p, p, p]),
        "pa_stream_update_timing_info": (p, [p, p, p]),
        "pa_stream_get_latency": (
            c_int, [p, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(c_int)]),
        "pa_stream_get_buffer_attr": (ctypes.POINTER(_BufferAttr), [p]),
        "pa_stream_disconnect": (c_int, [p]),
        "pa_stream_unref": (None, [p]),
        "pa_operation_unref": (None, [p]),
    }
    for function, (restype, argtypes) in signatures.items():
        entry = getattr(lib, function)
        entry.restype, entry.argtypes = restype, argtypes
    _library = lib
    return lib


def pulse_server_configured() -> bool:
    """Whether a PulseAudio server is likely here (``PULSE_SERVER`` set, or the user's runtime
    socket exists), so trying it first costs no wait on machines without one. Never on Windows
    or macOS: the game speaks with the system's own voice there (:mod:`.driver`), or through
    PortAudio."""
    if not sys.platform.startswith("linux"):
        return False
    if os.environ.get("PULSE_SERVER"):
        return True
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return runtime is not None and os.path.exists(os.path.join(runtime, "pulse", "native"))


class _MainloopLock:
    """The threaded main loop's lock as a context manager; made once per stream, as it is
    taken for every write. Once the loop is freed, taking it raises ``OSError``."""

    def __init__(self, lib: Any, mainloop: int) -> None:
        self._lib = lib
        self.mainloop: int | None = mainloop

    def __enter__(self) -> None:
        if self.mainloop is None:
            raise OSError("the PulseAudio stream is closed")
        self._lib.pa_threaded_mainloop_lock(self.mainloop)

    def __exit__(self, *_: object) -> None:
        if self.mainloop is not None:
            self._lib.pa_threaded_mainloop_unlock(self.mainloop)


class PulseOutputStream:
    """One mono PCM16 playback stream on the server's default sink, opened at ``rate``.

    Raises :class:`PulseUnavailable` when there is no server, it refuses, or it does not answer
    within ``timeout`` seconds. ``connecting`` is held around the one call that reads the
    environment (libpulse lets ``PULSE_LATENCY_MSEC`` override the buffer asked for).
    """

    def __init__(self, rate: int, *, name: str = "voice-rang",
                 timeout: float = OPEN_TIMEOUT_S,
                 connecting: Callable[[], AbstractContextManager[Any]] = nullcontext) -> None:
        self._connecting = connecting
        self._lib = lib = _libpulse()
        self.rate = rate
        self._mainloop = lib.pa_threaded_mainloop_new()
        if not self._mainloop:
            raise PulseUnavailable("libpulse could not start its main loop")
        self._lock = _MainloopLock(lib, self._mainloop)
        self._context: int | None = None
        self._stream: int | None = None
        self._flushed = False
        if lib.pa_threaded_mainloop_start(self._mainloop) < 0:
            lib.pa_threaded_mainloop_free(self._mainloop)
            raise PulseUnavailable("libpulse could not start its main loop")
        try:
            self._connect(name.encode(), time.monotonic() + timeout)
        except BaseException:
            self.close()
            raise

    def _connect(self, name: bytes, deadline: float) -> None:
        lib = self._lib
        with self._lock:
            self._context = lib.pa_context_new(
                lib.pa_threaded_mainloop_get_api(self._mainloop), name)
            if not self._context or lib.pa_context_connect(
                    self._context, None, _CONTEXT_NOAUTOSPAWN, None) < 0:
                raise PulseUnavailable("no PulseAudio server answered")
        self._await(lambda: lib.pa_context_get_state(self._context), _CONTEXT_READY,
                    {_CONTEXT_FAILED, _CONTEXT_TERMINATED}, deadline, "the PulseAudio server")
        spec = _SampleSpec(_S16LE, self.rate, 1)
        frame_bytes = 2

        def bytes_for(milliseconds: int) -> int:
            return self.rate * milliseconds // 1000 * frame_bytes

        attr = _BufferAttr(0xFFFFFFFF, bytes_for(SERVER_BUFFER_MS), bytes_for(_PREBUFFER_MS),
                           bytes_for(_REQUEST_MS), 0xFFFFFFFF)
        flags = _STREAM_INTERPOLATE_TIMING | _STREAM_AUTO_TIMING_UPDATE | _STREAM_EARLY_REQUESTS
        with self._connecting(), self._lock:
            self._stream = lib.pa_stream_new(self._context, name, ctypes.byref(spec), None)
            if not self._stream or lib.pa_stream_connect_playback(
                    self._stream, None, ctypes.byref(attr), flags, None, None) < 0:
                raise PulseUnavailable("the PulseAudio server refused a playback stream")
        self._await(lambda: lib.pa_stream_get_state(self._stream), _STREAM_READY,
                    {_STREAM_FAILED, _STREAM_TERMINATED}, deadline, "a playback stream")
        with self._lock:
            granted = lib.pa_stream_get_buffer_attr(self._stream).contents
            self.buffer_frames = int(granted.tlength) // frame_bytes

    def _await(self, state: Any, ready: int, failed: set[int], deadline: float,
               what: str) -> None:
        while True:
            with self._lock:
                now = state()
            if now == ready:
                return
            if now in failed:
                raise PulseUnavailable(f"{what} failed")
            if time.monotonic() > deadline:
                raise PulseUnavailable(f"{what} did not answer in time")
            time.sleep(0.005)

    def _check(self) -> None:
        """Raise ``OSError`` when the stream or its server has gone (must hold the lock)."""
        if self._stream is None:
            raise OSError("the PulseAudio stream is closed")
        if self._lib.pa_stream_get_state(self._stream) != _STREAM_READY:
            raise OSError(-9999, "the PulseAudio stream failed")

    def get_write_available(self) -> int:
        """Frames the server will take now without the buffer growing past its target."""
        with self._lock:
            self._check()
            free = self._lib.pa_stream_writable_size(self._stream)
        if free == _WRITABLE_FAILED:
            raise OSError(-9999, "the PulseAudio stream failed")
        return int(free) // 2

    def write(self, data: bytes, frames: int | None = None, *, at_play: bool = False) -> None:
        """Hand ``data`` (PCM16 mono) to the server; never blocks (the caller sizes it to
        :meth:`get_write_available`). ``frames`` is PyAudio's argument, implied here by
        ``data``. ``at_play``: written from where the server plays now, over what it still
        holds (the idle cushion of silence), instead of after it; only while the server is
        playing what it holds (:meth:`_playing`), else after it as usual."""
        with self._lock:
            self._check()
            seek = _SEEK_RELATIVE_ON_READ if at_play and self._playing() else _SEEK_RELATIVE
            if self._lib.pa_stream_write(self._stream, data, len(data), None, 0, seek) < 0:
                raise OSError(-9999, "the PulseAudio server would not take sound")
            self._flushed = False

    def _playing(self) -> bool:
        """Whether the server is playing this stream with sound still queued (must hold the
        lock). A sink that is waking up or held up (a null sink stalls for a second when a
        monitor connects) reports nothing queued, and there, in a probe, the server counted half
        a second written at the play position as 0.13 s: the end of the message, timed by that
        count, would have come too early."""
        latency = None if self._flushed else self._latency()
        return latency is not None and latency >= _PLAYING_MIN_S

    def _latency(self) -> float | None:
        """What the server and the sink still hold, in seconds, or ``None`` while libpulse
        does not know (must hold the lock, with the stream open)."""
        usec, negative = ctypes.c_uint64(0), ctypes.c_int(0)
        if self._lib.pa_stream_get_latency(
                self._stream, ctypes.byref(usec), ctypes.byref(negative)) < 0:
            return None
        return 0.0 if negative.value else usec.value / 1e6

    def flush(self) -> None:
        """Drop everything written and not yet played (a stop). Until the next write nothing is
        queued; libpulse's own figures are stale until the server answers, so they are not
        asked (:meth:`queued_seconds`)."""
        lib = self._lib
        if self._mainloop is None:
            return
        with self._lock:
            if self._stream is None:
                return
            self._flushed = True
            for operation in (lib.pa_stream_flush(self._stream, None, None),
                              lib.pa_stream_update_timing_info(self._stream, None, None)):
                if operation:
                    lib.pa_operation_unref(operation)

    def queued_seconds(self) -> float:
        """How long what was written still sounds: the server's buffer and the sink's.

        After a write at the play position libpulse no longer knows where its writes end until
        the server answers the timing request that write sent (a few milliseconds here); rather
        than guess from the free space meanwhile, it waits up to :data:`_TIMING_WAIT_S` for that
        answer."""
        deadline = time.monotonic() + _TIMING_WAIT_S
        while self._mainloop is not None:
            with self._lock:
                if self._stream is None or self._flushed:
                    return 0.0
                latency = self._latency()
                if latency is not None:
                    return latency
                if time.monotonic() >= deadline:
                    free = self._lib.pa_stream_writable_size(self._stream)
                    if free == _WRITABLE_FAILED:
                        return 0.0
                    return max(self.buffer_frames - int(free) // 2, 0) / self.rate
            time.sleep(0.002)
        return 0.0

    def close(self) -> None:
        """Disconnect and free; never raises, never waits on the server."""
        lib = self._lib
        if self._mainloop is None:
            return
        with suppress(Exception), self._lock:
            if self._stream:
                lib.pa_stream_disconnect(self._stream)
                lib.pa_stream_unref(self._stream)
            if self._context:
                lib.pa_context_disconnect(self._context)
                lib.pa_context_unref(self._context)
            self._stream = self._context = None
        mainloop, self._mainloop = self._mainloop, None
        self._lock.mainloop = None
        lib.pa_threaded_mainloop_stop(mainloop)
        lib.pa_threaded_mainloop_free(mainloop)
