"""The table's side of hosting: what the table does is published, what guests do reaches it.

Everything here runs on the table's own thread (as calls it takes from its queue), so the
table is touched by nothing else; the server's thread only gets finished messages to send.
The lobby runs before the first deal: guests take seats while the host waits to say start.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from typing import Any

from ..commands import AUTO_REVEAL_COMMANDS, auto_reveal_wanted, normalize
from ..games.rang_milanti import Event
from ..messages import Message
from ..narration import Narrator
from ..table import Table
from ..table.loop import BARGE_IN, INPUT_ENDED, SPEECH_ENDED, Guess, Inbox
from .protocol import Answer, Auto, Published, Turn
from .seating import SeatHooks
from .server import HostServer
from .view import news

__all__ = ["HostBridge", "run_lobby"]

LOBBY_COMMANDS = AUTO_REVEAL_COMMANDS | frozenset({"faster", "slower", "verbosity brief", "verbosity normal",
                                                   "verbosity full", "verbosity cycle", "stop"})
"""Commands the lobby keeps for the table, to do once the game has started."""


class HostBridge:
    """Links one table to its server: events and turns out, guests' seats and commands in."""

    def __init__(self, narrator: Narrator, log: Callable[[list[Event]], None] | None) -> None:
        self.table: Table = None  # type: ignore[assignment]  # set by attach, once the table exists
        self.narrator = narrator
        self._log = log
        self.server: HostServer | None = None
        self._last: tuple[Any, ...] | None = None
        self._auto: tuple[bool, ...] = ()
        self.names: dict[int, str] = {}
        self.tokens: dict[int, str] = {}
        """Each guest seat's secret, kept in the table's save so a resumed table seats them again."""
        self._wanted_auto: dict[int, bool] = {}
        """Each guest seat's auto-reveal as asked for in the lobby: a switch flipped on a page
        before the deal must not be lost (the page shows it on). Only the last wish counts, so a
        guest flipping the switch for long keeps nothing more."""

    def attach(self, table: Table, server: HostServer) -> None:
        self.table = table
        self.server = server
        self.table.reply = self._reply

    def guests(self) -> list[tuple[str, str]]:
        """Each guest seat's (token, name), seats 1 and up ("" where nobody holds the seat)."""
        return [(self.tokens.get(seat, ""), self.names.get(seat, "") if seat in self.tokens else "")
                for seat in range(1, len(self.table.kinds))]

    def resume(self, guests: list[tuple[str, str]]) -> None:
        """A saved table taken up again: the guests it had, each still holding its seat."""
        for seat, (token, name) in enumerate(guests, start=1):
            if token:
                self.tokens[seat], self.names[seat] = token, name

    def hooks(self) -> SeatHooks:
        return SeatHooks(joined=self._joined, back=self._back, gone=self._gone, left_lobby=self._left_lobby,
                         dropped=lambda seat: self._news("dropped", seat, self.names.get(seat, "")),
                         command=self._command)

    # ----- out ---------------------------------------------------------------------------------

    def record(self, events: list[Event]) -> None:
        """The table's event log: ``--log`` if any, then every guest."""
        if self._log is not None:
            self._log(events)
        table, server = self.table, self.server
        if server is not None and table.game is not None:
            game = table.game
            turn = None if game.is_over else Turn(seat=game.current_seat, extra=game.owes_extra_card)
            self._last = (game.number, game.reveals, None if turn is None else (turn.seat, turn.extra))
            server.publish(Published(events=list(events), turn=turn, sent=time.perf_counter()))
        self.sync()
        # Let the server's thread send it now: at beat 0 the table would otherwise keep the
        # interpreter for a whole switch interval, and guests would hear of reveals in bursts.
        time.sleep(0)

    def sync(self) -> None:
        """Publish whose turn it is and the auto-reveal switches, when they changed."""
        table, server = self.table, self.server
        if server is None or table.game is None:
            return
        auto = tuple(table.auto)
        if auto != self._auto:
            self._auto = auto
            server.publish(Auto(on=list(auto)))
        game = table.game
        turn = None if game.is_over else (game.current_seat, game.owes_extra_card)
        key = (game.number, game.reveals, turn)
        if key != self._last:
            self._last = key
            if turn is not None:
                server.publish(Turn(seat=turn[0], extra=turn[1]))

    def _reply(self, asker: int, section: str, key: str, seat: int | None, fields: dict[str, Any]) -> None:
        if self.server is not None:
            clean = {name: value for name, value in fields.items() if isinstance(value, int | str)}
            self.server.tell(asker, Answer(section=section, key=key, seat=seat, fields=clean))

    # ----- in (each on the table's thread) -------------------------------------------------------

    def _news(self, key: str, seat: int, name: str = "") -> None:
        self.table.announce(news(self.narrator, key, seat, name))

    def _joined(self, seat: int, name: str, token: str) -> None:
        self.names[seat] = name
        self.tokens[seat] = token
        self.table.set_kind(seat, "remote")
        self._news("joined", seat, name)

    def _left_lobby(self, seat: int, name: str) -> None:
        self._wanted_auto.pop(seat, None)
        self.names.pop(seat, None)
        self.tokens.pop(seat, None)
        self.table.set_kind(seat, "computer")
        self._news("freed", seat, name)

    def _back(self, seat: int) -> None:
        self.table.set_kind(seat, "remote")
        self._news("back", seat, self.names.get(seat, ""))
        self._auto = ()  # the guest's welcome already said it; say it to all again
        self.sync()

    def _gone(self, seat: int, for_good: bool) -> None:
        if for_good:
            self.tokens.pop(seat, None)  # its guest said goodbye: the seat is the computer's now
        self.table.set_kind(seat, "computer")
        self._news("left" if for_good else "computer", seat, self.names.get(seat, ""))
        self.sync()

    def _command(self, seat: int, command: str) -> None:
        if self.table.game is None:
            if command in AUTO_REVEAL_COMMANDS:
                self._wanted_auto[seat] = auto_reveal_wanted(command, self._wanted_auto.get(seat, False))
                self._reply(seat, "net", "lobby_kept", None, {})
            else:
                self._reply(seat, "net", "not_started", None, {})
            return
        if self.table.kinds[seat] != "remote":
            return  # a command that was on its way when the seat dropped
        self.table.handle(command, seat=seat)
        self.sync()

    def lobby_command(self, command: str) -> Message | None:
        """A lobby command of this game's own (Court Piece's seats), done; None when it is not one."""
        del command
        return None

    def do_kept(self) -> None:
        """Once the game has started: auto-reveal on for each seat whose guest asked for it in the
        lobby and is still there (every seat starts with it off)."""
        wanted, self._wanted_auto = self._wanted_auto, {}
        for seat in sorted(seat for seat, on in wanted.items() if on):
            self._command(seat, "auto-reveal on")


