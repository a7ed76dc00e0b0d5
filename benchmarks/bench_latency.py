"""End of a spoken "turn" to the first sound of the answer, through the real audio path.

Runs on the virtual sound card of the tests (a private PulseAudio server: a FIFO-fed pipe-source
microphone and a null-sink speaker). For each round it waits until the game is quiet and waiting for
the host, says "turn" into the microphone (espeak-ng, fed in real time), and watches the speaker's
monitor for the first audio after the word ended:

    latency = onset of the answer's first audio on the speaker - time the word's last sample
              was written into the microphone

"turn" is spoken by flite's rms voice (tests/speech_samples.py).

The speaker is read through ``parec`` with a 10 ms latency request and every chunk is timestamped on
arrival, so the figure includes the monitor's own delay: it errs on the slow side.

In the same run it measures the plain loop a typical program would write: SpeechRecognition's
``listen()`` with its defaults, ``recognize_sphinx`` and pyttsx3's ``say()``/``runAndWait()``.

Run: ``.venv/bin/python benchmarks/bench_latency.py [--turns 10]``. Targets: median <= 150 ms,
p90 <= 250 ms, and <= 0.2x the plain loop. Also reports start-up: ``voice-rang play`` to its first
spoken audio (target < 1.5 s).

``--game court-piece``: the end of a spoken card ("the queen of hearts", by flite's slt, a voice
the card listener was never tuned on) to the first sound of the card played, through ``voice-rang
play court-piece`` (normal verbosity, so that each card played is said as "You play …"). A script
reads the printed lines, as a screen reader user hears them, and says a legal card on each of its
turns; a turn whose answer is not
the card said (a question, nothing) is counted as missed. Target: median <= 250 ms. Its baseline
in the same run is the same game's answer to a typed card (the end of the line written to the
start of the card's sound): what listening adds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from audio_server import AudioServer, start_audio_server  # noqa: E402
from live_game import LineWatch, SpeakerWatch  # noqa: E402
from speech_samples import synthesize  # noqa: E402

NOT_ACTED = ("Did you say", "I didn't catch", "Too noisy", "Your turn", "Voice commands are off")
"""How the game begins an answer that turned no card."""


def card_turned(lines: list[str]) -> bool:
    """The game's first line after the word is a card (at brief verbosity the player's card may
    be "Hearts on clubs." with no "You:"), not a question or "I didn't catch that"."""
    return bool(lines) and not lines[0].startswith(NOT_ACTED)


def said_heard(lines: list[str]) -> bool:
    """The plain loop printed what it heard."""
    return any("heard" in line for line in lines)


def measure(server: AudioServer, command: list[str], turns: int, word: bytes, label: str,
            answered: Callable[[list[str]], bool]) -> dict[str, object]:
    """Say ``word`` ``turns`` times into a program and time the answers."""
    watch = SpeakerWatch(server)
    watch.start()
    time.sleep(1.0)  # let the recorder settle on the sink before the program starts
    started = time.monotonic()
    process = subprocess.Popen(command, env=server.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    lines = LineWatch(process.stdout)
    watch.first_sound_after(started, timeout=30)
    latencies: list[float] = []
    misses = 0
    try:
        for _ in range(turns):
            if not watch.wait_quiet(1.0, timeout=60):
                break
            if process.poll() is not None:
                break
            time.sleep(0.2)
            _, done, when = server.say_and_mark(word)
            done.wait(10)
            end = when[0]
            onset = watch.first_sound_after(end, timeout=10)
            time.sleep(0.3)
            if onset is None or not answered(lines.since(end - 0.5)):
                misses += 1
                continue
            latencies.append((onset - end) * 1000)
    finally:
        stop(process, watch)
    return summary_of(label, latencies, misses)


def stop(process: subprocess.Popen[str], watch: SpeakerWatch) -> None:
    """End a measured program (its input closed first, killed if it will not go) and its watch."""
    if process.stdin:
        with contextlib.suppress(OSError):
            process.stdin.close()
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
    watch.stop()


def summary_of(label: str, latencies: list[float], misses: int) -> dict[str, object]:
    """A run's answers: how many, how many missed, median and 90th percentile (ms)."""
    latencies = sorted(latencies)
    result: dict[str, object] = {"label": label, "turns": len(latencies), "missed": misses}
    if latencies:
        result["median_ms"] = round(statistics.median(latencies), 1)
        result["p90_ms"] = round(latencies[max(0, math.ceil(0.9 * len(latencies)) - 1)], 1)
        result["all_ms"] = [round(value, 1) for value in latencies]
    return result


PLAIN_LOOP = """
import speech_recognition as sr, pyttsx3, sys
recognizer = sr.Recognizer()
engine = pyttsx3.init()
with sr.Microphone(sample_rate=16000) as source:
    engine.say("Say turn."); engine.runAndWait()
    while True:
        audio = recognizer.listen(source)
        try:
            heard = recognizer.recognize_sphinx(audio)
        except sr.UnknownValueError:
            continue
        print("heard", heard, flush=True)
        engine.say("You turned the four of clubs onto the seven of clubs.")
        engine.runAndWait()
"""


