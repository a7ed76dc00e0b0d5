"""Host and guests on their own processes over real loopback sockets, played to the end."""

from __future__ import annotations

from pathlib import Path

import pytest
from net_game import joined, start_guest, start_host
from rules_checker import check_file

pytestmark = pytest.mark.slow


def test_six_seats_host_and_five_join_guests_play_to_the_end_and_every_log_checks(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, 6)
    names = [f"guest{n}" for n in range(1, 6)]
    guests = [start_guest(tmp_path, port, name) for name in names]
    try:
        host.wait_for(joined(5), "five guests joined")
        host.write("start\nauto-reveal on\n", close=True)
        assert host.finish() == 0, host.stderr()
        for guest in guests:
            assert guest.finish() == 0, (guest.lines[-5:], guest.stderr())
    finally:
        for process in [host, *guests]:
            process.kill()
    host_report = check_file(tmp_path / "host.jsonl")
    assert host_report.ok, host_report.violations
    seats = set()
    for name, guest in zip(names, guests, strict=True):
        report = check_file(tmp_path / f"{name}.jsonl")
        assert report.ok, (name, report.violations)
        assert (tmp_path / f"{name}.jsonl").read_bytes() == (tmp_path / "host.jsonl").read_bytes()
        lines = guest.lines
        welcome = next(line for line in lines if line.startswith("Joined: you are guest "))
        assert welcome.endswith(", at a table of 6 seats.")
        seats.add(int(welcome.split()[4].rstrip(",")))
        assert any(line.startswith("New game of Rang Milanti: 6 seats") for line in lines)
        # Narrated for its own seat: its own cards are "You turned", the host's "The host turned".
        assert any(line.startswith("You turned") for line in lines)
        assert any(line.startswith("The host turned") for line in lines)
        assert lines[-1] == "The host ended the table. Goodbye."
    assert seats == {1, 2, 3, 4, 5}
    assert sum(" joined the table." in line for line in host.lines) == 5
