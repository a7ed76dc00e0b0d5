"""Soak: play game after game for a long stretch through the test sound card, and count what broke.

One ``voice-rang play`` (three seats, beat 0, speech on, listening) runs on a private PulseAudio
server (tests/audio_server.py). Its keyboard is a pipe that types "turn" a moment after "Your
turn" is printed (now and then "status", "repeat" or "help" at any moment, and "new game" when a
game ends); its microphone hears
ordinary talk and commands, synthesised; every ``--restart-every`` seconds the sound server is
killed and started again, so the speaker and the microphone must come back by themselves. A game
that dies is a crash: it is counted and taken up again with ``--resume``.

Reports (one line each, and ``--json``): games and reveals played, crashes (goal 0), the longest
stall (the longest wait from a typed command to the game's next line; goal under 5 s), the
longest silence (no line printed at all: the game waits for its own speech, so this grows with a
slow machine), the
game's memory (resident set) a minute in and at the end (goal: flat), how often speech or voice
was lost, and whether every game of its log obeys the rules (tests/rules_checker.py).

    python benchmarks/soak.py --minutes 30 --restart-every 180
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from audio_server import start_audio_server  # noqa: E402
from rules_checker import check_file  # noqa: E402

TALK = ["the cat sat on the mat", "what a lucky run of cards", "pass me the tea please",
        "seven of clubs", "I think it is my go"]
SPOKEN_COMMANDS = ["turn", "status", "repeat"]
TYPED = ["turn"] * 12 + ["status", "repeat", "help"]


def resident_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _host_to_play(lines: list[str]) -> bool:
    """Whether the last thing said to the host is that it is their turn, and they have not
    turned since ("You: the …" in brief narration, "You turned …" in normal)."""
    for line in reversed(lines[-40:]):
        if line.startswith("Your turn"):
            return True
        if line.startswith(("You: ", "You turned", "Game over")):
            return False
    return False


class Game:
    """One ``voice-rang play`` process and a watch on what it prints."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.last_line = time.monotonic()
        self.lines: list[str] = []
        self.longest_gap = 0.0
        self.typed_at: float | None = None
        self.longest_answer = 0.0
        self.losses: list[tuple[float, str]] = []
        self.lock = threading.Lock()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            now = time.monotonic()
            with self.lock:
                self.longest_gap = max(self.longest_gap, now - self.last_line)
                self.last_line = now
                if self.typed_at is not None:
                    self.longest_answer = max(self.longest_answer, now - self.typed_at)
                    self.typed_at = None
                self.lines.append(line.rstrip("\n"))
                if line.startswith(("Speech is off", "Voice commands are off")):
                    self.losses.append((now, line.rstrip("\n")))

    def _read_errors(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line.rstrip("\n"))

    def type(self, text: str) -> bool:
        assert self.process.stdin is not None
        try:
            with self.lock:
                if self.typed_at is None:
                    self.typed_at = time.monotonic()
            self.process.stdin.write(text + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return False
        return True

    def stop(self) -> int:
        self.type("quit")
        self.type("yes")
        try:
            return self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(10)


def soak(minutes: float, restart_every: float, seed: int, folder: Path) -> dict[str, object]:
    from speech_samples import synthesize

    chance = random.Random(seed)
    server = start_audio_server()
    server.start_microphone()
    log = folder / "soak.jsonl"
    env = {**server.env, "XDG_STATE_HOME": str(folder / "state"), "NO_COLOR": "1", "TERM": "dumb"}
    base = [sys.executable, "-m", "voice_rang", "play", "--seats", "3", "--beat", "0",
            "--seed", str(seed), "--rate", "450", "--verbosity", "brief", "--log", str(log)]
    samples = {text: synthesize(text) for text in TALK + SPOKEN_COMMANDS}
    crashes, restarts, games_started = 0, 0, 1
    crash_lines: list[str] = []
    lines_before: list[str] = []
    game = Game(base, env)
    started = time.monotonic()
    end = started + minutes * 60
    next_restart = started + restart_every
    next_talk = started + 5
    memory_start: int | None = None
    memory_samples: list[tuple[float, int | None]] = []
    next_sample = started + 60
    restart_times: list[float] = []
    losses: list[tuple[float, str]] = []
    longest_gap = longest_answer = 0.0
    try:
        while time.monotonic() < end:
            now = time.monotonic()
            if now >= next_sample:
                memory_samples.append((round((now - started) / 60, 1), resident_kb(game.process.pid)))
                next_sample = now + 300
            if memory_start is None and now - started > min(60.0, minutes * 30):
                memory_start = resident_kb(game.process.pid)
            if game.process.poll() is not None:
                crashes += 1
                crash_lines += [*game.stderr[-3:], f"exit {game.process.returncode}"]
                lines_before += game.lines
                losses += game.losses
                longest_gap = max(longest_gap, game.longest_gap)
                longest_answer = max(longest_answer, game.longest_answer)
                game = Game([*base, "--resume"], env)
                continue
            with game.lock:
                overs = sum(line.startswith("Game over") for line in lines_before + game.lines)
                host_to_play = _host_to_play(game.lines)
            if overs >= games_started:
                games_started += 1
                game.type("new game")
            elif host_to_play:
                game.type("turn")
            elif chance.random() < 0.05:
                game.type(chance.choice(TYPED))
            if now >= next_talk:
                server.say_into_microphone(samples[chance.choice(TALK + SPOKEN_COMMANDS)])
                next_talk = now + chance.uniform(3, 12)
            if now >= next_restart:
                server.restart()
                restarts += 1
                restart_times.append(round((now - started) / 60, 1))
                next_restart = now + restart_every
            time.sleep(chance.uniform(0.05, 0.6))
        memory_end = resident_kb(game.process.pid)
        with game.lock:
            longest_gap = max(longest_gap, game.longest_gap)
            longest_answer = max(longest_answer, game.longest_answer)
        code = game.stop()
        if code not in (0, 1):
            crashes += 1
            crash_lines += [*game.stderr[-3:], f"exit {code}"]
    finally:
        if game.process.poll() is None:
            game.process.kill()
        server.stop()
    losses += game.losses
    report = check_file(log)
    unfinished = f"the log stops before game {report.games - 1} ended"
    report.violations = [v for v in report.violations if not v.endswith(unfinished)]
    reveals = sum(1 for line in log.read_text().splitlines() if '"event":"reveal"' in line)
    finished = sum(1 for line in log.read_text().splitlines() if '"event":"end"' in line)
    return {
        "minutes": round((time.monotonic() - started) / 60, 1),
        "games_dealt": games_started,
        "games_finished": finished,
        "reveals": reveals,
        "crashes": crashes,
        "crash_lines": crash_lines,
        "sound_server_restarts": restarts,
        "longest_stall_s": round(longest_answer, 2),
        "longest_silence_s": round(longest_gap, 2),
        "memory_start_kb": memory_start,
        "memory_end_kb": memory_end,
        "memory_kb_by_minute": memory_samples,
        "restarts_at_minute": restart_times,
        "lost_at_minute": [(round((when - started) / 60, 1), line) for when, line in losses],
        "rules_ok": report.ok,
        "rule_violations": report.violations[:5],
        "games_checked": report.games,
        "log": str(log),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--restart-every", type=float, default=180.0,
                        help="seconds between sound server restarts (default 180)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", metavar="DIR", help="keep the log and save here")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="voice-rang-soak."))
    folder.mkdir(parents=True, exist_ok=True)
    figures = soak(args.minutes, args.restart_every, args.seed, folder)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    good = figures["crashes"] == 0 and figures["rules_ok"]
    return 0 if good else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
