"""``voice-rang play court-piece`` through the front door: pipes, a real terminal, saves and bad options."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import msgspec
import pexpect
import pytest
from court_piece_checker import check_file
from test_play import TEXT_ENV, VOICE_RANG


def play(*args: str, stdin: str = "", env: dict[str, str] | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([VOICE_RANG, "play", "court-piece", *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, env=env or TEXT_ENV)


@pytest.mark.parametrize("options", [
    [], ["--variant", "double-sir", "--trump", "later", "--no-early-late"], ["--variant", "be-ranga"],
    ["--variant", "hidden-rung", "--redeal"], ["--trump", "card", "--scoring", "courts", "--deals", "3"],
    ["--level", "strong", "--target", "3"],
])
def test_auto_play_plays_a_whole_session_from_a_pipe_and_logs_it_by_the_rules(
        options: list[str], tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    result = play("--text", "--beat", "0", "--seed", "2", "--log", str(log), *options, stdin="auto-play on\n",
                  env={**TEXT_ENV, "XDG_STATE_HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0].startswith("New game of ")
    assert "you and your partner against guest 1, on your right, and guest 3, on your left" in lines[0]
    assert lines[-1].startswith("Game over:")
    assert check_file(log) == []
    assert not (tmp_path / "voice-rang" / "play-court-piece.json").exists()  # a finished session leaves no save


def test_a_session_stopped_by_the_end_of_input_is_saved_and_resumed_with_one_unbroken_log(tmp_path: Path) -> None:
    env = {**TEXT_ENV, "XDG_STATE_HOME": str(tmp_path)}
    log = tmp_path / "session.jsonl"
    first = play("--text", "--beat", "0", "--seed", "8", "--log", str(log), stdin="lowest\n", env=env)
    assert first.returncode == 1
    stop = first.stdout.splitlines()[-1]
    assert stop.startswith("Input ended before the game did: stopping at deal 1, trick ")
    assert "voice-rang play court-piece --resume --text --log" in stop
    second = play("--resume", "--text", "--beat", "0", "--log", str(log), stdin="auto-play on\n", env=env)
    assert second.returncode == 0, second.stderr
    assert second.stdout.splitlines()[0].startswith("Resumed game 1 at deal 1, trick ")
    assert second.stdout.splitlines()[-1].startswith("Game over:")
    assert check_file(log) == []


def test_resume_with_nothing_saved_says_so_in_one_line(tmp_path: Path) -> None:
    result = play("--resume", "--text", env={**TEXT_ENV, "XDG_STATE_HOME": str(tmp_path)})
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0 and "no saved game" in result.stderr


@pytest.mark.parametrize(("options", "words"), [
    (["--seats", "3"], "--seats is an option of Rang Milanti"),
    (["--variant", "poker"], "variant must be one of court-piece, double-sir, be-ranga, hidden-rung"),
    (["--people", "5"], "--people must be 1 to 4"),
    (["--variant", "court-piece", "--trump", "later"], "trump 'later' is a Double Sir option"),
    (["--level", "genius"], "invalid choice: 'genius'"),
])
def test_a_wrong_option_gets_one_line_and_exit_code_2(options: list[str], words: str) -> None:
    result = play(*options, "--text")
    assert result.returncode == 2
    assert words in result.stderr and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_a_court_piece_option_with_rang_milanti_names_where_it_belongs() -> None:
    result = subprocess.run([VOICE_RANG, "play", "--text", "--level", "strong"], capture_output=True, text=True,
                            timeout=60, env=TEXT_ENV)
    assert result.returncode == 2
    assert "--level is an option of Court Piece: write voice-rang play court-piece --level" in result.stderr


def test_two_people_share_a_keyboard_and_pass_it(tmp_path: Path) -> None:
    result = play("--text", "--beat", "0", "--seed", "3", "--people", "2", stdin="hand\nready\nhand\n",
                  env={**TEXT_ENV, "XDG_STATE_HOME": str(tmp_path)})
    lines = result.stdout.splitlines()
    assert lines[0].startswith("New game of Court Piece: the host and guest 2 against guest 1 and guest 3")
    passing = next(index for index, line in enumerate(lines) if line.startswith("Pass the keyboard to "))
    before = [line for line in lines[:passing] if line.startswith("Your hand")]
    assert before == []  # nobody's hand before the keyboard is handed over
    assert lines[passing + 1].startswith(("Pass the keyboard to", "Your hand, 13 cards", "You call trumps"))


def test_a_bengali_session_is_said_in_bengali(tmp_path: Path) -> None:
    result = play("--text", "--beat", "0", "--seed", "3", "--lang", "bn", stdin="অটো চালু\n",
                  env={**TEXT_ENV, "XDG_STATE_HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("নতুন খেলা, কোর্ট পিস:")
    assert lines[-1].startswith("খেলা শেষ:")


def test_a_whole_session_by_keys_in_a_real_terminal(tmp_path: Path) -> None:
    """No game named at a terminal: it asks; the hand is browsed with arrows and played with Enter."""
    log = tmp_path / "keys.jsonl"
    env = {**TEXT_ENV, "XDG_STATE_HOME": str(tmp_path)}
    child = pexpect.spawn(VOICE_RANG, ["play", "--text", "--beat", "0", "--seed", "12", "--log", str(log)],
                          env=env, encoding="utf-8", timeout=30, dimensions=(40, 250))
    try:
        child.expect_exact("Which game? Press 1 for Rang Milanti, 2 for Court Piece.")
        child.send("2")
        child.expect_exact("New game of Court Piece")
        child.expect(r"Your turn[^\r\n]*\r?\n")
        child.send("a")
        child.expect(r"Your hand, \d+ cards: ")
        child.send("\x1b[C")  # right arrow
        child.expect(r"The [a-z]+ of [a-z]+")
        child.send("\x1b[D")  # left arrow
        child.expect(r"The [a-z]+ of [a-z]+")
        child.send("t")
        child.expect(r"Trick 1: ")
        child.send("?")
        child.expect_exact("Keys: left and right move through your hand")
        child.send("\r")  # the card under the cursor, which the turn put on the first one that may be played
        child.expect(r"You (lead|play|trump|name|set)")
        child.send("b")
        child.expect_exact("Auto-play on")
        child.expect("Game over:", timeout=120)
        child.expect_exact("Say new game or press g; say quit or press q.")
        child.send("q")
        child.expect_exact("Quit the game?")
        child.send("y")
        child.expect_exact("Goodbye.")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert check_file(log) == []


RANKS = {"ace": "A", "king": "K", "queen": "Q", "jack": "J", "ten": "10", "nine": "9", "eight": "8",
         "seven": "7", "six": "6", "five": "5", "four": "4", "three": "3", "two": "2"}
SUITS = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
NAMED = re.compile(r"the (" + "|".join(RANKS) + r") of (clubs|diamonds|hearts|spades)")
HAND = re.compile(r"(clubs|diamonds|hearts|spades), \d+: ([a-z, ]+?)(?=;|\.|$)")


def hand_in(line: str) -> set[str]:
    return {RANKS[rank] + SUITS[suit] for suit, ranks in HAND.findall(line) for rank in ranks.split(", ")}


class LineReadingPlayer:
    """Plays by reading the printed lines and typing card names, as a script or an assistive tool would."""

    def __init__(self) -> None:
        self.hand: set[str] = set()
        self.seen: set[str] = set()
        self.tried: set[str] = set()

    def read(self, line: str) -> str | None:
        """What to type after ``line``, if anything; checks that no line names a card it may not know."""
        if "Your first five:" in line or line.startswith(("Your hand:", "All thirteen")):
            self.hand = hand_in(line.split("Your first five:")[-1].split("Your hand:")[-1])
        named = {RANKS[rank] + SUITS[suit] for rank, suit in NAMED.findall(line)}
        if re.match(r"(You|Your partner|Guest \d|The host) (leads|lead|plays|play|trumps|trump|cannot)", line) or \
                "sets" in line or "turned" in line or "turns up" in line or "is turned" in line:
            self.seen |= named
        elif line.startswith(("You win", "Guest", "Your partner wins")):
            self.seen |= named  # the winning card was said when it was played
        assert named <= self.hand | self.seen, f"{line!r} names a card of another hand"
        if line.startswith(("You lead", "You play", "You trump", "You cannot follow")):
            self.hand -= named
            self.tried.clear()
        if line.startswith("You call trumps"):
            counts = {suit: sum(card.endswith(letter) for card in self.hand) for suit, letter in SUITS.items()}
            return f"{max(counts, key=lambda suit: counts[suit])} are trumps"
        if line.startswith("Your turn") or line.startswith("You must follow") or "can't play" in line:
            led = re.search(r"(clubs|diamonds|hearts|spades) led, you have [1-9]", line)
            options = sorted(card for card in self.hand if card not in self.tried and (
                led is None or card.endswith(SUITS[led.group(1)])))
            options = options or sorted(card for card in self.hand if card not in self.tried)
            card = options[0]
            self.tried.add(card)
            rank = next(word for word, code in RANKS.items() if code == card[:-1])
            suit = next(word for word, letter in SUITS.items() if letter == card[-1])
            return f"{rank} of {suit}"
        return None


def test_a_script_that_reads_the_lines_and_types_card_names_plays_a_whole_session(tmp_path: Path) -> None:
    log = tmp_path / "script.jsonl"
    process = subprocess.Popen(
        [VOICE_RANG, "play", "court-piece", "--text", "--beat", "0", "--seed", "31", "--log", str(log)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
        env={**TEXT_ENV, "XDG_STATE_HOME": str(tmp_path)})
    player = LineReadingPlayer()
    assert process.stdin is not None and process.stdout is not None
    lines: list[str] = []
    try:
        for line in process.stdout:
            line = line.rstrip("\n")
            lines.append(line)
            answer = player.read(line)
            if answer is not None:
                process.stdin.write(answer + "\n")
                process.stdin.flush()
            if line.startswith("Game over:"):
                process.stdin.close()
                break
            assert len(lines) < 5000
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()
    assert lines[-1].startswith("Game over:")
    assert check_file(log) == []


@pytest.mark.parametrize("garbage", [b"not json at all", b'{"version": 1, "game": "court-piece", "checksum": "0", '
                                     b'"record": {}}', b""])
def test_a_garbled_save_gets_one_line_and_nothing_is_loaded(garbage: bytes, tmp_path: Path) -> None:
    save = tmp_path / "voice-rang" / "play-court-piece.json"
    save.parent.mkdir(parents=True)
    save.write_bytes(garbage)
    result = play("--resume", "--text", env={**TEXT_ENV, "XDG_STATE_HOME": str(tmp_path)})
    assert result.returncode == 1
    assert "is damaged" in result.stderr and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert save.read_bytes() == garbage  # left for a person to look at


def test_a_save_whose_actions_do_not_replay_is_refused(tmp_path: Path) -> None:
    env = {**TEXT_ENV, "XDG_STATE_HOME": str(tmp_path)}
    play("--text", "--beat", "0", "--seed", "8", stdin="lowest\n", env=env)
    save = tmp_path / "voice-rang" / "play-court-piece.json"
    data = json.loads(save.read_text())
    data["record"]["actions"].insert(0, [3, {"play": "AS", "face_down": False}])
    data["checksum"] = hashlib.sha256(b"court-piece\n" + msgspec.json.encode(data["record"])).hexdigest()
    save.write_text(json.dumps(data))
    result = play("--resume", "--text", env=env)
    assert result.returncode == 1 and "does not replay" in result.stderr and result.stderr.count("\n") == 1


def _plays(log: Path) -> list[tuple[int, int, int, str]]:
    """The cards a log shows played, as (deal, trick, seat, card)."""
    plays = []
    for line in log.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event["event"] == "play":
            plays.append((event["deal"], event["trick"], event["seat"], event["card"]))
    return plays


@pytest.mark.parametrize("kill_after", [3, 40])
def test_a_session_killed_mid_play_resumes_from_its_last_card_with_nothing_lost(
        kill_after: int, tmp_path: Path) -> None:
    env = {**TEXT_ENV, "XDG_STATE_HOME": str(tmp_path)}
    log = tmp_path / "session.jsonl"
    process = subprocess.Popen(
        [VOICE_RANG, "play", "court-piece", "--text", "--beat", "0.01", "--seed", "12", "--log", str(log)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1, env=env)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write("auto-play on\n")
        process.stdin.flush()
        said = 0
        for line in process.stdout:
            said += " plays " in line or line.startswith("You play ")
            if said >= kill_after:
                break
        process.kill()  # SIGKILL: no handler runs, nothing is flushed on the way out
        process.wait(timeout=30)
    finally:
        process.kill()
    before = _plays(log)
    assert len(before) >= kill_after
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    deal = [event["deal"] for event in events if event["event"] == "deal"][-1]
    resumed = play("--resume", "--text", "--beat", "0", "--log", str(log), stdin="auto-play on\n", env=env)
    assert resumed.returncode == 0, resumed.stderr
    first = resumed.stdout.splitlines()[0]
    assert first.startswith(f"Resumed game 1 at deal {deal}, trick "), first
    assert resumed.stdout.splitlines()[-1].startswith("Game over:")
    after = _plays(log)
    assert after[:len(before)] == before and len(after) > len(before)
    assert check_file(log) == []
