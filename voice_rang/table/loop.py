"""Run a table against real inputs and outputs: the only part of the table that does I/O.

Inputs (keys, lines, the microphone) are producers on their own threads; they put
command ids on one queue. This loop is the single consumer: it hands each command
to the :class:`~voice_rang.table.Table`, and wakes up in time for the next
automatic card. Outputs are consumers of messages.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol, TextIO

import msgspec

from ..messages import Message
from ..speech.base import TextOutput
from .table import Table

__all__ = ["BARGE_IN", "INPUT_ENDED", "SPEECH_ENDED", "Guess", "Inbox", "LogFile", "Speech",
           "TableCall", "TableOutputs", "run_table"]


@dataclass(frozen=True)
class Guess:
    """A command the voice half heard: the table asks "Did you say …?" and does not act."""

    command: str
    heard: str
    """The words as heard, which the question repeats back."""
    between: tuple[str, ...] = ()
    """Two moves heard alike: the question is which ("The queen of hearts or the queen of
    spades?"), settled by "the first", "the second", the card's name, or "no"."""
    names: tuple[str, ...] = ()
    """How the question names each of ``between``."""
    question: Message | None = None
    """The question itself, for a move heard clearly but asked about to protect the player
    ("Your partner is winning this trick: trump it?"); a yes or the same move again makes it."""


TableCall = Callable[[Table], None]
"""Work for the table's own thread, such as a remote seat's command or a guest joining."""
Inbox = str | Message | Guess | TableCall
"""What inputs put on the table's queue: a command id (or unrecognised text), a message to
announce (an input's own news, such as "Listening" or a microphone failure), a guess to ask
about, or a call to run on the table (from the network)."""

INPUT_ENDED = "\x00input ended"
"""Put on the queue when an input source has nothing more to say (end of a pipe)."""
BARGE_IN = "\x00barge in"
"""Put on the queue when the player starts talking: silence our speech at once, and turn no card
by itself until they are done (:data:`SPEECH_ENDED`)."""
SPEECH_ENDED = "\x00speech ended"
"""Put on the queue when the player's words have been decoded (after any command they made)."""


class Speech(Protocol):
    """What the table needs of spoken output (``voice_rang.speech.SpeechOutput`` provides it)."""

    def say(self, message: Message) -> None: ...
    def stop(self) -> None: ...
    def wait_until_done(self, timeout: float | None = None) -> bool: ...
    @property
    def is_speaking(self) -> bool: ...
    def faster(self) -> int: ...
    def slower(self) -> int: ...
    def close(self) -> None: ...


class TableOutputs:
    """Every message printed as one line; spoken too when speech is on.

    Printing comes first so that a screen reader (or a log of the session) gets the
    line even if speech fails; a speech failure turns speech off and says why, once.
    """

    def __init__(self, stream: TextIO | None = None, speech: Speech | None = None) -> None:
        self._text = TextOutput(stream)
        self.speech = speech

    def say(self, message: Message) -> None:
        self._text.say(message)
        if self.speech is not None:
            self.speech.say(message)

    def speech_failed(self) -> None:
        """Stop speaking for good (the device is gone); text goes on."""
        self.speech = None

    def stop(self) -> None:
        if self.speech is not None:
            self.speech.stop()

    def busy(self) -> bool:
        return self.speech is not None and not self.speech.wait_until_done(0)

    def faster(self) -> int | None:
        if self.speech is None:
            return None
        return self.speech.faster()

    def slower(self) -> int | None:
        if self.speech is None:
            return None
        return self.speech.slower()


class LogFile:
    """``--log PATH``: every event as JSON Lines, flushed as it happens so nothing is lost. The
    events are any game's (``msgspec`` structs that carry their own ``event`` tag), written as
    that game's ``log`` module writes them."""

    _encoder = msgspec.json.Encoder()

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def __call__(self, events: list[Any]) -> None:
        self._stream.write(self._encoder.encode_lines(events))
        self._stream.flush()

    def tell(self) -> int:
        """How many bytes the log holds so far (everything written is flushed)."""
        return self._stream.tell()


def run_table(
    table: Table,
    commands: queue.Queue[Inbox],
    on_barge_in: Callable[[], None] | None = None,
    *,
    start: bool = True,
) -> int:
    """Start the table's game (unless ``start`` is false: already started, or a game was
    resumed) and serve commands until the table is finished; the exit code."""
    if start and table.game is None:
        table.start()
    while not table.finished:
        timeout = 0.25
        if table.due is not None:
            timeout = max(0.0, min(timeout, table.due - table.clock()))
        try:
            item = commands.get(timeout=timeout)
        except queue.Empty:
            table.tick()
            continue
        if isinstance(item, Message):
            table.announce(item)
        elif isinstance(item, Guess):
            table.offer_guess(item.command, item.heard, between=item.between, names=item.names,
                              question=item.question)
        elif callable(item):
            item(table)
        elif item == INPUT_ENDED:
            table.close_inputs()
        elif item == BARGE_IN:
            if on_barge_in is not None:
                on_barge_in()
            table.hold_floor()
        elif item == SPEECH_ENDED:
            table.release_floor()
        elif item:
            # Any command silences what is being said: the player has moved on.
            table.outputs.stop()
            table.handle(item)
        table.tick()
    return table.exit_code
