"""A guest who drops keeps its seat: a computer turns its cards, and it comes back with its token."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shlex
import signal
import threading
from pathlib import Path

import pytest
from net_game import Process, env_for, joined, start_guest, start_host
from rules_checker import check_file

pytestmark = pytest.mark.slow


def reveals(log: Path) -> list[dict[str, object]]:
    return [event for event in map(json.loads, log.read_text().splitlines()) if event["event"] == "reveal"]


def deal_and_turn(host: Process, guests: int, guest: Process) -> int:
    """Once ``guests`` guests have joined, deal and turn the host's first card; the seat ``guest``
    took."""
    host.wait_for(joined(guests), f"{guests} guests joined")
    host.write("start\n")
    seat = int(guest.wait_line(r"Joined: you are guest (\d)").group(1))
    host.wait_line(r"^Your turn")
    host.write("turn\n")
    return seat


def test_a_killed_guest_is_played_by_the_computer_then_takes_its_seat_back_and_hears_what_it_missed(
        tmp_path: Path) -> None:
    host, port = start_host(tmp_path, 3, "--grace", "0.5", seed=13)
    first = start_guest(tmp_path, port, "ann")
    other = start_guest(tmp_path, port, "bo")
    processes = [host, first, other]
    try:
        seat = deal_and_turn(host, 2, first)
        first.wait_line(r"^You turned")  # auto-reveal on for the guest: its card turned by itself
        first.kill()
        host.wait_line(rf"Guest {seat} \(ann\) lost the connection")
        host.wait_line(rf"Guest {seat} \(ann\) has not come back: a computer turns that seat's cards")
        played = len([e for e in reveals(tmp_path / "host.jsonl") if e["seat"] == seat])
        for _ in range(3):
            host.write("turn\n")
        host.wait_for(lambda _: len([e for e in reveals(tmp_path / "host.jsonl") if e["seat"] == seat]) > played,
                      "the computer turning the dropped seat's card")
        # The same guest again (its token kept on its machine), with a log of its own.
        back = start_guest(tmp_path, port, "ann", "auto-reveal on\n", "--log", str(tmp_path / "ann-back.jsonl"))
        processes.append(back)
        back.wait_line(rf"Joined: you are guest {seat}, at a table of 3 seats\.")
        back.wait_line(r"While you were away: \d+ messages; here are the last 5\.")
        host.wait_line(rf"Guest {seat} \(ann\) is back at the table\.")
        host.write("auto-reveal on\n", close=True)
        assert host.finish() == 0, host.stderr()
        assert back.finish() == 0, (back.lines[-5:], back.stderr())
        assert other.finish() == 0, (other.lines[-5:], other.stderr())
    finally:
        for process in processes:
            process.kill()
    for log in ("host.jsonl", "bo.jsonl", "ann-back.jsonl"):
        report = check_file(tmp_path / log)
        assert report.ok, (log, report.violations)
    assert (tmp_path / "ann-back.jsonl").read_bytes() == (tmp_path / "host.jsonl").read_bytes()
    # It heard only the last few of what it missed, not the whole game again.
    missed_at = next(i for i, line in enumerate(back.lines) if line.startswith("While you were away"))
    assert not any(line.startswith("New game of Rang Milanti") for line in back.lines[:missed_at + 6])
    assert back.lines[-1] == "The host ended the table. Goodbye."


def test_a_guest_stopped_with_ctrl_c_is_told_the_command_that_takes_its_seat_back_and_it_does(
        tmp_path: Path) -> None:
    host, port = start_host(tmp_path, 2, "--grace", "0.5", seed=13)
    guest = start_guest(tmp_path, port, "ann", None)  # its input stays open: only Ctrl-C stops it
    processes = [host, guest]
    try:
        seat = deal_and_turn(host, 1, guest)
        guest.wait_line(r"^You turned|^Your turn")
        guest.popen.send_signal(signal.SIGINT)
        assert guest.finish() == 130
        stopped = [line for line in guest.stderr().splitlines() if line.startswith("Stopped")]
        assert len(stopped) == 1, stopped
        match = re.fullmatch(r"Stopped at reveal \d+ of 5,000\. Your seat is kept while the game goes on: "
                             r"(.*) takes it back\.", stopped[0])
        assert match, stopped
        assert match.group(1) == f"voice-rang join 127.0.0.1:{port} --name ann --text"
        host.wait_line(rf"Guest {seat} \(ann\) lost the connection")
        words = shlex.split(match.group(1))
        back = Process([*words[1:], "--no-listen"], env_for(tmp_path / "ann-state"), "auto-reveal on\n")
        processes.append(back)
        back.wait_line(rf"Joined: you are guest {seat}, at a table of 2 seats\.")
        host.wait_line(rf"Guest {seat} \(ann\) is back at the table\.")
    finally:
        for process in processes:
            process.kill()


class CuttableProxy:
    """A loopback TCP proxy on a thread of its own whose connections can all be cut at once."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.loop = asyncio.new_event_loop()
        self.writers: list[asyncio.StreamWriter] = []
        ready = threading.Event()
        threading.Thread(target=self._run, args=(ready,), daemon=True).start()
        ready.wait(10)

    def _run(self, ready: threading.Event) -> None:
        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError, OSError):
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
            writer.close()

        async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
            self.writers += [writer, up_writer]
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

        async def start() -> None:
            server = await asyncio.start_server(client, "127.0.0.1", 0)
            self.port = server.sockets[0].getsockname()[1]
            ready.set()

        self.loop.run_until_complete(start())
        self.loop.run_forever()

    def cut(self) -> None:
        """Every connection through the proxy ends at once, as when a network drops."""
        def close_all() -> None:
            for writer in self.writers:
                writer.transport.abort()
            self.writers.clear()
        self.loop.call_soon_threadsafe(close_all)


def test_a_dropped_connection_is_taken_up_again_by_join_itself_with_the_seat_token(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, 2, "--grace", "30", seed=13)
    proxy = CuttableProxy(port)
    guest = start_guest(tmp_path, proxy.port, "cy", None)
    guest.write("auto-reveal on\n")
    try:
        host.wait_for(joined(1), "the guest joined")
        host.write("start\n")
        host.wait_line(r"^Your turn")
        host.write("turn\n")
        guest.wait_line(r"^You turned")
        proxy.cut()
        host.wait_line(r"Guest 1 \(cy\) lost the connection")
        guest.wait_line(r"Lost the connection to the host: trying again\.")
        host.wait_line(r"Guest 1 \(cy\) is back at the table\.")
        guest.wait_for(lambda lines: sum(line.startswith("Joined: you are guest 1") for line in lines) == 2,
                       "joined again")
        # Auto-reveal is off again after a reconnect, as after a reload: the guest says it again.
        guest.write("auto-reveal on\n", close=True)
        host.wait_for(lambda lines: sum("Auto-reveal on for guest 1" in line for line in lines) == 2,
                      "auto-reveal on again")
        host.write("auto-reveal on\n", close=True)
        assert host.finish() == 0, host.stderr()
        assert guest.finish() == 0, (guest.lines[-5:], guest.stderr())
    finally:
        host.kill()
        guest.kill()
    # Its own log has every event once: what it missed while away was written when it came back.
    assert (tmp_path / "cy.jsonl").read_bytes() == (tmp_path / "host.jsonl").read_bytes()
