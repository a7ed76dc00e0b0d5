"""The commands that answer the listener without touching the game: hear it again, the
status, help, the history, speech rate, verbosity, sounds and stop.

:class:`Conversation` is what every device's dialogue has, the table's and a network guest's
alike (``voice_rang.net.guest``): the history of what was said and the ways of hearing and
shaping it. :class:`ListenerAnswers` adds what needs the game itself (status, help), for
:class:`voice_rang.table.Table`. They are kept here so the table's own module is about whose turn
it is and what a command does to the game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..messages import Message, Priority
from ..narration import VERBOSITIES, Narrator
from .history import step_history

if TYPE_CHECKING:
    from ..game import GamePlay
    from .outputs import Outputs, SeatKind

__all__ = ["Conversation", "ListenerAnswers"]


class Conversation:
    """One device's side of the dialogue: what it said, and the listener's own commands."""

    narrator: Narrator
    outputs: Outputs
    history: list[Message]
    can_sound: bool
    """Whether an output can play sound cues: ``sounds on`` is refused without one."""
    _cursor: int | None

    def _say(self, message: Message, remember: bool = True) -> None:
        if remember:
            self.history.append(message)
            self._cursor = None
        self.outputs.say(message)

    def _answer(self, section: str, key: str, seat: int | None = None, **fields: Any) -> None:
        self._say(self.narrator.say(section, key, seat, **fields))

    def _own_commands(self) -> dict[str, Callable[[], None]]:
        """The commands this device answers by itself, by id."""
        return {
            "repeat": self._repeat,
            "history back": lambda: self._step_history(-1),
            "history forward": lambda: self._step_history(+1),
            "faster": lambda: self._rate(self.outputs.faster(), "faster"),
            "slower": lambda: self._rate(self.outputs.slower(), "slower"),
            "verbosity brief": lambda: self._verbosity("brief"),
            "verbosity normal": lambda: self._verbosity("normal"),
            "verbosity full": lambda: self._verbosity("full"),
            "verbosity cycle": self._cycle_verbosity,
            "stop": self._stop,
            "sounds on": lambda: self._set_sounds(True),
            "sounds off": lambda: self._set_sounds(False),
            "sounds toggle": lambda: self._set_sounds(None),
        }

    def _repeat(self) -> None:
        if not self.history:
            self._answer("answer", "nothing_to_repeat")
            return
        self._say(self.history[-1], remember=False)

    def _help_lines(self, key: str) -> None:
        """Help for now (``key``: ``now_turn``, ``now_waiting``, ``now_over``), then what can be
        typed in the language when the voice hears another, then the keys."""
        self._say(self.narrator.say("help", key), remember=False)
        if self.narrator.prompts.messages["help"].get("voice_language"):
            self._say(self.narrator.say("help", "voice_language"), remember=False)
        self._say(self.narrator.say("help", "keys"), remember=False)

    def _step_history(self, step: int) -> None:
        self._cursor, words = step_history(self.narrator, self.history, self._cursor, step)
        for message in words:
            self._say(message, remember=False)

    def _rate(self, rate: int | None, key: str) -> None:
        if rate is None:
            self._answer("answer", "rate_text_only")
        else:
            self._answer("answer", key, rate=rate)

    def _verbosity(self, level: str) -> None:
        self.narrator.verbosity = level  # type: ignore[assignment]
        self._answer("answer", "verbosity", level=level)

    def _cycle_verbosity(self) -> None:
        index = VERBOSITIES.index(self.narrator.verbosity)
        self._verbosity(VERBOSITIES[(index + 1) % len(VERBOSITIES)])

    def _set_sounds(self, on: bool | None) -> None:
        wanted = (not self.narrator.sounds) if on is None else on
        if wanted and not self.can_sound:
            self._answer("answer", "sounds_no_output")
        elif self.narrator.sounds == wanted:
            self._answer("answer", "sounds_already_on" if wanted else "sounds_already_off")
        else:
            self.narrator.sounds = wanted
            self._answer("answer", "sounds_on" if wanted else "sounds_off")

    def _stop(self) -> None:
        self.outputs.stop()
        self._say(Message(self.narrator.say("answer", "stopped").text, Priority.CHATTY, "answer"),
                  remember=False)


class ListenerAnswers(Conversation):
    """The listener's own commands that read the game, for :class:`voice_rang.table.Table`."""

    play: GamePlay
    kinds: list[SeatKind]
    auto: list[bool]

    @property
    def over(self) -> bool:
        return self.play.game is None or self.play.is_over

    def _automatic(self, seat: int) -> bool:
        return self.kinds[seat] == "computer" or self.auto[seat]

    def _status(self) -> None:
        for message in self.play.status(self.auto):
            self._say(message, remember=False)

    def _help(self) -> None:
        seat = self.play.to_act
        if self.over:
            state = "over"
        elif seat is not None and not self._automatic(seat) and self.kinds[seat] == "person":
            state = "turn"
        else:
            state = "waiting"
        for message in self.play.help(state):
            self._say(message, remember=False)
        if self.narrator.prompts.messages["help"].get("voice_language"):
            self._say(self.narrator.say("help", "voice_language"), remember=False)
        self._say(self.play.keys_help(), remember=False)
