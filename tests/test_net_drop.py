"""A guest who drops keeps its seat: a computer turns its cards, and it comes back with its token."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from net_game import joined, start_guest, start_host
from rules_checker import check_file

pytestmark = pytest.mark.slow


def reveals(log: Path) -> list[dict[str, object]]:
    return [event for event in map(json.loads, log.read_text().splitlines()) if event["event"] == "reveal"]


def test_a_killed_guest_is_played_by_the_computer_then_takes_its_seat_back_and_hears_what_it_missed(
        tmp_path: Path) -> None:
    host, port = start_host(tmp_path, 3, "--grace", "0.5", seed=13)
    first = start_guest(tmp_path, port, "ann")
    other = start_guest(tmp_path, port, "bo")
    processes = [host, first, other]
    try:
        host.wait_for(joined(2), "two guests joined")
        host.write("start\n")
        seat = int(first.wait_line(r"Joined: you are guest (\d)").group(1))
        host.wait_line(r"^Your turn")
        host.write("turn\n")
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
