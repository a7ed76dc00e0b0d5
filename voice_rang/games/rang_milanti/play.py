"""Rang Milanti at the table: its engine, narration and one command behind :class:`~voice_rang.game.GamePlay`.

Every turn is forced, so a person's only move is ``turn``; a computer seat, and a person who
switched auto-reveal on, make the same move a beat after their turn comes. What is said comes
from :class:`~.narration.RangMilantiNarrator`, which reads ``[messages]`` of the prompts file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...game import Happened, SeatKind
from ...messages import Message
from .game import Game
from .narration import RangMilantiNarrator, SeatView

__all__ = ["RangMilantiPlay"]

MOVES = frozenset({"turn"})


class RangMilantiPlay:
    """One table's games of Rang Milanti; ``new_game(number)`` deals each (and remembers how, for the save)."""

    name = "rang-milanti"
    auto_section = "answer"
    """Where the words for auto-reveal live: ``auto_on``, ``auto_off`` and their ``already`` forms."""
    auto_commands = ("auto-reveal on", "auto-reveal off", "auto-reveal toggle")

    def __init__(self, narrator: RangMilantiNarrator, new_game: Callable[[int], Game], seats: int) -> None:
        self.narrator = narrator
        self._new_game = new_game
        self.seats = seats
        self.number = -1
        self.game: Game | None = None

    # ----- the game ------------------------------------------------------------------------

    @property
    def to_act(self) -> int | None:
        if self.game is None or self.game.is_over:
            return None
        return self.game.current_seat

    @property
    def is_over(self) -> bool:
        return self.game is None or self.game.is_over

    def deal(self, number: int) -> Happened:
        self.number = number
        self.game = self._new_game(number)
        return Happened([self.game.dealt], self.narrator.event(self.game.dealt), moved=True)

    def resume(self, game: Game) -> list[Message]:
        """Go on with a saved game: one line says which game, at which reveal and whose turn."""
        self.number = game.number
        self.game = game
        return [self.narrator.say("answer", "resumed", game.current_seat, game=game.number + 1, n=game.reveals)]

    def is_move(self, command: str) -> bool:
        return command in MOVES

    def prompt(self, seat: int) -> list[Message]:
        assert self.game is not None
        return [self.narrator.turn_prompt(seat, self.game.owes_extra_card)]

    def automatic(self, seat: int, computer: bool) -> Happened:
        del seat, computer  # every move is the same forced reveal
        return self._reveal()

    def command(self, seat: int, command: str, kinds: Sequence[SeatKind]) -> Happened | None:
        del seat, kinds
        if command == "turn":
            return self._reveal()
        return None

    def _reveal(self) -> Happened:
        assert self.game is not None
        events = self.game.reveal()
        messages = [message for event in events for message in self.narrator.event(event)]
        return Happened(list(events), messages, moved=True)

    def commands_now(self, seat: int | None) -> set[str]:
        del seat
        return set() if self.is_over else {"turn"}

    # ----- what the listener asks -------------------------------------------------------------

    def status(self, auto: Sequence[bool]) -> list[Message]:
        game = self.game
        assert game is not None
        stacks, collected = game.stack_counts(), game.collected_counts()
        views = [
            SeatView(seat, stacks[seat], collected[seat], seat not in game.seats_in, auto[seat])
            for seat in range(game.seats)
        ]
        turn = None if game.is_over else game.current_seat
        return self.narrator.status(game.reveals, turn, views, game.pile_count, game.top_card)

    def help(self, state: str) -> list[Message]:
        """Help for now: ``turn`` (it is a person's turn here), ``waiting`` or ``over``."""
        return [self.narrator.say("help", f"now_{state}")]

    def keys_help(self) -> Message:
        return self.narrator.say("help", "keys")

    def stopped(self, key: str, **fields: Any) -> Message:
        """"Input ended" or "Stopped" at the reveal the game had reached (``key`` of ``[messages.answer]``)."""
        assert self.game is not None
        return self.narrator.say("answer", key, n=self.game.reveals, **fields)
