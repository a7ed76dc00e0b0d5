"""A whole game in Bengali (``--lang bn``): printed in Bengali script, typed in Bengali or English."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from random import Random

import pexpect
from rules_checker import check_file
from test_play import TEXT_ENV, VOICE_RANG

from voice_rang.commands import CommandSet, normalize
from voice_rang.games.rang_milanti import DECK, Card, Game
from voice_rang.games.rang_milanti.narration import RangMilantiNarrator
from voice_rang.prompts import load_prompts, prompts_dir, tomllib

BENGALI = re.compile(r"[\u0980-\u09FF]")
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def english_words_allowed() -> set[str]:
    """Latin-script words a Bengali line may hold: the English commands the voice hears, the
    keys, and the command line to type."""
    words = {word for phrases in CommandSet.load("en").phrases.values() for phrase in phrases
             for word in normalize(phrase).split()}
    words |= {"auto-reveal", "voice-rang", "play", "lang", "bn", "text", "sounds"}
    return words | {key for key in load_prompts("bn").keys if len(key) == 1}


def test_a_bengali_text_game_from_a_pipe_plays_to_the_end_in_bengali(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    result = subprocess.run(
        [VOICE_RANG, "play", "--text", "--lang", "bn", "--seats", "3", "--beat", "0", "--seed", "4",
         "--log", str(log)],
        input="অবস্থা\nসাহায্য\nstatus\nনিজে থেকে চালু\n", capture_output=True, text=True,
        timeout=120, env=TEXT_ENV)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert len(lines) > 50
    allowed = english_words_allowed()
    for line in lines:
        assert BENGALI.search(line), line
        assert not re.search(r"[0-9]", line), line  # numbers in Bengali digits
        stray = [word for word in LATIN_WORD.findall(line) if word.lower() not in allowed]
        assert not stray, (stray, line)
    assert lines[0].startswith("রং মিলান্তির নতুন খেলা: ৩ জন, সবাই ১৭টা করে তাস পেল")
    assert lines[-1].startswith("খেলা শেষ")
    # the Bengali and the English "status" both answered; the help says the voice hears English
    assert sum(line.startswith("৫,০০০-এর মধ্যে") for line in lines) == 2
    assert any("শুধু ইংরেজিতে" in line for line in lines)
    report = check_file(log)
    assert report.violations == [] and report.games == 1


def test_bengali_cards_are_named_as_at_home() -> None:
    top = [Card("QD"), Card("AS")]
    game = Game(2, Random(0), deck=top + [c for c in DECK if c not in top])
    narrator = RangMilantiNarrator.load("bn", seats=2, verbosity="brief")
    first = narrator.event(game.reveal()[0])[0].text
    second = narrator.event(game.reveal()[0])[0].text
    assert first == "তুমি: রুইতনের বিবি, নতুন গাদা। ৫,০০০-এর মধ্যে ১ নম্বর চাল।"
    assert second == "অতিথি ১: ইস্কাবনের টেক্কা, নিচে রুইতনের বিবি, মিলল না। ৫,০০০-এর মধ্যে ২ নম্বর চাল।"
    narrator.sounds = True
    assert narrator.say("answer", "verbosity", level="brief").text == "বিবরণ: সংক্ষেপে।"


def test_bengali_commands_are_typed_in_bengali_or_english_and_heard_in_english() -> None:
    commands = CommandSet.load("bn")
    assert commands.parse("ওল্টাও") == "turn" == commands.parse("turn")
    assert commands.parse("অটো চালু।") == "auto-reveal on"
    assert commands.parse("আওয়াজ বন্ধ") == "sounds off"
    spoken = {phrase for phrases in commands.spoken().values() for phrase in phrases}
    assert spoken and not any(BENGALI.search(phrase) for phrase in spoken)


def test_bengali_has_every_message_english_has() -> None:
    def keys(table: dict[str, object], prefix: str = "") -> set[str]:
        found = set()
        for key, value in table.items():
            if isinstance(value, dict) and not set(value) <= {"you", "other"} and key != "suits":
                found |= keys(value, f"{prefix}{key}.")  # type: ignore[arg-type]
            else:
                found.add(prefix + key)
        return found

    english = load_prompts("en")
    # the file itself, not what it falls back to: every English sentence has its Bengali
    raw = tomllib.loads((prompts_dir() / "bn.toml").read_text(encoding="utf-8"))
    untranslated = sorted(keys(english.messages) - keys(raw["messages"]))
    assert untranslated == [], f"translate into prompts/bn.toml: {untranslated}"
    assert set(english.commands) == set(raw["commands"])
    assert english.keys == raw["keys"]
    assert load_prompts("bn").voice == "bn"


def test_a_message_not_yet_translated_is_said_in_the_fallback_language(tmp_path: Path) -> None:
    (tmp_path / "en.toml").write_text((prompts_dir() / "en.toml").read_text(encoding="utf-8"),
                                      encoding="utf-8")
    (tmp_path / "yy.toml").write_text(
        '[meta]\nfallback = "en"\n[commands]\n"turn" = ["yy turn"]\n'
        '[messages.answer]\nunknown = "yy?"\n', encoding="utf-8")
    prompts = load_prompts("yy", tmp_path)
    assert prompts.messages["answer"]["unknown"] == "yy?"
    assert prompts.messages["answer"]["quit_yes"] == "Goodbye."
    assert prompts.commands["turn"] == ["yy turn"] and prompts.commands["quit"] == ["quit", "exit"]
    assert "exit" in prompts.typed_only


def test_doctor_says_whether_a_bengali_voice_is_installed() -> None:
    result = subprocess.run([VOICE_RANG, "doctor"], capture_output=True, text=True, timeout=60,
                            env={**TEXT_ENV, "PULSE_SERVER": "unix:/nonexistent"})
    assert any(line.startswith(("Bengali voice installed: ", "No Bengali voice installed"))
               for line in result.stdout.splitlines()), result.stdout
    assert "Traceback" not in result.stderr


def test_a_bengali_join_line_keeps_the_address_typeable_and_a_code_typed_in_bengali_digits_is_accepted() -> None:
    from voice_rang.net.server import plain_code

    narrator = RangMilantiNarrator.load("bn", seats=3, listener=0, verbosity="normal", cap=5000,
                             kinds=["person", "computer", "computer"])
    line = narrator.say("net", "join_at", address="http://192.168.1.20:8765", code="4 7 1 9").text
    assert "http://192.168.1.20:8765" in line
    assert "৪ ৭ ১ ৯" in line
    assert plain_code("৪ ৭ ১ ৯") == plain_code("4719") == "4719"


def test_a_bengali_game_is_played_by_keys_in_a_real_terminal(tmp_path: Path) -> None:
    bn = load_prompts("bn").messages
    log = tmp_path / "keys.jsonl"
    child = pexpect.spawn(VOICE_RANG, ["play", "--text", "--lang", "bn", "--no-listen", "--beat", "0",
                                       "--seed", "21", "--log", str(log)],
                          env=TEXT_ENV, encoding="utf-8", timeout=30, dimensions=(40, 200))
    try:
        child.expect_exact(bn["answer"]["which_game"])  # no game named, at a terminal: asked
        child.send("1")
        child.expect_exact(bn["prompt"]["your_turn"])
        child.send(" ")
        child.expect_exact("৫,০০০-এর মধ্যে ১ নম্বর চাল।")
        child.send("a")
        child.expect_exact(bn["answer"]["auto_on"]["you"])
        child.expect_exact(bn["prompt"]["game_over_choices"], timeout=120)
        child.send("q")
        child.expect_exact(bn["answer"]["quit_confirm"])
        child.send("y")
        child.expect_exact(bn["answer"]["quit_yes"])
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    report = check_file(log)
    assert report.violations == [] and report.games == 1
