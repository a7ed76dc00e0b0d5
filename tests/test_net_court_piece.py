"""Court Piece with friends on loopback: a real ``voice-rang host court-piece``, real ``join``
guests and WebSocket guests like the page; every byte a guest receives is checked for any card it
may not know yet, in every variant; what a guest may not do is refused with one line."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import pytest
from court_piece_checker import check_file
from court_piece_wire import SocketGuest, Tap, host_record, leaks
from net_game import WAIT_S, Process, env_for

PROMPT = re.compile(r"^(Your turn|You call trumps)")

VARIANTS = [
    ("court-piece", "named"), ("court-piece", "card"), ("court-piece", "hidden"), ("court-piece", "blind"),
    ("double-sir", None), ("be-ranga", None), ("hidden-rung", None),
]


def start_host(tmp: Path, *extra: str, seed: int = 5) -> tuple[Process, int]:
    host = Process(["host", "court-piece", "--text", "--no-listen", "--bind", "127.0.0.1", "--port", "0",
                    "--code", "4719", "--beat", "0", "--seed", str(seed), "--level", "easy", "--target", "1",
                    "--grace", "1", "--log", str(tmp / "host.jsonl"), *extra], env_for(tmp / "host-state"))
    match = host.wait_line(r"Guests join at http://127\.0\.0\.1:(\d+) with code 4 7 1 9\.")
    return host, int(match.group(1))


def join(tmp: Path, port: int, name: str) -> Process:
    """A ``voice-rang join`` guest that presses Enter (plays its first allowed card) at each turn."""
    guest = Process(["join", f"127.0.0.1:{port}", "--code", "4719", "--name", name, "--text", "--no-listen"],
                    env_for(tmp / f"{name}-state"))
    threading.Thread(target=_press_enter_on_turns, args=(guest,), daemon=True).start()
    return guest


def _press_enter_on_turns(guest: Process) -> None:
    seen = 0
    while guest.popen.poll() is None:
        with guest._changed:
            guest._changed.wait(0.2)
        lines = guest.lines[seen:]
        seen += len(lines)
        for line in lines:
            if PROMPT.match(line):
                try:
                    guest.write("cursor\n")
                except (BrokenPipeError, ValueError, OSError):
                    return


def joined(count: int):  # type: ignore[no-untyped-def]
    return lambda lines: sum(" joined the table." in line for line in lines) >= count


def wait(condition, what: str, timeout: float = WAIT_S) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, f"never {what}"
        time.sleep(0.05)


def variant_options(variant: str, trump: str | None) -> list[str]:
    return ["--variant", variant] + (["--trump", trump] if trump else [])


@pytest.mark.parametrize(("variant", "trump"), VARIANTS, ids=[f"{v}-{t}" if t else v for v, t in VARIANTS])
def test_no_guest_ever_receives_a_card_of_another_hand_before_it_is_played(
        tmp_path: Path, variant: str, trump: str | None) -> None:
    host, port = start_host(tmp_path, *variant_options(variant, trump))
    taps = [Tap(port), Tap(port)]
    guests = []
    try:
        guests.append(join(tmp_path, taps[0].port, "ann"))
        host.wait_for(joined(1), "ann joined")
        guests.append(join(tmp_path, taps[1].port, "raj"))
        host.wait_for(joined(2), "raj joined")
        page = SocketGuest(port, "mita")
        host.wait_for(joined(3), "mita joined")
        host.write("new game\nauto-play on\n", close=True)
        assert host.finish() == 0, host.stderr()
        assert page.ended.wait(WAIT_S)
        for guest in guests:
            assert guest.finish() == 0, guest.lines[-10:]
    finally:
        for guest in guests:
            guest.kill()
        host.kill()
    record = host_record(tmp_path / "host.jsonl")
    assert check_file(tmp_path / "host.jsonl") == []
    assert any(event.get("event") == "end" for event in record)
    for seat, frames in ((1, taps[0].frames()), (2, taps[1].frames()), (3, page.frames)):
        assert any('"type":"private"' in frame for frame in frames)
        assert leaks(frames, seat, record) == [], f"seat {seat}"
    plays = {(event["seat"]) for event in record if event.get("event") == "play"}
    assert plays == {0, 1, 2, 3}
    # The join guests played their own cards, and heard who partners whom.
    assert any(re.match(r"You (play|lead|trump)", line) for line in guests[0].lines)
    assert any(line.startswith("You and mita against ") for line in guests[0].lines)


def test_a_guest_cannot_play_out_of_turn_a_card_it_does_not_hold_for_another_seat_or_with_a_forged_token(
        tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--trump", "named")
    try:
        ann = SocketGuest(port, "ann", play=False)
        host.wait_for(joined(1), "ann joined")
        host.write("new game\n")
        # The host plays by hand: while it is the host's turn, ann tries to play.
        wait(lambda: any(PROMPT.match(line) or "Your turn" in line or "You call trumps" in line
                         for line in host.lines) or _my_turn(ann), "a turn")

        def lines() -> list[str]:
            return [line["text"] for message in ann.messages() if message["type"] == "private"
                    for line in message["lines"]]

        def board() -> dict:  # type: ignore[type-arg]
            return next(m["board"] for m in reversed(ann.messages()) if m["type"] == "private" and m["board"])

        wait(lambda: any(m["type"] == "private" and m["board"] for m in ann.messages()), "ann's board")
        own = {card["code"] for group in board()["hand"] for card in group["cards"]}
        other = next(code for code in ("AS", "KS", "QS", "JS", "10S", "AH", "KH") if code not in own)
        said = len(lines())
        if not _my_turn(ann):
            ann.send({"type": "say", "text": f"play {sorted(own)[0]}"})
            wait(lambda: len(lines()) > said, "a refusal")
            assert lines()[said].endswith("not yours.")
            said = len(lines())
        ann.send({"type": "settings", "verbosity": "brief"})
        wait(lambda: "Verbosity brief." in lines(), "the page's detail kept for its seat")
        ann.send({"type": "say", "text": "hand", "seat": 2})
        wait(lambda: any(m["type"] == "error" and m["code"] == "bad_message" for m in ann.messages()),
             "the forged seat refused")
        ann.send({"type": "command", "command": f"play {other}"})
        wait(lambda: sum(m["type"] == "error" for m in ann.messages()) >= 2, "a move as a command refused")
        ann.send({"type": "say", "text": "x" * 81})
        wait(lambda: sum(m["type"] == "error" for m in ann.messages()) >= 3, "a say too long refused")
        ann.send({"type": "say", "text": "y" * 2000})
        wait(lambda: any(m["type"] == "error" and m["code"] == "too_large" for m in ann.messages()),
             "a message too large refused")
        forger = SocketGuest(port, "eve", code=None, token="x" * 24, play=False)
        wait(lambda: any(m["type"] == "error" and m["code"] == "unknown_token" for m in forger.messages()),
             "the forged token refused")
        assert not any(m["type"] == "private" for m in forger.messages())
        host.write("auto-play on\n", close=True)
        wait(lambda: _my_turn(ann), "ann's turn")
        said = len(lines())
        ann.send({"type": "say", "text": f"play {other}"})
        wait(lambda: len(lines()) > said, "a refusal of a card not held")
        assert len(lines()) == said + 1
        ann.play = True
        ann.send({"type": "say", "text": "cursor"})
        assert host.finish() == 0
    finally:
        host.kill()
    assert check_file(tmp_path / "host.jsonl") == []
    errors = host.stderr()
    assert "Traceback" not in errors
    assert errors.count("refused") >= 2
    assert leaks(ann.frames, 1, host_record(tmp_path / "host.jsonl")) == []


def _my_turn(guest: SocketGuest) -> bool:
    boards = [m["board"] for m in guest.messages() if m["type"] == "private" and m["board"]]
    return bool(boards) and boards[-1]["turn"]


def test_a_guest_that_drops_is_played_by_a_computer_and_hears_what_it_missed_when_it_comes_back(
        tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--trump", "named")
    try:
        ann = SocketGuest(port, "ann", play=False)
        host.wait_for(joined(1), "ann joined")
        host.write("new game\n")  # the host plays by hand: the game waits for it
        wait(lambda: any(m["type"] == "private" and m["board"] for m in ann.messages()), "ann's board")
        token = ann.token
        ann.close()
        host.wait_line(r"has not come back", WAIT_S)
        for _ in range(4):  # the host plays on; a computer plays ann's cards meanwhile
            host.write("cursor\n")
            time.sleep(0.3)
        back = SocketGuest(port, "ann", code=None, token=token)
        wait(lambda: any(m["type"] == "private" for m in back.messages()), "ann's news")
        first = next(m for m in back.messages() if m["type"] == "private")
        assert first["seat"] == 1 and first["board"] is not None
        assert any(line["text"].startswith("While you were away") or "missed" in line["text"].lower()
                   for line in first["lines"]), first["lines"]
        host.write("auto-play on\n", close=True)
        assert host.finish() == 0
    finally:
        host.kill()
    record = host_record(tmp_path / "host.jsonl")
    assert leaks(ann.frames, 1, record) == []
    assert leaks(back.frames, 1, record) == []
    assert json.dumps(back.messages()).count('"type":"welcome"') <= 1


def test_the_wire_check_finds_a_card_of_another_hand_in_events_or_in_words() -> None:
    hands = [["AS", "KS"], ["AH", "KH"], ["AD", "KD"], ["AC", "KC"]]
    record = [{"event": "deal", "dealer": 0, "caller": 1, "hands": hands, "first": hands, "deal": 1},
              {"event": "play", "trick": 1, "seat": 2, "card": "AD", "face_down": False, "deal": 1}]

    def private(events: list, text: str = "") -> str:  # type: ignore[type-arg]
        return json.dumps({"type": "private", "seat": 1, "events": events,
                           "lines": [{"text": text, "priority": 1, "kind": "x"}] if text else [], "board": None})

    dealt = private([{"event": "deal", "dealer": 0, "caller": 1, "cards": ["AH", "KH"], "deal": 1}])
    assert leaks([dealt], 1, record) == []
    assert leaks([dealt, private([], "Your partner holds the king of diamonds.")], 1, record) != []
    assert leaks([dealt, private([{"event": "hand", "cards": ["AH", "KD"], "deal": 1}])], 1, record) != []
    played = private([{"event": "play", "trick": 1, "seat": 2, "card": "AD", "deal": 1}], "The ace of diamonds.")
    assert leaks([dealt, played], 1, record) == []


def test_a_host_killed_mid_session_and_resumed_seats_its_guest_again_and_plays_to_a_clean_log(
        tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--trump", "named", "--port", "0", "--grace", "20")
    try:
        ann = SocketGuest(port, "ann")
        host.wait_for(joined(1), "ann joined")
        host.write("new game\n")  # the host plays by hand: the session waits for it
        wait(lambda: any(m["type"] == "private" and m["board"] for m in ann.messages()), "ann's board")
        for _ in range(3):
            host.write("cursor\n")
            time.sleep(0.3)
        host.popen.kill()
        host.popen.wait(10)
        assert ann.ended.wait(WAIT_S)
        token = ann.token
        again = Process(["host", "court-piece", "--resume", "--text", "--no-listen", "--beat", "0",
                         "--log", str(tmp_path / "host.jsonl")], env_for(tmp_path / "host-state"))
        again.wait_line(r"come back", WAIT_S)
        back = SocketGuest(port, "ann", code=None, token=token)
        wait(lambda: any(m["type"] == "private" and m["board"] for m in back.messages()), "ann's board again")
        assert back.seat == 1
        again.write("auto-play on\n", close=True)
        assert again.finish() == 0, again.stderr()
    finally:
        host.kill()
    record = host_record(tmp_path / "host.jsonl")
    assert check_file(tmp_path / "host.jsonl") == []
    assert any(event.get("event") == "end" for event in record)
    assert leaks(back.frames, 1, record) == []
    assert not (tmp_path / "host-state" / "voice-rang" / "host-court-piece.json").exists()


def test_the_host_chooses_its_partner_in_the_lobby_and_each_guest_is_welcomed_at_its_new_seat(
        tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--trump", "named")
    try:
        ann = SocketGuest(port, "ann")
        host.wait_for(joined(1), "ann joined")
        raj = SocketGuest(port, "raj")
        host.wait_for(joined(2), "raj joined")
        wait(lambda: (ann.seat, raj.seat) == (1, 2), "the welcomes")  # the host says it before raj reads it
        host.write("partner 1\n")
        host.wait_line(r"Seats 1 and 2 changed places\.")
        host.wait_line(r"^You and ann against raj and guest 3\.$")
        wait(lambda: (ann.seat, raj.seat) == (2, 1), "the new welcomes")
        host.write("swap 1 9\n")
        host.wait_line(r"^Say partner and a seat")
        host.write("new game\nauto-play on\n", close=True)
        assert host.finish() == 0, host.stderr()
    finally:
        host.kill()
    record = host_record(tmp_path / "host.jsonl")
    for guest, seat in ((ann, 2), (raj, 1)):
        privates = [m for m in guest.messages() if m["type"] == "private"]
        assert privates and all(m["seat"] == seat for m in privates)
        assert leaks(guest.frames, seat, record) == []
    lines = [line["text"] for m in ann.messages() if m["type"] == "private" for line in m["lines"]]
    assert "You and the host against guest 3 and raj." in lines


def test_a_join_guest_uses_court_pieces_keys_and_asks_about_its_own_hand(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--trump", "named")
    guest = Process(["join", f"127.0.0.1:{port}", "--code", "4719", "--name", "ann", "--text", "--no-listen"],
                    env_for(tmp_path / "ann-state"))
    try:
        host.wait_for(joined(1), "ann joined")
        host.write("new game\n")  # the host plays by hand: nothing moves until it does
        guest.wait_line(r"^Deal 1: ")
        guest.write("a\n")  # the key for the hand, as a line of one letter
        hand = guest.wait_line(r"^Your hand, (\d+) cards: ")
        assert hand.group(1) in ("5", "13")
        guest.write("hearts are trumps\n")  # not its turn to call, whoever calls
        guest.wait_line(r"not yours\.$|^Trumps first|^You")
        guest.write("q\ny\n")
        assert guest.finish() == 0
    finally:
        guest.kill()
        host.kill()


def test_host_court_piece_refuses_rang_milantis_options_and_a_missing_save_with_one_line(tmp_path: Path) -> None:
    import subprocess

    from net_game import VOICE_RANG

    seats = subprocess.run([VOICE_RANG, "host", "court-piece", "--seats", "3", "--text"], capture_output=True,
                           text=True, env=env_for(tmp_path), timeout=WAIT_S)
    assert seats.returncode == 2
    assert seats.stderr.strip().splitlines() == [
        "voice-rang host: --seats is an option of Rang Milanti: write voice-rang host rang-milanti --seats …"]
    resume = subprocess.run([VOICE_RANG, "host", "court-piece", "--resume", "--text"], capture_output=True,
                            text=True, env=env_for(tmp_path), timeout=WAIT_S)
    assert resume.returncode == 1
    assert len(resume.stderr.strip().splitlines()) == 1 and "Traceback" not in resume.stderr


def test_a_join_guest_whose_input_ends_at_its_turn_leaves_its_seat_to_the_computer(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--trump", "named")
    guest = Process(["join", f"127.0.0.1:{port}", "--code", "4719", "--name", "ann", "--text", "--no-listen"],
                    env_for(tmp_path / "ann-state"))
    try:
        host.wait_for(joined(1), "ann joined")
        guest.write("", close=True)
        host.write("new game\nauto-play on\n", close=True)
        guest.wait_line(r"^Input ended before the game did: your seat is the computer's now\.$")
        assert guest.finish() == 1
        host.wait_line(r"left")
        assert host.finish() == 0, host.stderr()
    finally:
        guest.kill()
        host.kill()
    assert check_file(tmp_path / "host.jsonl") == []
