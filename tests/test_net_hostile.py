"""Hostile and broken network input: each gets one clear error for that client, the game goes on."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from net_game import WAIT_S, joined, start_guest, start_host
from rules_checker import check_file

pytestmark = pytest.mark.slow

REPLIES = {"error", "answer", "welcome", "bye"}
"""Messages meant for this client alone; the rest (events, turns, seats) are skipped."""


async def reply(socket: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    """The next message for this client alone, or ``{"type": "closed"}``."""
    while True:
        frame = await socket.receive(timeout=WAIT_S)
        if frame.type != aiohttp.WSMsgType.TEXT:
            return {"type": "closed"}
        message = json.loads(frame.data)
        if message["type"] in REPLIES:
            return message


async def send(socket: aiohttp.ClientWebSocketResponse, text: str) -> dict[str, Any]:
    await socket.send_str(text)
    return await reply(socket)


async def until_dealt(socket: aiohttp.ClientWebSocketResponse) -> None:
    """Wait for the deal. The host reads its keyboard at its own pace: on a busy machine a command
    sent just after "start" was typed can arrive before the game exists, and is rightly answered
    "not started"."""
    while True:
        frame = await socket.receive(timeout=WAIT_S)
        assert frame.type == aiohttp.WSMsgType.TEXT, "the connection closed before the deal"
        message = json.loads(frame.data)
        if message["type"] == "events" and any(e.get("event") == "deal" for e in message["events"]):
            return


def hello(**fields: Any) -> str:
    return json.dumps({"type": "hello", "version": 1, **fields})


async def attack(port: int, host_write: Any) -> dict[str, Any]:
    """Every kind of bad input, in turn; what the host answered to each."""
    url = f"http://127.0.0.1:{port}"
    seen: dict[str, Any] = {}
    async with aiohttp.ClientSession() as session:
        for path in ("/../pyproject.toml", "/static/page.js", "/prompts/en.toml", "/ws/../../etc/passwd"):
            async with session.get(url + path) as response:
                seen[f"GET {path}"] = response.status
        async with session.get(url + "/page.js") as response:
            seen["GET /page.js"] = response.status
        async with session.ws_connect(url + "/ws") as early:
            seen["before hello"] = await send(early, '{"type":"command","command":"turn"}')
        async with session.ws_connect(url + "/ws") as old:
            seen["version"] = await send(old, json.dumps({"type": "hello", "version": 99, "code": "4719"}))
            seen["version then"] = await reply(old)
        async with session.ws_connect(url + "/ws") as forged:
            seen["forged token"] = await send(forged, hello(token="not-a-seat-token-at-this-table"))
        async with session.ws_connect(url + "/ws") as huge:
            await huge.send_str("x" * 200_000)
            seen["huge frame"] = await reply(huge)
        socket = await session.ws_connect(url + "/ws")
        seen["welcome"] = await send(socket, hello(code="4719", name="mallory"))
        host_write("start\n")
        await until_dealt(socket)
        seen["malformed"] = await send(socket, '{"type": "command", "command": ')
        seen["unknown type"] = await send(socket, '{"type":"shuffle","seat":0}')
        seen["other seat"] = await send(socket, '{"type":"command","command":"turn","seat":1}')
        seen["unknown command"] = await send(socket, '{"type":"command","command":"deal me aces"}')
        seen["wrong field type"] = await send(socket, '{"type":"command","command":7}')
        seen["oversized"] = await send(socket, json.dumps({"type": "hello", "version": 1, "name": "m" * 3000}))
        seen["hello twice"] = await send(socket, hello(code="4719"))
        seen["not my turn"] = await send(socket, '{"type":"command","command":"turn"}')
        for attempt in range(3):
            async with session.ws_connect(url + "/ws") as guess:
                seen[f"wrong code {attempt}"] = await send(guess, hello(code=f"000{attempt}"))
        async with session.ws_connect(url + "/ws") as patient:
            seen["right code after wrong ones"] = await send(patient, hello(code="4719"))
        # A flood: the host refuses the excess, then drops the client; the game goes on without it.
        host_write("auto-reveal on\n", True)
        codes: list[str] = []
        for _ in range(600):
            if socket.closed:
                break
            try:
                await socket.send_str('{"type":"command","command":"auto-reveal off"}')
            except (ConnectionError, RuntimeError):
                break
        while True:
            message = await reply(socket)
            if message["type"] == "closed":
                break
            if message["type"] == "error":
                codes.append(message["code"])
        seen["flood"] = codes
        await socket.close()
    return seen


def test_bad_messages_wrong_codes_and_a_flood_are_refused_and_the_game_is_untouched(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, 3, "--grace", "0.5", seed=3)
    guest = start_guest(tmp_path, port, "bo")
    try:
        host.wait_for(joined(1), "the guest joined")
        seen = asyncio.run(attack(port, host.write))
        assert host.finish() == 0, host.stderr()
        assert guest.finish() == 0, (guest.lines[-5:], guest.stderr())
    finally:
        host.kill()
        guest.kill()
    assert seen["GET /page.js"] == 200
    assert all(seen[f"GET {path}"] == 404 for path in ("/../pyproject.toml", "/static/page.js", "/prompts/en.toml",
                                                       "/ws/../../etc/passwd")), seen
    assert seen["before hello"]["code"] == "hello_first"
    assert seen["version"]["code"] == "version" and seen["version"]["host_version"] == 1
    assert seen["version then"]["type"] == "closed"
    assert seen["forged token"]["code"] == "unknown_token"
    assert seen["huge frame"]["type"] == "closed"
    assert seen["welcome"]["type"] == "welcome" and seen["welcome"]["seat"] == 2
    for bad in ("malformed", "unknown type", "other seat", "unknown command", "wrong field type"):
        assert seen[bad]["code"] == "bad_message", (bad, seen[bad])
    assert "unknown field `seat`" in seen["other seat"]["detail"]
    assert seen["oversized"]["code"] == "too_large"
    assert seen["hello twice"]["code"] == "hello_twice"
    assert seen["not my turn"] == {"type": "answer", "section": "answer", "key": "not_your_turn", "seat": 0,
                                   "fields": {}}
    assert [seen[f"wrong code {n}"]["code"] for n in range(3)] == ["wrong_code"] * 3
    assert seen["right code after wrong ones"]["code"] == "wait"
    assert "too_fast" in seen["flood"] and seen["flood"][-1] == "flooding"
    # The game went on to its end, by the rules, and the honest guest saw all of it.
    report = check_file(tmp_path / "host.jsonl")
    assert report.ok, report.violations
    assert (tmp_path / "bo.jsonl").read_bytes() == (tmp_path / "host.jsonl").read_bytes()
    assert any("(mallory) lost the connection" in line for line in host.lines)
    assert guest.lines[-1] == "The host ended the table. Goodbye."
