"""The host's server: the web page, and a WebSocket per guest (commands in, public events out).

Court Piece adds a seat's private news: it leaves only through a :class:`SeatChannel`, made for
one seat, whose messages name that seat and are checked against the connection they are
written to, so that nothing meant for one seat can ever reach another.

It runs an asyncio loop on a thread of its own and never touches the game: a guest's command
goes on the table's queue as a call for the table's thread, and what the table publishes comes
back here through :meth:`HostServer.publish` to be sent to every guest. It serves three fixed
files and nothing else from disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from aiohttp import WSMsgType, web

from ..games.rang_milanti import Dealt, Event
from ..games.rang_milanti.narration import RangMilantiNarrator
from ..prompts import available_languages
from .limits import Bucket, Limits, screen
from .outbox import flush, send_later
from .page import STATIC, Page
from .protocol import (
    MAX_CLIENT_MESSAGE,
    PROTOCOL_VERSION,
    Auto,
    Bye,
    Command,
    ErrorCode,
    GameName,
    Hello,
    HostMessage,
    Leave,
    Line,
    Narration,
    News,
    Private,
    Problem,
    Published,
    Say,
    Settings,
    Turn,
    Welcome,
    encode,
)
from .seating import Refusal, Seat, SeatHooks, Seating, plain_code
from .view import GuestView

__all__ = ["HostServer", "Limits", "PrivacyError", "SeatChannel", "SeatHooks", "plain_code"]

_log = logging.getLogger("voice_rang.net")


class PrivacyError(RuntimeError):
    """A seat's private message was about to go to another seat: a bug, never sent."""


class SeatChannel:
    """The one way a seat's private news leaves the host: bound to its seat when it is made.

    :meth:`send` refuses a message for any other seat at once (on the caller's thread); the
    server checks the seat again against the connection it writes to."""

    def __init__(self, server: HostServer, seat: int) -> None:
        self.seat = seat
        self._server = server

    def send(self, message: Private) -> None:
        if message.seat != self.seat:
            raise PrivacyError(f"a message for seat {message.seat} on seat {self.seat}'s channel")
        self._server._send_private(self.seat, message)