def run_lobby(table: Table, inbox: queue.Queue[Inbox], narrator: Narrator, start_words: list[str],
              server: HostServer, bridge: HostBridge) -> int | None:
    """Seat guests until the host says start (or ``new game``): ``None`` to play, or the exit code.

    Commands that only make sense in a game are kept and done once it has started."""
    kept: list[str] = []
    starts = {normalize(word) for word in start_words}
    while True:
        item = inbox.get()
        if isinstance(item, Guess):
            item = item.command
        if callable(item) and not isinstance(item, str):
            item(table)
            continue
        if not isinstance(item, str):
            table.announce(item)
            continue
        if item == INPUT_ENDED:
            table.announce(narrator.say("net", "lobby_input_ended"))
            return 1
        if item in (BARGE_IN, SPEECH_ENDED) or not item:
            continue
        if item == "new game" or normalize(item) in starts:
            server.started()  # first: the lobby closes before the deal reaches anyone
            table.start()
            bridge.sync()
            for command in kept:
                table.handle(command)
            bridge.do_kept()
            bridge.sync()
            return None
        if item == "quit":
            table.announce(narrator.say("answer", "quit_yes"))
            return 0
        said = bridge.lobby_command(item)
        if said is not None:
            table.announce(said)
        elif item in LOBBY_COMMANDS:
            kept.append(item)
            table.announce(narrator.say("net", "lobby_kept"))
        elif item == "status":
            table.announce(narrator.say("net", "lobby_status", guests=len(bridge.names),
                                        seats=len(table.kinds)))
        elif item == "repeat" and table.history:
            table.announce(table.history[-1])
        else:
            table.announce(narrator.say("net", "lobby_help"))
