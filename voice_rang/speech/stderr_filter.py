"""Keep PortAudio's internal complaints off the player's stderr, for the life of the process.

When a device fails mid-game (a sound server that dies, a microphone pulled out), PortAudio's
ALSA host prints a trail of its own checks to file descriptor 2, ten lines or more of
``Expression 'alsa_snd_pcm_prepare( stream->playback.pcm )' failed in
'src/hostapi/alsa/pa_linux_alsa.c', line: 2928``. A screen-reader user hears every one of them
after the game's own one-line explanation. PortAudio offers no switch for this in the library
PyAudio loads (its debug-print hook is not exported), and the failure happens on a background
thread at any time, so :func:`quiet_pyaudio <voice_rang.speech.quiet.quiet_pyaudio>`'s
short redirection cannot cover it.

:func:`filter_native_stderr` therefore puts a pipe in front of descriptor 2: a thread copies
every line to the real stderr except those that match :data:`NATIVE_NOISE`. Python's own
writes to ``sys.stderr`` take the same path, in order; at exit the pipe is closed and drained,
so nothing printed last is lost.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import sys
import threading

__all__ = ["NATIVE_NOISE", "filter_native_stderr"]

NATIVE_NOISE = re.compile(
    rb"^(Expression '.*' failed in '.*', line: \d+"
    rb"|ALSA lib .*"
    rb"|(\x1b\[[0-9;]*m)?\S+ \S+ \[W:onnxruntime:[^\]]*telemetry[^\]]*\] .*)\r?$"
)
"""Lines from PortAudio's ALSA host, from ALSA itself, and onnxruntime's warning that it could not
keep a telemetry id in an unwritable cache (the models load all the same); nothing the game writes
looks so."""

_lock = threading.Lock()
_installed = False


def filter_native_stderr() -> bool:
    """Filter descriptor 2 from now until exit; True if the filter is (already) in place.

    Does nothing where descriptor 2 is not open or cannot be duplicated.
    """
    global _installed
    with _lock:
        if _installed:
            return True
        try:
            real = os.dup(2)
        except OSError:
            return False
        try:
            reader, writer = os.pipe()
        except OSError:
            os.close(real)
            return False
        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stderr.flush()
        os.dup2(writer, 2)
        os.close(writer)
        thread = threading.Thread(target=_copy, args=(reader, real), name="stderr-filter",
                                  daemon=True)
        thread.start()
        atexit.register(_drain, real, thread)
        _installed = True
        return True


def _copy(reader: int, real: int) -> None:
    """Forward every line but native noise; a partial last line is forwarded at end of input."""
    pending = b""
    while True:
        try:
            chunk = os.read(reader, 4096)
        except OSError:
            chunk = b""
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        kept = b"".join(line + b"\n" for line in lines if not NATIVE_NOISE.match(line))
        _write_all(real, kept)
    if pending and not NATIVE_NOISE.match(pending):
        _write_all(real, pending)
    os.close(reader)


def _write_all(fd: int, data: bytes) -> None:
    while data:
        try:
            written = os.write(fd, data)
        except OSError:
            return
        data = data[written:]


def _drain(real: int, thread: threading.Thread) -> None:
    """At exit: put the real stderr back (closing the pipe's last writer) and let the copier
    finish what is still in the pipe. A quiet block still running on another thread keeps
    descriptor 2 silenced until it ends (:func:`~voice_rang.speech.quiet.point_stderr_at`)."""
    from .quiet import point_stderr_at

    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    try:
        point_stderr_at(real)
    except OSError:
        return
    thread.join(timeout=1.0)
