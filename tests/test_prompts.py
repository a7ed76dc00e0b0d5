"""A second language needs only a new prompts file: proven with a made-up test language."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_play import VOICE_RANG

from voice_rang.commands import COMMAND_IDS, CommandSet, normalize
from voice_rang.prompts import PromptsError, available_languages, load_prompts, packaged_prompts, prompts_dir


def to_toml(table: dict[str, Any], prefix: str = "") -> str:
    """Just enough TOML for a prompts file: strings, lists of strings, nested tables."""
    lines, nested = [], []
    for key, value in table.items():
        quoted = json.dumps(key)
        if isinstance(value, dict):
            nested.append((f"{prefix}.{quoted}" if prefix else quoted, value))
        else:
            lines.append(f"{quoted} = {json.dumps(value, ensure_ascii=False)}")
    text = (f"[{prefix}]\n" if prefix else "") + "\n".join(lines) + "\n"
    return text + "".join(to_toml(value, name) for name, value in nested)


def mark(value: Any) -> Any:
    """Wrap every sentence in ⟦ ⟧ so a line that did not come from the file stands out."""
    if isinstance(value, str):
        return f"⟦{value}⟧"
    if isinstance(value, list):
        return [mark(item) for item in value]
    return {key: mark(item) for key, item in value.items()}


@pytest.fixture
def test_language(tmp_path: Path) -> Path:
    english = load_prompts("en")
    messages = dict(english.messages)
    words = dict(messages.pop("words"))
    messages = mark(messages)
    words = {key: (mark(value) if key in ("on", "off") else value) for key, value in words.items()}
    messages["words"] = words
    data = {
        "meta": {"language": "xx", "name": "Test language"},
        "commands": {command: [f"xx {phrase}" for phrase in phrases] for command, phrases in english.commands.items()},
        "keys": english.keys,
        "messages": messages,
    }
    (tmp_path / "xx.toml").write_text(to_toml(data), encoding="utf-8")
    return tmp_path


def test_english_prompts_have_phrases_for_every_command() -> None:
    commands = CommandSet.load("en")
    assert set(COMMAND_IDS) <= set(commands.phrases)
    assert commands.parse("auto reveal on") == "auto-reveal on"


def test_a_new_language_file_is_all_it_takes_to_play_in_that_language(test_language: Path) -> None:
    env = {**os.environ, "VOICE_RANG_PROMPTS": str(test_language)}
    result = subprocess.run([VOICE_RANG, "play", "--text", "--lang", "xx", "--beat", "0", "--seed", "1"],
                            input="xx auto on\nturn card\n", capture_output=True, text=True, env=env,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) > 50
    assert all(line.startswith("⟦") and line.endswith("⟧") for line in lines), [
        line for line in lines if not line.startswith("⟦")
    ][:3]
    # The test language's phrase switched auto-reveal on; an English phrase means nothing in it.
    assert sum("Not a command" in line for line in lines) == 1


def test_missing_and_broken_prompts_files_give_a_clear_reason(tmp_path: Path) -> None:
    with pytest.raises(PromptsError, match="no prompts for language 'qq'"):
        load_prompts("qq", tmp_path)
    (tmp_path / "bad.toml").write_text("[commands\n", encoding="utf-8")
    with pytest.raises(PromptsError, match=r"bad\.toml is not valid TOML"):
        load_prompts("bad", tmp_path)


def test_typed_only_phrases_are_typed_but_not_listened_for() -> None:
    commands = CommandSet.load("en")
    spoken = commands.spoken()
    for phrase in ("exit", "flip", "back", "quiet", "auto on", "auto off"):
        assert commands.parse(phrase) is not None
        assert all(phrase not in phrases for phrases in spoken.values()), phrase
    assert all(spoken[command] for command in COMMAND_IDS)
    assert spoken["quit"] == ["quit"]


def test_every_phrase_the_help_suggests_saying_is_listened_for() -> None:
    """ "You can say: …" must name phrases the recogniser hears: not a typed-only alias, not a
    bare prefix. A short item finishes the last longer one: "auto-reveal on or off"."""
    spoken = {normalize(p) for phrases in CommandSet.load("en").spoken().values() for p in phrases}
    help_messages = load_prompts("en").messages["help"]
    for key in ("now_turn", "now_waiting", "now_over"):
        listed = help_messages[key].split("You can say: ", 1)[1].rstrip(".")
        head: list[str] = []
        for item in re.split(r", | or ", listed):
            words = normalize(item).split()
            said = " ".join(words) if " ".join(words) in spoken else " ".join(head + words)
            assert said in spoken, (key, item)
            if len(words) > 1:
                head = words[:-1]


@pytest.mark.parametrize(("typed_only", "reason"), [
    ('"exit"', "is a list of command phrases"),
    ('["leave"]', "names 'leave', which is not a phrase in \\[commands\\]"),
    ('["quit", "exit"]', "leaves 'quit' with no phrase to say"),
])
def test_a_typed_only_list_that_cannot_work_is_refused_with_the_reason(
        tmp_path: Path, typed_only: str, reason: str) -> None:
    (tmp_path / "zz.toml").write_text(
        f'[commands]\n"quit" = ["quit", "exit"]\n"turn" = ["turn"]\n'
        f'[listen]\ntyped_only = {typed_only}\n', encoding="utf-8")
    with pytest.raises(PromptsError, match=f"zz.toml: \\[listen\\] typed_only {reason}"):
        load_prompts("zz", tmp_path)


def test_the_prompts_are_package_data_and_a_folder_of_ones_own_overrides_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert (prompts_dir() / "en.toml").is_file()
    assert available_languages() == available_languages(packaged_prompts())
    assert {"en", "bn"} <= set(available_languages())
    (tmp_path / "zz.toml").write_text('[commands]\n"turn" = ["turn"]\n', encoding="utf-8")
    monkeypatch.setenv("VOICE_RANG_PROMPTS", str(tmp_path))
    assert prompts_dir() == tmp_path and available_languages() == ["zz"]
