"""Helpers for the network tests: a real ``voice-rang host`` and ``voice-rang join`` processes on
loopback, their lines read as they come, every wait bounded."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from interrupt import default_sigint

VOICE_RANG = shutil.which("voice-rang", path=str(Path(sys.executable).parent)) or "voice-rang"
WAIT_S = 60.0
"""The longest any step waits (a busy machine starts Python slowly); never a timing assertion."""


class Process:
    """A voice-rang process whose stdout lines are collected on a thread."""

    def __init__(self, args: list[str], env: dict[str, str], stdin: str | None = None) -> None:
        # Tests stop some of them with Ctrl-C (SIGINT), which a run in the background would have
        # them ignore.
        self.popen = subprocess.Popen([VOICE_RANG, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env, preexec_fn=default_sigint)
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if stdin is not None:
            self.write(stdin, close=True)

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def write(self, text: str, close: bool = False) -> None:
        assert self.popen.stdin is not None
        self.popen.stdin.write(text)
        self.popen.stdin.flush()
        if close:
            self.popen.stdin.close()

    def wait_for(self, predicate: Callable[[list[str]], bool], what: str, timeout: float = WAIT_S) -> list[str]:
        end = time.monotonic() + timeout
        with self._changed:
            while not predicate(self.lines):
                left = end - time.monotonic()
                if left <= 0 or (self.popen.poll() is not None and not self._reader.is_alive()):
                    if predicate(self.lines):
                        break
                    raise AssertionError(f"never saw {what}; got:\n" + "\n".join(self.lines[-30:]) +
                                         "\nstderr: " + (self.stderr() if self.popen.poll() is not None else ""))
                self._changed.wait(min(left, 0.5))
            return list(self.lines)

    def wait_line(self, pattern: str, timeout: float = WAIT_S) -> re.Match[str]:
        regex = re.compile(pattern)
        lines = self.wait_for(lambda ls: any(regex.search(line) for line in ls), repr(pattern), timeout)
        return next(m for m in (regex.search(line) for line in lines) if m)

    def finish(self, timeout: float = WAIT_S) -> int:
        try:
            code = self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            raise
        self._reader.join(5)
        return code

    def stderr(self) -> str:
        assert self.popen.stderr is not None
        return self.popen.stderr.read()

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(10)


def env_for(state: Path) -> dict[str, str]:
    """A text-only environment with its own place for seat tokens."""
    return {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "XDG_STATE_HOME": str(state)}


def start_host(tmp: Path, seats: int, *extra: str, seed: int = 5) -> tuple[Process, int]:
    host = Process(["host", "--text", "--no-listen", "--seats", str(seats), "--bind", "127.0.0.1",
                    "--port", "0", "--code", "4719", "--beat", "0", "--seed", str(seed),
                    "--log", str(tmp / "host.jsonl"), *extra], env_for(tmp / "host-state"))
    match = host.wait_line(r"Guests join at http://127\.0\.0\.1:(\d+) with code 4 7 1 9\.")
    return host, int(match.group(1))


def start_guest(tmp: Path, port: int, name: str, stdin: str | None = "auto-reveal on\n",
                *extra: str) -> Process:
    return Process(["join", f"127.0.0.1:{port}", "--code", "4719", "--name", name, "--text", "--no-listen",
                    "--log", str(tmp / f"{name}.jsonl"), *extra], env_for(tmp / f"{name}-state"), stdin)


def joined(count: int) -> Callable[[list[str]], bool]:
    return lambda lines: sum(" joined the table." in line for line in lines) >= count
