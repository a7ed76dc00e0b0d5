"""Calls into a sound system that may never answer, given a deadline.

A frozen sound server (PulseAudio or PipeWire stopped, stuck) takes the connection and then
hangs every PortAudio call on it for ever, instead of failing. A game that says nothing and
shows nothing is the worst a blind player can meet, so starts run on a daemon thread the caller
waits for a bounded time (:func:`answer_within`), and closes on the way out are not waited for
beyond a second (:func:`close_without_waiting`). While a start given up on still hangs,
:func:`sound_system_stuck` is true and no other start is tried behind it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any, TypeVar

__all__ = [
    "START_TIMEOUT_S",
    "SoundSystemNotAnswering",
    "answer_within",
    "close_without_waiting",
    "sound_system_stuck",
]

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
