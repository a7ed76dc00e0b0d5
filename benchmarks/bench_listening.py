"""How long does a listener spend on each reveal? Spoken seconds per reveal, by verbosity, with
and without sound cues.

Run: ``.venv/bin/python benchmarks/bench_listening.py [--seed 1] [--seats 2] [--lang en]``

One seeded game, played as a new user plays it with speech on and auto-reveal (so no "your
turn" prompt between cards), is narrated at each verbosity with sounds off and on. Every
message is rendered by the game's own synthesizer (espeak-ng through pyttsx3, default voice,
the default 175 words a minute) and measured as the player plays it: leading and trailing
silence cut (``speech.spoken``), the cue before the words with its gap, and the pause the
player leaves before each message. A reveal's seconds are those of everything said about it:
its reshuffle, the reveal itself, the counts at full verbosity, a seat going out, and the end.
The extra card after a capture is a reveal of its own.

Baseline, in the same run: normal verbosity without sounds (what a new user hears today).
Goals (issue "A game you can follow at speed"): brief with sounds at most 1.5 s a reveal and at
most 0.8 s for a miss. The "your turn" prompt, said when a person turns their own cards, is
measured on its own.

Prints one line per setting, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path
from random import Random

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from voice_rang.games.rang_milanti import DECK, Game, GameOver, Reshuffled, Revealed  # noqa: E402
from voice_rang.games.rang_milanti.narration import RangMilantiNarrator  # noqa: E402
from voice_rang.messages import Message  # noqa: E402
from voice_rang.narration import VERBOSITIES  # noqa: E402
from voice_rang.prompts import load_prompts  # noqa: E402
from voice_rang.speech.cues import cue_pcm  # noqa: E402
from voice_rang.speech.pcm import trim_leading_silence, trim_trailing_silence  # noqa: E402
from voice_rang.speech.playback import PAUSE_BETWEEN  # noqa: E402
from voice_rang.speech.rendering import CUE_GAP  # noqa: E402
from voice_rang.speech.spoken import DEFAULT_RATE  # noqa: E402
from voice_rang.speech.synth import open_synthesizer  # noqa: E402


class Clock:
    """Seconds of sound for a message, as the player would play it (rendered once per text)."""

    def __init__(self, voice: str | None) -> None:
        self.synth = open_synthesizer()
        self.voice = self.synth.check_voice(voice) if voice else None
        self.rate = self.synth.sample_rate
        self._seconds: dict[str, float] = {}

    def words(self, text: str) -> float:
        if text not in self._seconds:
            parts: list[bytes] = []
            self.synth.render(text, lambda chunk: parts.append(chunk) or True, rate=DEFAULT_RATE,
                              volume=1.0, voice=self.voice)
            pcm = trim_trailing_silence(trim_leading_silence(b"".join(parts)))
            self._seconds[text] = len(pcm) / 2 / self.rate
        return self._seconds[text]

    def message(self, message: Message) -> float:
        seconds = PAUSE_BETWEEN + self.words(" ".join(message.text.split()))
        if message.cue:
            seconds += len(cue_pcm(message.cue, self.rate)) / 2 / self.rate + CUE_GAP
        return seconds


def reveals(seed: int, seats: int) -> list[list[object]]:
    """The game's events, one group per reveal (a reshuffle joins the reveal it feeds; going out
    and the end join the reveal that caused them)."""
    game = Game(seats, Random(seed))
    groups: list[list[object]] = []
    pending: list[object] = []
    while not game.is_over:
        for event in game.reveal():
            if isinstance(event, Reshuffled):
                pending.append(event)
            elif isinstance(event, Revealed):
                groups.append([*pending, event])
                pending = []
            else:
                groups[-1].append(event)
    return groups


def measure(clock: Clock, groups: list[list[object]], language: str, seats: int,
            verbosity: str, sounds: bool) -> dict[str, object]:
    narrator = RangMilantiNarrator.load(language, seats=seats, verbosity=verbosity, sounds=sounds)  # type: ignore[arg-type]
    every, misses = [], []
    for group in groups:
        seconds = sum(clock.message(message) for event in group
                      for message in narrator.event(event))  # type: ignore[arg-type]
        every.append(seconds)
        reveal = next(event for event in group if isinstance(event, Revealed))
        if not reveal.match and reveal.under is not None and len(group) == 1:
            misses.append(seconds)
    ends = [g for g in groups if any(isinstance(e, GameOver) for e in g)]
    return {
        "verbosity": verbosity, "sounds": sounds,
        "median_s": round(statistics.median(every), 2),
        "miss_median_s": round(statistics.median(misses), 2),
        "mean_s": round(statistics.fmean(every), 2),
        "game_minutes": round(sum(every) / 60, 1),
        "reveals": len(every), "misses": len(misses), "ended": len(ends) == 1,
    }


def _misses_of_every_suit(narrator: RangMilantiNarrator, chained: bool) -> Iterator[Revealed]:
    """A miss of each suit onto each other suit, at a reveal whose number is not said; with
    ``chained`` the narrator has just spoken of the card underneath (each miss is yielded right
    after, so narrate it before asking for the next)."""
    cards = {card.suit: card for card in DECK}
    for suit, card in cards.items():
        for under_suit, under in cards.items():
            if suit == under_suit:
                continue
            if chained:
                narrator.event(Revealed(seat=1, n=2, card=under, under=None, match=False, moved=0,
                                        pile=1, stacks=(25, 25), collected=(0, 0)))
            else:
                narrator.say("answer", "stopped")
            yield Revealed(seat=1, n=3, card=card, under=under, match=False, moved=0, pile=2,
                           stacks=(25, 24), collected=(0, 0))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--lang", default="en")
    args = parser.parse_args()
    clock = Clock(load_prompts(args.lang).voice)
    groups = reveals(args.seed, args.seats)
    rows = [measure(clock, groups, args.lang, args.seats, verbosity, sounds)
            for verbosity in VERBOSITIES for sounds in (False, True)]
    baseline = next(r for r in rows if r["verbosity"] == "normal" and not r["sounds"])
    prompt = RangMilantiNarrator.load(args.lang, seats=args.seats, sounds=True).turn_prompt(0, False)
    prompt_s = round(clock.message(prompt), 2)
    print(f"One {args.seats}-seat game, seed {args.seed}, {len(groups)} reveals, language "
          f"{args.lang}, {DEFAULT_RATE} wpm; spoken seconds per reveal (median):")
    for row in rows:
        ratio = baseline["median_s"] / row["median_s"]  # type: ignore[operator]
        print(f"  {row['verbosity']:<6} sounds {'on ' if row['sounds'] else 'off'}: "
              f"{row['median_s']} s a reveal, {row['miss_median_s']} s a miss, "
              f"{row['game_minutes']} min the game; {ratio:.1f}x faster than normal without sounds")
    brief = next(r for r in rows if r["verbosity"] == "brief" and r["sounds"])
    # The two wordings of a brief miss with sounds, each over every pair of suits: its new suit
    # alone when the card underneath was the last thing said (most misses), both suits otherwise
    # (after a reshuffle, an answer, the turn prompt).
    chained, named = (statistics.median(
        clock.message(narrator.event(miss)[0]) for miss in _misses_of_every_suit(narrator, chain))
        for narrator in [RangMilantiNarrator.load(args.lang, seats=args.seats, verbosity="brief", sounds=True)]
        for chain in (True, False))
    print(f"Goals, brief with sounds: {brief['median_s']} s a reveal (goal 1.5), "
          f"{brief['miss_median_s']} s a miss (goal 0.8); a miss is {chained:.2f} s said as its new "
          f"suit, {named:.2f} s when it names the card underneath too. "
          f"'Your turn' with its cue: {prompt_s} s.")
    print(json.dumps({"benchmark": "listening", "seed": args.seed, "seats": args.seats,
                      "lang": args.lang, "rate_wpm": DEFAULT_RATE, "rows": rows,
                      "your_turn_s": prompt_s, "miss_new_suit_s": round(chained, 2),
                      "miss_both_suits_s": round(named, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
