"""A guest's game on its own device: its inputs and outputs, the host's messages, one loop.

The same shape as :func:`voice_rang.table.loop.run_table`: inputs (keys, lines, the voice) and
the connection are producers on their own threads; this loop is the single consumer. Turning a
card and auto-reveal go to the host, which alone decides; everything else (repeat, status,
history, speed, verbosity) is answered here, for this seat, in this device's own words.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from typing import Any

import msgspec

from ..commands import UNKNOWN_INPUT, auto_reveal_wanted
from ..games.court_piece.events import SessionEnded
from ..games.rang_milanti import Dealt, Event
from ..messages import Message, Priority
from ..table.answers import Conversation
from ..table.loop import BARGE_IN, INPUT_ENDED, SPEECH_ENDED, Guess, TableOutputs
from .client import Connected, ConnectionLost
from .protocol import (
    PROTOCOL_VERSION,
    Answer,
    Bye,
    ClientMessage,
    Command,
    HostMessage,
    Leave,
    Private,
    Problem,
    Published,
    Say,
    Turn,
    Welcome,
)
from .view import GuestView

__all__ = ["GuestSession"]

REMOTE = frozenset({"turn", "auto-reveal on", "auto-reveal off", "auto-reveal toggle"})
"""Commands the host decides."""
LOCAL = frozenset({"repeat", "status", "help", "history back", "history forward", "quit", "yes", "no",
                   "new game", "faster", "slower", "verbosity brief", "verbosity normal", "verbosity full",
                   "verbosity cycle", "stop", "sounds on", "sounds off", "sounds toggle"})
COURT_LOCAL = frozenset({"repeat", "history back", "history forward", "quit", "yes", "no", "faster", "slower",
                         "verbosity brief", "verbosity normal", "verbosity full", "verbosity cycle", "stop",
                         "sounds on", "sounds off", "sounds toggle"})
"""At Court Piece, what this device answers itself: everything else (a card, the hand, the trick)
goes to the host as the words typed, and comes back from this seat's own view."""


