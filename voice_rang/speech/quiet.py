"""C libraries kept quiet: PortAudio's and ALSA's start-up chatter never reaches stderr.

PortAudio probes every ALSA, JACK and OSS device it knows about when it starts, and on a
machine without a sound card (or with PulseAudio in front of one) the C libraries print pages
of ``ALSA lib ... cannot find card '0'`` to the process's stderr. A screen-reader user hears
every one of those lines, so nothing lets them through: :func:`silence_alsa_errors` installs a
silent ALSA error handler (once, for the life of the process) and :func:`quiet_pyaudio` points
file descriptor 2 at ``/dev/null`` while PortAudio initialises or opens a stream.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

__all__ = ["point_stderr_at", "quiet_pyaudio", "silence_alsa_errors"]

_ALSA_HANDLER_TYPE = ctypes.CFUNCTYPE(
    None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p
)
_alsa_handler: Any = None
_alsa_lock = threading.Lock()
_fd_lock = threading.RLock()
_fd_depth = 0
_saved_fd: int | None = None


def _ignore_alsa_error(
    filename: bytes | None, line: int, function: bytes | None, err: int, fmt: bytes | None
) -> None:
    """ALSA's error handler is variadic; ignoring every argument makes the fixed prototype safe."""
    del filename, line, function, err, fmt


def silence_alsa_errors() -> bool:
    """Install a no-op ALSA error handler for the whole process; True if ALSA is present.

    Unlike the stderr redirection this also covers messages printed later (an underrun, a
    device that disappears mid-game) without hiding anything else the program writes.
    """
    global _alsa_handler
    with _alsa_lock:
        if _alsa_handler is not None:
            return True
        if not sys.platform.startswith("linux"):
            return False
        name = ctypes.util.find_library("asound") or "libasound.so.2"
        try:
            asound = ctypes.CDLL(name)
            handler = _ALSA_HANDLER_TYPE(_ignore_alsa_error)
            asound.snd_lib_error_set_handler(handler)
        except (OSError, AttributeError):
            return False
        _alsa_handler = handler  # must outlive every ALSA call, so keep it for good
        return True


@contextmanager
def quiet_pyaudio() -> Iterator[None]:
    """Silence C-level stderr noise for the block (PortAudio/ALSA/JACK start-up chatter).

    File descriptor 2 belongs to the whole process, so while the block runs, anything another
    thread writes to stderr is lost too: keep the block to the noisy call itself
    (``pyaudio.PyAudio()``, ``open()``, ``terminate()``). Nested and concurrent uses are safe.
    """
    global _fd_depth, _saved_fd
    silence_alsa_errors()
    with _fd_lock:
        if _fd_depth == 0:
            with suppress(OSError, ValueError, AttributeError):
                sys.stderr.flush()
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                try:
                    _saved_fd = os.dup(2)
                    os.dup2(devnull, 2)
                finally:
                    os.close(devnull)
            except OSError:
                _saved_fd = None
        _fd_depth += 1
    try:
        yield
    finally:
        with _fd_lock:
            _fd_depth -= 1
            if _fd_depth == 0 and _saved_fd is not None:
                os.dup2(_saved_fd, 2)
                os.close(_saved_fd)
                _saved_fd = None


def point_stderr_at(fd: int) -> None:
    """Make ``fd`` the process's stderr (descriptor 2). While a quiet block runs on another
    thread, it becomes what that block puts back at its end instead, and descriptor 2 stays
    silenced until then: a PortAudio start still under way when the game exits (its JACK host's
    "Cannot connect to server socket" lines) must not reach the player."""
    with _fd_lock:
        if _fd_depth > 0 and _saved_fd is not None:
            os.dup2(fd, _saved_fd)
        else:
            os.dup2(fd, 2)
