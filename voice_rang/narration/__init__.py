"""Messages in a language's words for one seat's point of view. Pure: no I/O, no game state of its own.

Each game's own narration (``voice_rang.games.<game>.narration``) builds on :class:`Narrator`."""

from .narrator import VERBOSITIES, Narrator, Verbosity

__all__ = ["VERBOSITIES", "Narrator", "Verbosity"]
