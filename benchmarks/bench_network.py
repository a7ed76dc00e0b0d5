"""How fast is a hosted table, and how soon does each guest hear of a reveal?

    .venv/bin/python benchmarks/bench_network.py [--games N] [--seed S] [--game court-piece]

One host and five guests on loopback, beat 0, every seat on auto-reveal, N six-seat games:

* **plain**: the same games on a plain in-process table (the host and five computer seats),
  no server: the baseline, measured in the same run;
* **hosted**: ``voice_rang.net``'s host (table, bridge and server in this process) with five
  guests in a second process (one asyncio loop, five WebSocket connections, each sending
  auto-reveal on after every deal, as ``voice-rang join`` does).

Reported: reveals per second of each and their ratio, and the delay from a reveal on the host
(the moment the table hands the event on) to the event arriving at each guest: median and
99th percentile over every reveal at every guest. Both processes read the same monotonic clock
(``time.perf_counter``, CLOCK_MONOTONIC on Linux). Goal: p99 under 20 ms on loopback.
The table is for people; the last line is one JSON object for machines.

``--game court-piece``: four seats, three of them guests, N sessions to 5 points
(:mod:`bench_network_court_piece`): plays per second against a plain table in the same run, and
the delay from a play at one seat to its announcement at every other seat's guest.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import queue
import statistics
import sys
import threading
import time
from pathlib import Path
from random import Random
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voice_rang.games.rang_milanti import Game, GameOver
from voice_rang.games.rang_milanti.narration import RangMilantiNarrator
from voice_rang.games.rang_milanti.play import RangMilantiPlay
from voice_rang.net.host import HostBridge
from voice_rang.net.server import HostServer, Limits
from voice_rang.table import SeatKind, Table
from voice_rang.table.loop import Inbox, TableOutputs, run_table

SEATS = 6
GUESTS = 5
CODE = "4719"
GOAL_P99_MS = 20.0


def null_outputs() -> TableOutputs:
    return TableOutputs(open(os.devnull, "w"))  # lives as long as the run


def plain_run(games: int, seed: int, beat: float = 0.0) -> tuple[int, float]:
    """The baseline: reveals and seconds for ``games`` games on a plain table."""
    total, elapsed = 0, 0.0
    for number in range(games):
        rng = Random(seed + number)
        kinds: list[SeatKind] = ["person"] + ["computer"] * GUESTS
        narrator = RangMilantiNarrator.load("en", seats=SEATS, listener=0, kinds=kinds)
        play = RangMilantiPlay(narrator, lambda n, rng=rng: Game(SEATS, rng, number=n), len(kinds))
        table = Table(narrator, play, null_outputs(), kinds=kinds,
                      beat=beat, interactive=False, log=lambda events: None)
        inbox: queue.Queue[Inbox] = queue.Queue()
        inbox.put("auto-reveal on")
        start = time.perf_counter()
        run_table(table, inbox)
        elapsed += time.perf_counter() - start
        assert table.game is not None
        total += table.game.reveals
    return total, elapsed


def guests_process(port: int, games: int, ready: Any, results: Any) -> None:
    """Five guests in one process: each reveal's arrival delay, per guest."""
    import aiohttp

    async def guest(name: str, delays: list[float]) -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(
                f"http://127.0.0.1:{port}/ws", max_msg_size=64 * 1024 * 1024) as socket:
            await socket.send_str(json.dumps({"type": "hello", "version": 1, "code": CODE, "name": name}))
            ends = 0
            async for frame in socket:
                now = time.perf_counter()
                message = json.loads(frame.data)
                kind = message["type"]
                if kind == "events":
                    for event in message["events"]:
                        if event["event"] == "reveal":
                            delays.append(now - message["sent"])
                        elif event["event"] == "deal":
                            await socket.send_str('{"type":"command","command":"auto-reveal on"}')
                        elif event["event"] == "end":
                            ends += 1
                    if ends == games:
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


