"""What the table needs of a game: the one small protocol every game at the table implements.

The table (``voice_rang.table``) owns the conversation: whose turn it is said, commands come in
from keys, lines, the voice and the network, computer and auto seats are paced, everything is
logged and saved as it happens. It knows nothing of any game's rules or words beyond this
protocol. A game (``voice_rang.games.<name>.play``) binds its pure engine, its narration and its
commands to it: seats, whose turn, what a seat may do now, a command in and what happened out,
the computer's move, the status, and the recipe that saves and replays it.

Every call that changes the game answers with a :class:`Happened`: the engine's events (the
host's record, for ``--log``), the messages the listener hears, and whether the game moved (the
table saves after every move).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .messages import Message

__all__ = ["GamePlay", "Happened", "SeatKind"]

SeatKind = str
"""``person`` (at this device), ``computer``, or ``remote`` (a person on another device)."""


@dataclass
class Happened:
    """What one call did: events for the log, messages to say, and whether the game moved."""

    events: list[Any] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    moved: bool = False

    def extend(self, other: Happened) -> Happened:
        """This and then ``other``, as one."""
        self.events.extend(other.events)
        self.messages.extend(other.messages)
        self.moved = self.moved or other.moved
        return self


class GamePlay(Protocol):
    """One game at the table (a game of Rang Milanti, a session of Court Piece) and its dialogue.

    ``seat`` arguments are seat numbers; ``kinds`` is the table's list of seat kinds, which the
    game reads (it never changes it) to know who is a person.
    """

    name: str
    """The game's id, as the command line names it: ``rang-milanti``, ``court-piece``."""
    seats: int
    number: int
    """The number of the game at this table (0 for the first); a new game counts up."""
    auto_commands: tuple[str, str, str]
    """The command ids that switch a person's auto play on, off, and over (``auto-reveal on`` …)."""
    auto_section: str
    """The messages section with the words for auto play (``auto_on``, ``auto_off``,
    ``auto_already_on``, ``auto_already_off``)."""

    @property
    def game(self) -> Any:
        """The engine's object for the game in play (what the save keeps), or None before the first deal."""
        ...

    @property
    def to_act(self) -> int | None:
        """The seat the game waits for, or None once it is over (or before the deal)."""
        ...

    @property
    def is_over(self) -> bool: ...

    def deal(self, number: int) -> Happened:
        """Start game ``number`` and say so."""
        ...

    def resume(self, game: Any) -> list[Message]:
        """Go on with a saved game instead of dealing; what to say about where it stands."""
        ...

    def is_move(self, command: str) -> bool:
        """Whether ``command`` is a move, which only the person whose turn it is may make."""
        ...

    def prompt(self, seat: int) -> list[Message]:
        """Tell the person at ``seat`` that it is their turn, and what they can do."""
        ...

    def automatic(self, seat: int, computer: bool) -> Happened:
        """Make ``seat``'s move for it: a computer seat's (``computer``), or a person's who asked
        the table to play for them."""
        ...

    def command(self, seat: int, command: str, kinds: Sequence[SeatKind]) -> Happened | None:
        """Do one of this game's commands for the person at ``seat`` (a move, or a question about
        the game); None when ``command`` is not one of the game's."""
        ...

    def commands_now(self, seat: int | None) -> set[str]:
        """The game's command ids that can do something now for ``seat`` (the voice listens only
        for these besides the table's own)."""
        ...

    def status(self, auto: Sequence[bool]) -> list[Message]:
        """Where the game stands, for ``status``."""
        ...

    def help(self, state: str) -> list[Message]:
        """What can be said now: ``state`` is ``turn`` (a person here is to move), ``waiting`` or ``over``."""
        ...

    def keys_help(self) -> Message:
        """The keys of this game, in one line."""
        ...

    def stopped(self, key: str, **fields: Any) -> Message:
        """The table stopped before the game ended (``input_ended``, ``input_ended_saved``,
        ``interrupted_saved``): one line saying how far the game had gone."""
        ...
