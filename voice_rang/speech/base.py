"""The output protocol and its plainest backend: one printed line per message.

``TextOutput`` is what a screen-reader user runs (their reader speaks our lines, so we do not)
and the reference every other output is compared with in tests. It never uses colour, cursor
movement, spinners or redraws, so ``NO_COLOR`` and ``TERM=dumb`` need no special case: there is
nothing to turn off.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable
from typing import Protocol, TextIO, runtime_checkable

from ..messages import Message

__all__ = ["Output", "TextOutput", "one_line"]


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) made one space.

    >>> one_line("Your turn.\\n  Say  reveal.")
    'Your turn. Say reveal.'
    """
    return " ".join(text.split())


@runtime_checkable
class Output(Protocol):
    """Where the table sends messages: printed, spoken, or both.

    ``say`` must not block on the device; ``stop`` silences what is under way (barge-in);
    ``wait_until_done`` lets a demo or a test wait for the last message; ``close`` releases
    the device.
    """

    def say(self, message: Message) -> None: ...

    def stop(self) -> None: ...

    def wait_until_done(self, timeout: float | None = None) -> bool: ...

    def close(self) -> None: ...


class TextOutput:
    """Prints each message as one line, flushed at once; remembers what it printed.

    ``stream`` defaults to ``sys.stdout`` as it is when each line is printed (so redirection
    and test capture work).

    >>> import io
    >>> from voice_rang.messages import Message
    >>> out = io.StringIO()
    >>> text = TextOutput(out)
    >>> text.say(Message("Your turn."))
    >>> out.getvalue()
    'Your turn.\\n'
    """

    def __init__(
        self, stream: TextIO | None = None, *, on_line: Callable[[str], None] | None = None
    ) -> None:
        self._stream = stream
        self._on_line = on_line
        self._lock = threading.Lock()
        self._lines: list[str] = []

    def say(self, message: Message) -> None:
        line = one_line(message.text)
        if not line:
            return
        with self._lock:
            stream = self._stream if self._stream is not None else sys.stdout
            try:
                stream.write(line + "\n")
                stream.flush()
            except (BrokenPipeError, ValueError):
                pass  # the reader went away (a closed pipe or file): nothing left to tell
            self._lines.append(line)
        if self._on_line is not None:
            self._on_line(line)

    def stop(self) -> None:
        """Printed lines cannot be taken back; nothing to do."""

    def wait_until_done(self, timeout: float | None = None) -> bool:
        del timeout
        return True

    def close(self) -> None:
        with self._lock:
            stream = self._stream if self._stream is not None else sys.stdout
            with contextlib.suppress(BrokenPipeError, ValueError):
                stream.flush()

    @property
    def lines(self) -> list[str]:
        """Every line printed so far, in order."""
        with self._lock:
            return list(self._lines)
