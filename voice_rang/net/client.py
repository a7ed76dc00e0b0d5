"""A guest's connection to a host: one WebSocket on an asyncio thread of its own.

It takes a seat (with the join code, or with the seat's token to take it back), hands every
host message to ``deliver`` in order, and when the connection is lost tries again with the
token for a while. It knows nothing of the game: :mod:`voice_rang.net.guest` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import msgspec

from .protocol import PROTOCOL_VERSION, Bye, ClientMessage, Hello, HostMessage, Problem, Welcome, decode_host, encode

__all__ = ["AddressError", "Connected", "ConnectionLost", "HostConnection", "parse_address"]

RETRY_FOR_S = 30.0
"""How long a lost connection is tried again before the guest gives up."""
FATAL = frozenset({"version", "wrong_code", "wait", "unknown_token", "full", "started", "language", "flooding"})
"""Refusals of a hello (or a flood) that trying again cannot mend."""


class AddressError(ValueError):
    """An address that is not ``http://HOST:PORT`` or ``HOST:PORT``."""


def parse_address(text: str) -> tuple[str, int]:
    """The host and port of an address as the host says it.

    >>> parse_address("http://192.168.1.20:8765"), parse_address("localhost:9000")
    (('192.168.1.20', 8765), ('localhost', 9000))
    >>> parse_address("192.168.1.20")
    ('192.168.1.20', 8765)
    """
    raw = text.strip()
    if "://" not in raw:
        raw = "http://" + raw
    try:
        parts = urlsplit(raw)
        port = parts.port or 8765
    except ValueError:
        raise AddressError(text) from None
    if parts.scheme not in ("http", "ws") or not parts.hostname or parts.path not in ("", "/"):
        raise AddressError(text)
    return parts.hostname, port


@dataclass(frozen=True)
class ConnectionLost:
    """Delivered when the connection is gone: ``final`` when no more tries will be made."""

    reason: str
    final: bool


@dataclass(frozen=True)
class Connected:
    """Delivered when a (re)connection is open and the hello has been sent."""


class HostConnection:
    """The guest's end; :meth:`send` is thread-safe, messages arrive through ``deliver``."""

    def __init__(self, host: str, port: int, hello: Hello,
                 deliver: Callable[[HostMessage | ConnectionLost | Connected], None],
                 retry_for: float = RETRY_FOR_S) -> None:
        self.url = f"http://{host}:{port}/ws"
        self._hello = hello
        self._deliver = deliver
        self._retry_for = retry_for
        self._loop = asyncio.new_event_loop()
        self._socket: Any = None
        self._closing = False
        self._token: str | None = hello.token
        self._thread = threading.Thread(target=self._run, name="host-connection", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def send(self, message: ClientMessage) -> bool:
        """Send if connected; False when not (the caller says so)."""
        socket = self._socket
        if socket is None or socket.closed:
            return False
        data = encode(message).decode()
        asyncio.run_coroutine_threadsafe(self._send(socket, data), self._loop)
        return True

    async def _send(self, socket: aiohttp.ClientWebSocketResponse, data: str) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):  # the reader sees a loss and reconnects
            await socket.send_str(data)

    def close(self, timeout: float = 2.0) -> None:
        """Close the connection (after anything just sent) and end the thread."""
        self._closing = True

        async def shut() -> None:
            if self._socket is not None:
                await self._socket.close()

        if self._loop.is_running():
            future = asyncio.run_coroutine_threadsafe(shut(), self._loop)
            with contextlib.suppress(Exception):  # closing is best effort
                future.result(timeout)
        self._thread.join(timeout)

    def _run(self) -> None:
        self._loop.run_until_complete(self._main())

    async def _main(self) -> None:
        hello = self._hello
        deadline: float | None = None
        async with aiohttp.ClientSession() as session:
            while not self._closing:
                reason = await self._session(session, hello)
                if self._closing or reason is None:
                    return
                token = self._token
                now = self._loop.time()
                if token is None:
                    self._deliver(ConnectionLost(reason, True))
                    return
                if deadline is None:
                    deadline = now + self._retry_for
                if now >= deadline:
                    self._deliver(ConnectionLost(reason, True))
                    return
                hello = msgspec.structs.replace(self._hello, code=None, token=token)
                await asyncio.sleep(0.5)

    async def _session(self, session: aiohttp.ClientSession, hello: Hello) -> str | None:
        """One connection; why it ended (``None``: for good)."""
        try:
            socket = await session.ws_connect(self.url, max_msg_size=64 * 1024 * 1024, heartbeat=10.0,
                                              timeout=aiohttp.ClientWSTimeout(ws_close=2.0))
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as error:
            reason = _why(error)
            if self._token is None:
                self._deliver(ConnectionLost(reason, True))
                return None
            return reason
        self._socket = socket
        told_lost = False
        try:
            await socket.send_str(encode(hello).decode())
            self._deliver(Connected())
            async for frame in socket:
                if frame.type != aiohttp.WSMsgType.TEXT:
                    break
                try:
                    message = decode_host(frame.data)
                except msgspec.DecodeError:
                    continue  # a newer host's message this guest cannot read: the version check says so
                if isinstance(message, Welcome):
                    self._token = message.token
                self._deliver(message)
                if isinstance(message, Bye) or (isinstance(message, Problem) and message.code in FATAL):
                    self._closing = True
                    return None
        except (aiohttp.ClientError, ConnectionError) as error:
            told_lost = True
            reason = str(error) or type(error).__name__
        finally:
            self._socket = None
            if not socket.closed:
                await socket.close()
        if self._closing:
            return None
        if not told_lost:
            reason = "the connection closed"
        self._deliver(ConnectionLost(reason, False))
        return reason


def _why(error: BaseException) -> str:
    """The plain reason a connection failed ("connection refused"), not the library's sentence."""
    cause = getattr(error, "os_error", error)
    number = getattr(cause, "errno", None)
    if isinstance(number, int) and number in errno.errorcode:
        return os.strerror(number).lower()
    text = getattr(cause, "strerror", None)
    if isinstance(text, str) and text:
        return text[:1].lower() + text[1:]
    if isinstance(error, asyncio.TimeoutError):
        return "no answer in time"
    return str(error) or type(error).__name__


def hello_for(code: str | None, token: str | None, name: str) -> Hello:
    return Hello(version=PROTOCOL_VERSION, code=code, token=token, name=name)
