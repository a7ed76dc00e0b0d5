"""Saving a game after every reveal, and reading it back: exact, atomic, and never half-loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voice_rang.games.rang_milanti import DECK
from voice_rang.table.save import (
    Keeper,
    SavedGame,
    SaveError,
    encode_save,
    read_save,
    save_path,
    state_dir,
    write_save,
)

KINDS = ("person", "computer", "computer")


def played(reveals: int, seed: int = 3) -> tuple[SavedGame, list[object]]:
    """A saved three-seat game after ``reveals`` reveals, and the events still to come."""
    rng = Random(seed)
    recipe = SavedGame.before_deal(rng, kinds=KINDS)
    game = recipe.deal(rng)
    for _ in range(reveals):
        game.reveal()
    saved = recipe.at(game)
    rest: list[object] = []
    while not game.is_over:
        rest += game.reveal()
    return saved, rest


def test_a_restored_game_deals_the_same_cards_to_the_end() -> None:
    saved, rest = played(40)
    game, _ = saved.restore()
    assert game.reveals == 40
    again: list[object] = []
    while not game.is_over:
        again += game.reveal()
    assert again == rest


def test_the_save_lives_in_the_xdg_state_directory(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert save_path("play") == tmp_path / "voice-rang" / "play.json"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/is/ignored")
    assert state_dir() == Path.home() / ".local" / "state" / "voice-rang"


def test_writing_replaces_the_save_whole_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "play.json"
    for reveals in (0, 5, 6):
        write_save(path, played(reveals)[0])
    assert read_save(path).reveals == 6
    assert sorted(os.listdir(tmp_path)) == ["play.json"]


def test_an_explicit_deck_is_saved_too(tmp_path: Path) -> None:
    rng = Random(1)
    deck = tuple(reversed(DECK))
    recipe = SavedGame.before_deal(rng, kinds=KINDS[:2], deck=deck)
    game = recipe.deal(rng)
    game.reveal()
    write_save(tmp_path / "s.json", recipe.at(game))
    assert read_save(tmp_path / "s.json").deck == deck


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_any_damage_to_a_save_is_caught_never_half_loaded(tmp_path_factory: pytest.TempPathFactory,
                                                          data: st.DataObject) -> None:
    saved, _ = played(25)
    good = encode_save(saved)
    damaged = bytearray(good)
    how = data.draw(st.sampled_from(["cut", "flip", "insert"]))
    at = data.draw(st.integers(0, len(good) - 1))
    if how == "cut":
        damaged = damaged[:at]
    elif how == "flip":
        damaged[at] ^= data.draw(st.integers(1, 255))
    else:
        damaged[at:at] = data.draw(st.binary(min_size=1, max_size=8))
    path = tmp_path_factory.mktemp("save") / "play.json"
    path.write_bytes(bytes(damaged))
    try:
        loaded = read_save(path)
    except SaveError as error:
        assert error.problem == "damaged" and "\n" not in error.detail
    else:  # only a change JSON itself ignores (the last newline) may load, and loads exactly
        assert loaded == saved
    assert path.read_bytes() == bytes(damaged)  # reading changes nothing


def test_the_keeper_removes_the_save_when_the_game_ends(tmp_path: Path) -> None:
    path = tmp_path / "play.json"
    keeper = Keeper(path)
    rng = Random(4)
    game = keeper.deal(rng, kinds=KINDS)
    keeper(game)
    assert read_save(path).reveals == 0
    while not game.is_over:
        game.reveal()
        keeper(game)
        assert path.exists() == (not game.is_over)


def test_a_disk_that_refuses_the_save_is_told_once_and_play_goes_on(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    errors: list[OSError] = []
    keeper = Keeper(blocked / "play.json", on_error=errors.append)
    game = keeper.deal(Random(2), kinds=KINDS)
    for _ in range(3):
        keeper(game)
        game.reveal()
    assert len(errors) == 1
    assert keeper.resume_command() is None


def test_the_keeper_names_the_resume_command_only_while_its_save_stands(tmp_path: Path) -> None:
    path = tmp_path / "play.json"
    keeper = Keeper(path, command="voice-rang play --resume")
    game = keeper.deal(Random(4), kinds=KINDS)
    assert keeper.resume_command() is None  # dealt, not yet saved
    keeper(game)
    assert keeper.resume_command() == "voice-rang play --resume"
    while not game.is_over:
        game.reveal()
        keeper(game)
    assert keeper.resume_command() is None and not path.exists()


def test_a_keeper_going_on_with_a_save_names_it_before_it_saves_again(tmp_path: Path) -> None:
    saved, _ = played(5)
    keeper = Keeper(tmp_path / "play.json", command="voice-rang play --resume")
    keeper.go_on(saved)
    assert keeper.resume_command() == "voice-rang play --resume"


def resume(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "voice_rang", "play", "--resume", "--text",
                           "--no-listen"], input="", capture_output=True, text=True, env=env,
                          timeout=60)


def test_resume_without_a_save_says_so_in_one_line(tmp_path: Path) -> None:
    result = resume(tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("There is no saved game to resume")
    assert result.stderr.count("\n") == 1


def test_resume_of_a_damaged_save_names_it_in_one_line_and_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "voice-rang" / "play.json"
    write_save(path, played(10)[0])
    data = path.read_bytes().replace(b'"reveals":10', b'"reveals":11')
    path.write_bytes(data)
    result = resume(tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith(f"The saved game in {path} is damaged (its checksum")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert path.read_bytes() == data