def hosted_run(games: int, seed: int, beat: float = 0.0) -> tuple[int, float, list[float]]:
    """The hosted table: reveals, seconds from the first deal to the last end, and every delay."""
    rng = Random(seed)
    seeds = iter(range(seed, seed + games))
    kinds: list[SeatKind] = ["person"] + ["computer"] * GUESTS
    narrator = RangMilantiNarrator.load("en", seats=SEATS, listener=0, kinds=kinds)
    inbox: queue.Queue[Inbox] = queue.Queue()
    ended = threading.Event()
    marks: dict[str, float] = {}
    count = [0, 0]

    def new_game(number: int) -> Game:
        rng.seed(next(seeds))
        return Game(SEATS, rng, number=number)

    def log(events: list[Any]) -> None:
        marks.setdefault("first", time.perf_counter())
        for event in events:
            if isinstance(event, GameOver):
                count[0] += event.reveals
                count[1] += 1
                marks["last"] = time.perf_counter()
                if count[1] < games:
                    inbox.put("new game")
                    inbox.put("auto-reveal on")
                else:
                    inbox.put("quit")
                    inbox.put("yes")

    bridge = HostBridge(narrator, log)
    table = Table(narrator, RangMilantiPlay(narrator, new_game, len(kinds)), null_outputs(), kinds=kinds, beat=beat,
                  interactive=True, log=bridge.record)
    server = HostServer(SEATS, CODE, bridge.hooks(), send_to_table=inbox.put, cap=5000, page_words={},
                        limits=Limits(rate=1000.0, burst=1000.0))
    port = server.start("127.0.0.1", 0)
    bridge.attach(table, server)
    context = multiprocessing.get_context("spawn")
    ready, results = context.Event(), context.Queue()
    process = context.Process(target=guests_process, args=(port, games, ready, results))
    process.start()
    ready.wait(60)
    # The lobby: wait until the five guests sit, then start as the host's "start" does.
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
    table.handle("auto-reveal on")
    bridge.sync()
    run_table(table, inbox, start=False)
    ended.set()
    delays = results.get(timeout=120)
    process.join(30)
    server.close()
    return count[0], marks["last"] - marks["first"], [d for guest in delays for d in guest]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--beat", type=float, default=0.0,
                        help="seconds before each automatic card (default 0: as fast as the table goes)")
    parser.add_argument("--game", choices=("rang-milanti", "court-piece"), default="rang-milanti")
    args = parser.parse_args(argv)
    if args.game == "court-piece":
        return court_piece(args.games, args.seed)
    plain_reveals, plain_s = plain_run(args.games, args.seed, args.beat)
    hosted_reveals, hosted_s, delays = hosted_run(args.games, args.seed, args.beat)
    plain_rate, hosted_rate = plain_reveals / plain_s, hosted_reveals / hosted_s
    median_ms, p99_ms = statistics.median(delays) * 1000, percentile(delays, 0.99) * 1000
    print(f"{'run':<8} {'reveals':>8} {'seconds':>8} {'reveals/s':>10}")
    print(f"{'plain':<8} {plain_reveals:>8} {plain_s:>8.2f} {plain_rate:>10.0f}")
    print(f"{'hosted':<8} {hosted_reveals:>8} {hosted_s:>8.2f} {hosted_rate:>10.0f}")
    print(f"hosted/plain speed: {hosted_rate / plain_rate:.2f}")
    print(f"reveal to guest ({len(delays)} arrivals at {GUESTS} guests): median {median_ms:.2f} ms, "
          f"p99 {p99_ms:.2f} ms (goal p99 < {GOAL_P99_MS:.0f} ms: {'met' if p99_ms < GOAL_P99_MS else 'NOT met'})")
    print(json.dumps({
        "games": args.games, "beat": args.beat, "plain_reveals_per_s": round(plain_rate),
        "hosted_reveals_per_s": round(hosted_rate), "ratio": round(hosted_rate / plain_rate, 3),
        "arrivals": len(delays), "median_ms": round(median_ms, 3), "p99_ms": round(p99_ms, 3),
        "goal_p99_ms": GOAL_P99_MS}))
    return 0


def court_piece(sessions: int, seed: int) -> int:
    from bench_network_court_piece import GUESTS as CP_GUESTS
    from bench_network_court_piece import hosted_run as cp_hosted
    from bench_network_court_piece import plain_run as cp_plain

    plain_plays, plain_s = cp_plain(sessions, seed, null_outputs())
    hosted_plays, hosted_s, delays = cp_hosted(sessions, seed, null_outputs())
    plain_rate, hosted_rate = plain_plays / plain_s, hosted_plays / hosted_s
    median_ms, p99_ms = statistics.median(delays) * 1000, percentile(delays, 0.99) * 1000
    print(f"{'run':<8} {'plays':>8} {'seconds':>8} {'plays/s':>10}")
    print(f"{'plain':<8} {plain_plays:>8} {plain_s:>8.2f} {plain_rate:>10.0f}")
    print(f"{'hosted':<8} {hosted_plays:>8} {hosted_s:>8.2f} {hosted_rate:>10.0f}")
    print(f"hosted/plain speed: {hosted_rate / plain_rate:.2f}")
    print(f"play to every other seat ({len(delays)} arrivals at {CP_GUESTS} guests): median {median_ms:.2f} ms, "
          f"p99 {p99_ms:.2f} ms (goal p99 <= {GOAL_P99_MS:.0f} ms: {'met' if p99_ms <= GOAL_P99_MS else 'NOT met'})")
    print(json.dumps({
        "game": "court-piece", "sessions": sessions, "plain_plays_per_s": round(plain_rate),
        "hosted_plays_per_s": round(hosted_rate), "ratio": round(hosted_rate / plain_rate, 3),
        "arrivals": len(delays), "median_ms": round(median_ms, 3), "p99_ms": round(p99_ms, 3),
        "goal_p99_ms": GOAL_P99_MS}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
