"""Models that registry wheels ship: where a wheel's files are, and where they are made ready.

A model is made ready once (converted, or joined from parts) into the user's cache, in a folder
named by a hash of the wheel's files it was made from, so a new or changed wheel is made ready
afresh and nothing else is ever downloaded.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterable
from pathlib import Path

from ..xdg import base_dir

__all__ = ["cache_dir", "files_digest", "package_folder"]


def package_folder(package: str) -> Path | None:
    """The installed ``package``'s folder, found without importing it; ``None`` if not installed."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def cache_dir() -> Path:
    """Where models made ready are kept (XDG base directory specification)."""
    return base_dir("XDG_CACHE_HOME", ".cache")


def files_digest(paths: Iterable[Path]) -> str:
    """A short hash of the files' whole contents, in the order given."""
    hashed = hashlib.sha256()
    for path in paths:
        with path.open("rb") as source:
            for block in iter(lambda: source.read(1 << 22), b""):
                hashed.update(block)
    return hashed.hexdigest()[:16]
