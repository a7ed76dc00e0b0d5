"""The host's lobby: what a guest asks for before the deal, through a real host and socket."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from net_game import Process, start_host
from test_net_hostile import hello, reply, send

pytestmark = pytest.mark.slow


async def ask_in_lobby(port: int, host: Process) -> dict[str, Any]:
    """Guest 1 turns auto-reveal on (then off and on again) and asks to turn before the deal;
    guest 2 turns it on and leaves the lobby. What each was answered."""
    url = f"http://127.0.0.1:{port}/ws"
    seen: dict[str, Any] = {}
    async with aiohttp.ClientSession() as session:
        staying = await session.ws_connect(url)
        seen["welcome"] = await send(staying, hello(code="4719", name="ana"))
        seen["auto"] = await send(staying, json.dumps({"type": "command", "command": "auto-reveal on"}))
        for _ in range(2):  # off, then on again: the last wish is the one kept
            await send(staying, json.dumps({"type": "command", "command": "auto-reveal toggle"}))
        seen["turn"] = await send(staying, json.dumps({"type": "command", "command": "turn"}))
        async with session.ws_connect(url) as leaving:
            await send(leaving, hello(code="4719", name="bo"))
            seen["leaving auto"] = await send(leaving, json.dumps({"type": "command", "command": "auto-reveal on"}))
            await leaving.send_str(json.dumps({"type": "leave"}))
            await reply(leaving)
        await asyncio.to_thread(host.wait_line, r"^Guest 2.* left; the seat is open again")
        host.write("start\n")
        await asyncio.to_thread(host.wait_line, r"Auto-reveal on for guest 1")
        host.write("quit\nyes\n", close=True)
        await staying.close()
    return seen


def test_a_guests_auto_reveal_said_before_the_deal_is_kept_for_its_seat(tmp_path: Path) -> None:
    """A page's switch flipped in the lobby (or a moment before the deal reaches the host) turns
    that seat's auto-reveal on when the game starts; a turn is answered "not started"; a guest
    who left the lobby leaves nothing behind."""
    host, port = start_host(tmp_path, 3)
    try:
        seen = asyncio.run(ask_in_lobby(port, host))
        assert host.finish() == 0, host.stderr()
    finally:
        host.kill()
    assert seen["welcome"]["type"] == "welcome"
    assert (seen["auto"]["type"], seen["auto"]["key"]) == ("answer", "lobby_kept")
    assert (seen["turn"]["type"], seen["turn"]["key"]) == ("answer", "not_started")
    assert seen["leaving auto"]["key"] == "lobby_kept"
    assert sum(line.startswith("Auto-reveal on for guest 1") for line in host.lines) == 1, host.lines
    assert not any("for guest 2" in line for line in host.lines), host.lines


def test_a_line_the_lobby_cannot_use_is_answered_with_the_lobby_help_even_one_spelling_a_key_only_id(
        tmp_path: Path) -> None:
    host, _port = start_host(tmp_path, 2)
    try:
        host.write("sounds toggle\nbogus words\n")
        host.wait_for(lambda lines: sum(line.startswith("In the lobby:") for line in lines) == 2, "two lobby helps")
        host.write("quit\n", close=True)
        assert host.finish() == 0, host.stderr()
    finally:
        host.kill()
    assert not any(line.startswith("Sounds") or "no speaker" in line for line in host.lines), host.lines
