"""``voice-rang host --resume``: a host killed mid-game takes it up again where it stopped, at the
same address, and its guest takes its own seat back. Real processes on loopback, beat 0."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from random import Random

import pytest
from net_game import WAIT_S, Process, env_for, joined, start_guest, start_host
from rules_checker import check_file

from voice_rang.games.rang_milanti import Event, Game
from voice_rang.games.rang_milanti.log import encode_events
from voice_rang.net.resume import host_record, read_host_save
from voice_rang.table.save import SavedGame, SaveError, read_save, write_save

pytestmark = pytest.mark.slow

SEED, SEATS = 15, 3  # a three-seat game of 991 reveals: long enough to be killed in the middle


def whole_game(seed: int, seats: int) -> bytes:
    """The log of the same game played without a stop, from the engine itself."""
    game = Game(seats, Random(seed))
    events: list[Event] = [game.dealt]
    while not game.is_over:
        events += game.reveal()
    return encode_events(events)


def resume_host(tmp: Path, *extra: str) -> Process:
    """``host --resume`` with only the device's options: seats, cards and address are the save's."""
    return Process(["host", "--resume", "--text", "--no-listen", "--beat", "0",
                    "--log", str(tmp / "host.jsonl"), *extra], env_for(tmp / "host-state"))


def play_to_the_end(host: Process, guest: Process) -> None:
    """The host's seat on auto-reveal and its input closed: the game plays out, both exit 0."""
    host.write("auto-reveal on\n", close=True)
    assert host.finish() == 0, host.stderr()
    assert guest.finish() == 0, (guest.lines[-5:], guest.stderr())


def save_reveals(save: Path) -> int:
    try:
        return read_save(save).reveals
    except Exception:  # not written yet, or being replaced this very moment
        return -1


def saved_at_least(save: Path, reveals: int) -> Callable[[], bool]:
    return lambda: save_reveals(save) >= reveals


def lines_starting(words: str, count: int) -> Callable[[list[str]], bool]:
    return lambda lines: sum(line.startswith(words) for line in lines) == count