class HostServer:
    """Seats, tokens and sockets; :meth:`start` opens it, :meth:`publish` sends to every guest."""

    def __init__(self, seats: int, code: str, hooks: SeatHooks, *, send_to_table: Callable[[Any], None],
                 cap: int, page_words: dict[str, str], grace: float = 10.0,
                 limits: Limits | None = None, game: GameName = "rang-milanti") -> None:
        self.code = code
        self.game: GameName = game
        self.cap = cap
        self.grace = grace
        self.limits = limits or Limits()
        self._hooks = hooks
        self._to_table = send_to_table
        self._seating = Seating(seats, code, self.limits)
        self._seats = self._seating.seats
        self._events: list[Event] = []
        """Every event of the current game, for a guest taking its seat back."""
        self._turn: Turn | None = None
        self._auto: list[bool] = [False] * seats
        self._waiting: list[int] = []
        """Seats of a resumed game waiting for their guests (the grace starts with the server)."""
        self._connections: set[web.WebSocketResponse] = set()
        """Every open WebSocket, seated or not (each is closed when the table ends)."""
        self._seat_of: dict[int, int] = {}
        """The seat each seated connection (by id) holds: a private message is written only to the
        connection of its own seat."""
        self._narrated: dict[int, str] = {}
        """Connections (by id) that asked the host to word everything, and in which language."""
        self._page = Page(page_words)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    def resume(self, guests: list[tuple[str, str]], events: list[Event], turn: Turn | None) -> None:
        """Before :meth:`start`: take up a saved game. ``guests``: each guest seat's (token, name)
        as saved; ``events``: the game so far (what a guest coming back is sent); ``turn``: whose
        turn it is. A seat with a token waits the grace for its guest, as after a drop."""
        self._waiting = self._seating.resume(guests)
        self._events = list(events)
        self._turn = turn

    @property
    def _started(self) -> bool:
        return self._seating.started

    # ----- life ------------------------------------------------------------------------------

    def start(self, bind: str, port: int) -> int:
        """Listen on ``bind``:``port`` (0: any free port); the port. Raises ``OSError`` if taken."""
        ready: threading.Event = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._open(bind, port))
            except BaseException as error:  # reported to the caller below
                failure.append(error)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            if left:
                loop.run_until_complete(_gather(left))
            loop.close()

        self._thread = threading.Thread(target=run, name="host-server", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self.port

    async def _open(self, bind: str, port: int) -> None:
        app = web.Application(client_max_size=MAX_CLIENT_MESSAGE)
        app.router.add_get("/ws", self._socket)
        for path in STATIC:
            app.router.add_get(path, self._page.serve)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, bind, port)
        await site.start()
        server = site._server  # the bound port, when 0 was asked for
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else port
        for number in self._waiting:
            self._seats[number].grace = asyncio.get_running_loop().call_later(
                self.grace, self._stand_in, number, "computer")

    def close(self, say_bye: bool = True) -> None:
        """Tell every guest the table has ended (one message), then stop serving."""
        loop = self._loop
        if loop is None or not loop.is_running():
            return

        async def shut() -> None:
            open_seats = [seat for seat in self._seats[1:] if seat.socket is not None and not seat.socket.closed]
            if say_bye:
                for seat in open_seats:
                    await self._send(seat, Bye(reason="host_ended"))
            sockets = [seat.socket for seat in open_seats if seat.socket is not None]
            # Connections that hold no seat (refused, or never said hello) end too, before their
            # handlers are stopped: a handler cancelled mid-read leaves the web layer a traceback.
            sockets += [socket for socket in self._connections if socket not in sockets and not socket.closed]
            await asyncio.gather(*(flush(socket, 8.0) for socket in sockets))
            await asyncio.gather(*(socket.close() for socket in sockets), return_exceptions=True)
            if self._runner is not None:
                await self._runner.cleanup()
            others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        future = asyncio.run_coroutine_threadsafe(shut(), loop)
        with contextlib.suppress(Exception):  # closing is best effort; the guests see the socket end
            future.result(12.0)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(2.0)

    # ----- from the table's thread --------------------------------------------------------------

    def publish(self, message: HostMessage) -> None:
        """Send a public message to every guest (thread-safe; in order)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._publish, message)

    def tell(self, seat: int, message: HostMessage) -> None:
        """Send a message to one seat's guest alone (thread-safe)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._tell, seat, message)

    def channel(self, seat: int) -> SeatChannel:
        """The channel for ``seat``'s private news (Court Piece)."""
        if not 0 < seat < len(self._seats):
            raise PrivacyError(f"no guest seat {seat}")
        return SeatChannel(self, seat)

    def _send_private(self, seat: int, message: Private) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._private_now, seat, message)

    def caught_up(self, timeout: float = 0.05) -> None:
        """Wait (a little) until the server's loop has taken what was handed to it and had a
        turn at writing it: a table at beat 0 would otherwise run far ahead of its guests."""
        loop = self._loop
        if loop is None or not loop.is_running():
            return
        done = threading.Event()

        async def mark() -> None:
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            done.set()

        loop.call_soon_threadsafe(lambda: asyncio.ensure_future(mark()))
        done.wait(timeout)

    def swap(self, first: int, second: int) -> None:
        """In the lobby: two guest seats change places, their guests (and tokens) with them; each
        guest moved is welcomed again at its new seat (thread-safe)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._swap, first, second)

    def _swap(self, first: int, second: int) -> None:
        if self._started or not (0 < first < len(self._seats) and 0 < second < len(self._seats)):
            return
        seats = self._seats
        seats[first], seats[second] = seats[second], seats[first]
        for number in (first, second):
            seat = seats[number]
            if seat.socket is not None and not seat.socket.closed:
                self._seat_of[id(seat.socket)] = number
                self._send_now(seat, self._welcome(number), encode(self._welcome(number)))
        self._publish_seats()
        if self._hooks.swapped is not None:
            self._to_table(_bind(self._hooks.swapped, first, second))

    def started(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._start_game)

    # ----- on the server's loop ----------------------------------------------------------------

    def _start_game(self) -> None:
        self._seating.start()
        self._publish_seats()

    def _publish(self, message: HostMessage) -> None:
        if isinstance(message, Published):
            for event in message.events:
                if isinstance(event, Dealt):
                    self._events = []
                self._events.append(event)
            self._turn = message.turn
        elif isinstance(message, Turn):
            self._turn = message
        elif isinstance(message, Auto):
            self._auto = list(message.on)
        data = encode(message)
        for number, seat in enumerate(self._seats):
            if number and seat.socket is not None and not seat.socket.closed:
                self._send_now(seat, message, data)

    def _tell(self, number: int, message: HostMessage) -> None:
        seat = self._seats[number]
        if seat.socket is not None and not seat.socket.closed:
            self._send_now(seat, message, encode(message))

    def _private_now(self, number: int, message: Private) -> None:
        seat = self._seats[number]
        socket = seat.socket
        if socket is None or socket.closed:
            return  # nobody at the seat: its news waits for its welcome back
        if message.seat != number or self._seat_of.get(id(socket)) != number:
            _log.error("refused to send seat %s's news on seat %s's connection", message.seat, number)
            return
        send_later(socket, encode(message))

    def _send_now(self, seat: Seat, message: HostMessage, data: bytes) -> None:
        socket = seat.socket
        assert socket is not None
        send_later(socket, data)
        if seat.view is not None:
            lines = seat.view.messages(message)
            if lines or isinstance(message, Published | Auto):
                narration = Narration(
                    lines=[Line(m.text, int(m.priority), m.kind) for m in lines],
                    board=[m.text for m in seat.view.status()],
                    game=seat.view.game, events=seat.view.events_seen)
                send_later(socket, encode(narration))

    async def _write(self, socket: web.WebSocketResponse, data: bytes) -> None:
        send_later(socket, data)
        await asyncio.sleep(0)

    async def _send(self, seat: Seat, message: HostMessage) -> None:
        if seat.socket is not None:
            self._send_now(seat, message, encode(message))
            await asyncio.sleep(0)

    def _publish_seats(self) -> None:
        self._publish(self._seating.message())

    # ----- one guest's connection -------------------------------------------------------------------

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(max_msg_size=self.limits.frame, heartbeat=10.0)
        await socket.prepare(request)
        self._connections.add(socket)
        address = request.remote or "?"
        bucket = Bucket(self.limits.burst, time.monotonic())
        number: int | None = None
        try:
            async for frame in socket:
                if frame.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                    break
                message = screen(frame.data, bucket, self.limits)
                if message is None:
                    continue
                if isinstance(message, Problem):
                    await self._problem(socket, message.code, detail=message.detail)
                    if message.code == "flooding":
                        await flush(socket)
                        break
                    continue
                if isinstance(message, Hello):
                    if message.narrate and message.lang in available_languages():
                        self._narrated[id(socket)] = message.lang
                    if number is not None:
                        await self._problem(socket, "hello_twice")
                        continue
                    number = await self._hello(socket, message, address)
                    if number is None and socket.closed:
                        break
                    continue
                if number is not None:
                    number = self._seat_of.get(id(socket), number)  # seats may change in the lobby
                if number is None or self._seats[number].socket is not socket:
                    await self._problem(socket, "hello_first")
                    continue
                if isinstance(message, Say) and self.game != "court-piece":
                    await self._problem(socket, "bad_message", detail="say is a Court Piece message")
                elif isinstance(message, Command | Say):
                    text = message.command if isinstance(message, Command) else message.text
                    self._to_table(_bind(self._hooks.command, number, text))
                elif isinstance(message, Settings) and self.game == "court-piece":
                    # The table words this seat's news: its detail is kept there.
                    self._to_table(_bind(self._hooks.command, number, f"verbosity {message.verbosity}"))
                elif isinstance(message, Settings):
                    view = self._seats[number].view
                    if view is not None:
                        view.narrator.verbosity = message.verbosity
                elif isinstance(message, Leave):
                    self._leave(number, for_good=True)
                    number = None
                    break
        finally:
            if number is not None:
                number = self._seat_of.get(id(socket), number)
            self._connections.discard(socket)
            self._narrated.pop(id(socket), None)
            self._seat_of.pop(id(socket), None)
            if number is not None and self._seats[number].socket is socket:
                self._leave(number, for_good=False)
        if not socket.closed:
            await socket.close()
        return socket

    async def _problem(self, socket: web.WebSocketResponse, code: ErrorCode, detail: str = "",
                       seconds: int = 0) -> None:
        problem = Problem(code=code, detail=detail, seconds=seconds)
        await self._write(socket, encode(problem))
        lang = self._narrated.get(id(socket))
        if lang is not None:
            # A web page has no words of its own: the host says what was wrong for it.
            line = GuestView(RangMilantiNarrator.load(lang, seats=len(self._seats))).messages(problem)[0]
            await self._write(socket, encode(Narration(lines=[Line(line.text, int(line.priority), "error")])))

    async def _hello(self, socket: web.WebSocketResponse, hello: Hello, address: str) -> int | None:
        """Seat the guest, or say why not; the seat number."""
        if hello.version != PROTOCOL_VERSION:
            await self._problem(socket, "version", detail=str(hello.version))
            await flush(socket)
            await socket.close()
            return None
        if hello.narrate and hello.lang not in available_languages():
            await self._problem(socket, "language", detail=hello.lang[:20])
            return None
        name = "".join(ch for ch in hello.name if ch.isprintable())[:40].strip()
        if hello.token is not None:
            number = self._seating.by_token(hello.token)
            if number is None:
                await self._problem(socket, "unknown_token")
                return None
            await self._take_back(number, socket, hello)
            return number
        admitted = self._seating.admit(hello.code, address, name)
        if isinstance(admitted, Refusal):
            await self._problem(socket, admitted.code, seconds=admitted.seconds)
            return None
        number = admitted
        seat = self._seats[number]
        seat.socket, seat.view = socket, self._new_view(hello)
        self._seat_of[id(socket)] = number
        await self._send(seat, self._welcome(number))
        self._publish_seats()
        self._publish(News(key="joined", seat=number, name=name))
        self._to_table(_bind(self._hooks.joined, number, name, seat.token))
        return number

    def _new_view(self, hello: Hello) -> GuestView | None:
        if not hello.narrate or self.game != "rang-milanti":
            return None  # Court Piece: the table words each seat's news itself
        seats = len(self._seats)
        return GuestView(RangMilantiNarrator.load(hello.lang, seats=seats, verbosity=hello.verbosity, cap=self.cap),
                         heard=(hello.heard_game, hello.heard_events))

    def _welcome(self, number: int) -> Welcome:
        seat = self._seats[number]
        return Welcome(version=PROTOCOL_VERSION, seat=number, token=seat.token, seats=self._seating.message(),
                       cap=self.cap, started=self._started, events=list(self._events) if self._started else [],
                       turn=self._turn if self._started else None, auto=list(self._auto), game=self.game)

    async def _take_back(self, number: int, socket: web.WebSocketResponse, hello: Hello) -> None:
        seat = self._seats[number]
        old = seat.socket
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None
        was = seat.kind
        seat.socket, seat.kind = socket, "remote"
        self._seat_of[id(socket)] = number
        view = self._new_view(hello)
        if view is not None and seat.view is not None and old is None:
            view = seat.view  # a page coming back: its narrator knows what it already said
        seat.view = view
        if old is not None and not old.closed:
            await self._write(old, encode(Bye(reason="seat_taken")))
            await flush(old)
            await old.close()
        self._auto[number] = False
        await self._send(seat, self._welcome(number))
        self._publish_seats()
        if was != "remote" or old is not None:
            self._publish(News(key="back", seat=number, name=seat.name))
        self._to_table(_bind(self._hooks.back, number))

    def _leave(self, number: int, for_good: bool) -> None:
        seat = self._seats[number]
        seat.socket = None
        if not self._started:
            name = seat.name
            self._seats[number] = Seat()
            self._publish_seats()
            self._publish(News(key="freed", seat=number, name=name))
            self._to_table(_bind(self._hooks.left_lobby, number, name))
            return
        if for_good:
            seat.token = ""
            self._stand_in(number, "left")
            return
        seat.kind = "away"
        self._publish_seats()
        self._publish(News(key="dropped", seat=number, name=seat.name))
        self._to_table(_bind(self._hooks.dropped, number))
        assert self._loop is not None
        seat.grace = self._loop.call_later(self.grace, self._stand_in, number, "computer")

    def _stand_in(self, number: int, key: str) -> None:
        seat = self._seats[number]
        seat.grace = None
        if seat.socket is not None:
            return
        seat.kind = "computer"
        self._publish_seats()
        self._publish(News(key=key, seat=number, name=seat.name))  # type: ignore[arg-type]
        self._to_table(_bind(self._hooks.gone, number, key == "left"))


def _bind(hook: Callable[..., None], seat: int, *values: Any) -> Callable[[Any], None]:
    """A call for the table's thread (the table argument is not needed: the hooks hold it)."""
    return lambda _table: hook(seat, *values)


async def _gather(tasks: set[asyncio.Task[Any]]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)
