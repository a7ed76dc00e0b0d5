"""Watch a live ``voice-rang`` on the test sound card: its speaker (with arrival times) and its lines.

Shared by the voice tests and the latency benchmark. The speaker is the null sink's monitor read
through ``parec`` in 10 ms chunks, each stamped with ``time.monotonic()`` when it arrives, so a
sound's onset is known to within the monitor's own small delay (erring late).
"""

from __future__ import annotations

import array
import math
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from audio_server import AudioServer, realtime

__all__ = ["CHUNK", "RATE", "THRESHOLD", "LineWatch", "SpeakerWatch", "VoicePlayer", "end", "rms", "start_game"]

RATE = 16000
CHUNK = 160  # 10 ms
THRESHOLD = 300  # RMS of int16 samples that counts as sound


def rms(chunk: bytes) -> float:
    samples = array.array("h", chunk)
    return math.sqrt(sum(value * value for value in samples) / max(1, len(samples)))


@dataclass
class SpeakerWatch:
    """The speaker's monitor, read in 10 ms chunks, each stamped with its arrival time."""

    server: AudioServer
    device: str = "spk.monitor"
    chunks: list[tuple[float, float]] = field(default_factory=list)  # (arrival, rms)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        self._process = subprocess.Popen(
            ["parec", "-d", self.device, "--raw", "--format=s16le", f"--rate={RATE}", "--channels=1",
             "--latency-msec=10"], stdout=subprocess.PIPE, env=self.server.env)
        realtime(self._process.pid)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        realtime()  # stamps on arrival: a reader left behind by a CPU hog would stamp late
        assert self._process.stdout is not None
        while True:
            data = self._process.stdout.read(CHUNK * 2)
            if not data:
                return
            with self._lock:
                self.chunks.append((time.monotonic(), rms(data)))

    def stop(self) -> None:
        self._process.terminate()
        self._process.wait()

    def quiet_for(self, seconds: float) -> bool:
        now = time.monotonic()
        with self._lock:
            recent = [level for at, level in self.chunks if at >= now - seconds]
            covered = bool(self.chunks) and self.chunks[0][0] <= now - seconds
        return covered and all(level < THRESHOLD for level in recent)

    def first_sound_after(self, start: float, timeout: float) -> float | None:
        """When the first loud chunk after ``start`` began playing (its arrival minus its length)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                for at, level in self.chunks:
                    if at - CHUNK / RATE >= start and level >= THRESHOLD:
                        return at - CHUNK / RATE
            time.sleep(0.01)
        return None

    def loudest_between(self, start: float, end: float) -> float:
        """The loudest chunk that arrived between ``start`` and ``end`` (0 if none did)."""
        with self._lock:
            return max((level for at, level in self.chunks if start <= at <= end), default=0.0)

    def wait_quiet(self, seconds: float, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.quiet_for(seconds):
                return True
            time.sleep(0.05)
        return False


class LineWatch:
    """The game's printed lines, as they come."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[tuple[float, str]] = []
        self._stream = stream
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self._stream:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def since(self, at: float) -> list[str]:
        return [line for when, line in self.lines if when >= at]



    def wait_for(self, text: str, timeout: float, after: float = 0.0) -> bool:
        """Wait until a line containing ``text`` has been printed (after the time ``after``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(text in line for line in self.since(after)):
                return True
            time.sleep(0.02)
        return False


def start_game(command: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], queue.Queue[str]]:
    """A game started as a person starts it, and a queue that its printed lines arrive on as they
    are printed (a thread of its own reads them)."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, bufsize=1, env=env)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return process, lines


class VoicePlayer:
    """A person at a game played by voice: reads the printed lines as they come, speaks only once
    the game says it is listening (a line starting ``listening``), and says the same thing again
    when nothing comes of it for ``quiet_s``, as a person would."""

    def __init__(self, lines: queue.Queue[str], say: Callable[[str], object], listening: str,
                 quiet_s: float = 8.0, within_s: float = 600.0) -> None:
        self._lines, self._say, self._listening_line, self._quiet_s = lines, say, listening, quiet_s
        self.deadline = time.monotonic() + within_s
        self.printed: list[str] = []
        self.listening = False
        self.wanted = ""
        """What the player last asked for and is waiting to see done: said again after a quiet spell."""

    def lines(self) -> Iterator[str]:
        """Each printed line until the deadline."""
        while time.monotonic() < self.deadline:
            try:
                line = self._lines.get(timeout=self._quiet_s)
            except queue.Empty:
                if self.wanted and self.listening:  # nothing came of it: say it again
                    self._say(self.wanted)
                continue
            yield self._read(line)

    def _read(self, line: str) -> str:
        self.printed.append(line)
        self.listening = self.listening or line.startswith(self._listening_line)
        return line

    def say(self, text: str, *, wanted: bool = True) -> None:
        """Say ``text`` once the game listens (``wanted``: and say it again while nothing comes of it)."""
        if wanted:
            self.wanted = text
        while not self.listening and time.monotonic() < self.deadline:
            self._read(self._lines.get(timeout=60))
        self._say(text)


def end(process: subprocess.Popen[Any]) -> None:
    """Stop a game the test started: asked to end, then made to after ten seconds."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


def echo_speaker_into_microphone(server: AudioServer) -> subprocess.Popen[bytes]:
    """Loop whatever the speaker plays back into the microphone, as a room would: the game hears
    its own voice. Stop it with ``terminate()``."""
    process = subprocess.Popen(
        ["parec", "-d", "spk.monitor", "--raw", "--format=s16le", f"--rate={RATE}", "--channels=1",
         "--latency-msec=10"], stdout=subprocess.PIPE, env=server.env)

    def pump() -> None:
        assert process.stdout is not None
        while True:
            data = process.stdout.read(CHUNK * 2 * 2)
            if not data:
                return
            server.say_into_microphone(data)

    threading.Thread(target=pump, daemon=True).start()
    return process
