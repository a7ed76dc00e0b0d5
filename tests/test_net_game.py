"""Host and guests on their own processes over real loopback sockets, played to the end."""

from __future__ import annotations

from pathlib import Path

import pexpect
import pytest
from net_game import VOICE_RANG, WAIT_S, env_for, joined, start_guest, start_host
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


def test_in_real_terminals_the_host_starts_with_g_and_each_turns_its_own_card_with_space(tmp_path: Path) -> None:
    env = env_for(tmp_path / "state")
    host = pexpect.spawn(VOICE_RANG, ["host", "--text", "--no-listen", "--seats", "2", "--bind", "127.0.0.1",
                                      "--port", "0", "--code", "4719", "--seed", "3", "--beat", "0"],
                         env=env, encoding="utf-8", timeout=WAIT_S)
    try:
        host.expect(r"http://127\.0\.0\.1:(\d+) with code 4 7 1 9\. "
                    r"When everyone has joined, say new game or press g\.")
        guest = pexpect.spawn(VOICE_RANG, ["join", f"127.0.0.1:{host.match.group(1)}", "--code", "4719", "--text",
                                           "--no-listen"], env=env, encoding="utf-8", timeout=WAIT_S)
        guest.expect("Waiting for the host to start the game.")
        host.expect("Guest 1 joined the table.")
        host.send("g")
        host.expect("Your turn: say turn, or press space.")
        guest.send(" ")  # not the guest's turn yet: the host says so, to the guest alone
        guest.expect("It is the host's turn, not yours.")
        host.send(" ")
        guest.expect("Your turn: say turn, or press space.")
        guest.send(" ")
        guest.expect("You turned")
        host.expect("Guest 1 turned")
        guest.send("s")
        guest.expect("Reveal 2 of 5,000.")
        host.send("q")
        host.expect("Quit the game?")
        host.send("y")
        guest.expect("The host ended the table. Goodbye.")
        guest.expect(pexpect.EOF)
        guest.close()
        host.expect(pexpect.EOF)
        host.close()
        assert (guest.exitstatus, host.exitstatus) == (0, 0)
    finally:
        host.close(force=True)
