"""Read commands from the keyboard without ever echoing, redrawing or moving the cursor.

In a terminal every key acts at once (space turns a card); from a pipe or an
assistive tool each line is a command in words ("auto-reveal on"). Both end up as
command ids through the same ``CommandSet``, the one the voice uses too.

A Unix terminal is read through ``termios`` (character at a time, no echo); a Windows console,
which has neither ``termios`` nor ``select`` on its input, through ``msvcrt``, whose keys come
one at a time and unechoed already.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TextIO

from ..commands import CommandSet

__all__ = ["KeyReader", "LineReader", "escape_name", "key_name", "read_key", "terminal_keys"]

Deliver = Callable[[str], None]
"""Receives a command id, or what :meth:`~voice_rang.commands.CommandSet.as_typed` makes of other input."""

_NAMED = {" ": "space", "\r": "enter", "\n": "enter"}


def key_name(char: str) -> str:
    """The name a key has in the prompts file's ``[keys]`` table.

    >>> key_name(" "), key_name("\\r"), key_name("A")
    ('space', 'enter', 'a')
    """
    return _NAMED.get(char, char.lower())


_ESCAPES = {
    "[A": "up", "[B": "down", "[C": "right", "[D": "left", "OA": "up", "OB": "down", "OC": "right", "OD": "left",
    "[H": "home", "[F": "end", "OH": "home", "OF": "end", "[1~": "home", "[4~": "end", "[7~": "home", "[8~": "end",
    # a Windows console's arrow keys (msvcrt's second half)
    "H": "up", "P": "down", "K": "left", "M": "right", "G": "home", "O": "end",
}


def escape_name(sequence: str) -> str:
    """The name of an arrow or function key from what follows its escape (``""`` for one not named).

    >>> escape_name("[D"), escape_name("OH"), escape_name("[4~"), escape_name("[Z")
    ('left', 'home', 'end', '')
    """
    return _ESCAPES.get(sequence, "")


WINDOWS = sys.platform == "win32"
_POLL_S = 0.01
"""How often a Windows console is asked whether a key is waiting."""


@contextlib.contextmanager
def terminal_keys(fd: int) -> Iterator[None]:
    """Put the terminal into character-at-a-time mode without echo, and always restore it (a
    Windows console's keys are read that way already)."""
    if WINDOWS:
        yield
        return
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def read_key(fd: int, timeout: float | None) -> str:
    """The next key typed (``""`` when none came within ``timeout`` seconds; ``None`` waits);
    ``EOFError`` when input has ended. A Windows console's arrow and function keys come as
    ``"\\x1b"`` and their second half, as a terminal's escape sequences do."""
    if WINDOWS:
        return _console_key(timeout)
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return ""
    data = os.read(fd, 1)
    if not data:
        raise EOFError
    return data.decode("utf-8", "replace")


def _console_key(timeout: float | None) -> str:
    """A Windows console key (``msvcrt``, which cannot wait with a timeout: it is polled)."""
    import msvcrt
    import time

    deadline = None if timeout is None else time.monotonic() + timeout
    while not msvcrt.kbhit():  # type: ignore[attr-defined]
        if deadline is not None and time.monotonic() >= deadline:
            return ""
        time.sleep(_POLL_S)
    char: str = msvcrt.getwch()  # type: ignore[attr-defined]
    return "\x1b" if char in ("\x00", "\xe0") else char


class KeyReader:
    """Single keys from a terminal, delivered as command ids (or the key, when unmapped)."""

    def __init__(self, commands: CommandSet, deliver: Deliver, on_end: Callable[[], None],
                 fd: int | None = None) -> None:
        self._commands = commands
        self._deliver = deliver
        self._on_end = on_end
        self._fd = sys.stdin.fileno() if fd is None else fd
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="keys", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _read(self, timeout: float | None) -> str:
        return read_key(self._fd, timeout)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                char = self._read(0.2)
                if not char:
                    continue
                if char == "\x1b":
                    # Arrow and function keys arrive as escape sequences: read the rest and name it.
                    rest = ""
                    while len(rest) < 8:
                        more = self._read(0.03)
                        if not more:
                            break
                        rest += more
                    command = self._commands.keys.get(escape_name(rest))
                    self._deliver(command or "")
                    continue
                if char == "\x04":  # Ctrl-D
                    raise EOFError
                keys = self._commands.keys
                command = keys.get(char) if char.isupper() else None
                command = command or keys.get(key_name(char))
                self._deliver(command if command is not None else self._commands.as_typed(char))
        except (EOFError, OSError):
            self._on_end()


class LineReader:
    """One command in words per line (a pipe, a script, an assistive tool). A line of one key's
    letter is that key's command, as the help names the keys ("r repeat") in every mode."""

    def __init__(self, commands: CommandSet, deliver: Deliver, on_end: Callable[[], None],
                 stream: TextIO | None = None) -> None:
        self._commands = commands
        self._deliver = deliver
        self._on_end = on_end
        self._stream = sys.stdin if stream is None else stream
        self._thread = threading.Thread(target=self._run, name="lines", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Lines end with their stream; nothing to do."""

    def _run(self) -> None:
        try:
            for line in self._stream:
                text = line.strip()
                if not text:
                    continue
                command = self._commands.parse(text)
                if command is None and len(text) == 1:
                    command = self._commands.keys.get(key_name(text))
                self._deliver(command if command is not None else self._commands.as_typed(text))
        except (OSError, UnicodeDecodeError, ValueError):
            pass
        self._on_end()
