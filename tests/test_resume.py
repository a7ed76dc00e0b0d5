"""A text game killed with ``kill -9`` at random moments and resumed each time is still one game:
the same log, byte for byte, as the same game played without a stop."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from rules_checker import check_file

from voice_rang.table.save import read_save

SEED = 7  # a four-seat game of 879 reveals: long enough to be killed many times
SEATS = "4"


def game_command(log: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "voice_rang", "play", "--text", "--no-listen", "--beat", "0",
            "--seats", SEATS, "--seed", str(SEED), "--log", str(log), *extra]


def start(command: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[bytes], threading.Event]:
    """The game, with "turn" typed into it every 20 ms from its first "Your turn" until it ends or
    is killed. Nothing is typed while it starts up, so no backlog of turns plays at once whatever
    the machine's load: the moments of the kills stay spread over the whole game."""
    game = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    stop, ready = threading.Event(), threading.Event()

    def read_lines() -> None:
        assert game.stdout is not None
        for line in game.stdout:
            if b"your turn" in line.lower():
                ready.set()

    def type_turns() -> None:
        assert game.stdin is not None
        ready.wait(timeout=60)
        try:
            while not stop.is_set():
                game.stdin.write(b"turn\n")
                game.stdin.flush()
                time.sleep(0.02)
        except (BrokenPipeError, OSError, ValueError):
            pass

    threading.Thread(target=read_lines, daemon=True).start()
    threading.Thread(target=type_turns, daemon=True).start()
    return game, stop


def playing_since(save: Path, before: int | None) -> None:
    """Wait until the game saves something new: its start-up (a second or so) is over."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(FileNotFoundError):
            if save.stat().st_mtime_ns != before:
                return
        time.sleep(0.005)


def test_a_game_killed_at_random_moments_resumes_into_one_unbroken_game(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "NO_COLOR": "1",
           "TERM": "dumb"}
    save = tmp_path / "state" / "voice-rang" / "play.json"
    whole = tmp_path / "whole.jsonl"
    reference, stop = start(game_command(whole), env)
    assert reference.wait(timeout=120) == 0
    stop.set()
    assert not save.exists()  # a finished game leaves no save

    log = tmp_path / "killed.jsonl"
    chance = random.Random(2024)
    kills, resumed_at = 0, []
    game, stop = start(game_command(log), env)
    before = None
    killed_on_its_way_out = False
    for _ in range(15):
        playing_since(save, before)  # killed only once it plays, at a random moment after
        time.sleep(chance.uniform(0.0, 0.3))
        if game.poll() is not None:
            break
        game.send_signal(signal.SIGKILL)
        game.wait(timeout=30)
        stop.set()
        if not save.exists():
            # The game had just finished (a finished game leaves no save) and was killed on its
            # way out: there is nothing to resume, and its log must already be whole.
            killed_on_its_way_out = True
            break
        kills += 1
        resumed_at.append(read_save(save).reveals)  # never damaged, whenever the kill came
        before = save.stat().st_mtime_ns
        game, stop = start(game_command(log, "--resume"), env)
    if not killed_on_its_way_out:
        assert game.wait(timeout=120) == 0, game.stderr.read() if game.stderr else ""
    stop.set()

    print(f"killed {kills} times, at reveals {resumed_at}")
    assert kills >= 5 and len(set(resumed_at)) >= 5, resumed_at  # many different moments
    report = check_file(log)
    assert report.ok, report.violations[:5]
    assert report.games == 1
    assert log.read_bytes() == whole.read_bytes()  # no reveal lost, repeated or changed
    assert not save.exists()
