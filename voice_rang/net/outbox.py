"""One writer per guest socket: messages go out in order, and one slow guest holds up nobody."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from aiohttp import web

__all__ = ["MAX_BACKLOG", "flush", "send_later"]

_closing: set[asyncio.Future[Any]] = set()
"""Closes under way (kept so they are not collected before they finish)."""
MAX_BACKLOG = 20_000
"""Messages waiting for one guest that reads too slowly; past this it is dropped, not waited for."""


def send_later(socket: web.WebSocketResponse, data: bytes) -> None:
    """Send in order on the socket's own writer, so one slow guest never holds up the others."""
    outbox: asyncio.Queue[bytes] | None = getattr(socket, "_voice_rang_outbox", None)
    if outbox is None:
        outbox = asyncio.Queue()
        socket._voice_rang_outbox = outbox  # type: ignore[attr-defined]
        task = asyncio.ensure_future(_writer(socket, outbox))
        socket._voice_rang_writer = task  # type: ignore[attr-defined]
    if outbox.qsize() > MAX_BACKLOG:
        _closing.add(asyncio.ensure_future(socket.close()))
        return
    outbox.put_nowait(data)


async def flush(socket: web.WebSocketResponse, timeout: float = 2.0) -> None:
    """Wait (a little) until what was queued for the socket has been written."""
    outbox: asyncio.Queue[bytes] | None = getattr(socket, "_voice_rang_outbox", None)
    end = time.monotonic() + timeout
    while outbox is not None and not outbox.empty() and time.monotonic() < end and not socket.closed:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.01)


async def _writer(socket: web.WebSocketResponse, outbox: asyncio.Queue[bytes]) -> None:
    while not socket.closed:
        data = await outbox.get()
        try:
            await socket.send_str(data.decode())
        except (ConnectionError, RuntimeError):
            return  # the guest is gone; its reader notices and starts the grace
