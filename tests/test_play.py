"""``voice-rang play`` and ``voice-rang demo`` through the front door: pipes and a real terminal."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from interrupt import default_sigint

from voice_rang.games.rang_milanti import DECK

VOICE_RANG = shutil.which("voice-rang", path=str(Path(sys.executable).parent)) or "voice-rang"
TEXT_ENV = {**os.environ, "NO_COLOR": "1", "TERM": "dumb"}


def play(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([VOICE_RANG, "play", *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, env=TEXT_ENV)


def test_piped_auto_reveal_plays_three_seats_to_the_end_and_exits_zero(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    result = play("--text", "--seats", "3", "--beat", "0", "--seed", "11", "--log", str(log),
                  stdin="auto-reveal on\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0].startswith("New game of Rang Milanti: 3 seats, 17 cards each")
    assert lines[-1].startswith("Game over:")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[0]["event"] == "deal" and events[-1]["event"] == "end"
    assert all(event["game"] == 0 for event in events)


def test_transcript_matches_the_event_log_reveal_by_reveal(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    result = play("--text", "--seats", "4", "--beat", "0", "--seed", "3", "--log", str(log),
                  stdin="auto-reveal on\n")
    assert result.returncode == 0, result.stderr
    reveals = [e for e in map(json.loads, log.read_text().splitlines()) if e["event"] == "reveal"]
    narrated = [line for line in result.stdout.splitlines() if re.search(r"Reveal \d+ of 5,000\.$", line)]
    assert len(narrated) == len(reveals)
    names = {0: "You", 1: "Guest 1", 2: "Guest 2", 3: "Guest 3"}
    for event, line in zip(reveals, narrated, strict=True):
        assert line.startswith(names[event["seat"]] + " turned")
        assert line.endswith(f"Reveal {event['n']} of 5,000.")
        assert ("a match!" in line) == event["match"]
        if event["match"]:
            assert f"all {event['moved']} cards" in line
    outs = [e["seat"] for e in map(json.loads, log.read_text().splitlines()) if e["event"] == "out"]
    assert len([line for line in result.stdout.splitlines() if " out: " in line]) == len(outs)


def test_same_seed_gives_the_same_game() -> None:
    first = play("--text", "--beat", "0", "--seed", "9", stdin="auto-reveal on\n")
    second = play("--text", "--beat", "0", "--seed", "9", stdin="auto-reveal on\n")
    assert first.stdout == second.stdout


def test_piped_commands_in_words_with_an_unknown_one_and_quit() -> None:
    result = play("--text", "--beat", "0", "--seed", "2", stdin="turn\ndance\nstatus\nquit\nyes\n")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert "Not a command; say help." in lines
    assert "Reveal 1 of 5,000." in lines or "Reveal 2 of 5,000." in lines
    assert lines[-1] == "Goodbye."


def test_piped_input_that_ends_before_the_game_says_so_and_exits_one() -> None:
    result = play("--text", "--beat", "0", stdin="turn\n")
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1].startswith("Input ended before the game did")


def test_input_that_ends_mid_game_names_the_command_that_goes_on_and_that_command_does(
        tmp_path: Path) -> None:
    env = {**TEXT_ENV, "XDG_STATE_HOME": str(tmp_path)}
    log = tmp_path / "my game.jsonl"
    first = subprocess.run([VOICE_RANG, "play", "--text", "--no-listen", "--beat", "0", "--seed", "5",
                            "--lang", "en", "--log", str(log)], input="turn\nturn\n",
                           capture_output=True, text=True, timeout=120, env=env)
    assert first.returncode == 1
    last = first.stdout.splitlines()[-1]
    match = re.fullmatch(r"Input ended before the game did: stopping at reveal (\d+) of 5,000\. "
                         r"The game is saved: (voice-rang play --resume .*) goes on from here\.", last)
    assert match, last
    command = match.group(2)
    assert command == f"voice-rang play --resume --text --log '{log}'"
    words = shlex.split(command)
    second = subprocess.run([VOICE_RANG, *words[1:], "--no-listen", "--beat", "0"], input="status\n",
                            capture_output=True, text=True, timeout=120, env=env)
    assert second.stdout.splitlines()[0].startswith(f"Resumed game 1 at reveal {match.group(1)}: your turn")
    assert f"Reveal {match.group(1)} of 5,000." in second.stdout


def test_ctrl_c_mid_game_says_in_one_line_where_it_stopped_and_how_to_go_on(tmp_path: Path) -> None:
    env = {**TEXT_ENV, "XDG_STATE_HOME": str(tmp_path)}
    child = pexpect.spawn(VOICE_RANG, ["play", "--text", "--no-listen", "--beat", "0", "--seed", "21"],
                          env=env, encoding="utf-8", timeout=30, dimensions=(40, 200), preexec_fn=default_sigint)
    try:
        child.expect_exact("Which game? Press 1 for Rang Milanti, 2 for Court Piece.")
        child.send("1")
        child.expect("Your turn: say turn, or press space.")
        child.send(" ")
        child.expect(r"Reveal 1 of 5,000\.")
        child.expect("Your turn")
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 130
    stopped = [line for line in (child.before or "").splitlines() if line.startswith("Stopped")]
    assert stopped == ["Stopped at reveal 2 of 5,000. The game is saved: voice-rang play --resume --text "
                       "goes on from here."]


def test_explicit_deck_is_dealt_in_the_given_order() -> None:
    first = ["KH", "7C", "4C", "2S", "QD"]
    deck = ",".join(first + [card.code for card in DECK if card.code not in first])
    result = play("--text", "--beat", "0", "--deck", deck, stdin="turn\nturn\nturn\nquit\nyes\n")
    assert "You turned the four of clubs onto the seven of clubs: clubs on clubs, a match!" in result.stdout
    assert "You turned one more, the queen of diamonds" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seats", "7"], "--seats must be 2 to 6, not 7"),
        (["--people", "3"], "--people must be 1 to the number of seats (2), not 3"),
        (["--beat", "-1"], "--beat must be 0 to 60 seconds"),
        (["--deck", "AC,AC"], "--deck: a deck needs all 52 cards once each"),
        (["--log", "/nonexistent/dir/x.jsonl"], "cannot write the log to /nonexistent/dir/x.jsonl"),
        (["--lang", "zz"], "no prompts for language 'zz'"),
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
    ],
)
def test_bad_input_gives_one_clear_line_and_exit_code_two(args: list[str], message: str) -> None:
    result = play("--text", *args)
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_whole_game_by_keys_in_a_real_terminal(tmp_path: Path) -> None:
    log = tmp_path / "keys.jsonl"
    child = pexpect.spawn(VOICE_RANG, ["play", "rang-milanti", "--text", "--no-listen", "--beat", "0", "--seed",
                                       "21", "--log", str(log)],
                          env=TEXT_ENV, encoding="utf-8", timeout=30, dimensions=(40, 200))
    try:
        child.expect("Keys: space turns")
        child.expect("Your turn: say turn, or press space.")
        child.send("s")
        child.expect(r"Reveal 0 of 5,000\.")
        child.send("h")
        child.expect("You can say: turn")
        child.send(" ")
        child.expect(r"You turned .* Reveal 1 of 5,000\.")
        child.send("r")
        child.send("a")
        child.expect("Auto-reveal on")
        child.expect("Game over", timeout=120)
        child.expect("Say new game or press g; say quit or press q.")
        child.send("q")
        child.expect(r"Quit the game\?")
        child.send("y")
        child.expect("Goodbye.")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert "\x1b" not in (child.before or "")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[-1]["event"] == "end"


def test_demo_by_itself_shows_a_miss_a_match_the_extra_card_a_reshuffle_and_going_out() -> None:
    result = subprocess.run([VOICE_RANG, "demo", "--auto", "--text", "--beat", "0"], capture_output=True,
                            text=True, timeout=60, env=TEXT_ENV)
    assert result.returncode == 0
    out = result.stdout
    for phrase in ("a miss;", "a match!", "turned one more", "shuffles", "You are out", "Game over:",
                   "That is the game."):
        assert phrase in out


def test_demo_in_a_terminal_waits_for_a_key_and_q_stops_it() -> None:
    child = pexpect.spawn(VOICE_RANG, ["demo", "--text"], env=TEXT_ENV, encoding="utf-8", timeout=20)
    try:
        child.expect("Press any key for the next move")
        child.expect("Next it is your turn")
        child.send(" ")
        child.expect(r"You turned the nine of diamonds onto the empty pile")
        child.send("q")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
