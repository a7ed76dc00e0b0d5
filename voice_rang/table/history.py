"""Stepping through past messages ("previous" / "forward"): one rule for the table and for a
guest's own device, which keeps its own history of what it was told."""

from __future__ import annotations

from ..messages import Message
from ..narration import Narrator

__all__ = ["step_history"]


def step_history(narrator: Narrator, history: list[Message], cursor: int | None,
                 step: int) -> tuple[int | None, list[Message]]:
    """Where the cursor goes and what to say: the message there, numbered, after a word when the
    step ran past either end. ``cursor`` is ``None`` at the latest message.

    >>> from voice_rang.messages import Priority
    >>> narrator = Narrator.load("en", seats=2, listener=0)
    >>> said = [Message("One.", Priority.NORMAL, "answer"), Message("Two.", Priority.NORMAL, "answer")]
    >>> cursor, words = step_history(narrator, said, None, -1)
    >>> cursor, [m.text for m in words]
    (0, ['Message 1 of 2: One.'])
    >>> [m.text for m in step_history(narrator, said, cursor, -1)[1]][0]
    'That is the first message.'
    """
    if not history:
        return cursor, [narrator.say("answer", "nothing_to_repeat")]
    last = len(history) - 1
    target = (last if cursor is None else cursor) + step
    words: list[Message] = []
    if target < 0:
        words.append(narrator.say("answer", "history_start"))
        target = 0
    elif target > last:
        words.append(narrator.say("answer", "history_end"))
        target = last
    words.append(narrator.say("answer", "history_item", index=target + 1, total=last + 1,
                              text=history[target].text))
    return target, words
