"""``voice-rang enroll``: takes imported, checked, kept under the data directory, and forgotten."""

from __future__ import annotations

import os
import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest
from speech_samples import synthesize

from voice_rang.cli import main
from voice_rang.listen.personal import PersonalVoice, voice_dir

pytestmark = pytest.mark.skipif(shutil.which("flite") is None, reason="needs flite")


def _wav(path: Path, pcm: bytes) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(b"\0\0" * 4000 + pcm + b"\0\0" * 4000)


def three_takes_each(source: Path, *phrases: str) -> Path:
    """A folder of takes to import: each phrase said by three flite voices, named by its command."""
    source.mkdir()
    for n, voice in enumerate(("kal16", "rms", "awb")):
        for phrase in phrases:
            _wav(source / f"{phrase.replace(' ', '_').replace('auto_reveal', 'auto-reveal')}__{n}.wav",
                 synthesize(phrase, voice))
    return source


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def test_imported_takes_are_checked_kept_used_and_forgotten(tmp_path: Path, data_home: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    source = three_takes_each(tmp_path / "takes", "turn", "auto reveal on")
    quiet = (np.frombuffer(synthesize("help", "rms"), dtype="<i2") // 100).astype("<i2").tobytes()
    _wav(source / "help__quiet.wav", quiet)
    _wav(source / "hello.wav", synthesize("hello", "rms"))
    (source / "stop__broken.wav").write_bytes(b"RIFF nonsense")
    assert main(["enroll", "--text", "--import", str(source)]) == 1
    out = capsys.readouterr().out
    assert "Not a take: hello.wav." in out
    assert "Record help__quiet.wav again: too quiet." in out
    assert "Cannot read stop__broken.wav:" in out
    assert "Took 6 takes of 2 commands" in out
    assert voice_dir() == data_home / "voice-rang" / "voice"
    assert len(list(voice_dir().glob("*.wav"))) == 6
    mine = PersonalVoice.load(known={"turn", "auto-reveal on", "help"})
    assert mine is not None and sorted(set(mine.commands)) == ["auto-reveal on", "turn"]
    assert main(["enroll", "--text", "--forget"]) == 0
    assert "Forgot 6 takes" in capsys.readouterr().out
    assert not list(voice_dir().glob("*.wav"))
    assert main(["enroll", "--text", "--forget"]) == 0
    assert "no takes" in capsys.readouterr().out


def test_importing_from_a_folder_that_is_not_there_is_one_line(tmp_path: Path, data_home: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["enroll", "--text", "--import", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not one" in err[0]
    assert os.environ["XDG_DATA_HOME"] == str(data_home)


def test_importing_from_a_folder_with_no_wav_files_says_how_to_name_them(
        tmp_path: Path, data_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "takes").mkdir()
    (tmp_path / "takes" / "turn.mp3").write_bytes(b"not a wav")
    assert main(["enroll", "--text", "--import", str(tmp_path / "takes")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "found no .wav files" in err[0] and "turn__1.wav" in err[0]


def test_forget_with_anything_else_is_refused_in_one_line_and_deletes_nothing(
        tmp_path: Path, data_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kept = voice_dir() / "turn__take0.wav"
    kept.parent.mkdir(parents=True)
    _wav(kept, synthesize("turn", "rms"))
    for extra in (["--import", str(tmp_path)], ["--only", "turn"]):
        assert main(["enroll", "--text", "--forget", *extra]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--forget" in err[0] and "goes alone" in err[0]
    assert kept.exists()


def test_only_limits_an_import_to_the_commands_it_names(tmp_path: Path, data_home: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    source = three_takes_each(tmp_path / "takes", "turn", "stop")
    assert main(["enroll", "--text", "--only", "stop", "--import", str(source)]) == 0
    assert "Took 3 takes of 1 commands" in capsys.readouterr().out
    assert sorted(path.name.split("__")[0] for path in voice_dir().glob("*.wav")) == ["stop"] * 3


def test_templates_handed_back_from_another_process_match_as_the_takes_did() -> None:
    takes = {"turn": [np.frombuffer(synthesize("turn", v), dtype="<i2") for v in ("kal16", "rms")],
             "help": [np.frombuffer(synthesize("help", v), dtype="<i2") for v in ("kal16", "rms")]}
    original = PersonalVoice(takes)
    rebuilt = PersonalVoice.from_templates(original.templates, original.commands, head=original.head)
    assert rebuilt.commands == original.commands and rebuilt
    said = original.templates[-1]  # a take heard again exactly
    assert rebuilt.match_pooled(said) == original.match_pooled(said)
    assert rebuilt.match_pooled(said).command == original.commands[-1]
    with pytest.raises(ValueError):
        PersonalVoice.from_templates(original.templates, original.commands[1:], head=original.head)


def test_a_relative_data_directory_is_ignored_as_the_xdg_specification_asks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", "relative/is/ignored")
    assert voice_dir() == tmp_path / "home" / ".local" / "share" / "voice-rang" / "voice"


def test_card_words_are_imported_into_their_own_folder_heard_by_court_piece_and_forgotten(
        tmp_path: Path, data_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from speech_samples import espeak, sox, trim

    from voice_rang.listen.card_words import CardWords, card_words_dir

    source = tmp_path / "words"
    source.mkdir()
    for code, text in (("Q", "বিবি"), ("H", "হরতন")):
        for number, tempo in enumerate(("0.9", "1.0", "1.12"), 1):
            _wav(source / f"{code}__{number}.wav", trim(sox(espeak(text, "bn"), "tempo", "-s", tempo)))
    _wav(source / "queen.wav", espeak("বিবি", "bn"))
    assert main(["enroll", "--text", "--cards", "--lang", "bn", "--import", str(source)]) == 1
    out = capsys.readouterr().out
    assert "queen.wav" in out and "Q__a.wav" in out  # not a take, and how to name one
    assert "২টা তাসের শব্দের ৬টা রেকর্ডিং" in out
    assert card_words_dir() == voice_dir() / "cards"
    assert sorted(path.name.split("__")[0] for path in card_words_dir().glob("*.wav")) == ["H"] * 3 + ["Q"] * 3
    assert not list(voice_dir().glob("*.wav"))  # the commands' takes are untouched
    words = CardWords.load()
    assert words is not None and sorted(words.templates) == ["H", "Q"]
    assert main(["enroll", "--text", "--forget"]) == 0
    assert "Forgot 6 takes" in capsys.readouterr().out
    assert CardWords.load() is None


def test_an_unknown_card_word_in_only_is_one_line_naming_the_codes(data_home: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["enroll", "--text", "--cards", "--only", "Q,Z", "--import", str(data_home.parent)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'Z'" in err[0] and "10" in err[0], err


def test_doctor_says_which_card_words_are_kept_and_how_to_teach_the_rest(data_home: Path) -> None:
    from test_play import VOICE_RANG

    from voice_rang.listen.card_words import card_words_dir

    card_words_dir().mkdir(parents=True)
    for name in ("Q__1.wav", "H__1.wav", "notes.txt"):
        (card_words_dir() / name).write_bytes(b"")
    # In a process of its own: doctor opens PortAudio, which a process opens once.
    done = subprocess.run([VOICE_RANG, "doctor"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "XDG_DATA_HOME": str(data_home)})
    lines = [line for line in done.stdout.splitlines() if "card words" in line]
    if not lines:
        pytest.skip("this machine's voice models do not load, so the card words are not reached")
    assert lines[0].startswith("Your own card words for Court Piece: 2 of 21 kept; not yet A,"), lines
    assert "voice-rang enroll --cards --only A,2," in lines[0]
