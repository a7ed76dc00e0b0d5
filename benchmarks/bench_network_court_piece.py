"""Court Piece's part of ``bench_network.py``: four seats on loopback, three of them guests.

The host plays seat 0; three guests (one process, one asyncio loop, three WebSocket connections)
switch auto play on for their seats at each session, as a person at ``voice-rang join`` would.
Measured: plays per second of the hosted table against an in-process table with four computer
seats in the same run, and the delay from a play (the moment the table hands its events on, each
seat's own :class:`~voice_rang.net.protocol.Private` stamped then) to its announcement at every
other seat's guest.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import queue
import time
from random import Random
from typing import Any

from voice_rang.commands import CommandSet
from voice_rang.games.court_piece.events import CardPlayed, SessionEnded
from voice_rang.games.court_piece.phrases import Phrases
from voice_rang.games.court_piece.play import CourtPiecePlay
from voice_rang.games.court_piece.record import Recipe
from voice_rang.games.court_piece.rules import Rules
from voice_rang.games.court_piece.session import Session
from voice_rang.narration import Narrator
from voice_rang.net.court_piece import CourtPieceBridge
from voice_rang.net.server import HostServer, Limits
from voice_rang.prompts import load_game_prompts
from voice_rang.table import SeatKind, Table
from voice_rang.table.loop import Inbox, TableOutputs, run_table

SEATS = 4
GUESTS = 3
CODE = "4719"


def _table(log: Any, kinds: list[SeatKind], sessions: int, seed: int, inbox: queue.Queue[Inbox],
           outputs: TableOutputs) -> tuple[Table, CourtPiecePlay, CommandSet]:
    prompts, words = load_game_prompts("en", "court-piece")
    rules = Rules.make("court-piece", target=5)
    rng = Random(seed)
    narrator = Narrator(prompts=prompts, seats=SEATS, listener=0, kinds=kinds)

    def new_session(number: int) -> Session:
        return Recipe.before(rules, rng, players=("person",) + ("easy",) * 3, number=number).session(rng)

    play = CourtPiecePlay(narrator, Phrases.build(prompts, words), rules, new_session, people=(0,),
                          levels=["easy"] * SEATS, bot_rng=Random(seed + 1))
    table = Table(narrator, play, outputs, kinds=kinds, beat=0.0, interactive=True, log=log)
    commands = CommandSet(phrases=prompts.commands, keys=prompts.keys, typed_only=prompts.typed_only)
    return table, play, commands


def _counting_log(sessions: int, inbox: queue.Queue[Inbox], count: list[int]) -> Any:
    def log(events: list[Any]) -> None:
        for event in events:
            if isinstance(event, CardPlayed):
                count[0] += 1
            elif isinstance(event, SessionEnded):
                count[1] += 1
                if count[1] < sessions:
                    inbox.put("new game")
                    inbox.put("auto-play on")
                else:
                    inbox.put("quit")
                    inbox.put("yes")
    return log


def plain_run(sessions: int, seed: int, outputs: TableOutputs) -> tuple[int, float]:
    """The baseline: plays and seconds for ``sessions`` sessions on a plain table, no server."""
    inbox: queue.Queue[Inbox] = queue.Queue()
    count = [0, 0]
    table, _, _ = _table(_counting_log(sessions, inbox, count), ["person"] + ["computer"] * GUESTS, sessions,
                         seed, inbox, outputs)
    inbox.put("auto-play on")
    start = time.perf_counter()
    run_table(table, inbox)
    return count[0], time.perf_counter() - start


def guests_process(port: int, sessions: int, ready: Any, results: Any) -> None:
    """Three guests in one process: each play's arrival delay at every seat but the player's."""
    import aiohttp

    async def guest(name: str, delays: list[float]) -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(
                f"http://127.0.0.1:{port}/ws", max_msg_size=64 * 1024 * 1024) as socket:
            await socket.send_str(json.dumps({"type": "hello", "version": 1, "code": CODE, "name": name}))
            seat, ends = -1, 0
            async for frame in socket:
                now = time.perf_counter()
                message = json.loads(frame.data)
                kind = message["type"]
                if kind == "welcome":
                    seat = message["seat"]
                elif kind == "private":
                    for event in message["events"]:
                        if event["event"] == "play" and event["seat"] != seat:
                            delays.append(now - message["sent"])
                        elif event["event"] == "session":
                            await socket.send_str('{"type":"say","text":"auto play on"}')
                        elif event["event"] == "end":
                            ends += 1
                    if ends == sessions:
                        return
                elif kind == "bye":
                    return

    async def main() -> list[list[float]]:
        delays: list[list[float]] = [[] for _ in range(GUESTS)]
        tasks = [asyncio.ensure_future(guest(f"g{n}", delays[n])) for n in range(GUESTS)]
        ready.set()
        await asyncio.gather(*tasks)
        return delays

    results.put(asyncio.run(main()))


def hosted_run(sessions: int, seed: int, outputs: TableOutputs) -> tuple[int, float, list[float]]:
    """The hosted table: plays, seconds from the first deal to the last end, and every delay."""
    inbox: queue.Queue[Inbox] = queue.Queue()
    count = [0, 0]
    marks: dict[str, float] = {}
    counting = _counting_log(sessions, inbox, count)

    def log(events: list[Any]) -> None:
        marks.setdefault("first", time.perf_counter())
        counting(events)
        marks["last"] = time.perf_counter()

    kinds: list[SeatKind] = ["person"] + ["computer"] * GUESTS
    table, play, commands = _table(None, kinds, sessions, seed, inbox, outputs)
    bridge = CourtPieceBridge(table.narrator, log, play, commands)
    table._log = bridge.record
    server = HostServer(SEATS, CODE, bridge.hooks(), send_to_table=inbox.put, cap=5000, page_words={},
                        limits=Limits(rate=1000.0, burst=1000.0), game="court-piece")
    port = server.start("127.0.0.1", 0)
    bridge.attach(table, server)
    context = multiprocessing.get_context("spawn")
    ready, results = context.Event(), context.Queue()
    process = context.Process(target=guests_process, args=(port, sessions, ready, results))
    process.start()
    ready.wait(60)
    deadline = time.monotonic() + 60
    while sum(kind == "remote" for kind in table.kinds) < GUESTS and time.monotonic() < deadline:
        try:
            item = inbox.get(timeout=0.5)
        except queue.Empty:
            continue
        if callable(item) and not isinstance(item, str):
            item(table)
    server.started()
    table.start()
    bridge.sync()
    table.handle("auto-play on")
    run_table(table, inbox, start=False)
    delays = results.get(timeout=120)
    process.join(30)
    server.close()
    return count[0], marks["last"] - marks["first"], [d for guest in delays for d in guest]