def measure_startup(server: AudioServer, command: list[str], runs: int = 3) -> dict[str, object]:
    """``voice-rang play`` launched to its first audio on the speaker, over a few launches."""
    watch = SpeakerWatch(server)
    watch.start()
    # Wake the fresh virtual sink once, as a desktop's sound server would already be awake.
    subprocess.run(["pacat", "--raw", "--rate=16000", "--channels=1", "--format=s16le"], input=b"\0" * 3200,
                   env=server.env, timeout=10, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    audio: list[float] = []
    text: list[float] = []
    try:
        for _ in range(runs):
            started = time.monotonic()
            process = subprocess.Popen(command, env=server.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, text=True)
            lines = LineWatch(process.stdout)
            first = watch.first_sound_after(started, timeout=30)
            if first is not None:
                audio.append(first - started)
            if lines.lines:
                text.append(lines.lines[0][0] - started)
            process.terminate()
            process.wait(10)
            watch.wait_quiet(1.0, timeout=10)
    finally:
        watch.stop()
    return {"startup_first_audio_s": [round(value, 3) for value in audio],
            "startup_first_line_s": [round(value, 3) for value in text],
            "startup_median_s": round(statistics.median(audio), 3) if audio else None}


PLAYED = ("You lead", "You play", "You trump", "You cannot follow", "You name")


def measure_court_piece(server: AudioServer, turns: int, *, typed: bool) -> dict[str, object]:
    """Say (or, ``typed``, type) a legal card on each of the person's turns of ``voice-rang play
    court-piece`` and time the first sound after it."""
    from test_play_court_piece import LineReadingPlayer

    watch = SpeakerWatch(server)
    watch.start()
    time.sleep(1.0)
    command = [str(Path(sys.executable).parent / "voice-rang"), "play", "court-piece", "--beat", "0", "--seed", "3",
               "--level", "easy", *(["--no-listen"] if typed else ["--listen"])]
    process = subprocess.Popen(command, env=server.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, bufsize=1)
    lines = LineWatch(process.stdout)
    player = LineReadingPlayer()
    read = 0
    latencies: list[float] = []
    misses = 0
    listening = typed
    try:
        deadline = time.monotonic() + 60 + 30 * turns
        while len(latencies) + misses < turns and time.monotonic() < deadline and process.poll() is None:
            wanted = None
            while wanted is None and time.monotonic() < deadline and process.poll() is None:
                if read >= len(lines.lines):
                    time.sleep(0.02)
                    continue
                line = lines.lines[read][1]
                read += 1
                listening = listening or line.startswith("Listening")
                wanted = player.read(line)
            if wanted is None:
                break
            while not listening and time.monotonic() < deadline:
                listening = any(line.startswith("Listening") for _, line in lines.lines)
                time.sleep(0.05)
            if not watch.wait_quiet(1.0, timeout=60):
                break
            time.sleep(0.2)
            if typed:
                assert process.stdin is not None
                end = time.monotonic()
                process.stdin.write(wanted + "\n")
                process.stdin.flush()
            else:
                _, done, when = server.say_and_mark(synthesize(wanted, "slt"))
                done.wait(10)
                end = when[0]
            onset = watch.first_sound_after(end, timeout=10)
            time.sleep(0.5)
            answer = [line for at, line in lines.lines if at >= end - 0.2]
            if onset is None or not answer or not answer[0].startswith(PLAYED):
                misses += 1
                continue
            latencies.append((onset - end) * 1000)
    finally:
        stop(process, watch)
    return summary_of(f"play court-piece, {'typed' if typed else 'spoken'} card", latencies, misses)


def main_court_piece(turns: int) -> int:
    server = start_audio_server()
    try:
        typed = measure_court_piece(server, turns, typed=True)
        spoken = measure_court_piece(server, turns, typed=False)
    finally:
        server.stop()
    for result in (spoken, typed):
        print(f"{result['label']}: median {result.get('median_ms')} ms, p90 {result.get('p90_ms')} ms "
              f"over {result['turns']} turns ({result['missed']} missed)")
    print(json.dumps({"spoken": spoken, "typed": typed}))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--skip-plain", action="store_true", help="measure only voice-rang")
    parser.add_argument("--game", choices=("rang-milanti", "court-piece"), default="rang-milanti")
    args = parser.parse_args(argv)
    if args.game == "court-piece":
        return main_court_piece(args.turns)
    server = start_audio_server()
    try:
        word = synthesize("turn")
        game = [str(Path(sys.executable).parent / "voice-rang"), "play", "--seats", "2", "--beat", "0",
                "--seed", "1", "--verbosity", "brief"]
        startup = measure_startup(server, game)
        ours = measure(server, game, args.turns, word, "voice-rang play", answered=card_turned)
        results = [ours]
        if not args.skip_plain:
            plain = measure(server, [sys.executable, "-c", PLAIN_LOOP], args.turns, word,
                            "plain SpeechRecognition + pyttsx3 loop", answered=said_heard)
            results.append(plain)
    finally:
        server.stop()
    for result in results:
        print(f"{result['label']}: median {result.get('median_ms')} ms, p90 {result.get('p90_ms')} ms "
              f"over {result['turns']} turns ({result['missed']} missed)")
    print(f"start-up, voice-rang play to its first audio: median {startup['startup_median_s']} s "
          f"of {startup['startup_first_audio_s']}")
    summary: dict[str, object] = {"ours": ours, "startup": startup}
    if len(results) > 1:
        plain = results[1]
        summary["plain"] = plain
        if "median_ms" in ours and "median_ms" in plain:
            summary["ratio"] = round(float(ours["median_ms"]) / float(plain["median_ms"]), 3)  # type: ignore[arg-type]
            print(f"ratio ours/plain (median): {summary['ratio']}")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    if not shutil.which("pulseaudio"):
        sys.exit("bench_latency needs PulseAudio: run scripts/dev setup")
    os.environ.pop("PULSE_SERVER", None)
    sys.exit(main())
