"""How fast does speech start after ``say()``, and stop after ``stop()``?

Run: ``.venv/bin/python benchmarks/bench_speech.py [--messages 60]``

Starts its own private PulseAudio server (tests/audio_server.py) and measures at the speaker
itself: ``parec`` records the null sink's monitor with a 5 ms latency, every block is stamped
with ``time.monotonic()`` on arrival, and each sample is placed by the least delayed block near
it. A sample's time is therefore when the sink played it (plus at most the
monitor's own small delivery delay: the figures err on the slow side). Stalls of the null sink
(it stalls for a second or two whenever a stream joins or leaves it) do not skew the clock.

(a) say() -> first audible sample at the sink, median and p90 over distinct game messages;
    also the stream's own view: first frame handed to it + the output latency it reports.
(b) stop() -> last audible sample at the sink.
Baseline in the same run: the usual way, ``espeak-ng --stdout`` in a subprocess per message,
then a PyAudio stream opened for it and the WAV written (the sink is kept awake meanwhile, so
the baseline is not charged for a sleeping null sink).

Prints a short summary, then one JSON line.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from audio_server import start_audio_server  # noqa: E402
from speaker_tap import SpeakerTap  # noqa: E402

from voice_rang.messages import Message, Priority  # noqa: E402

RATE = 16000
THRESHOLD = 500  # |sample| above this is sound; espeak speech peaks near 10000
RANKS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen",
         "king", "ace"]
SUITS = ["hearts", "spades", "diamonds", "clubs"]


def first_sound(tap: SpeakerTap, start: float, end: float) -> float | None:
    span = tap.sound_span(start, end, level=THRESHOLD)
    return span[0] if span else None


def last_sound(tap: SpeakerTap, start: float, end: float) -> float | None:
    span = tap.sound_span(start, end, level=THRESHOLD)
    return span[1] if span else None


def messages(count: int) -> list[str]:
    texts = []
    for n in range(count):
        rank, suit = RANKS[n % len(RANKS)], SUITS[(n // len(RANKS)) % len(SUITS)]
        texts.append(f"Guest {n % 3 + 1} revealed the {rank} of {suit}. Pile of {n + 2} cards.")
    return texts


def ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p90 = ordered[min(round(0.9 * (len(ordered) - 1)), len(ordered) - 1)]
    return {"median_ms": round(statistics.median(ordered) * 1000, 1),
            "p90_ms": round(p90 * 1000, 1), "max_ms": round(ordered[-1] * 1000, 1),
            "n": len(ordered)}


def bench_ours(tap: SpeakerTap, count: int) -> dict[str, object]:
    from voice_rang.speech import SpeechOutput

    speech = SpeechOutput()
    handed: list[float] = []
    speech.add_activity_listener(lambda active, when: handed.append(when) if active else None)
    starts, portaudio_view, stops = [], [], []
    misses = 0
    try:
        for text in messages(count):
            handed.clear()
            time.sleep(0.25)  # clear of the previous message and of the pause between messages
            said = time.monotonic()
            speech.say(Message(text, Priority.NORMAL))
            time.sleep(0.4)
            stopped = time.monotonic()
            speech.stop()
            speech.wait_until_done(2)
            heard = first_sound(tap, said, said + 0.4)
            if heard is None or not handed:
                misses += 1
                continue
            starts.append(heard - said)
            portaudio_view.append(handed[0] - said + speech.output_latency)
            last = last_sound(tap, stopped, stopped + 0.5)
            stops.append(max((last or stopped) - stopped, 0.0))
        latency = speech.output_latency
    finally:
        speech.close()
    return {"say_to_sound": ms(starts), "say_to_sound_portaudio_view": ms(portaudio_view),
            "stop_to_silence": ms(stops), "missed": misses,
            "stream_output_latency_ms": round(latency * 1000, 1)}


def bench_baseline(tap: SpeakerTap, count: int) -> dict[str, object]:
    """espeak-ng subprocess per message, a PyAudio stream per message (the common recipe)."""
    import pyaudio

    from voice_rang.speech import SpeechOutput
    from voice_rang.speech.portaudio import close_stream, open_stream

    keep_awake = SpeechOutput()  # idle: only keeps the null sink from sleeping
    starts = []
    try:
        for text in messages(count):
            time.sleep(0.25)
            said = time.monotonic()
            wav_bytes = subprocess.run(["espeak-ng", "-s", "175", "--stdout", text],
                                       capture_output=True, check=True).stdout
            with wave.open(io.BytesIO(wav_bytes)) as wav:
                rate, frames = wav.getframerate(), wav.readframes(wav.getnframes())
            stream = open_stream(format=pyaudio.paInt16, channels=1, rate=rate, output=True)
            stream.write(frames[: rate * 2 // 2])  # half a second is enough to hear it start
            close_stream(stream)
            heard = first_sound(tap, said, said + 1.5)
            if heard is not None:
                starts.append(heard - said)
    finally:
        keep_awake.close()
    return {"say_to_sound": ms(starts)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=60, help="messages to time (>= 50)")
    parser.add_argument("--baseline-messages", type=int, default=20)
    args = parser.parse_args()
    server = start_audio_server()
    os.environ.update(server.env)
    tap = SpeakerTap(server.env)
    try:
        ours = bench_ours(tap, args.messages)
        baseline = bench_baseline(tap, args.baseline_messages)
    finally:
        tap.close()
        server.stop()
    ours_start = ours["say_to_sound"]["median_ms"]  # type: ignore[index]
    base_start = baseline["say_to_sound"]["median_ms"]  # type: ignore[index]
    ratio = round(base_start / ours_start, 1) if ours_start else None
    s, p, t = ours["say_to_sound"], ours["say_to_sound_portaudio_view"], ours["stop_to_silence"]
    print(f"say() to first sound at the speaker: median {s['median_ms']} ms, "  # type: ignore[index]
          f"p90 {s['p90_ms']} ms over {s['n']} messages (target 60 ms).")  # type: ignore[index]
    print(f"Same, the stream's own view (first frame handed + reported latency): "
          f"median {p['median_ms']} ms, p90 {p['p90_ms']} ms.")  # type: ignore[index]
    print(f"stop() to silence at the speaker: median {t['median_ms']} ms, "  # type: ignore[index]
          f"p90 {t['p90_ms']} ms (target 50 ms).")  # type: ignore[index]
    print(f"Baseline, espeak-ng subprocess and a stream per message: median {base_start} ms, "
          f"p90 {baseline['say_to_sound']['p90_ms']} ms; ours is {ratio}x faster to start.")  # type: ignore[index]
    print(json.dumps({"benchmark": "speech", "ours": ours, "baseline": baseline,
                      "baseline_over_ours_start": ratio}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
