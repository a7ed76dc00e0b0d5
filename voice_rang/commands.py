"""Command ids and the words for them, shared by the keyboard and the voice.

Every source of input (a key, a typed line, a recognised utterance, a computer
seat, the auto-reveal timer) ends up as one :class:`Command` id. The phrases come
from ``prompts/<lang>.toml`` so that typing and speaking accept the same words, less
the few that are typed only (:meth:`CommandSet.spoken`): short words that everyday
talk is heard as too often to listen for.

>>> commands = CommandSet.load("en")
>>> commands.parse("Auto-reveal ON")
'auto-reveal on'
>>> commands.parse("dance") is None
True
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from .prompts import load_prompts

__all__ = ["AUTO_REVEAL_COMMANDS", "COMMAND_IDS", "KEYED_ONLY_IDS", "UNKNOWN_INPUT", "CommandSet",
           "auto_reveal_wanted", "normalize"]

COMMAND_IDS = (
    "turn",
    "auto-reveal on",
    "auto-reveal off",
    "repeat",
    "status",
    "help",
    "history back",
    "history forward",
    "quit",
    "yes",
    "no",
    "new game",
    "faster",
    "slower",
    "verbosity brief",
    "verbosity normal",
    "verbosity full",
    "stop",
)
"""Every command the table understands and listens for. The table also takes ``sounds on`` and
``sounds off`` (typed or keyed only: ``[listen] typed_commands``), and keys may map to
``auto-reveal toggle``, ``verbosity cycle`` and ``sounds toggle``, which the table resolves
against the current setting."""


KEYED_ONLY_IDS = frozenset({"auto-reveal toggle", "verbosity cycle", "sounds toggle"})
"""Ids that only keys give: no phrase of any language is one."""


UNKNOWN_INPUT = "\x00not a command"
"""What a reader delivers for a typed line that would otherwise be taken for what it is not: the
spelling of an id only keys give (``sounds toggle``, which would act, in English whatever the
player's language) or of the queue's own markers. The table answers it with "not a command"."""


AUTO_REVEAL_COMMANDS = frozenset({"auto-reveal on", "auto-reveal off", "auto-reveal toggle"})
"""The commands that set a seat's auto-reveal."""


def auto_reveal_wanted(command: str, now: bool) -> bool:
    """The auto-reveal an :data:`AUTO_REVEAL_COMMANDS` command asks for, given the setting ``now``
    (what a wish kept before the deal resolves to, on a guest's device or at the host).

    >>> auto_reveal_wanted("auto-reveal toggle", False), auto_reveal_wanted("auto-reveal off", True)
    (True, False)
    """
    return not now if command == "auto-reveal toggle" else command.endswith("on")


def normalize(text: str) -> str:
    """Lower-case words separated by single spaces: hyphens and punctuation dropped.

    Letters, combining marks and digits of any script are kept (a Bengali word's vowel signs
    are marks, not letters), so a phrase in any language compares as typed.

    >>> normalize("  Auto-Reveal, on! ")
    'auto reveal on'
    >>> normalize("চাল দাও।")
    'চাল দাও'
    """
    kept = (ch if ch == "'" or unicodedata.category(ch)[0] in "LMN" else " " for ch in text.lower())
    return " ".join("".join(kept).split())


@dataclass(frozen=True)
class CommandSet:
    """The phrases of one language, indexed both ways."""

    phrases: dict[str, list[str]]
    keys: dict[str, str]
    typed_only: frozenset[str] = frozenset()

    @classmethod
    def load(cls, language: str = "en") -> CommandSet:
        prompts = load_prompts(language)
        return cls(phrases=prompts.commands, keys=prompts.keys, typed_only=prompts.typed_only)

    def __post_init__(self) -> None:
        lookup: dict[str, str] = {}
        for command, phrases in self.phrases.items():
            lookup[normalize(command)] = command
            for phrase in phrases:
                lookup[normalize(phrase)] = command
        object.__setattr__(self, "_lookup", lookup)

    def become(self, other: CommandSet) -> None:
        """Take ``other``'s phrases and keys in place: a ``join`` guest learns which game the host
        plays only from its welcome, and the readers already holding this set read with the game's
        words and keys from then on.

        >>> commands = CommandSet.load("en")
        >>> commands.become(CommandSet(phrases={"hand": ["my hand"]}, keys={"left": "hand previous"}))
        >>> commands.parse("my hand"), commands.keys["left"], commands.parse("turn")
        ('hand', 'hand previous', None)
        """
        # New objects, not the old ones emptied: those may be the cached prompts' own.
        for name in ("phrases", "keys", "typed_only", "_lookup"):
            object.__setattr__(self, name, getattr(other, name))

    def parse(self, text: str) -> str | None:
        """The command a typed or recognised line means, or ``None``."""
        lookup: dict[str, str] = getattr(self, "_lookup")  # noqa: B009
        return lookup.get(normalize(text))

    def as_typed(self, text: str) -> str:
        """What a typed line or an unmapped key is delivered as: its command id; else the text
        itself (the host's lobby listens for its start words in it), unless the text could pass for
        something it is not (:data:`UNKNOWN_INPUT`).

        >>> commands = CommandSet.load("en")
        >>> commands.as_typed("Turn"), commands.as_typed("start")
        ('turn', 'start')
        >>> commands.as_typed("sounds toggle") == commands.as_typed("\\x00input ended") == UNKNOWN_INPUT
        True
        """
        command = self.parse(text)
        if command is not None:
            return command
        if text.startswith("\x00") or text in KEYED_ONLY_IDS:
            return UNKNOWN_INPUT
        return text

    def spoken(self) -> dict[str, list[str]]:
        """The phrases listened for: all but the typed-only ones. A command with no phrase left
        (typed or keyed only, such as ``sounds on``) is not listened for at all.

        >>> spoken = CommandSet.load("en").spoken()
        >>> "exit" in spoken["quit"], "quit" in spoken["quit"], "sounds on" in spoken
        (False, True, False)
        """
        listened = {command: [p for p in phrases if p not in self.typed_only]
                    for command, phrases in self.phrases.items()}
        return {command: phrases for command, phrases in listened.items() if phrases}

    def suggestion(self, command: str) -> str:
        """The phrase to suggest for a command (its first)."""
        return self.phrases[command][0]

    def asked_as(self, command: str, heard: str) -> str:
        """How "Did you say …?" names ``command``: the words heard when they are one of its
        phrases, else its suggested phrase. A player asked about "[don't]" cannot know what a yes
        would do; asked about "turn", they can.

        >>> commands = CommandSet.load("en")
        >>> commands.asked_as("turn", "reveal"), commands.asked_as("turn", "[don't]")
        ('reveal', 'turn')
        >>> commands.asked_as("auto-reveal on", "")
        'auto reveal on'
        """
        if heard and self.parse(heard) == command:
            return heard
        return self.suggestion(command)

    def all_phrases(self) -> dict[str, str]:
        """Every accepted phrase (normalised) mapped to its command id."""
        return dict(getattr(self, "_lookup"))  # noqa: B009
