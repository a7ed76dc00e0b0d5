"""Messages in the words of ``prompts/<lang>.toml``, for one listener: what every game's narration
and the table's own answers share.

The narrator speaks for one listener: their seat is "you", everyone else is named ("guest 1";
with partners, the seat opposite is "your partner"). With several people at one device there is
no single listener and every seat is named. It fills in any message of the prompts file
(:meth:`Narrator.say`) and words cards and lists; a game's own narration builds on it (Rang
Milanti's :class:`~voice_rang.games.rang_milanti.narration.RangMilantiNarrator`, Court Piece's
:class:`~voice_rang.games.court_piece.narration.CourtPieceNarration`).

>>> from voice_rang.cards import Card
>>> narrator = Narrator.load("en", seats=4, partners=True)
>>> narrator.seat_name(2), narrator.seat_name(1), narrator.card(Card("QD"))
('your partner', 'guest 1', 'the queen of diamonds')
>>> narrator.say("answer", "unknown").text
'Not a command; say help.'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from ..cards import Card
from ..messages import Message, Priority
from ..prompts import Prompts, load_prompts

__all__ = ["VERBOSITIES", "Narrator", "Verbosity"]

VERBATIM_FIELDS = frozenset({"address", "path", "file", "directory", "command"})
"""Fields that are typed back or copied (a web address, a file name, a command line): kept
exactly as they are, never put into a language's own digits."""
_VERBATIM_START, _VERBATIM_END = "\x02", "\x03"

Verbosity = Literal["brief", "normal", "full"]
VERBOSITIES: tuple[Verbosity, ...] = ("brief", "normal", "full")

_ANSWER_CUES = {
    ("answer", "not_caught"): "not caught",
    ("answer", "too_noisy"): "not caught",
    ("prompt", "listening"): "listening on",
    ("answer", "voice_off"): "listening off",
}
"""Table messages that come with a sound when sounds are on."""


N = TypeVar("N", bound="Narrator")


@dataclass
class Narrator:
    """Messages for one listener (``listener=None``: every seat named, for shared devices)."""

    prompts: Prompts
    seats: int
    listener: int | None = 0
    verbosity: Verbosity = "normal"
    kinds: Sequence[str] = field(default_factory=tuple)
    """Per seat, ``"person"`` or ``"computer"``; only used to introduce the table."""
    partners: bool = False
    """Partners sit opposite (Court Piece): the listener's partner is "your partner", not a seat name."""
    sounds: bool = False
    """Sound cues on: messages carry a ``cue`` (a game's narration may then say less, the sound
    saying the rest)."""

    @classmethod
    def load(cls: type[N], language: str = "en", **options: Any) -> N:
        """A narrator in ``language``'s words (a game's narrator, called on its class, is that class)."""
        return cls(prompts=load_prompts(language), **options)

    # ----- words ---------------------------------------------------------------------------

    @property
    def _words(self) -> dict[str, Any]:
        words: dict[str, Any] = self.prompts.messages["words"]
        return words

    def _template(self, section: str, key: str, seat: int | None = None) -> str:
        """A template; ``you``/``other`` variants are chosen by whether ``seat`` is the listener's."""
        value: Any = self.prompts.messages
        for part in (*section.split("."), *key.split(".")):
            value = value[part]
        if isinstance(value, dict):
            value = value["you" if seat is not None and seat == self.listener else "other"]
        return str(value)

    def seat_name(self, seat: int) -> str:
        """"you", "the host" or "guest 2", lower case as it stands inside a sentence."""
        if seat == self.listener:
            return str(self._words["seat_you"])
        if self._is_partner(seat):
            return str(self._words["seat_partner"])
        if seat == 0:
            return str(self._words["seat_host"])
        return str(self._words["seat_guest"]).format(number=seat)

    def _is_partner(self, seat: int) -> bool:
        return self.partners and self.listener is not None and seat == (self.listener + self.seats // 2) % self.seats

    def possessive(self, seat: int) -> str:
        if seat == self.listener:
            return str(self._words["possessive_you"])
        if self._is_partner(seat) and "possessive_partner" in self._words:
            return str(self._words["possessive_partner"])
        if seat == 0 and "possessive_host" in self._words:
            return str(self._words["possessive_host"])  # a language whose ending joins the word
        return str(self._words["possessive_other"]).format(name=self.seat_name(seat))

    def card(self, card: Card) -> str:
        """A card in words: "the queen of diamonds"."""
        words = self._words
        return str(words["card"]).format(
            rank=words["ranks"][card.rank - 1], suit=words["suits"][card.suit.value]
        )

    def suit(self, card: Card) -> str:
        return str(self._words["suits"][card.suit.value])

    def join(self, items: Sequence[str]) -> str:
        """A list in words: "a, b and c"."""
        if len(items) <= 1:
            return "".join(items)
        separator = str(self._words["list_separator"])
        return f"{separator.join(items[:-1])} {self._words['and']} {items[-1]}"

    def _fields(self, seat: int | None = None, **extra: Any) -> dict[str, Any]:
        fields: dict[str, Any] = dict(extra)
        levels = self._words.get("levels")
        if isinstance(levels, dict) and fields.get("level") in levels:
            fields["level"] = levels[fields["level"]]  # a verbosity's name in the language
        if seat is not None:
            who, whose = self.seat_name(seat), self.possessive(seat)
            fields.update(who=who, Who=_capital(who), whose=whose, Whose=_capital(whose))
        return fields

    def say(
        self,
        section: str,
        key: str,
        seat: int | None = None,
        priority: Priority = Priority.URGENT,
        kind: str = "answer",
        **extra: Any,
    ) -> Message:
        """Any message of the prompts file, filled in; answers to commands are urgent by default."""
        extra = {name: f"{_VERBATIM_START}{value}{_VERBATIM_END}" if name in VERBATIM_FIELDS else value
                 for name, value in extra.items()}
        text = self._template(section, key, seat).format(**self._fields(seat, **extra))
        cue = _ANSWER_CUES.get((section, key), "") if self.sounds else ""
        return Message(self._finish(text), priority, kind, cue)

    def _finish(self, text: str) -> str:
        """A sentence as said: capital first letter, digits in the language's own
        (``[messages.words] digits``, ten characters, when the language has them)."""
        digits = self._words.get("digits")
        parts = text.split(_VERBATIM_START)
        if digits:
            native = str.maketrans("0123456789", str(digits))
            parts = [parts[0].translate(native)] + [
                kept + rest.translate(native)
                for kept, _, rest in (part.partition(_VERBATIM_END) for part in parts[1:])]
        return _capital("".join(parts).replace(_VERBATIM_END, ""))


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
