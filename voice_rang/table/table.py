"""The table: the one place that owns a game and decides what a command does now.

Every seat is driven the same way: a key, a typed line, a spoken word, a computer
seat and the auto timer all arrive here as the same command ids. The table
is synchronous and clock-driven (``handle(command)`` and ``tick(now)``), so tests
drive it with scripted commands and a fake clock; ``voice_rang.table.loop`` feeds
it from real inputs and threads.

The table knows no game: it holds one through :class:`~voice_rang.game.GamePlay`, which says
whose turn it is, makes moves and answers the game's own questions; the table does the rest
(the seats, auto play and its pace, the conversation, the log and the save).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from ..game import GamePlay, Happened
from ..messages import Message
from ..narration import Narrator
from .answers import ListenerAnswers
from .outputs import Outputs, SeatKind
from .pacing import Pacing

__all__ = ["EventLog", "Outputs", "SeatKind", "Table"]

EventLog = Callable[[list[Any]], None]
"""Receives each batch of events, for ``--log``."""
Reply = Callable[[int, str, str, "int | None", dict[str, Any]], None]
"""Receives the answer to a remote seat's command: (asker, section, key, seat, fields), for that
seat's own device to narrate in its own words."""
GUESS_WINDOW_S = 10.0
"""How long "Did you say turn?" waits for its yes: a yes said later answers nothing."""


