"""Audio devices and voices, found quietly.

PortAudio probes every ALSA, JACK and OSS device it knows about when it starts, and on a
machine without a sound card (or with PulseAudio in front of one) the C libraries print pages
of ``ALSA lib ... cannot find card '0'`` to the process's stderr. A screen-reader user hears
every one of those lines, so nothing here lets them through: :func:`quiet_pyaudio` installs a
silent ALSA error handler (once, for the life of the process) and points file descriptor 2 at
``/dev/null`` while PortAudio initialises or opens a stream. The microphone code reuses it.

The process has one PortAudio (:func:`portaudio`), started once and ended once at exit; the
speaker and the microphone open and close their streams through :func:`open_stream` and
:func:`close_stream`, one at a time (see the comment above :data:`_life_lock` for why).

``pyaudio`` is imported only inside the functions, so importing this module stays cheap and
works where PortAudio is missing.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = [
    "START_TIMEOUT_S",
    "AudioDevice",
    "DeviceNotFound",
    "SoundSystemNotAnswering",
    "answer_within",
    "close_stream",
    "close_without_waiting",
    "describe_devices",
    "end_portaudio",
    "find_output_device",
    "list_devices",
    "open_stream",
    "portaudio",
    "portaudio_counts",
    "probe_open",
    "quiet_pyaudio",
    "reopen_stream",
    "silence_alsa_errors",
    "sound_system_stuck",
]


class DeviceNotFound(LookupError):
    """No device matches what was asked for; the message is one sentence for a person."""


@dataclass(frozen=True)
class AudioDevice:
    """One PortAudio device as a person would pick it: by index or by (part of) its name."""

    index: int
    name: str
    host_api: str
    output_channels: int
    input_channels: int
    default_sample_rate: float
    is_default_output: bool = False
    is_default_input: bool = False

    @property
    def is_output(self) -> bool:
        return self.output_channels > 0

    @property
    def is_input(self) -> bool:
        return self.input_channels > 0


# ----- keeping C libraries quiet ---------------------------------------------------------------

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


PULSE_LATENCY_MS = "30"
"""Buffer size asked of PulseAudio when the player has not chosen one.

