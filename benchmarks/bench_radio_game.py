"""How reliably a whole game is played hands-free with a radio on, through the front door.

``tests/test_voice_radio.py`` plays one game per condition: ``voice-rang play --listen`` on the
test sound card, fb-music-high looped into the microphone, flite's ``awb`` saying "turn" (a new
take each try, at most four tries a card) and "yes" to a question. A test is one game; a player
plays many. This plays each condition ``--games`` times and reports how many games were played
to the end and how often "turn" was said for each card, so a condition's reliability is a figure,
not the luck of one run. The released recogniser's figure is not in it: it plays none of these
games (``docs/voice.md``, *A radio that stays on*).

    .venv/bin/python benchmarks/bench_radio_game.py --games 6
    .venv/bin/python benchmarks/bench_radio_game.py --games 6 --only "beside 15 dB, takes"

Receives: the conditions below and a count. Emits: one line per game and a total per condition.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from audio_server import start_audio_server  # noqa: E402
from test_voice_radio import TRIES, play_radio_game  # noqa: E402

CONDITIONS = {
    "beside 15 dB, takes": (False, 15.0, True),
    "beside 15 dB, no takes": (False, 15.0, False),
    "beside 20 dB, takes": (False, 20.0, True),
    "beside 20 dB, no takes": (False, 20.0, False),
    "across a room 20 dB, takes": (True, 20.0, True),
    "across a room 20 dB, no takes": (True, 20.0, False),
}
"""Name: (across a room, radio SNR in dB, the player's takes enrolled)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--only", nargs="+", choices=sorted(CONDITIONS), default=sorted(CONDITIONS))
    args = parser.parse_args(argv)
    server = start_audio_server()
    try:
        for name in args.only:
            played, tries = 0, []
            for game in range(1, args.games + 1):
                with tempfile.TemporaryDirectory() as folder:
                    try:
                        said = play_radio_game(server, Path(folder), *CONDITIONS[name])
                    except AssertionError as failure:
                        print(f"{name}, game {game}: not played: {str(failure).splitlines()[0][:300]}", flush=True)
                        continue
                played += 1
                tries += said
                print(f"{name}, game {game}: played, \"turn\" said {said} times for 3 cards", flush=True)
            limit = sum(t == TRIES for t in tries)
            mean = sum(tries) / len(tries) if tries else float("nan")
            print(f"total {name}: {played} of {args.games} games played; {mean:.2f} tries a card in them, "
                  f"{limit} of {len(tries)} cards at the fourth try", flush=True)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
