"""A radio that stays on: commands said over continuous music, through the live path.

``bench_neural.py radio`` puts music behind each take alone, cut to the take's length. A radio in
a room plays before, between and after the player's words, and the endpointer must find the words
in it. Here a stretch of a Debian music package plays for ``--seconds``, a "turn" is said into it
every 3 s, and the whole stream goes through :func:`voice_rang.listen.recognizer.decode_pcm`
(the endpointer, then the recogniser, as the microphone listener runs them), with the valid
commands of a turn in play. Each voice says it with enrolled takes (three others of its own, the
live rule with them) and without (the released recogniser; with ``--head``, also the live rule
without takes). ``--floor-percentile 0`` gives the endpointer the floor it had before
(:data:`voice_rang.listen.room.FLOOR_PERCENTILE`), to compare in the same run, and
``--margin`` and ``--steady-margin`` other onset margins
(:data:`voice_rang.listen.endpoint.ONSET_MARGIN_DB`, ``STEADY_MARGIN_DB``); music names
may also be noise that stays on (``white``, ``pink``, ``brown``, ``babble``).

Counted per stream: the takes acted on as "turn" (right), any other command acted on (wrong),
questions asked ("Did you say ...?"), the utterances the endpointer cut, and the commands acted
on in the same music with nobody speaking (``--seconds`` of it alone).

Tune on the training music (``asc-music``, ``drascula-music``) and flite's ``rms``, ``slt`` and
``kal16``; report the held-out music (``fb-music-high``) and voices (``awb``) apart::

    .venv/bin/python benchmarks/bench_radio_live.py --music asc-music drascula-music --voices rms slt kal16
    .venv/bin/python benchmarks/bench_radio_live.py --music fb-music-high --voices awb --offsets 60 120

Receives: music packages (decoded by ffmpeg, cached in ``benchmarks/out/downloads``) and flite
voices. Emits: one line per music, level, voice and recogniser, and a total per recogniser; with
``--json``, one JSON object per line.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import wave
import zlib
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))

import recordings  # noqa: E402
import speech_samples  # noqa: E402
import voice_corpus  # noqa: E402
from speech_samples import RATE, synthesize, varied_take  # noqa: E402

from voice_rang.commands import CommandSet  # noqa: E402

EVERY_S = 3.0
ALLOWED = frozenset({"turn", "auto-reveal on", "auto-reveal off", "repeat", "status", "help", "history back",
                     "history forward", "quit", "faster", "slower", "verbosity brief", "verbosity normal",
                     "verbosity full", "stop"})
"""What the game listens for on the player's turn (``Table.valid_commands``)."""
ENROLLED = ((0.9, -60), (1.0, 0), (1.12, 60))
"""Tempo and pitch (cents) of the three enrolled takes of each command."""
SAID = (1.05, 30)
"""Tempo and pitch of the take said over the radio: none of the enrolled three."""
ROOM_RT60_S = 0.5
"""``--room``: the reverberation of the room the take is said across."""


def take(text: str, voice: str, tempo: float, cents: int, room: bool = False) -> np.ndarray:
    pcm = varied_take(text, voice, tempo, cents, room_rt60_s=ROOM_RT60_S if room else None)
    return np.frombuffer(pcm, dtype="<i2").astype(np.float64)


def loud_power(samples: np.ndarray) -> float:
    return speech_samples.loud_power(np.clip(samples, -32768, 32767).astype("<i2").tobytes())


def stream(music: np.ndarray, said: np.ndarray | None, snr_db: float, level_of: np.ndarray) -> bytes:
    """``music`` at ``snr_db`` below ``level_of``'s loud part, with ``said`` every few seconds."""
    gain = np.sqrt(loud_power(level_of) / 10 ** (snr_db / 10) / (np.mean(music ** 2) + 1e-9))
    mixed = music * gain
    if said is not None:
        for at in takes_at(len(mixed)):
            mixed[at:at + len(said)] += said
    return bytes(np.clip(mixed, -32768, 32767).astype("<i2").tobytes())


def takes_at(length: int) -> range:
    return range(int(EVERY_S * RATE), length - RATE, int(EVERY_S * RATE))


NOISES = ("white", "pink", "brown", "babble")
"""Noise that stays on, instead of a music package (``--music white`` ...): the check that what
helps under music does not hurt in an ordinary noisy room."""


