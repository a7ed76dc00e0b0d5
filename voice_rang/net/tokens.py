"""Seat tokens kept on the guest's machine, so that a guest whose program stopped takes its
seat back by running ``voice-rang join`` again.

One small JSON file under ``$XDG_STATE_HOME/voice-rang`` (``~/.local/state`` by default), keyed
by the host's address and the guest's name (:func:`seat_key`); a token is a random secret the host
gave this seat. Failing to read or write it only means joining afresh.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from ..table.save import state_dir

__all__ = ["forget_token", "load_token", "save_token", "seat_key"]


def seat_key(host: str, port: int, name: str) -> str:
    """Where a seat's token is kept: the host's address and the name the guest gave.

    >>> seat_key("192.168.1.20", 8765, "ann")
    '192.168.1.20:8765/ann'
    """
    return f"{host}:{port}/{name}"


def _host_and_name(key: str) -> tuple[str, str]:
    address, _, name = key.partition("/")
    return address.rpartition(":")[0], name


def _path() -> Path:
    return state_dir() / "seats.json"


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
    """The token kept for ``key``; else the last one kept for the same host and name on another
    port: a host resumed on another ``--port`` knows its guests by the tokens it gave, and a
    resumed game takes no one by its code."""
    data = _read()
    if key in data:
        return data[key]
    wanted = _host_and_name(key)
    return next((token for other, token in reversed(data.items()) if _host_and_name(other) == wanted), None)


def save_token(key: str, token: str) -> None:
    """Keep ``token`` for ``key``, as the last one kept."""
    data = _read()
    if list(data.items())[-1:] != [(key, token)]:
        data.pop(key, None)
        data[key] = token
        _write(data)


def forget_token(key: str) -> None:
    """Forget the token kept for ``key`` (one found for another port stays there: it may be that
    table's seat)."""
    data = _read()
    if data.pop(key, None) is not None:
        _write(data)
