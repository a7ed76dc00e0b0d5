"""Where voice-rang keeps its files: the XDG base directory specification.

A variable that is unset, empty or not an absolute path is ignored, as the specification asks,
and the default under the home directory is used.

>>> import os
>>> os.environ["XDG_CACHE_HOME"] = "relative/is/ignored"
>>> base_dir("XDG_CACHE_HOME", ".cache") == Path.home() / ".cache" / "voice-rang"
True
>>> del os.environ["XDG_CACHE_HOME"]
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["base_dir"]


def base_dir(variable: str, *default: str) -> Path:
    """``$variable/voice-rang``, or ``~/<default…>/voice-rang`` when it is not an absolute path."""
    base = os.environ.get(variable, "")
    root = Path(base) if os.path.isabs(base) else Path.home().joinpath(*default)
    return root / "voice-rang"
