"""A session as a few hundred bytes of JSON, and back: how it was dealt, and every action since.

The recipe is the rules, who sits where, the session's number and the state of the random
generator just before the session was made; replaying the actions through the pure engine
rebuilds every hand, trick and score, and leaves the generator where it was, so the deals still
to come are the very same. Nothing of the engine is pickled.

>>> from random import Random
>>> rng = Random(4)
>>> recipe = Recipe.before(Rules.make("double-sir"), rng, players=("person", "easy", "easy", "easy"))
>>> session = recipe.session(rng)
>>> _ = session.start()
>>> _ = session.apply(session.caller, session.view(session.caller).legal[0])
>>> _, again, _, _ = restore(record(recipe, session))
>>> again.view(1) == session.view(1)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random
from typing import Any

from .actions import Refused, action_from_data, action_to_data
from .events import Event
from .rules import Rules, RulesError
from .session import Session

__all__ = ["Recipe", "record", "restore"]


@dataclass(frozen=True)
class Recipe:
    """How a session was made: replayed with its actions, it is the session again."""

    rules: Rules
    players: tuple[str, ...]
    number: int
    rng_state: tuple[Any, ...]

    @classmethod
    def before(cls, rules: Rules, rng: Random, *, players: tuple[str, ...], number: int = 0) -> Recipe:
        """The recipe of the session about to be made from ``rng`` (call it, then :meth:`session`)."""
        return cls(rules, players, number, rng.getstate())

    def session(self, rng: Random) -> Session:
        """The session this recipe makes, from ``rng`` in the state :meth:`before` saw."""
        return Session(self.rules, rng, players=self.players, number=self.number)


def record(recipe: Recipe, session: Session) -> dict[str, Any]:
    """The recipe and the session's actions as plain JSON data."""
    version, internal, gauss = recipe.rng_state
    rules = recipe.rules
    return {
        "variant": rules.variant.value,
        "options": rules.options.as_log(),
        "scoring": rules.scoring.as_log(),
        "players": list(recipe.players),
        "number": recipe.number,
        "rng": [int(version), [int(word) for word in internal], gauss],
        "actions": [[seat, action_to_data(action)] for seat, action in session.actions],
    }


def restore(data: dict[str, Any]) -> tuple[Recipe, Session, Random, list[Event]]:
    """The recipe, the session as it stood, its generator (later sessions draw from it) and every
    event so far; ``ValueError`` (what is wrong) for data that is not a session this engine replays."""
    try:
        options = data["options"]
        scoring = data["scoring"]
        rules = Rules.make(
            data["variant"], trump=options["trump"], redeal=options["redeal"],
            no_early_late=options["no-early-late"], aces_no_collect=options["aces-no-collect"],
            goon=options["goon"], scoring=scoring["mode"], target=scoring.get("target", 10),
            deals=scoring.get("deals", 8),
        )
        version, internal, gauss = data["rng"]
        rng_state = (int(version), tuple(int(word) for word in internal), gauss)
        recipe = Recipe(rules, tuple(str(player) for player in data["players"]), int(data["number"]), rng_state)
        rng = Random()
        rng.setstate(recipe.rng_state)
        session = recipe.session(rng)
        events = session.start()
        for seat, action in data["actions"]:
            events += session.apply(int(seat), action_from_data(action))
    except (KeyError, TypeError, IndexError, RulesError) as error:
        raise ValueError(f"not a saved session ({error})") from None
    except (Refused, ValueError, RuntimeError) as error:  # not a record this engine replays
        raise ValueError(f"it does not replay ({error})") from None
    if session.is_over:
        raise ValueError("the saved session is already over")
    return recipe, session, rng, events
