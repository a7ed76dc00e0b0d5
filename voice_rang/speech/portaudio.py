"""The process's one PortAudio: started once, ended once, streams opened and closed one at a time.

Receives opens and closes of streams from the speaker (``speech/player.py``) and the microphone
(``listen/microphone.py``), from their own threads; emits open PyAudio streams. A reopen after a
lost device is tried in a child process first (:func:`probe_open`), because PortAudio 19.6
aborts the whole process when an open meets a sound server going away. See docs/robustness.md.

``pyaudio`` is imported only inside the functions, so importing this module stays cheap and
works where PortAudio is missing.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from .deadlines import START_TIMEOUT_S, SoundSystemNotAnswering, sound_system_stuck
from .quiet import quiet_pyaudio

__all__ = [
    "LIFE_LOCK_WAIT_S",
    "PROBE_TIMEOUT_S",
    "PULSE_LATENCY_MS",
    "close_stream",
    "end_portaudio",
    "latency_override_off",
    "open_stream",
    "portaudio",
    "portaudio_counts",
    "probe_open",
    "reopen_stream",
]


PULSE_LATENCY_MS = "30"
"""Buffer size asked of PulseAudio when the player has not chosen one.

Through ALSA's pulse plugin a stream otherwise gets a buffer of about two seconds and
does not start until it is full: speech then begins late and a stop leaves a long tail.
Measured here: constructing speech output dropped from 1.8 s to 0.12 s."""


# ----- the one PortAudio of the process --------------------------------------------------------
#
# PortAudio's initialise and terminate are process-wide: a second ``PyAudio()`` only counts up a
# reference that is not locked, and the terminate that brings it back to zero closes every
# stream of the process, including one another thread is reading. Opening and closing streams
# edit one process-wide list of open streams, unlocked too. So the process has one PortAudio,
# started on first use and ended once at exit, and every open and close of a stream takes
# ``_life_lock``, one at a time. Reading and writing need no lock: each stream has one thread.

_life_lock = threading.Lock()
"""Held for every PortAudio call that changes what is open: start, open, close, end."""
_pa: Any = None
_open_streams: set[int] = set()
"""``id()`` of the streams opened here and not yet closed (PortAudio is ended at exit only
when this is empty: a thread may still be stuck inside a stream on a frozen server)."""
_counts = {"starts": 0, "opens": 0, "closes": 0}
"""How often PortAudio was started and streams opened and closed: for tests and doctor."""

LIFE_LOCK_WAIT_S = START_TIMEOUT_S
"""How long an open waits for another open or close to finish. One that takes longer is stuck
on a frozen sound server, and waiting behind it for ever would hang the game."""


def _take_life_lock() -> None:
    if not _life_lock.acquire(timeout=LIFE_LOCK_WAIT_S):
        raise SoundSystemNotAnswering()


def portaudio() -> Any:
    """The process's one started ``pyaudio.PyAudio``, started here on first use, quietly.

    While a start that :func:`answer_within` gave up on still hangs (a frozen sound server),
    :class:`SoundSystemNotAnswering` comes at once instead of a second hang behind it. Raises
    ``ImportError`` when PyAudio (or PortAudio) is not installed. Never end it yourself: it is
    ended once, at exit (:func:`end_portaudio`).
    """
    global _pa
    import pyaudio

    if _pa is not None:
        return _pa
    if sound_system_stuck():
        raise SoundSystemNotAnswering()
    os.environ.setdefault("PULSE_LATENCY_MSEC", PULSE_LATENCY_MS)
    _take_life_lock()
    try:
        if _pa is None:
            with quiet_pyaudio():
                started = pyaudio.PyAudio()
            _counts["starts"] += 1
            _pa = started
            atexit.register(end_portaudio)
        return _pa
    finally:
        _life_lock.release()


@contextmanager
def latency_override_off() -> Iterator[None]:
    """``PULSE_LATENCY_MSEC`` made ineffective while a stream of this process that is not
    PortAudio's connects to the server: libpulse reads it at every connect, and the speaker's
    own stream asks for a larger buffer than PortAudio's. libpulse ignores the value ``0``, so
    the variable is set to it and back, which replaces one string in place; taking it out and
    putting it back could move the environment under another thread's ``getenv``. Taken with the
    lock of opens and closes, so no PortAudio open reads the environment meanwhile."""
    _take_life_lock()
    try:
        saved = os.environ.get("PULSE_LATENCY_MSEC")
        if saved is not None:
            os.environ["PULSE_LATENCY_MSEC"] = "0"
        try:
            yield
        finally:
            if saved is not None:
                os.environ["PULSE_LATENCY_MSEC"] = saved
    finally:
        _life_lock.release()


def open_stream(**options: Any) -> Any:
    """``portaudio().open(**options)``, quietly, one open or close at a time.

    Raises what PortAudio raises (``OSError``, ``ValueError``), or
    :class:`SoundSystemNotAnswering` when another open or close has hung for
    :data:`LIFE_LOCK_WAIT_S`.
    """
    pa = portaudio()
    _take_life_lock()
    try:
        with quiet_pyaudio():
            stream = pa.open(**options)
        _counts["opens"] += 1
        _open_streams.add(id(stream))
        return stream
    finally:
        _life_lock.release()


PROBE_TIMEOUT_S = 4.0
"""How long a trial open in a child process may take before the sound system is taken to be not
back yet (a start there takes a quarter of a second; a hog on every core makes it a few)."""

_PROBE = (
    "import json, sys, pyaudio\n"
    "pa = pyaudio.PyAudio()\n"
    "pa.open(**json.loads(sys.argv[1])).close()\n"
    "pa.terminate()\n"
)


def probe_open(options: dict[str, Any], *, timeout: float = PROBE_TIMEOUT_S,
               env: dict[str, str] | None = None) -> bool:
    """Whether a stream with these :func:`open_stream` options opens (and closes) in a child
    process, within ``timeout``; a child that fails, aborts or hangs means "not yet".

    Why a child: PortAudio 19.6 (Debian 12's) asserts, and so aborts the whole process, instead
    of failing when an ALSA open through the pulse plugin meets a sound server that is going
    away or not yet up (PortAudio issue #278). That is what a reopen after a lost device meets,
    so :func:`reopen_stream` risks the child first. The first open at start does not: no server
    is restarting then, and the game must start fast.
    """
    try:
        child = subprocess.run(
            [sys.executable, "-c", _PROBE, json.dumps(options)], env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            timeout=timeout, check=False,
        )
    except (subprocess.TimeoutExpired, OSError):
        return False
    return child.returncode == 0


def reopen_stream(*, deadline: float | None = None, **options: Any) -> Any:
    """:func:`open_stream` after a device or its server was lost, once :func:`probe_open` has
    opened the same stream in a child process: the open that could abort the process then meets
    a server that has just answered. Raises ``OSError`` when the child could not open it (try
    again in a moment), else what :func:`open_stream` raises. ``deadline`` (monotonic) caps the
    child's time to what is left of the caller's budget, and a second at least."""
    timeout = PROBE_TIMEOUT_S
    if deadline is not None:
        timeout = min(timeout, max(deadline - time.monotonic(), 1.0))
    if not probe_open(options, timeout=timeout):
        raise OSError("the sound system is not back yet")
    return open_stream(**options)


def close_stream(stream: Any, *, stop: bool = False) -> None:
    """Close a stream opened by :func:`open_stream` (stopping it first with ``stop``), one open or
    close at a time; never raises. Only the thread that reads or writes ``stream`` may call this,
    or any thread once that one has let go of it. May hang on a frozen sound server: callers on
    the way out use :func:`close_without_waiting`."""
    with _life_lock:
        if stop:
            with suppress(Exception):
                stream.stop_stream()
        with suppress(Exception):
            stream.close()
        _counts["closes"] += 1
        _open_streams.discard(id(stream))


def end_portaudio() -> bool:
    """End the process's PortAudio, once, if nothing is open and nobody is inside it; whether it
    ended. Registered with ``atexit``: a daemon thread still stuck in a stream on a frozen server
    would crash the process on its way out if PortAudio were ended under it."""
    global _pa
    if not _life_lock.acquire(timeout=1.0):
        return False
    try:
        if _pa is None or _open_streams or sound_system_stuck():
            return False
        pa, _pa = _pa, None
        with suppress(Exception):
            pa.terminate()
        return True
    finally:
        _life_lock.release()


def portaudio_counts() -> dict[str, int]:
    """How many times PortAudio was started and streams opened and closed in this process."""
    with _life_lock:
        return {**_counts, "open": len(_open_streams)}
