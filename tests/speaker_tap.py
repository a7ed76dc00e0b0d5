"""The speaker's monitor as samples on the ``time.monotonic()`` clock, for speech tests and benchmarks."""

from __future__ import annotations

import array
import bisect
import math
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from audio_server import realtime

if TYPE_CHECKING:
    from voice_rang.speech import SpeechOutput

__all__ = ["RATE", "SpeakerTap", "warmed_up_tap"]

RATE = 16000


class SpeakerTap:
    """The speaker's monitor as samples on the ``time.monotonic()`` clock.

    Each block read from ``parec`` is stamped on arrival. A sample's time is the earliest
    stamp, among the block holding it and the blocks up to a third of a second after, minus
    the samples in between: the least delayed nearby block wins, and a stall of the sink
    (which halts the monitor's sample clock) never shifts the times of samples before it.
    """

    HORIZON = RATE // 3

    def __init__(self, env: dict[str, str], monitor: str = "spk.monitor") -> None:
        self._process = subprocess.Popen(
            ["parec", "-d", monitor, f"--rate={RATE}", "--channels=1",
             "--format=s16le", "--latency-msec=5", "--raw"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self._samples = array.array("h")
        self._ends: list[int] = []
        self._arrivals: list[float] = []
        realtime(self._process.pid)
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        realtime()  # stamps on arrival: a reader left behind by a CPU hog would stamp late
        assert self._process.stdout is not None
        fd = self._process.stdout.fileno()
        pending = b""
        while block := os.read(fd, 4096):
            arrived = time.monotonic()
            pending += block
            usable = len(pending) - len(pending) % 2
            with self._lock:
                self._samples.frombytes(pending[:usable])
                self._ends.append(len(self._samples))
                self._arrivals.append(arrived)
            pending = pending[usable:]

    def _time_of(self, index: int) -> float:
        """Called with the lock held."""
        ends, arrivals = self._ends, self._arrivals
        block = bisect.bisect_right(ends, index)
        if block >= len(ends):
            return arrivals[-1] + (index - ends[-1]) / RATE
        best = arrivals[block] - (ends[block] - index) / RATE
        block += 1
        while block < len(ends) and ends[block] - index <= self.HORIZON:
            best = min(best, arrivals[block] - (ends[block] - index) / RATE)
            block += 1
        return best

    def _index_of(self, when: float) -> int:
        """The first sample played at or after ``when`` (lock held)."""
        low, high = 0, len(self._samples)
        while low < high:
            middle = (low + high) // 2
            if self._time_of(middle) < when:
                low = middle + 1
            else:
                high = middle
        return low

    def has_audio(self) -> bool:
        with self._lock:
            return len(self._samples) > 0

    def samples(self) -> array.array[int]:
        """Every sample heard so far."""
        with self._lock:
            return array.array("h", self._samples)

    def _window(self, start: float, end: float) -> tuple[array.array[int], list[float]]:
        """The samples played between two monotonic times, and each one's time."""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with self._lock:
                if self._arrivals and self._arrivals[-1] >= end + 0.4:
                    first, last = self._index_of(start), self._index_of(end)
                    return self._samples[first:last], [first, last]  # type: ignore[return-value]
            time.sleep(0.01)
        raise AssertionError("the speaker monitor stopped delivering audio")

    def rms(self, start: float, end: float) -> float:
        """Root-mean-square level of what played between two monotonic times."""
        samples, _ = self._window(start, end)
        return math.sqrt(sum(s * s for s in samples) / len(samples)) if samples else 0.0

    def sound_span(self, start: float, end: float, level: int = 500) -> tuple[float, float] | None:
        """Monotonic times of the first and last loud sample in a window, or None."""
        samples, (first, _) = self._window(start, end)
        loud = [i for i, value in enumerate(samples) if abs(value) > level]
        if not loud:
            return None
        with self._lock:
            return self._time_of(first + loud[0]), self._time_of(first + loud[-1])

    def close(self) -> None:
        self._process.terminate()
        self._process.wait(timeout=5)


@contextmanager
def warmed_up_tap(speech: SpeechOutput) -> Iterator[SpeakerTap]:
    """A tap on the test server's speaker that has heard audio, after ``speech`` has said one word
    through it: the sink stalls once for a new monitor stream, and no test should listen to that."""
    from voice_rang.messages import Message

    speaker = SpeakerTap(dict(os.environ))
    try:
        deadline = time.monotonic() + 10
        while not speaker.has_audio() and time.monotonic() < deadline:
            time.sleep(0.02)
        speech.say(Message("Ready."))
        assert speech.wait_until_done(timeout=10)
        time.sleep(0.5)
        yield speaker
    finally:
        speaker.close()
