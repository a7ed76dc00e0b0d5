"""Talk that goes on: minutes of table talk into a quiet room's microphone, a "turn" now and then.

The endpointer's floor rises to a percentile of the last 3 s of frame levels
(:data:`voice_rang.listen.room.FLOOR_PERCENTILE`), so that a radio that stays on is learned as
the room (``bench_radio_live.py``). Talk that hardly pauses fills that window too, and can lift the
floor into the talk: the talk is then cut into more, shorter utterances, and each is a chance for
a question ("Did you say ...?") or a wrong command. This counts them, for the floor as it is and as
it was (``--floor-percentile 0``: the quietest frame), in the same run, on the same stream: every
line of ``voice_corpus.TALK`` and ten of the game's narration lines, each said twice over with a
0.3 s pause after it, and after every third line 1.2 s of quiet, "turn" and 1.2 s of quiet.

    .venv/bin/python benchmarks/bench_talk_stream.py --voices rms kal16

Receives: flite voices. Emits: one line per voice, floor and recogniser (the released grammar
decoders, and the neural rule without takes).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

import voice_corpus  # noqa: E402
from speech_samples import synthesize  # noqa: E402

from voice_rang.commands import CommandSet  # noqa: E402
from voice_rang.listen import room  # noqa: E402
from voice_rang.listen.neural import NeuralRecognizer  # noqa: E402
from voice_rang.listen.recognizer import Recognizer, decode_pcm  # noqa: E402


def quiet(seconds: float) -> bytes:
    return bytes(2 * int(16000 * seconds))


def talk_stream(voice: str) -> tuple[bytes, int, int]:
    """The stream, how many "turn"s it holds, and how many lines of talk."""
    lines = voice_corpus.TALK + voice_corpus.narration()[:10]
    parts = [quiet(1.0)]
    turns = 0
    for number, line in enumerate(lines):
        parts.append(synthesize(f"{line} {line}", voice) + quiet(0.3))
        if number % 3 == 2:
            parts.append(quiet(1.2) + synthesize("turn", voice) + quiet(1.2))
            turns += 1
    return b"".join(parts), turns, len(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voices", nargs="+", default=["rms", "kal16"])
    parser.add_argument("--floor-percentile", nargs="+", type=float, default=[room.FLOOR_PERCENTILE, 0.0])
    args = parser.parse_args(argv)
    commands = CommandSet.load("en")
    for voice in args.voices:
        pcm, turns, lines = talk_stream(voice)
        for percentile in args.floor_percentile:
            room.FLOOR_PERCENTILE = percentile
            for name, recognizer in (("released", Recognizer(commands)), ("neural rule", NeuralRecognizer(commands))):
                results = list(decode_pcm(recognizer, pcm))
                print(f"{voice} ({len(pcm) / 32000:.0f} s, {lines} lines of talk, {turns} turns) floor percentile "
                      f"{percentile:g} {name}: {sum(r.command == 'turn' for r in results)}/{turns} turns acted on, "
                      f"{sum(r.command not in (None, 'turn') for r in results)} other commands, "
                      f"{sum(bool(r.unsure) for r in results)} questions, {len(results)} utterances", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