class Table(ListenerAnswers, Pacing):
    """One table: a game at a time, its seats, their auto play, and the conversation."""

    def __init__(
        self,
        narrator: Narrator,
        play: GamePlay,
        outputs: Outputs,
        *,
        kinds: list[SeatKind],
        beat: float = 1.0,
        quiet_gap: float = 0.0,
        interactive: bool = True,
        log: EventLog | None = None,
        clock: Callable[[], float] = time.monotonic,
        save: Callable[[Any], None] | None = None,
        resume_command: Callable[[], str | None] | None = None,
        can_sound: bool = False,
    ) -> None:
        self.narrator = narrator
        self.play = play
        self.outputs = outputs
        self.kinds = kinds
        self.beat = beat
        self.quiet_gap = quiet_gap
        """Silence left after the game stops talking before a move is made by itself while
        auto play is on for someone. Zero for a keyboard or screen reader; a listening game
        needs one, because the microphone hears nothing while the game speaks: without a gap,
        spoken auto-reveal talks on from card to card and "auto-reveal off" can never be heard.
        Computer seats alone need none: the game soon comes back to a person and waits."""
        self.heard_quiet_until: Callable[[], float] | None = None
        """The listener's capture time up to which it found nobody speaking: the quiet gap counts
        over audio the listener has gone through, not over the clock alone."""
        self.interactive = interactive
        self.can_sound = can_sound
        """Whether an output can play sound cues: ``sounds on`` is refused without one."""
        self._log = log
        self._save = save
        """Called with the game after the deal and after every move, once the log has it
        (``voice_rang.table.save``): a game killed at any moment resumes where it stopped."""
        self._resume_command = resume_command
        """What the player types to go on with the saved game (``None``: nothing is saved), told
        when the table stops before the game ends."""
        self.clock = clock
        self.game_number = -1
        self.auto = [False] * len(kinds)
        self.history: list[Message] = []
        self._cursor: int | None = None
        self._confirming_quit = False
        self._guess: tuple[tuple[str, ...], float, bool] | None = None
        """The command the voice was not sure of and asked about ("Did you say turn?"), or the
        two moves it asked between ("The queen of hearts or the queen of spades?"), when, and
        whether it was heard clearly and asked about only to protect the player."""
        self.inputs_closed = False
        self.finished = False
        self.exit_code = 0
        self.due: float | None = None
        """When the current seat's move is made by itself (computer seat or auto play)."""
        self._floor_until: float | None = None
        """While a player speaks: automatic moves wait until then (:meth:`hold_floor`)."""
        self._spoke_at: float | None = None
        """The last time :meth:`tick` found the game still talking."""
        self.reply: Reply | None = None
        """Where answers to a remote seat's command go (its own device); unset, they are said here."""
        self._asker: int | None = None
        """The remote seat whose command is being handled, if any."""

    @property
    def game(self) -> Any:
        """The engine's object for the game in play (None before the first deal)."""
        return self.play.game

    # ----- starting and ending -------------------------------------------------------------

    def start(self) -> None:
        """Deal a new game and say so; auto play starts off for everyone."""
        self.game_number += 1
        self.auto = [False] * len(self.kinds)
        self.due = None
        happened = self.play.deal(self.game_number)
        self._record(happened.events)
        self._saved()
        for message in happened.messages:
            self._say(message)
        self._turn_begins()

    def resume(self, game: Any) -> None:
        """Go on with a saved game (rebuilt by ``voice_rang.table.save``) instead of dealing:
        one line says which game, how far it had gone and whose turn; auto play starts off."""
        messages = self.play.resume(game)
        self.game_number = self.play.number
        self.auto = [False] * len(self.kinds)
        self.due = None
        for message in messages:
            self._say(message)
        self._turn_begins()

    def _finish(self, code: int = 0) -> None:
        self.finished = True
        self.exit_code = code
        self.due = None

    # ----- output --------------------------------------------------------------------------

    def announce(self, message: Message) -> None:
        """Say news from an input or output (listening, a device lost), kept in the history."""
        if not self.finished:
            self._say(message)

    def _record(self, events: list[Any]) -> None:
        if self._log is not None and events:
            self._log(events)

    def _saved(self) -> None:
        if self._save is not None and self.play.game is not None:
            self._save(self.play.game)

    def _happened(self, happened: Happened) -> None:
        """Log, save and say what a move did, then go on from where the game is now."""
        self._record(happened.events)
        if happened.moved:
            self._saved()
        for message in happened.messages:
            self._say(message)
        if not happened.moved:
            return
        if self.play.is_over:
            self._game_over()
        else:
            self._turn_begins()

    # ----- whose turn ----------------------------------------------------------------------

    def _turn_begins(self) -> None:
        """Schedule the automatic move, or tell the person whose turn it is."""
        seat = self.play.to_act
        if seat is None:
            return
        if self._automatic(seat):
            self.due = max(self.clock() + self.beat, self._floor_until or -math.inf)
            return
        self.due = None
        if self.inputs_closed and self.kinds[seat] == "person":
            self._stop_for_ended_input()
            return
        if self.kinds[seat] == "remote":
            # Their own device prompts them; here it is only news.
            self._answer("status", "turn", seat)
            return
        for message in self.play.prompt(seat):
            self._say(message)

    def _person_for_commands(self) -> int:
        """The seat a command from this device speaks for: the person whose turn it is,
        or else the next person round the table."""
        seats = len(self.kinds)
        start = self.play.to_act or 0
        for step in range(seats):
            seat = (start + step) % seats
            if self.kinds[seat] == "person":
                return seat
        return 0

    def set_kind(self, seat: int, kind: SeatKind) -> None:
        """A remote guest took the seat, dropped (a computer stands in) or came back. Coming back
        turns the seat's auto play off, as a new connection does; whose turn it is, is said again."""
        if self.kinds[seat] == kind and kind != "remote":
            return
        self.kinds[seat] = kind
        if kind == "remote":
            self.auto[seat] = False
        if self.play.to_act == seat:
            self._turn_begins()

    def _reveal(self) -> None:
        """The automatic move of the seat whose turn it is (its beat has passed)."""
        seat = self.play.to_act
        if seat is None:
            return
        self._happened(self.play.automatic(seat, computer=self.kinds[seat] == "computer"))

    def _game_over(self) -> None:
        self.due = None
        if self.interactive and not self.inputs_closed:
            self._answer("prompt", "game_over_choices")
        else:
            self._finish(0)

    # ----- commands ------------------------------------------------------------------------

    def close_inputs(self) -> None:
        """No more commands will come (end of piped input): stop when a person must act."""
        self.inputs_closed = True
        if self.finished:
            return
        if self.over:
            self._finish(0)
        elif self._confirming_quit:
            # Nobody is left to answer the question, and the cards wait for its answer.
            self._stop_for_ended_input()
        elif self.due is None:
            self._turn_begins()

    def _stop_for_ended_input(self) -> None:
        """Stop where a person must act and nobody is left to: how far the game had gone, and how
        to go on from there when the game is saved."""
        command = self._resume_command() if self._resume_command is not None else None
        if command is None:
            self._say(self.play.stopped("input_ended"))
        else:
            self._say(self.play.stopped("input_ended_saved", command=command))
        self._finish(1)

    def valid_commands(self) -> set[str]:
        """Commands that can do something now: the voice listens only for these, since a
        stray "yes" or "no" in conversation must not count unless a question is open."""
        if self._confirming_quit:
            return {"yes", "no", "quit", "repeat", "help", "stop"}
        guess = self._open_guess()
        asking = set() if guess is None else {"yes", "no"} if len(guess) == 1 else {"first", "second", "no"}
        always = {"repeat", "status", "help", "history back", "history forward", "quit", "faster",
                  "slower", "verbosity brief", "verbosity normal", "verbosity full", "stop"}
        if self.over:
            return always | asking | {"new game"}
        auto = {command for command in self.play.auto_commands if not command.endswith("toggle")}
        return always | asking | auto | self.play.commands_now(self._person_for_commands())

    def offer_guess(self, command: str, heard: str, *, between: tuple[str, ...] = (),
                    names: tuple[str, ...] = (), question: Message | None = None) -> None:
        """The voice heard something like ``command`` but is not sure: ask, never act.

        "yes" then does it, "no" or any other command drops it. Only a command that could do
        something now is asked about, and "quit" goes straight to its own question. A half-heard
        "yes" or "no" while that question is open is its answer: the question was asked because
        the command was half heard, and in a loud room the answer is half heard too (the quit
        question still needs a yes heard whole).

        ``between``: two moves heard alike, asked about as "this or that?" (``names``), which
        "the first", "the second" or either's name settles. ``question``: a move heard clearly
        that is asked about to protect the player; the same move heard again while its question
        is open makes it, as a yes does."""
        if self.finished:
            return
        open_guess = self._open_guess()
        if command in ("yes", "no", "first", "second") and not self._confirming_quit and open_guess is not None:
            self.handle(command)
            return
        if open_guess == (command,) and question is not None and self._guess is not None and self._guess[2]:
            # Heard clearly again while asked about to protect the player: they mean it. (A
            # half-heard command said again is asked about again: twice half heard is not heard.)
            self.handle("yes")
            return
        choices = between or (command,)
        if (self._confirming_quit or any(not self._can_do(choice) for choice in choices)
                or command in ("yes", "no", "first", "second")):
            # With the quit question open, a yes must answer that one and nothing else.
            self._answer("answer", "not_caught")
            return
        if command == "quit":
            self._quit()
            return
        self._guess = (choices, self.clock(), question is not None)
        if len(choices) > 1:
            first, second = (names + choices)[:2]
            self._answer("answer", "which_of", first=first[:1].upper() + first[1:], second=second)
        elif question is not None:
            self._say(question)
        else:
            self._answer("answer", "did_you_say", heard=heard)

    def _can_do(self, command: str) -> bool:
        """Whether ``command`` could do something now: one of :meth:`valid_commands`, or a move
        of the game's."""
        return command in self.valid_commands() or (not self.over and self.play.is_move(command))

    def _open_guess(self) -> tuple[str, ...] | None:
        """The command asked about (or the two asked between), while the question is still
        fresh. Read-only: the listener's thread asks :meth:`valid_commands` too."""
        guess = self._guess
        if guess is None or self.clock() - guess[1] > GUESS_WINDOW_S:
            return None
        return guess[0]

    def handle(self, command: str, seat: int | None = None) -> None:
        """Do what a command asks, or say why it can't be done now (and change nothing).

        ``seat``: the remote seat the command comes from, which it acts for alone; only the
        game's moves and auto play come from remote seats (their devices answer everything else
        themselves)."""
        if self.finished:
            return
        if seat is not None:
            self._asker = seat
            try:
                auto = self._auto_handlers()
                if command in auto:
                    auto[command]()
                elif self.play.is_move(command):
                    self._move(command)
                else:
                    self._reply("answer", "unknown")
            finally:
                self._asker = None
            return
        if command in ("repeat", "stop"):
            # Hearing a question again, or silencing it, leaves it open for its yes or no.
            self._handlers()[command]()
            return
        if self._confirming_quit:
            self._confirming_quit = False
            if command in ("yes", "quit"):
                self._answer("answer", "quit_yes")
                self._finish(0)
                return
            if command == "no":
                self._answer("answer", "quit_no")
                return
        guess, self._guess = self._open_guess(), None
        if guess is not None and len(guess) > 1 and command == "yes":
            self._guess = (guess, self.clock(), False)  # which one? the question stays open
            self._answer("answer", "which_yes")
            return
        if guess is not None and command == "yes":
            command = guess[0]
        elif guess is not None and len(guess) > 1 and command in ("first", "second"):
            command = guess[0 if command == "first" else 1]
        elif guess is not None and command == "no":
            self._answer("answer", "guess_no")
            return
        handler = self._handlers().get(command)
        if handler is not None:
            handler()
            return
        if self.play.is_move(command):
            self._move(command)
            return
        if not self.over or self.play.game is not None:
            happened = self.play.command(self._person_for_commands(), command, self.kinds)
            if happened is not None:
                self._happened(happened)
                return
        self._answer("answer", "unknown")

    def _auto_handlers(self) -> dict[str, Callable[[], None]]:
        on, off, toggle = self.play.auto_commands
        return {on: lambda: self._set_auto(True), off: lambda: self._set_auto(False),
                toggle: lambda: self._set_auto(None)}

    def _handlers(self) -> dict[str, Callable[[], None]]:
        return {
            **self._auto_handlers(),
            "status": self._status,
            "help": self._help,
            "quit": self._quit,
            "yes": lambda: self._answer("answer", "nothing_to_confirm"),
            "no": lambda: self._answer("answer", "nothing_to_confirm"),
            "new game": self._new,
            **self._own_commands(),
        }

    def _reply(self, section: str, key: str, seat: int | None = None, **fields: Any) -> None:
        """Answer the command being handled: on the asker's own device when it is remote."""
        if self._asker is not None and self.reply is not None:
            self.reply(self._asker, section, key, seat, fields)
        else:
            self._answer(section, key, seat, **fields)

    def _move(self, command: str) -> None:
        """A move (``turn``, a card): only by the person whose turn it is, while the game goes on."""
        if self.over:
            self._reply("answer", "game_over")
            return
        seat = self.play.to_act
        assert seat is not None
        if self.kinds[seat] == "computer":
            self._reply("answer", "not_a_person", seat)
            return
        if (self.kinds[seat] == "remote") != (self._asker is not None) or (
                self._asker is not None and self._asker != seat):
            self._reply("answer", "not_your_turn", seat)
            return
        happened = self.play.command(seat, command, self.kinds)
        if happened is None:  # pragma: no cover - is_move and command agree
            self._reply("answer", "unknown")
            return
        if happened.moved:
            self.due = None
        self._happened(happened)

    def take_move(self, happened: Happened) -> None:
        """A move a remote seat made through its game (Court Piece's guests): logged, saved and
        said here, and the game goes on from it."""
        if happened.moved:
            self.due = None
        self._happened(happened)

    def _set_auto(self, on: bool | None) -> None:
        seat = self._person_for_commands() if self._asker is None else self._asker
        wanted = (not self.auto[seat]) if on is None else on
        section = self.play.auto_section
        if self.auto[seat] == wanted:
            self._reply(section, "auto_already_on" if wanted else "auto_already_off")
            return
        self.auto[seat] = wanted
        self._reply(section, "auto_on" if wanted else "auto_off", seat)
        if self._asker is not None:
            self._answer(section, "auto_on" if wanted else "auto_off", seat)
        if self.over:
            return
        if self.play.to_act == seat:
            self._turn_begins()

    def _quit(self) -> None:
        self._confirming_quit = True
        self._answer("answer", "quit_confirm")

    def _new(self) -> None:
        if not self.over:
            self._answer("answer", "game_not_over")
            return
        self.start()
