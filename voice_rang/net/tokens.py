"""Seat tokens kept on the guest's machine, so that a guest whose program stopped takes its
seat back by running ``voice-rang join`` again.

One small JSON file under ``$XDG_STATE_HOME/voice-rang`` (``~/.local/state`` by default), keyed
by the host's address and the guest's name; a token is a random secret the host gave this seat.
Failing to read or write it only means joining afresh.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

__all__ = ["forget_token", "load_token", "save_token"]


def _path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "voice-rang" / "seats.json"


def _read() -> dict[str, str]:
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write(data: dict[str, str]) -> None:
    path = _path()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(data), encoding="utf-8")
        os.chmod(temporary, 0o600)
        temporary.replace(path)


def load_token(key: str) -> str | None:
    return _read().get(key)


def save_token(key: str, token: str) -> None:
    data = _read()
    if data.get(key) != token:
        data[key] = token
        _write(data)


def forget_token(key: str) -> None:
    data = _read()
    if data.pop(key, None) is not None:
        _write(data)
