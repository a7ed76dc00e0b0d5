"""Seat tokens on the guest's machine: found again for the same host and name, whatever the port."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voice_rang.net.tokens import forget_token, load_token, save_token, seat_key


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return tmp_path


def test_a_token_kept_for_one_port_is_found_for_the_same_host_and_name_on_another() -> None:
    save_token(seat_key("192.168.1.20", 8765, "ann"), "a" * 24)
    assert load_token(seat_key("192.168.1.20", 8766, "ann")) == "a" * 24
    assert load_token(seat_key("192.168.1.20", 8766, "bo")) is None
    assert load_token(seat_key("192.168.1.21", 8765, "ann")) is None


def test_the_port_asked_for_comes_first_and_otherwise_the_last_token_kept() -> None:
    save_token(seat_key("::1", 8765, "ann"), "a" * 24)
    save_token(seat_key("::1", 8000, "ann"), "b" * 24)
    assert load_token(seat_key("::1", 8765, "ann")) == "a" * 24
    assert load_token(seat_key("::1", 9000, "ann")) == "b" * 24
    save_token(seat_key("::1", 8765, "ann"), "a" * 24)  # used again: now the last one kept
    assert load_token(seat_key("::1", 9000, "ann")) == "a" * 24


def test_forgetting_a_ports_token_keeps_the_one_found_for_another_port() -> None:
    """A guest at two tables on one host under one name: the fallback sent one table's token to
    the other, which did not know it; that table's seat must not be lost."""
    save_token(seat_key("10.0.0.2", 8765, "ann"), "a" * 24)
    save_token(seat_key("10.0.0.2", 9000, "ann"), "b" * 24)
    forget_token(seat_key("10.0.0.2", 9000, "ann"))
    assert load_token(seat_key("10.0.0.2", 8765, "ann")) == "a" * 24
    forget_token(seat_key("10.0.0.2", 7000, "ann"))  # nothing kept for it: nothing changes
    assert load_token(seat_key("10.0.0.2", 7000, "ann")) == "a" * 24


@given(st.binary(max_size=200))
def test_a_damaged_token_file_only_means_joining_afresh(junk: bytes) -> None:
    path = Path(os.environ["XDG_STATE_HOME"]) / "voice-rang" / "seats.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(junk)
    found = load_token(seat_key("10.0.0.2", 8765, "ann"))
    assert found is None or isinstance(found, str)


def test_a_relative_state_directory_is_ignored_as_the_xdg_specification_asks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", "relative/is/ignored")
    monkeypatch.chdir(tmp_path)
    key = seat_key("127.0.0.1", 4000, "Ann")
    save_token(key, "secret")
    assert (tmp_path / "home" / ".local" / "state" / "voice-rang" / "seats.json").is_file()
    assert not (tmp_path / "relative").exists()
    assert load_token(key) == "secret"
