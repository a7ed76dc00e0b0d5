"""How long does a listener spend on each card of Court Piece? Spoken seconds per computer seat's card
and per trick, by verbosity, with and without sound cues.

Run: ``.venv/bin/python benchmarks/bench_listening_court_piece.py [--seed 1] [--deals 6] [--lang en]``

One seeded session is played by computer seats for every chair and narrated for seat 0 (the
person) exactly as ``voice-rang play court-piece`` narrates it: the seat's own events through
``SeatFeed`` and ``CourtPieceNarration``. Every message is rendered by the game's synthesizer
(espeak-ng through pyttsx3, default voice and rate) and measured as the player hears it, with the
cue before it and the pause before each message (the same clock as ``bench_listening.py``).

A computer seat's card: everything said about one card another seat played (its play, and a trump
it set in Be-ranga). A trick: its four cards and the line that says who won it.

Baseline, in the same run: normal verbosity without sounds. Goals: brief with sounds at most 1.2 s
for a computer seat's card and at most 5 s for a whole trick (median). Prints a line per setting,
then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from random import Random

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_listening import Clock  # noqa: E402

from voice_rang.games.court_piece.bots import make_bot  # noqa: E402
from voice_rang.games.court_piece.events import CardPlayed, Event, TrickWon  # noqa: E402
from voice_rang.games.court_piece.narration import CourtPieceNarration  # noqa: E402
from voice_rang.games.court_piece.rules import Rules  # noqa: E402
from voice_rang.games.court_piece.seat_events import SeatFeed  # noqa: E402
from voice_rang.games.court_piece.session import Session  # noqa: E402
from voice_rang.narration import VERBOSITIES, Narrator  # noqa: E402
from voice_rang.prompts import load_game_prompts  # noqa: E402

CARD_GOAL = 1.2
TRICK_GOAL = 5.0


def batches(seed: int, deals: int) -> tuple[Session, list[tuple[list[Event], object]]]:
    """A seeded session's events, batch by batch, each with seat 0's view after it."""
    session = Session(Rules.make(), Random(seed))
    bots = [make_bot("easy", Random(seed + seat)) for seat in range(4)]
    played = [(session.start(), session.view(0))]
    while not session.is_over and session.deal_number <= deals:
        seat = session.to_act
        assert seat is not None
        played.append((session.apply(seat, bots[seat].decide(session.view(seat))), session.view(0)))
    return session, played


def measure(clock: Clock, language: str, verbosity: str, sounds: bool, seed: int,
            deals: int) -> dict[str, float]:
    prompts, _ = load_game_prompts(language, "court-piece")
    narrator = Narrator(prompts=prompts, seats=4, listener=0, verbosity=verbosity, sounds=sounds,
                        partners=True)
    session, played = batches(seed, deals)
    narration = CourtPieceNarration(narrator, session.rules)
    feed = SeatFeed(0)
    cards: list[float] = []
    tricks: list[float] = []
    trick = 0.0
    for events, view in played:
        for event in events:
            seconds = sum(clock.message(message) for message in narration.events(feed.take([event], view)))
            if isinstance(event, CardPlayed):
                trick += seconds
                if event.seat != 0:
                    cards.append(seconds)
            elif isinstance(event, TrickWon):
                tricks.append(trick + seconds)
                trick = 0.0
    return {"card_median": statistics.median(cards), "card_p90": sorted(cards)[int(0.9 * len(cards))],
            "trick_median": statistics.median(tricks), "trick_p90": sorted(tricks)[int(0.9 * len(tricks))],
            "cards": len(cards), "tricks": len(tricks)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--voice", default=None)
    args = parser.parse_args()
    clock = Clock(args.voice)
    results: dict[str, dict[str, float]] = {}
    for verbosity in VERBOSITIES:
        for sounds in (False, True):
            name = f"{verbosity}{' + sounds' if sounds else ''}"
            results[name] = figures = measure(clock, args.lang, verbosity, sounds, args.seed, args.deals)
            print(f"{name:16} a computer's card: median {figures['card_median']:.2f} s, "
                  f"p90 {figures['card_p90']:.2f} s; "
                  f"a trick: median {figures['trick_median']:.2f} s, p90 {figures['trick_p90']:.2f} s "
                  f"({figures['cards']} cards, {figures['tricks']} tricks)")
    baseline = results["normal"]
    goal = results["brief + sounds"]
    verdict = {
        "card_vs_baseline": round(goal["card_median"] / baseline["card_median"], 3),
        "trick_vs_baseline": round(goal["trick_median"] / baseline["trick_median"], 3),
        "card_goal_met": goal["card_median"] <= CARD_GOAL,
        "trick_goal_met": goal["trick_median"] <= TRICK_GOAL,
    }
    print(f"Brief with sounds against normal: {verdict['card_vs_baseline']:.2f} of the time per card, "
          f"{verdict['trick_vs_baseline']:.2f} per trick; goals (card <= {CARD_GOAL} s, trick <= {TRICK_GOAL} s): "
          f"{'met' if verdict['card_goal_met'] and verdict['trick_goal_met'] else 'not met'}.")
    print(json.dumps({"results": results, **verdict}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