def noise_track(kind: str, seconds: int) -> np.ndarray:
    """``seconds`` of ``kind`` noise, the same every run. Babble is the training voices only
    (``voice_corpus.BABBLE_TEXTS`` without ``awb``), looped."""
    rng = np.random.default_rng(zlib.crc32(kind.encode()))
    length = seconds * RATE
    if kind == "babble":
        lines = [(voice, text) for voice, text in voice_corpus.BABBLE_TEXTS if voice != "awb"]
        loop = np.zeros(12 * RATE)
        for number, (voice, text) in enumerate(lines):
            said = np.frombuffer(synthesize(f"{text} {text}", voice), dtype="<i2").astype(np.float64)
            said = np.concatenate([np.zeros(int(0.7 * number * RATE)), said])[:len(loop)]
            loop[:len(said)] += said / (np.max(np.abs(said)) + 1e-9)
        looped: np.ndarray = np.tile(loop, length // len(loop) + 1)[:length] * 8000
        return looped
    white: np.ndarray = rng.standard_normal(length) * 3000
    if kind == "white":
        return white
    spectrum = np.fft.rfft(white)
    frequency = np.maximum(np.fft.rfftfreq(length, 1 / RATE), 20.0)
    shaped: np.ndarray = np.fft.irfft(spectrum / (frequency ** (0.5 if kind == "pink" else 1.0)), length)
    return shaped / np.std(shaped) * 3000  # type: ignore[no-any-return]


def source_track(name: str, seconds: int) -> np.ndarray:
    """A music package's track, or one of :data:`NOISES` as long as ``seconds``."""
    if name in NOISES:
        return noise_track(name, seconds)
    track: np.ndarray = recordings.music_track(name).astype(np.float64)
    return track


def recognizers(voice: str, head: bool = False) -> dict[str, Any]:
    """The released recogniser, the live rule with three enrolled takes of each command, and
    (``--head``) the live rule without takes (not what a player without takes gets today)."""
    from voice_rang.listen.neural import NeuralRecognizer
    from voice_rang.listen.personal import PersonalVoice
    from voice_rang.listen.recognizer import Recognizer

    commands = CommandSet.load("en")
    folder = Path(tempfile.mkdtemp(prefix="radio-takes-"))
    for command in ("turn", "yes", "no", "stop", "help"):
        for n, (tempo, cents) in enumerate(ENROLLED):
            with wave.open(str(folder / f"{command}__{n}.wav"), "wb") as out:
                out.setnchannels(1)
                out.setsampwidth(2)
                out.setframerate(RATE)
                # Enrolled at the table, as a player does, whatever room the game is then played in.
                out.writeframes(take(command, voice, tempo, cents).astype("<i2").tobytes())
    personal = PersonalVoice.load(folder, known=set(commands.phrases))
    chosen: dict[str, Any] = {"released": Recognizer(commands),
                              "with takes": NeuralRecognizer(commands, personal=personal)}
    if head:
        chosen["head, no takes"] = NeuralRecognizer(commands)
    return chosen


def count(recognizer: Any, pcm: bytes, takes: int) -> dict[str, Any]:
    from voice_rang.listen.recognizer import decode_pcm

    results = list(decode_pcm(recognizer, pcm, allowed=ALLOWED))
    return {"takes": takes, "right": sum(r.command == "turn" for r in results),
            "wrong": sum(r.command not in (None, "turn") for r in results),
            "asked": sum(bool(r.unsure) for r in results), "utterances": len(results),
            "reasons": sorted({r.reason for r in results})}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--music", nargs="+", default=["asc-music", "drascula-music"],
                        help=f"Debian music packages, or noise: {', '.join(NOISES)}")
    parser.add_argument("--voices", nargs="+", default=["rms", "slt", "kal16"])
    parser.add_argument("--snr", nargs="+", type=float, default=[20.0, 15.0, 10.0])
    parser.add_argument("--seconds", type=int, default=40)
    parser.add_argument("--offsets", nargs="+", type=int, default=[60, 240],
                        help="where in each package's music to start, seconds")
    parser.add_argument("--room", action="store_true", help="the voice across a 0.5 s room")
    parser.add_argument("--head", action="store_true", help="also the live rule without enrolled takes")
    parser.add_argument("--floor-percentile", type=float, default=None,
                        help="the endpointer's noise floor percentile (0: the quietest frame)")
    parser.add_argument("--margin", type=float, default=None,
                        help="how far over the floor a frame must be to count as speech, dB")
    parser.add_argument("--steady-margin", type=float, default=None,
                        help="the same in a room that holds steady (12: as before there was one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from voice_rang.listen import endpoint, room
    if args.floor_percentile is not None:
        room.FLOOR_PERCENTILE = args.floor_percentile
    if args.margin is not None:
        endpoint.ONSET_MARGIN_DB = args.margin
    if args.steady_margin is not None:
        endpoint.STEADY_MARGIN_DB = args.steady_margin
    totals: dict[str, dict[str, int]] = {}
    for voice in args.voices:
        said = take("turn", voice, *SAID, room=args.room)
        listeners = recognizers(voice, args.head)
        for package in args.music:
            track = source_track(package, max(args.offsets) + args.seconds)
            for offset in args.offsets:
                music = track[offset * RATE:(offset + args.seconds) * RATE]
                if len(music) < args.seconds * RATE:
                    print(f"{package} has only {len(track) / RATE:.0f} s of music: no stretch of "
                          f"{args.seconds} s from {offset} s", file=sys.stderr)
                    continue
                for snr in args.snr:
                    with_words = stream(music, said, snr, said)
                    alone = stream(music, None, snr, said)
                    for name, recognizer in listeners.items():
                        row = count(recognizer, with_words, len(takes_at(len(music))))
                        quiet = count(recognizer, alone, 0)
                        row["alone_commands"] = quiet["right"] + quiet["wrong"]
                        row.update(voice=voice, music=package, offset=offset, snr_db=snr,
                                   recognizer=name, room=args.room)
                        total = totals.setdefault(name, {"takes": 0, "right": 0, "wrong": 0, "asked": 0,
                                                         "alone_commands": 0})
                        for key in total:
                            total[key] += row[key]
                        if args.json:
                            print(json.dumps(row), flush=True)
                        else:
                            print(f"{voice} {package}@{offset}s {snr:g} dB {name}: {row['right']}/{row['takes']} "
                                  f"right, {row['wrong']} wrong, {row['asked']} asked, {row['utterances']} "
                                  f"utterances, {row['alone_commands']} commands from the music alone "
                                  f"{row['reasons']}", flush=True)
    for name, total in totals.items():
        share = 100 * total["right"] / max(1, total["takes"])
        print(f"total {name}: {total['right']}/{total['takes']} right ({share:.1f} %), {total['wrong']} wrong, "
              f"{total['asked']} asked, {total['alone_commands']} commands from the music alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
