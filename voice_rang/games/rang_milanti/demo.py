"""The press-play demo: a short stacked game, told one move at a time with a lesson the
first time each rule shows up. Pure: it only builds messages; ``voice-rang demo`` paces them.

The deck below was picked by search among shuffled decks for a short two-seat game
that shows a miss, a match with the extra card after it, a reshuffle and a seat
going out, all within about fifty reveals.

>>> steps = demo_steps(RangMilantiNarrator.load("en", seats=2))
>>> len(steps) > 40
True
>>> sum("one more" in m.text for step in steps for m in step) >= 1
True

With sounds on, each sound is explained the first time it is heard:

>>> heard = demo_steps(RangMilantiNarrator.load("en", seats=2, sounds=True))
>>> [m.text for step in heard for m in step if m.kind == "sound lesson"][:2]
['That chime means it is your turn.', 'That tick is the sound of a miss.']
"""

from __future__ import annotations

from dataclasses import replace
from random import Random

from ...cards import parse_deck
from ...messages import Message, Priority
from .events import GameOver, Reshuffled, Revealed, WentOut
from .game import Game
from .narration import RangMilantiNarrator

__all__ = ["DEMO_DECK", "DEMO_SEED", "demo_game", "demo_steps"]

DEMO_DECK = (
    "9D", "AC", "AH", "8H", "KH", "6S", "QS", "3D", "2H", "JS", "3H", "10S", "6H",
    "AD", "KC", "3C", "10C", "7D", "5S", "3S", "KD", "7H", "4S", "9H", "JD", "5C",
    "4D", "9C", "2D", "10H", "2S", "7C", "4H", "6C", "QH", "5D", "7S", "8C", "KS",
    "6D", "JC", "8D", "QC", "QD", "JH", "9S", "10D", "AS", "2C", "8S", "4C", "5H",
)
DEMO_SEED = 1
"""Seeds the reshuffle, so the demo plays the same every time."""


def demo_game() -> Game:
    return Game(2, Random(DEMO_SEED), deck=parse_deck(DEMO_DECK))


def _lesson(narrator: RangMilantiNarrator, key: str) -> Message:
    return narrator.say("demo", key, priority=Priority.NORMAL, kind="lesson")


def demo_steps(narrator: RangMilantiNarrator) -> list[list[Message]]:
    """The demo as steps: the introduction and deal, then one step per reveal.

    Each step ends by saying what comes next; a rule's lesson follows the first move
    that shows it.
    """
    game = demo_game()
    taught: set[str] = set()
    opening = [_lesson(narrator, "intro"), *narrator.event(game.dealt), _lesson(narrator, "teach_deal")]
    steps = [[*opening, *_with_sound_lessons(narrator, [_what_next(narrator, game)], taught)]]
    while not game.is_over:
        step: list[Message] = []
        for event in game.reveal():
            step.extend(_with_sound_lessons(narrator, narrator.event(event), taught))
            lesson = _lesson_for(event)
            if lesson is not None and lesson not in taught:
                taught.add(lesson)
                step.append(_lesson(narrator, lesson))
        if game.is_over:
            step.append(_lesson(narrator, "teach_end"))
        else:
            step.extend(_with_sound_lessons(narrator, [_what_next(narrator, game)], taught))
        steps.append(step)
    return steps


def _with_sound_lessons(narrator: RangMilantiNarrator, messages: list[Message], taught: set[str]) -> list[Message]:
    """``messages``, each followed the first time its sound is heard by what the sound means."""
    out: list[Message] = []
    for message in messages:
        out.append(message)
        if not message.cue:
            continue
        name = " ".join(part for part in message.cue.split() if not part.isdigit())
        key = "cue_" + name.replace(" ", "_")
        if key not in taught and key in narrator.prompts.messages["demo"]:
            taught.add(key)
            out.append(narrator.say("demo", key, priority=Priority.NORMAL, kind="sound lesson"))
    return out


def _lesson_for(event: object) -> str | None:
    if isinstance(event, Revealed):
        if event.match:
            return "teach_match"
        if event.under is not None:
            return "teach_miss"
        return "teach_extra" if event.n > 1 else None
    if isinstance(event, Reshuffled):
        return "teach_reshuffle"
    if isinstance(event, WentOut):
        return "teach_out"
    if isinstance(event, GameOver):
        return None
    return None


def _what_next(narrator: RangMilantiNarrator, game: Game) -> Message:
    if game.current_seat == 0:
        key = "next_yours_extra" if game.owes_extra_card else "next_yours"
    else:
        key = "next_other_extra" if game.owes_extra_card else "next_other"
    message = narrator.say("demo", key, priority=Priority.URGENT, kind="next")
    # Your turn comes with its sound, as it would in a game.
    return replace(message, cue="your turn") if narrator.sounds and game.current_seat == 0 else message