Through ALSA's pulse plugin a stream otherwise gets a buffer of about two seconds and
does not start until it is full: speech then begins late and a stop leaves a long tail.
Measured here: constructing speech output dropped from 1.8 s to 0.12 s."""


START_TIMEOUT_S = 10.0
"""How long starting PortAudio (or a whole speech output, or a microphone) may take before the
sound system is taken to be stuck. Here it takes a quarter of a second; a slow machine may need
a few, and a false alarm would cost speech for the whole game."""

_abandoned: list[threading.Thread] = []
"""Starts :func:`answer_within` gave up on; the sound system is stuck while one still runs."""
_abandoned_lock = threading.Lock()

_T = TypeVar("_T")


class SoundSystemNotAnswering(Exception):
    """The sound server took the connection and never answered (frozen, stuck): every PortAudio
    call on it hangs instead of failing."""

    def __init__(self) -> None:
        super().__init__("The sound system is not answering (is PulseAudio or PipeWire stuck? "
                         "restarting it may help).")


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


def sound_system_stuck() -> bool:
    """Whether a start :func:`answer_within` gave up on is still hanging (a frozen server)."""
    with _abandoned_lock:
        _abandoned[:] = [worker for worker in _abandoned if worker.is_alive()]
        return bool(_abandoned)


def answer_within(seconds: float, start: Callable[[], _T], *, name: str,
                  discard: Callable[[_T], object] | None = None) -> _T:
    """``start()`` run on a daemon thread: what it returns or raises, if that comes within
    ``seconds``; else :class:`SoundSystemNotAnswering`, and what it returns later is handed to
    ``discard`` (to close it). For opening devices: a frozen sound server hangs PortAudio for
    ever, and a game that says nothing and shows nothing is the worst a blind player can meet.

    >>> answer_within(1.0, lambda: 42, name="demo")
    42
    >>> import time
    >>> late = []
    >>> answer_within(0.05, lambda: time.sleep(0.2) or "stream", name="demo", discard=late.append)
    ... # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    SoundSystemNotAnswering: The sound system is not answering
    >>> sound_system_stuck()
    True
    >>> time.sleep(0.3); late, sound_system_stuck()
    (['stream'], False)
    """
    if sound_system_stuck():  # the next start would hang behind it, or start PortAudio twice
        raise SoundSystemNotAnswering()
    lock = threading.Lock()
    outcome: list[Any] = []
    abandoned = False

    def run() -> None:
        try:
            result: Any = ("value", start())
        except BaseException as error:  # handed to the caller, whatever it is
            result = ("error", error)
        with lock:
            late = abandoned
            if not late:
                outcome.append(result)
        if late and result[0] == "value" and discard is not None:
            with suppress(Exception):
                discard(result[1])

    worker = threading.Thread(target=run, name=name, daemon=True)
    worker.start()
    worker.join(timeout=seconds)
    with lock:
        if not outcome:
            abandoned = True
            with _abandoned_lock:
                _abandoned.append(worker)
            raise SoundSystemNotAnswering()
    kind, value = outcome[0]
    if kind == "error":
        raise value
    return value  # type: ignore[no-any-return]


def close_without_waiting(*steps: Callable[[], object], name: str, wait: float = 1.0) -> bool:
    """Run ``steps`` (close a stream, stop PortAudio) in order on a daemon thread, ignoring their
    errors, and wait for them at most ``wait`` seconds; whether they finished in that time.

    A frozen sound server hangs PortAudio calls for ever, and a game that has said "Goodbye."
    must still exit. Nothing here points stderr away: a step that hung would leave fd 2 on
    ``/dev/null`` for good (the silent ALSA error handler keeps ALSA quiet anyway).

    >>> close_without_waiting(lambda: None, lambda: 1 / 0, name="demo")
    True
    >>> import threading
    >>> close_without_waiting(threading.Event().wait, name="demo", wait=0.05)
    False
    """

    def run() -> None:
        for step in steps:
            with suppress(Exception):
                step()

    closer = threading.Thread(target=run, name=name, daemon=True)
    closer.start()
    closer.join(timeout=wait)
    return not closer.is_alive()


# ----- listing and choosing devices ------------------------------------------------------------


def _devices_of(pa: Any) -> list[AudioDevice]:
    def default_index(getter: Any) -> int | None:
        try:
            return int(getter()["index"])
        except (OSError, KeyError, ValueError):
            return None

    default_out = default_index(pa.get_default_output_device_info)
    default_in = default_index(pa.get_default_input_device_info)
    devices = []
    for index in range(pa.get_device_count()):
        try:
            info = pa.get_device_info_by_index(index)
            host_api = str(pa.get_host_api_info_by_index(info["hostApi"])["name"])
        except (OSError, KeyError, ValueError):
            continue
        devices.append(
            AudioDevice(
                index=index,
                name=str(info["name"]),
                host_api=host_api,
                output_channels=int(info["maxOutputChannels"]),
                input_channels=int(info["maxInputChannels"]),
                default_sample_rate=float(info["defaultSampleRate"]),
                is_default_output=index == default_out,
                is_default_input=index == default_in,
            )
        )
    return devices


def list_devices(pa: Any | None = None) -> list[AudioDevice]:
    """Every PortAudio device (outputs and inputs), found without printing anything.

    ``pa`` defaults to the process's PortAudio (:func:`portaudio`), started here if need be.
    Raises ``ImportError`` if PyAudio is missing.
    """
    return _devices_of(pa if pa is not None else portaudio())


def find_output_device(devices: list[AudioDevice], wanted: str | int | None) -> AudioDevice:
    """The output device a person asked for: ``None`` (the default), an index, or part of a name.

    A name matches exactly first, then as a case-insensitive part of a device name, so
    ``"pulse"`` and ``"USB"`` both work. Raises :class:`DeviceNotFound` with one sentence.
    """
    outputs = [device for device in devices if device.is_output]
    if not outputs:
        raise DeviceNotFound(
            "No speaker or headphones found: plug one in and run voice-rang doctor again, "
            "or play with your screen reader."
        )
    if wanted is None:
        for device in outputs:
            if device.is_default_output:
                return device
        return outputs[0]
    if isinstance(wanted, int) or (isinstance(wanted, str) and wanted.strip().isdigit()):
        index = int(wanted)
        for device in outputs:
            if device.index == index:
                return device
        raise DeviceNotFound(
            f"No audio output number {index}: run voice-rang doctor to list the outputs."
        )
    name = wanted.strip().casefold()
    for device in outputs:
        if device.name.casefold() == name:
            return device
    for device in outputs:
        if name and name in device.name.casefold():
            return device
    raise DeviceNotFound(
        f"No audio output named {wanted!r}: run voice-rang doctor to list the outputs."
    )


def describe_devices(devices: list[AudioDevice], *, output: bool) -> str:
    """Device names for one line of ``doctor`` output, the default marked."""
    chosen = [d for d in devices if (d.is_output if output else d.is_input)]
    parts = []
    for device in chosen:
        default = device.is_default_output if output else device.is_default_input
        parts.append(f"{device.name} (number {device.index}{', the default' if default else ''})")
    return ", ".join(parts)