def wait_until(condition: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < end, f"never saw {what}"
        time.sleep(0.005)


def test_a_host_killed_mid_game_resumes_and_its_guest_takes_its_own_seat_back(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, SEATS, "--grace", "30", seed=SEED)
    guest = start_guest(tmp_path, port, "ann", None)
    guest.write("auto-reveal on\n")  # for its seat
    save = tmp_path / "host-state" / "voice-rang" / "host.json"
    processes = [host, guest]
    try:
        host.wait_for(joined(1), "the guest joined")
        host.write("start\nauto-reveal on\n")  # every seat turns by itself: killed while it runs
        at = 0
        for kill in (1, 2):  # killed twice: a resumed table is saved as well as a new one
            wait_until(saved_at_least(save, at + 100), "100 more reveals saved")
            host.kill()  # kill -9
            at = read_save(save).reveals
            assert 0 < at < 991
            guest.wait_for(lines_starting("Lost the connection to the host", kill), "the guest losing the host")
            host = resume_host(tmp_path)
            processes.append(host)
            host.wait_line(rf"^Guests come back at http://127\.0\.0\.1:{port}, each to their own seat")
            resumed = host.wait_line(r"^Resumed game 1 at reveal (\d+): ")
            assert int(resumed.group(1)) == at
            host.wait_line(r"^Guest 1 \(ann\) is back at the table\.")
            guest.wait_for(lines_starting("Joined: you are guest 1", kill + 1), "the guest in its own seat again")
            # Auto-reveal is off again after a resume: each says it again.
            guest.write("auto-reveal on\n", close=kill == 2)
            host.wait_line(r"Auto-reveal on for guest 1")
            if kill == 1:
                host.write("auto-reveal on\n")
        play_to_the_end(host, guest)
    finally:
        for process in processes:
            process.kill()

    report = check_file(tmp_path / "host.jsonl")
    assert report.ok, report.violations[:5]
    assert report.games == 1
    whole = whole_game(SEED, SEATS)
    # No reveal lost, repeated or changed: on the host, and on the guest that stayed at the table.
    assert (tmp_path / "host.jsonl").read_bytes() == whole
    assert (tmp_path / "ann.jsonl").read_bytes() == whole
    said = [int(m.group(1).replace(",", "")) for line in guest.lines
            if (m := re.search(r"Reveal ([\d,]+) of 5,000\.$", line))]
    assert len(said) >= 100  # every reveal up to the first kill, at least
    assert len(said) == len(set(said)), "the guest heard a reveal twice"
    assert not save.exists()  # a finished game leaves no save
    assert guest.lines[-1] == "The host ended the table. Goodbye."


def both_killed_mid_game(tmp: Path, processes: list[Process]) -> int:
    """A two-seat hosted game (seed 7) with the guest "bo", host and guest both killed once the
    game waits for the guest's card; the port the host had."""
    host, port = start_host(tmp, 2, "--grace", "30", seed=7)
    guest = start_guest(tmp, port, "bo", None)
    processes += [host, guest]
    host.wait_for(joined(1), "the guest joined")
    host.write("start\n")
    host.wait_line(r"^Your turn")
    host.write("turn\n")
    guest.wait_line(r"^Your turn")  # the game waits for the guest, and then both stop
    host.kill()
    guest.kill()
    return port


def test_a_guest_whose_program_stopped_too_comes_back_to_its_seat_by_running_join_again(tmp_path: Path) -> None:
    processes: list[Process] = []
    try:
        port = both_killed_mid_game(tmp_path, processes)
        at = read_save(tmp_path / "host-state" / "voice-rang" / "host.json").reveals  # 1, or 0: killed before it saved
        again = resume_host(tmp_path, "--grace", "30")
        processes.append(again)
        again.wait_line(rf"^Resumed game 1 at reveal {at}: ")
        # No --code: the seat's token is in the guest's own state directory.
        held = json.loads((tmp_path / "bo-state" / "voice-rang" / "seats.json").read_text())[f"127.0.0.1:{port}/bo"]
        back = Process(["join", f"127.0.0.1:{port}", "--name", "bo", "--text", "--no-listen",
                        "--log", str(tmp_path / "bo-again.jsonl")], env_for(tmp_path / "bo-state"),
                       "auto-reveal on\n")
        processes.append(back)
        back.wait_line(r"^Joined: you are guest 1, at a table of 2 seats\.")
        again.wait_line(r"^Guest 1 \(bo\) is back at the table\.")
        # The resumed table goes on saving its guests' seats: it could be resumed again.
        save = tmp_path / "host-state" / "voice-rang" / "host.json"
        again.write("turn\n")  # the host's card, if the save was made before its first one
        wait_until(lambda: save_reveals(save) > max(at, 1), "a reveal saved after the resume")
        _, table = read_host_save(save)
        assert [(seat.token, seat.name) for seat in table.guests] == [(held, "bo")]
        play_to_the_end(again, back)
    finally:
        for process in processes:
            process.kill()
    whole = whole_game(7, 2)
    assert (tmp_path / "host.jsonl").read_bytes() == whole
    assert (tmp_path / "bo-again.jsonl").read_bytes() == whole  # a fresh log: the whole game


def test_a_guest_takes_its_seat_back_from_a_host_resumed_on_another_port(tmp_path: Path) -> None:
    """A resumed game takes no one by its code: the seat's token, kept for the old port, is what
    brings the guest back when the host had to listen elsewhere."""
    processes: list[Process] = []
    try:
        port = both_killed_mid_game(tmp_path, processes)
        again = resume_host(tmp_path, "--grace", "30", "--port", "0")
        processes.append(again)
        moved = int(again.wait_line(r"^Guests come back at http://127\.0\.0\.1:(\d+), each to their own seat")
                    .group(1))
        assert moved != port
        back = Process(["join", f"127.0.0.1:{moved}", "--name", "bo", "--text", "--no-listen"],
                       env_for(tmp_path / "bo-state"), "auto-reveal on\n")
        processes.append(back)
        back.wait_line(r"^Joined: you are guest 1, at a table of 2 seats\.")
        again.wait_line(r"^Guest 1 \(bo\) is back at the table\.")
        kept = json.loads((tmp_path / "bo-state" / "voice-rang" / "seats.json").read_text())
        assert kept[f"127.0.0.1:{moved}/bo"] == kept[f"127.0.0.1:{port}/bo"]
        play_to_the_end(again, back)
    finally:
        for process in processes:
            process.kill()


def test_a_seat_whose_guest_does_not_come_back_within_the_grace_is_played_by_the_computer(
        tmp_path: Path) -> None:
    with socket.socket() as probe:  # a free port on loopback
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    rng = Random(7)
    saved = SavedGame.before_deal(rng, kinds=("person", "computer"))
    game = saved.deal(rng)
    for _ in range(40):
        game.reveal()
    table = host_record("127.0.0.1", port, "4719", [("b" * 24, "bo")])
    write_save(tmp_path / "host-state" / "voice-rang" / "host.json", replace(saved.at(game), table=table))
    host = Process(["host", "--resume", "--text", "--no-listen", "--beat", "0", "--grace", "0.2",
                    "--log", str(tmp_path / "host.jsonl")], env_for(tmp_path / "host-state"), "auto-reveal on\n")
    try:
        host.wait_line(rf"^Guests come back at http://127\.0\.0\.1:{port}, each to their own seat")
        host.wait_line(r"^Resumed game 1 at reveal 40: ")
        host.wait_line(r"^Guest 1 \(bo\) has not come back: a computer turns that seat's cards")
        assert host.finish() == 0, host.stderr()
    finally:
        host.kill()
    # A log that was not this game's: written afresh, the whole game from the deal.
    assert (tmp_path / "host.jsonl").read_bytes() == whole_game(7, 2)


def test_a_damaged_host_save_is_named_in_one_line_and_nothing_starts(tmp_path: Path) -> None:
    state = tmp_path / "state"
    save = state / "voice-rang" / "host.json"
    save.parent.mkdir(parents=True)
    save.write_bytes(b'{"version": 1, "checksum": "00", "game": {"seats": 3')
    host = Process(["host", "--resume", "--text", "--no-listen", "--port", "0", "--bind", "127.0.0.1"],
                   env_for(state))
    assert host.finish() == 1
    problem = host.stderr().strip().splitlines()
    assert problem == [f"The saved hosted game in {save} is damaged (it is not a save file (not JSON)): "
                       "nothing was loaded. Start a new table with voice-rang host."]
    assert host.lines == []  # nothing was said: no table, no address
    assert save.read_bytes().startswith(b'{"version": 1')  # left as it was, for a person to look at

    save.unlink()
    host = Process(["host", "--resume", "--text", "--no-listen"], env_for(state))
    assert host.finish() == 1
    assert host.stderr().strip().splitlines() == [
        "There is no saved hosted game to resume: start a table with voice-rang host."]


@pytest.mark.parametrize(("guests", "why"), [
    ([("a" * 24, "ann")], "it has 3 seats and 2 places"),
    ([("a" * 24, "ann"), ("a" * 24, "bo")], "two seats have the same token"),
    ([("not a token!" * 2, "ann"), ("", "")], "a seat's token is not one this host gives"),
])
def test_a_host_save_whose_seats_do_not_fit_its_game_is_damaged_and_nothing_is_loaded(
        tmp_path: Path, guests: list[tuple[str, str]], why: str) -> None:
    saved = SavedGame.before_deal(Random(3), kinds=("person", "computer", "computer"))
    path = tmp_path / "host.json"
    write_save(path, replace(saved, table=host_record("127.0.0.1", 8765, "4719", guests)))
    with pytest.raises(SaveError) as raised:
        read_host_save(path)
    assert (raised.value.problem, raised.value.detail) == ("damaged", why)
    write_save(path, saved)  # a game of play's, with no guests' seats
    with pytest.raises(SaveError, match="it is not a hosted game"):
        read_host_save(path)