class GuestSession(Conversation):
    """One guest's seat: the loop, its history and its answers."""

    def __init__(self, view: GuestView, outputs: TableOutputs, send: Callable[[ClientMessage], bool],
                 inbox: queue.Queue[Any], log: Callable[[list[Event]], None] | None = None,
                 on_token: Callable[[str], None] | None = None, can_sound: bool = False) -> None:
        self.view = view
        self.narrator = view.narrator
        self.outputs = outputs
        self._send = send
        self.inbox = inbox
        self._log = log
        self._logged: tuple[int, int] = (-1, 0)
        """(game, events of it written to the log)."""
        self._seen: list[Event] = []
        """Every event of the current game this seat has taken in (heard and logged)."""
        self._ahead: list[Event] = []
        """Events this seat had that a host taken up again from its save has yet to make again
        (it saved a moment before it stopped): heard and logged once, not twice."""
        self._on_token = on_token
        self.history: list[Message] = []
        self._cursor: int | None = None
        self.can_sound = can_sound
        self._confirming_quit = False
        self._wanted_auto: bool | None = None
        """Auto-reveal asked for before the deal: sent once the game starts."""
        self._pending = False
        """A command is on its way to the host: its answer may still change what comes next."""
        self.inputs_closed = False
        self.finished = False
        self.exit_code = 0
        self.quiet_gap = 0.0
        """Set by the voice (as on a table); automatic cards are the host's, so it is only kept."""
        self.heard_quiet_until: Callable[[], float] | None = None
        self.connected = False
        self.address = ""
        """The host's address, as the guest gave it (for saying why it cannot be reached)."""
        self.court = False
        """The host plays Court Piece: it words this seat's news, and takes its commands as words."""

    # ----- the loop ------------------------------------------------------------------------------

    def run(self) -> int:
        while not self.finished:
            item = self.inbox.get()
            self.take(item)
        return self.exit_code

    def take(self, item: Any) -> None:
        if isinstance(item, Connected):
            self.connected = True
        elif isinstance(item, ConnectionLost):
            self.connected = False
            if item.final:
                self._say(self.narrator.say("net", "gave_up", address=self.address, reason=item.reason))
                self._finish(1)
            else:
                self._say(self.narrator.say("net", "lost"))
        elif isinstance(item, Message):
            self._say(item)
        elif isinstance(item, Guess):
            self.handle(item.command)
        elif isinstance(item, str):
            if item == INPUT_ENDED:
                self.close_inputs()
            elif item in (BARGE_IN, SPEECH_ENDED):
                if item == BARGE_IN:
                    self.outputs.stop()
            elif item:
                self.outputs.stop()
                self.handle(item)
        else:
            self._host(item)

    def _finish(self, code: int) -> None:
        self.finished = True
        self.exit_code = code

    # ----- from the host ------------------------------------------------------------------------

    def _court(self, message: HostMessage) -> None:
        """Court Piece: the host has worded this seat's own news; the view keeps whose turn it is."""
        view = self.view
        if isinstance(message, Private):
            if message.seat != view.seat:
                return  # never this seat's: not said
            view.started = True
            if any(isinstance(event, SessionEnded) for event in message.events):
                view.over = True
            if message.board is not None:
                view.turn = view.seat if message.board.turn else None
            for said in message.lines:
                self._say(Message(said.text, Priority(said.priority), said.kind))
        elif isinstance(message, Turn):
            view.turn = message.seat
        else:
            if isinstance(message, Welcome):
                if self._on_token is not None:
                    self._on_token(message.token)
                message = msgspec.structs.replace(message, turn=None, events=[])
            if isinstance(message, Answer):
                self._pending = False
            for heard in view.messages(message):
                self._say(heard)
            if isinstance(message, Welcome):
                view.started = message.started
        if isinstance(message, Bye):
            self._finish(0)
        elif isinstance(message, Problem) and message.code in ("version", "wrong_code", "wait", "full",
                                                               "started", "unknown_token", "flooding"):
            self._finish(1)
        self._check_input_end()

    def _host(self, message: HostMessage) -> None:
        if isinstance(message, Welcome) and message.game == "court-piece":
            self.court = True
        if self.court:
            self._court(message)
            return
        if isinstance(message, Welcome) and message.version != PROTOCOL_VERSION:
            self._answer("net_error", "version", host_version=message.version, detail=PROTOCOL_VERSION)
            self._finish(1)
            return
        if isinstance(message, Welcome):
            if self._on_token is not None:
                self._on_token(message.token)
            self._catch_up(message.events)
            self._write_log(message.events, replay=True)
        elif isinstance(message, Published):
            message = self._skip_repeated(message)
            self._write_log(message.events)
        if isinstance(message, Answer):
            self._pending = False
            if message.key == "auto_on" and 0 <= self.view.seat < len(self.view.auto):
                self.view.auto[self.view.seat] = True  # ahead of the Auto message that follows
        started_before = self.view.started and not self.view.over
        game_before = self.view.game
        for line in self.view.messages(message):
            self._say(line)
        if isinstance(message, Bye):
            self._finish(0)
        elif isinstance(message, Problem) and message.code in ("version", "wrong_code", "wait", "full",
                                                               "started", "unknown_token", "flooding"):
            self._finish(1)
        if self.view.started and (not started_before or self.view.game != game_before) and (
                self._wanted_auto is not None):
            wanted, self._wanted_auto = self._wanted_auto, None
            self._pending = self._send(Command(command="auto-reveal on" if wanted else "auto-reveal off"))
        self._check_input_end()

    def _catch_up(self, events: list[Event]) -> None:
        """A welcome's game so far: behind what this seat has (a host resumed from its save)
        leaves the difference to be made again, and taken in once."""
        same = bool(events) and bool(self._seen) and events[0].game == self._seen[0].game
        if same and len(events) < len(self._seen) and self._seen[:len(events)] == events:
            self._ahead = self._seen[len(events):]
        else:
            self._seen, self._ahead = list(events), []

    def _skip_repeated(self, message: Published) -> Published:
        """The events of ``message`` this seat has not had yet (the rest only update the view)."""
        events, repeated = list(message.events), 0
        while self._ahead and repeated < len(events) and events[repeated] == self._ahead[0]:
            self._ahead.pop(0)
            repeated += 1
        if repeated < len(events):
            self._ahead = []  # the game went on from here as it had not before: take it as it comes
        if repeated:
            self.view.messages(Published(events=events[:repeated]))  # heard before: state only
            message = msgspec.structs.replace(message, events=events[repeated:])
        for event in message.events:
            if isinstance(event, Dealt):
                self._seen = []
            self._seen.append(event)
        return message

    def _write_log(self, events: list[Event], replay: bool = False) -> None:
        """Log each event once: a welcome repeats the game so far, of which only the rest is new."""
        if self._log is None or not events:
            return
        game, written = self._logged
        if replay:
            same = events[0].game == game
            fresh = events[written:] if same else events
            self._logged = (events[0].game, max(written, len(events)) if same else len(events))
        else:
            if events[0].game != game:
                game, written = events[0].game, 0
            fresh = events
            self._logged = (game, written + len(events))
        if fresh:
            self._log(list(fresh))

    # ----- commands ----------------------------------------------------------------------------

    def valid_commands(self) -> set[str]:
        if self._confirming_quit:
            return {"yes", "no", "quit", "repeat", "help", "stop"}
        always = {"repeat", "status", "help", "history back", "history forward", "quit", "faster",
                  "slower", "verbosity brief", "verbosity normal", "verbosity full", "stop"}
        return always | {"turn", "auto-reveal on", "auto-reveal off"}

    def close_inputs(self) -> None:
        self.inputs_closed = True
        self._check_input_end()

    def _check_input_end(self) -> None:
        """With no input left, a guest whose turn needs a person stops (as ``play`` does)."""
        view = self.view
        if (self.inputs_closed and not self.finished and view.started and not view.over
                and view.turn == view.seat and not view.my_auto and self._wanted_auto is None
                and not self._pending):
            if self.court:
                self._answer("net", "input_ended_seat")
            else:
                self._answer("answer", "input_ended", n=view.reveals)
            self._send(Leave())
            self._finish(1)

    def handle(self, command: str) -> None:
        if self.finished:
            return
        if self._confirming_quit and command not in ("repeat", "stop"):
            self._confirming_quit = False
            if command in ("yes", "quit"):
                self._answer("answer", "quit_yes")
                self._send(Leave())
                self._finish(0)
                return
            if command == "no":
                self._answer("answer", "quit_no")
                return
        if self.court and command not in COURT_LOCAL:
            if command == UNKNOWN_INPUT or command.startswith("\x00"):
                self._answer("answer", "unknown")
            elif not self.view.started:
                self._answer("net", "not_started")
            elif not self._send(Say(text=command[:80])):
                self._answer("net", "lost")
            return
        if command in REMOTE:
            self._remote(command)
        elif command in LOCAL:
            self._local(command)
        else:
            self._answer("answer", "unknown")

    def _remote(self, command: str) -> None:
        view = self.view
        if not view.started or view.seat < 0:
            if command == "turn":
                self._answer("net", "not_started")
                return
            self._wanted_auto = auto_reveal_wanted(command, self._wanted_auto or False)
            self._answer("net", "lobby_kept")
            return
        if self._send(Command(command=command)):  # type: ignore[arg-type]
            self._pending = True
        else:
            self._answer("net", "lost")

    def _local(self, command: str) -> None:
        if command == "status":
            for line in self.view.status():
                self._say(line, remember=False)
        elif command == "help":
            self._help_lines("now_over" if self.view.over else (
                "now_turn" if self.view.turn == self.view.seat and self.view.started else "now_waiting"))
        elif command == "quit":
            self._confirming_quit = True
            self._answer("answer", "quit_confirm")
        elif command in ("yes", "no"):
            self._answer("answer", "nothing_to_confirm")
        elif command == "new game":
            self._answer("net", "not_started" if not self.view.started else "host_decides")
        else:
            self._own_commands()[command]()
