"""One line for a speech model that cannot be used, the same in every sub-command that needs the
command head (``enroll``; ``play`` and ``recognize`` listen with pocketsphinx alone instead)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from . import UsageError

__all__ = ["models_usable"]


@contextmanager
def models_usable(command: str) -> Iterator[None]:
    """A :class:`UsageError` saying what to do, before the work, where the command head cannot
    be had here (its model has no package for this computer); and for a damaged command head or
    a Moonshine model that cannot be prepared, during it."""
    from ..listen.command_head import ModelCorrupt
    from ..listen.moonshine import MoonshineUnavailable
    from ..listen.neural import neural_front_missing

    why = neural_front_missing()
    if why is not None:
        raise UsageError(f"{command} needs the neural command head, and {why}; voice commands "
                         "are heard by pocketsphinx alone here, which takes no enrolled voice")
    try:
        yield
    except ModelCorrupt as error:
        raise UsageError(f"{error}; reinstall voice-rang") from None
    except MoonshineUnavailable as error:
        raise UsageError(str(error)) from None
