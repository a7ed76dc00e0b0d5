"""Which Court Piece is played: the variant, its options and the scoring, as one frozen value.

Every combination the rules page allows can be built; one it does not allow is refused
with a :class:`RulesError` that says what to change, so a table or a command line can
say it in one line.

>>> rules = Rules.make("double-sir", trump="later", goon=10, no_early_late=True)
>>> rules.variant.value, rules.options.trump.value, rules.is_double_sir
('double-sir', 'later', True)
>>> try:
...     Rules.make("court-piece", trump="later")
... except RulesError as error:
...     print(error)
trump 'later' is a Double Sir option; with court-piece choose named, card, hidden or blind
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TypeVar

__all__ = [
    "DEFAULT_DEALS",
    "DEFAULT_TARGET",
    "Options",
    "Rules",
    "RulesError",
    "Scoring",
    "ScoringMode",
    "TrumpMode",
    "Variant",
]

_E = TypeVar("_E", bound=enum.Enum)

DEFAULT_TARGET = 10
DEFAULT_DEALS = 8


class RulesError(ValueError):
    """A variant, option or scoring the rules do not allow together."""


class Variant(enum.Enum):
    """The four games; the value is the log's ``variant``."""

    COURT_PIECE = "court-piece"
    DOUBLE_SIR = "double-sir"
    BE_RANGA = "be-ranga"
    HIDDEN_RUNG = "hidden-rung"


class TrumpMode(enum.Enum):
    """How the trump caller chooses trumps; the value is the log's ``options.trump``."""

    NAMED = "named"
    CARD = "card"
    HIDDEN = "hidden"
    BLIND = "blind"
    LATER = "later"


class ScoringMode(enum.Enum):
    """Points to a target, or courts over a fixed number of deals."""

    POINTS = "points"
    COURTS = "courts"


_TRUMPS_BY_VARIANT = {
    Variant.COURT_PIECE: (TrumpMode.NAMED, TrumpMode.CARD, TrumpMode.HIDDEN, TrumpMode.BLIND),
    Variant.DOUBLE_SIR: (TrumpMode.NAMED, TrumpMode.CARD, TrumpMode.HIDDEN, TrumpMode.BLIND, TrumpMode.LATER),
    Variant.BE_RANGA: (TrumpMode.NAMED,),
    Variant.HIDDEN_RUNG: (TrumpMode.HIDDEN, TrumpMode.BLIND),
}


@dataclass(frozen=True)
class Options:
    """The variant's options, as the log's ``session.options`` lists them."""

    trump: TrumpMode = TrumpMode.NAMED
    redeal: bool = False
    no_early_late: bool = False
    aces_no_collect: bool = False
    goon: int = 3

    def as_log(self) -> dict[str, object]:
        """The options as the log writes them (all five keys, always)."""
        return {
            "trump": self.trump.value,
            "redeal": self.redeal,
            "no-early-late": self.no_early_late,
            "aces-no-collect": self.aces_no_collect,
            "goon": self.goon,
        }


@dataclass(frozen=True)
class Scoring:
    """Points to ``target`` (first team there wins) or courts over ``deals`` deals."""

    mode: ScoringMode = ScoringMode.POINTS
    target: int = DEFAULT_TARGET
    deals: int = DEFAULT_DEALS

    def as_log(self) -> dict[str, object]:
        """The scoring as the log writes it."""
        if self.mode is ScoringMode.POINTS:
            return {"mode": "points", "target": self.target}
        return {"mode": "courts", "deals": self.deals}


@dataclass(frozen=True)
class Rules:
    """A whole game's rules: build with :meth:`make`, which checks the combination."""

    variant: Variant = Variant.COURT_PIECE
    options: Options = field(default_factory=Options)
    scoring: Scoring = field(default_factory=Scoring)

    @property
    def is_double_sir(self) -> bool:
        """The three games where tricks wait in the centre and all 13 are played."""
        return self.variant is not Variant.COURT_PIECE

    @property
    def trump_hidden_at_first(self) -> bool:
        """Whether trumps start face down (hidden or blind)."""
        return self.options.trump in (TrumpMode.HIDDEN, TrumpMode.BLIND)

    @classmethod
    def make(
        cls,
        variant: str | Variant = Variant.COURT_PIECE,
        *,
        trump: str | TrumpMode | None = None,
        redeal: bool = False,
        no_early_late: bool = False,
        aces_no_collect: bool = False,
        goon: int = 3,
        scoring: str | ScoringMode = ScoringMode.POINTS,
        target: int = DEFAULT_TARGET,
        deals: int = DEFAULT_DEALS,
    ) -> Rules:
        """Rules from names as a person types them, refused with a reason when they clash."""
        chosen = _parse(Variant, variant, "variant")
        allowed = _TRUMPS_BY_VARIANT[chosen]
        trump_mode = allowed[0] if trump is None else _parse(TrumpMode, trump, "trump")
        if trump_mode not in allowed:
            names = ", ".join(mode.value for mode in allowed)
            if trump_mode is TrumpMode.LATER:
                raise RulesError(
                    f"trump 'later' is a Double Sir option; with {chosen.value} choose {_or(names)}"
                )
            raise RulesError(f"{chosen.value} takes trump {_or(names)}, not {trump_mode.value!r}")
        if chosen is Variant.COURT_PIECE:
            for name, value in (("no-early-late", no_early_late), ("aces-no-collect", aces_no_collect)):
                if value:
                    raise RulesError(f"{name} is a Double Sir option; choose --variant double-sir")
            if goon != 3:
                raise RulesError("a goon court counts differently only in Double Sir; choose --variant double-sir")
        if goon not in (3, 10):
            raise RulesError(f"a goon court counts 3 or 10 courts, not {goon}")
        if redeal and chosen is Variant.BE_RANGA:
            raise RulesError("be-ranga deals all thirteen cards at once, so there is no redeal")
        if redeal and trump_mode is TrumpMode.BLIND:
            raise RulesError("with a blind trump the caller never sees the first five, so there is no redeal")
        mode = _parse(ScoringMode, scoring, "scoring")
        if mode is ScoringMode.POINTS and not 1 <= target <= 1000:
            raise RulesError(f"the target must be 1 to 1000 points, not {target}")
        if mode is ScoringMode.COURTS and not 1 <= deals <= 1000:
            raise RulesError(f"a session of courts is 1 to 1000 deals, not {deals}")
        return cls(
            chosen,
            Options(trump_mode, redeal, no_early_late, aces_no_collect, goon),
            Scoring(mode, target, deals),
        )


def _parse(kind: type[_E], value: object, what: str) -> _E:
    if isinstance(value, kind):
        return value
    text = str(value).strip().lower().replace("_", "-").replace(" ", "-")
    for member in kind:
        if member.value == text:
            return member
    names = ", ".join(member.value for member in kind)
    raise RulesError(f"{what} must be one of {names}, not {value!r}")


def _or(names: str) -> str:
    head, _, last = names.rpartition(", ")
    return f"{head} or {last}" if head else last
