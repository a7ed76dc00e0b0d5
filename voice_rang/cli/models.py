"""One line for a speech model that cannot be used, the same in every sub-command that loads the
listening models (``recognize``, ``enroll``; ``play`` turns the voice off instead)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from . import UsageError

__all__ = ["models_usable"]


@contextmanager
def models_usable() -> Iterator[None]:
    """Turn a damaged command head or a Moonshine model that cannot be prepared into a
    :class:`UsageError` saying what to do."""
    from ..listen.command_head import ModelCorrupt
    from ..listen.moonshine import MoonshineUnavailable

    try:
        yield
    except ModelCorrupt as error:
        raise UsageError(f"{error}; reinstall voice-rang") from None
    except MoonshineUnavailable as error:
        raise UsageError(str(error)) from None
