"""The command head: the released weights, checked by their hash, heard on real synthetic speech,
and the recipe that makes them, run on a tiny set."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from small_heads import small_head
from speech_samples import synthesize

from voice_rang.commands import CommandSet
from voice_rang.listen.command_head import (
    FRONT_EMBEDDING,
    FRONT_MOONSHINE,
    HEARS_GIVEN,
    HEARS_SUPPRESSED,
    WEIGHTS_SHA256,
    CommandHead,
    ModelCorrupt,
)
from voice_rang.listen.front import MOONSHINE_BINS
from voice_rang.listen.neural import NeuralRecognizer
from voice_rang.listen.recognizer import decode_pcm, summarize

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "voice_rang" / "listen" / "models" / "command_head.npz"


def test_the_released_weights_are_small_and_the_ones_the_hash_names() -> None:
    head = CommandHead.released()
    assert MODEL.stat().st_size < 2_000_000
    assert "" in head.labels and "turn" in head.labels
    assert 0.0 < head.ask <= head.accept < 1.0
    assert len(WEIGHTS_SHA256) == 64


def test_weights_that_are_not_the_released_ones_are_refused_in_one_sentence(tmp_path: Path) -> None:
    broken = tmp_path / "command_head.npz"
    broken.write_bytes(MODEL.read_bytes()[:-10] + b"0123456789")
    with pytest.raises(ModelCorrupt, match="not the one released"):
        CommandHead(broken, sha256=WEIGHTS_SHA256)
    with pytest.raises(ModelCorrupt, match="cannot be read"):
        CommandHead(tmp_path / "missing.npz", sha256=WEIGHTS_SHA256)


@pytest.mark.skipif(shutil.which("flite") is None, reason="needs flite")
def test_commands_are_heard_and_talk_is_not_through_the_live_path() -> None:
    recognizer = NeuralRecognizer(CommandSet.load("en"))
    silence = b"\0\0" * 8000
    heard = {text: summarize(decode_pcm(recognizer, silence + synthesize(text, "kal16") + silence)).command
             for text in ("turn", "stop", "auto reveal on", "the cat sat on the mat", "seven of clubs")}
    assert heard["turn"] == "turn"
    assert heard["stop"] in ("stop", None)
    assert heard["auto reveal on"] in ("auto-reveal on", None)
    assert heard["the cat sat on the mat"] is None
    assert heard["seven of clubs"] is None


def test_the_released_head_reads_moonshines_encoder_and_runs_in_numpy_on_any_utterance() -> None:
    head = CommandHead.released()
    assert head.front == FRONT_MOONSHINE and head.mean.shape == (416,)
    scores = head.scores(np.zeros((MOONSHINE_BINS, 416), dtype=np.float32))
    assert abs(sum(scores.probabilities) - 1.0) < 1e-5


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("flite") is None,
                    reason="needs espeak-ng and flite")
def test_the_training_recipe_runs_end_to_end_on_a_tiny_set(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="needs the train extra (scripts/dev train)")
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "train_command_head.py"), "--tiny", "--validate",
                          "--front", FRONT_MOONSHINE, "--out", str(tmp_path / "model"),
                          "--work", str(tmp_path / "work")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    summary = json.loads((tmp_path / "model" / "command_head.json").read_text())
    sys.path.insert(0, str(ROOT / "scripts"))
    import command_corpus

    trained = {command_corpus.Voice(*speaker.split(":", 1)) for speaker in summary["train_speakers"]
               if speaker.startswith("espeak:")}
    assert summary["validation_speakers"] and not any(command_corpus.validation(v) for v in trained)
    assert {"right", "wrong", "near", "talk"} <= set(summary["validation"]["clean"])
    head = CommandHead(tmp_path / "model" / "command_head.npz")
    assert head.labels[0] == "" and len(head.labels) == 1 + len(CommandSet.load("en").spoken())
    assert head.front == FRONT_MOONSHINE and summary["values"] == 416, "the released head's recipe"
    assert head.scores(np.zeros((MOONSHINE_BINS, 416), dtype=np.float32)).labels == head.labels


@pytest.mark.parametrize("arch", ["gru", "conv"])
def test_the_numpy_head_computes_what_torch_trained(arch: str) -> None:
    pytest.importorskip("torch", reason="needs the train extra (scripts/dev train)")
    import torch

    sys.path.insert(0, str(ROOT / "scripts"))
    import train_head

    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 20, 96)).astype(np.float32)
    weights: dict[str, np.ndarray] = {"mean": np.zeros(96, np.float32), "std": np.ones(96, np.float32),
                                      "arch": np.array(arch), "members": np.array(2)}
    expected = []
    for member in range(2):
        torch.manual_seed(member)
        model = (train_head.GruHead if arch == "gru" else train_head.ConvHead)(5, 0.2).eval()
        with torch.no_grad():
            expected.append(torch.softmax(model(torch.tensor(x)), dim=1).numpy())
        weights.update({f"m{member}.{name}": value.numpy() for name, value in model.state_dict().items()})
    head = CommandHead.from_weights(weights, ("", "a", "b", "c", "d"))
    got = np.stack([head.probabilities(row) for row in x])
    assert np.allclose(got, np.mean(expected, axis=0), atol=1e-5)
    assert head.pooled(x[0]).shape == ((4 if arch == "gru" else 2) * train_head.CHANNELS * 2,)


def test_merged_heads_average_their_members_each_under_its_own_normalisation() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import merge_heads

    with np.load(MODEL) as data:
        released = {name: data[name] for name in data.files}
    shifted = dict(released, mean=released["mean"] + 0.5, std=released["std"] * 2.0)
    shifted = {name: value * 0.9 if name.endswith("fc2.weight") else value for name, value in shifted.items()}
    merged = merge_heads.merged([released, shifted])
    assert int(merged["members"]) == 6
    labels = tuple(str(x) for x in released["labels"])
    one, other = CommandHead.from_weights(released, labels), CommandHead.from_weights(shifted, labels)
    both = CommandHead.from_weights(merged, labels)
    assert str(merged["front"]) == FRONT_MOONSHINE, "a merged head reads what its heads read"
    rng = np.random.default_rng(3)
    for _ in range(5):
        x = (released["mean"] + rng.standard_normal((MOONSHINE_BINS, 416)) * released["std"]).astype(np.float32)
        np.testing.assert_allclose(both.probabilities(x), (one.probabilities(x) + other.probabilities(x)) / 2,
                                   rtol=1e-5, atol=1e-6)
        assert not np.allclose(one.probabilities(x), other.probabilities(x))
        np.testing.assert_allclose(both.pooled(x), np.concatenate([one.pooled(x), other.pooled(x)]), rtol=1e-5)
    with pytest.raises(ValueError, match="same labels"):
        merge_heads.merged([released, dict(released, labels=released["labels"][::-1])])
    with pytest.raises(ValueError, match="same sound"):
        merge_heads.merged([released, {k: v for k, v in released.items() if k != "front"}])


def test_recorded_music_is_heard_only_where_asked_and_leaves_the_main_takes_as_they_were() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import augment

    rng = np.random.default_rng(7)
    speech = (np.sin(np.arange(8000) / 5) * 3000).astype(np.float32)
    track = (np.sin(np.arange(64000) / 3.0) * 1000).astype(np.float32)
    plain = augment.condition(np.random.default_rng(1), speech, [], clean_share=0.0)
    given = augment.condition(np.random.default_rng(1), speech, [], clean_share=0.0, tracks=[track])
    assert np.array_equal(plain[0], given[0]) and plain[1] == given[1]
    for seed in range(6):
        _, described = augment.condition(np.random.default_rng(seed), speech, [], clean_share=0.0,
                                         noises=(augment.RADIO,), tracks=[track])
        assert "radio" in described
    ramp = np.arange(1, 64001, dtype=np.float32)  # each sample says where in the track it is
    piece = augment.recorded(rng, 20000, [ramp]).astype(np.float64)
    start = round(float(piece[0] / np.mean(np.diff(piece)))) - 1
    stretch = ramp[start:start + 20000].astype(np.float64)
    assert len(piece) == 20000 and abs(float(np.std(piece)) - 1.0) < 1e-3
    assert np.allclose(piece, stretch / np.std(stretch), rtol=1e-4)


def _pitch_hz(samples: np.ndarray) -> float:
    """The strongest period of a steady voiced sound, by autocorrelation (60-500 Hz)."""
    middle = samples[len(samples) // 4: 3 * len(samples) // 4].astype(np.float64)
    middle -= middle.mean()
    correlation = np.correlate(middle, middle, "full")[len(middle) - 1:]
    low, high = 16000 // 500, 16000 // 60
    return 16000 / (low + int(np.argmax(correlation[low:high])))


@pytest.mark.skipif(shutil.which("sox") is None, reason="needs sox")
def test_another_speaker_moves_the_pitch_by_the_ratio_it_names_and_keeps_the_pace() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import augment

    t = np.arange(16000) / 16000
    voiced = sum(np.sin(2 * np.pi * 120 * k * t) / k for k in range(1, 12)) * 3000  # 120 Hz, 1 s
    for seed in range(4):
        moved, described = augment.other_speaker(np.random.default_rng(seed), voiced.astype(np.float32))
        ratio = float(described.split("pitch x")[1].split(",")[0])
        assert 0.6 <= ratio <= 2.0
        assert abs(len(moved) - len(voiced)) < 0.02 * len(voiced)
        assert abs(_pitch_hz(moved) / 120 - ratio) < 0.06 * ratio, (described, _pitch_hz(moved))


def test_talk_around_a_command_word_holds_one_and_is_never_a_command_said_alone() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import command_corpus

    phrases = {phrase for _, phrase in command_corpus.command_phrases()}
    words = {word for phrase in phrases for word in phrase.split()}
    lines = command_corpus.command_word_talk(random.Random(5), 300)
    assert all(line not in phrases for line in lines)
    assert all(words & set(line.split()) for line in lines)
    plain = command_corpus.negative_texts(random.Random(1), sentences_n=30)
    more = command_corpus.negative_texts(random.Random(1), sentences_n=30, command_talk_n=20, near_takes=3)
    assert [t for t in more if t[0] == "talk"][:30] == [t for t in plain if t[0] == "talk"]
    near = [t for t in plain if t[0] == "near"]
    assert sum(1 for t in more if t[0] == "near") == 3 * len(near)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")
def test_voices_of_other_languages_are_a_family_of_their_own_and_hold_out_the_same_variants() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import command_corpus

    english = command_corpus.voices(held_out=False)
    more = command_corpus.voices(held_out=False, foreign=("es",))
    foreign = [v for v in more if v not in english]
    assert foreign and all(v.name.startswith("es+") for v in foreign)
    assert {command_corpus.family(v) for v in foreign} == {"espeak-foreign"}
    assert not {v.name.split("+")[1] for v in foreign} & command_corpus.HELD_OUT_VARIANTS
    held = set(command_corpus.voices(held_out=True, foreign=("es",))) - set(command_corpus.voices(held_out=True))
    assert held and {v.name.split("+")[1] for v in held} <= command_corpus.HELD_OUT_VARIANTS


@pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("sox") is None, reason="needs espeak-ng and sox")
def test_a_take_made_twice_with_one_seed_is_the_same_sample_for_sample() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import command_corpus

    voice = command_corpus.Voice("espeak", "en-us+Andy")
    first, second = (command_corpus.synthesize(voice, "auto reveal off", random.Random(5)) for _ in range(2))
    np.testing.assert_array_equal(first, second)


def test_long_real_talk_is_cut_into_pieces_an_endpointer_might_make_and_short_talk_is_kept_whole() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import recordings

    rate = recordings.RATE
    clip = np.arange(10 * rate, dtype=np.float32)
    cut = recordings.pieces(clip, random.Random(3))
    assert len(cut) >= 4 and all(rate // 2 <= len(piece) <= int(2.6 * rate) for piece in cut)
    np.testing.assert_array_equal(np.concatenate(cut), clip[:sum(len(piece) for piece in cut)])
    assert len(clip) - sum(len(piece) for piece in cut) < rate // 2
    short = clip[: 2 * rate]
    assert [len(piece) for piece in recordings.pieces(short, random.Random(3))] == [2 * rate]


def test_diphone_voices_train_only_when_asked_and_their_held_out_speakers_never_train() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import command_corpus

    diphone_engines = {"mbrola", "pico"}
    plain = command_corpus.voices(held_out=False)
    assert not {v.engine for v in plain} & diphone_engines
    assert not {v.name for v in plain} & set(command_corpus.MORE_FESTIVAL_VOICES)
    training = command_corpus.voices(held_out=False, diphone=True)
    held = command_corpus.voices(held_out=True, diphone=True)
    assert set(plain) <= set(training)
    assert not {v.speaker for v in training} & {v.speaker for v in held}
    assert not {v.name for v in training if v.engine == "mbrola"} & command_corpus.HELD_OUT_MBROLA
    assert not {v.name for v in training if v.engine == "pico"} & command_corpus.HELD_OUT_PICO
    assert set(command_corpus.voices(held_out=True)) == set(held)


@pytest.mark.skipif(shutil.which("pico2wave") is None or not Path("/usr/share/mbrola/us1/us1").exists(),
                    reason="needs the diphone voices (scripts/dev voices)")
def test_mbrola_and_pico_voices_say_a_command_at_the_rate_and_pitch_drawn() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import command_corpus

    for voice in (command_corpus.Voice("mbrola", "us1"), command_corpus.Voice("pico", "en-US")):
        takes = [command_corpus.synthesize(voice, "auto reveal off", random.Random(seed)) for seed in (1, 2, 3)]
        assert all(0.6 * 16000 < len(take) < 3.0 * 16000 and take.std() > 300 for take in takes)
        assert len({len(take) for take in takes}) == 3


@pytest.mark.skipif(shutil.which("RHVoice-test") is None, reason="needs RHVoice's English voices (scripts/dev voices)")
def test_rhvoice_voices_train_only_when_asked_never_slt_and_say_a_command_at_the_rate_drawn() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import command_corpus

    assert not {v.engine for v in command_corpus.voices(held_out=False)} & {"rhvoice"}
    assert not {v.engine for v in command_corpus.voices(held_out=True, diphone=True, rhvoice=True)} & {"rhvoice"}
    training = [v for v in command_corpus.voices(held_out=False, rhvoice=True) if v.engine == "rhvoice"]
    assert training and "slt" not in {v.name for v in training} | {v.speaker for v in training}
    assert command_corpus.Voice("rhvoice", "alan").speaker == command_corpus.Voice("flite", "awb").speaker
    takes = [command_corpus.synthesize(training[0], "auto reveal off", random.Random(seed)) for seed in (1, 2, 3)]
    assert all(0.6 * 16000 < len(take) < 3.0 * 16000 and take.std() > 300 for take in takes)
    assert len({len(take) for take in takes}) == 3


def _kokoro_voices() -> Any:
    sys.path.insert(0, str(ROOT / "scripts"))
    import kokoro_voices

    return kokoro_voices


@pytest.mark.skipif(not _kokoro_voices().available(), reason="needs the train extra's Kokoro packages")
def test_kokoro_voices_train_only_when_asked_and_none_held_out_or_validating_shares_a_training_speaker() -> None:
    import command_corpus

    kokoro = _kokoro_voices()
    assert "kokoro" not in {v.engine for v in command_corpus.voices(held_out=False)}
    assert "kokoro" not in {v.engine for v in command_corpus.voices(held_out=True, diphone=True, kokoro=True)}
    training = [v for v in command_corpus.voices(held_out=False, kokoro=True) if v.engine == "kokoro"]
    apart = command_corpus.kokoro_set("validation") + command_corpus.kokoro_set("heldout")
    assert len(training) == len(kokoro.TRAINING) and len(apart) == len(kokoro.VALIDATION | kokoro.HELD_OUT)
    assert not {v.speaker for v in training} & {v.speaker for v in apart}
    assert not {v.name for v in command_corpus.kokoro_set("validation")} & kokoro.HELD_OUT
    # Kokoro's espeak-ng library must not load where pyttsx3 speaks: the takes are made in a process of their own.
    script = ("import json, random, sys; sys.path.insert(0, sys.argv[1]); import command_corpus as c; "
              "takes = [c.synthesize(c.Voice('kokoro', sys.argv[2]), 'auto reveal off', random.Random(s)) "
              "for s in (1, 2, 3)]; print(json.dumps([[len(t), float(t.std())] for t in takes]))")
    made = subprocess.run([sys.executable, "-c", script, str(ROOT / "scripts"), training[0].name],
                          capture_output=True, text=True, check=True, timeout=600)
    takes = json.loads(made.stdout.splitlines()[-1])
    assert all(0.6 * 16000 < length < 3.0 * 16000 and std > 300 for length, std in takes)
    assert len({length for length, _ in takes}) == 3


def test_kokoro_blends_mix_two_training_speakers_the_same_way_each_run_and_train_only_when_asked() -> None:
    import command_corpus

    kokoro = _kokoro_voices()
    blends = kokoro.blends(40, seed=0)
    assert blends == kokoro.blends(40, seed=0) and len(set(blends)) == 40
    assert blends[:10] != kokoro.blends(10, seed=1)
    for name in blends:
        prefix, first, second, share = name.split("-")
        assert prefix == kokoro.BLEND and 25 <= int(share) <= 75
        assert {first, second} <= set(kokoro.TRAINING) and kokoro.speaker(first) != kokoro.speaker(second)
    voice = command_corpus.Voice("kokoro", blends[0])
    assert command_corpus.family(voice) == "kokoro-blend"
    assert not command_corpus.validation(voice) and not command_corpus._held_out(voice)
    if kokoro.available():
        assert voice not in command_corpus.voices(held_out=False, kokoro=True)
        assert voice in command_corpus.voices(held_out=False, kokoro=True, kokoro_blends=40)
        assert voice not in command_corpus.voices(held_out=True, kokoro=True, kokoro_blends=40)


@pytest.mark.skipif(not _kokoro_voices().available(), reason="needs the train extra's Kokoro packages")
def test_a_kokoro_blend_speaks_unlike_either_of_its_two_voices() -> None:
    kokoro = _kokoro_voices()
    blend = kokoro.blends(1, seed=0)[0]
    _, first, second, _ = blend.split("-")
    # In a process of its own, as every Kokoro take is made: its espeak-ng must not meet pyttsx3's.
    script = ("import json, random, sys; sys.path.insert(0, sys.argv[1]); import command_corpus as c; "
              "takes = [c.synthesize(c.Voice('kokoro', n), 'auto reveal off', random.Random(5)) "
              "for n in sys.argv[2:]]; print(json.dumps([t.tolist() for t in takes]))")
    made = subprocess.run([sys.executable, "-c", script, str(ROOT / "scripts"), blend, first, second],
                          capture_output=True, text=True, check=True, timeout=600)
    mixed, *parents = (np.array(take) for take in json.loads(made.stdout.splitlines()[-1]))
    assert 0.6 * 16000 < len(mixed) < 3.0 * 16000 and mixed.std() > 300
    for parent in parents:
        assert len(parent) != len(mixed) or not np.allclose(parent, mixed)


def test_kokoro_voices_refuse_a_source_archive_that_does_not_match_its_hash(tmp_path: Path) -> None:
    kokoro = _kokoro_voices()
    package, version, _ = kokoro.VOICES_SDIST
    (tmp_path / f"{package}-{version}.tar.gz").write_bytes(b"not the archive")
    with pytest.raises(RuntimeError, match="does not match its hash"):
        kokoro.voices_path(tmp_path)


class _Unprepared(NeuralRecognizer):
    """The live recogniser with nothing done ahead of the endpoint."""

    def prepare(self) -> None:
        pass


def _finishes(recognizer: NeuralRecognizer) -> list[int]:
    """The ``leave_out`` of every embedding finish the recogniser asks for, from now on."""
    from speech_embedding import CLOSING_MS

    stream, asked = recognizer._stream._stream, []  # type: ignore[union-attr, attr-defined]
    finish = stream.finish

    def recorded(closing_ms: int = CLOSING_MS, *, leave_out: int = 0) -> np.ndarray:
        asked.append(leave_out)
        return finish(closing_ms, leave_out=leave_out)

    stream.finish = recorded  # type: ignore[method-assign]
    return asked


@pytest.mark.skipif(shutil.which("flite") is None, reason="needs flite")
@pytest.mark.usefixtures("script_fronts")
def test_the_closing_is_computed_ahead_of_the_endpoint_and_gives_the_head_the_same_utterance(tmp_path: Path) -> None:
    pytest.importorskip("livekit.wakeword", reason="needs the test extra's livekit-wakeword")
    commands = CommandSet.load("en")
    head = small_head(tmp_path / "command_head.npz", front=FRONT_EMBEDDING)  # a head on the speech embedding
    ahead, at_the_end = NeuralRecognizer(commands, head=head), _Unprepared(commands, head=head)
    asked_ahead, asked_at_the_end = _finishes(ahead), _finishes(at_the_end)
    silence = b"\0\0" * 8000
    for text in ("turn", "auto reveal on", "the cat sat on the mat"):
        audio = silence + synthesize(text, "kal16") + silence
        heard = [r.command for r in decode_pcm(ahead, audio)]
        assert heard == [r.command for r in decode_pcm(at_the_end, audio)], text
        assert len(ahead.last) == len(at_the_end.last) >= 1
        for (_, scores, _, utterance), (_, other_scores, _, other) in zip(ahead.last, at_the_end.last, strict=True):
            assert np.allclose(utterance, other, atol=1e-5), text
            assert np.allclose(scores.probabilities, other_scores.probabilities, atol=1e-5), text
    assert asked_ahead and set(asked_ahead) == {0}, "the end waited for work that could be done ahead"
    assert asked_at_the_end and set(asked_at_the_end) == {320}, "the endpointer's last frame was read"


@pytest.mark.usefixtures("script_fronts")
def test_a_head_that_learnt_on_suppressed_sound_is_fed_it_as_training_made_it(tmp_path: Path) -> None:
    pytest.importorskip("livekit.wakeword", reason="needs the test extra's livekit-wakeword")
    from speech_embedding import features

    head = small_head(tmp_path / "suppressed.npz", front=FRONT_EMBEDDING, hears=HEARS_SUPPRESSED)
    given = small_head(tmp_path / "given.npz", front=FRONT_EMBEDDING)
    assert (head.hears, given.hears, CommandHead.released().hears) == (HEARS_SUPPRESSED, HEARS_GIVEN, HEARS_GIVEN)
    hiss = np.random.default_rng(3).standard_normal(16000).astype(np.float32) * 800
    word = np.frombuffer(synthesize("turn", "kal16"), dtype="<i2").astype(np.float32)
    word = np.concatenate([np.zeros(4800, np.float32), word, np.zeros(4800, np.float32)])[:16000]
    pcm = np.clip(np.pad(word, (0, 16000 - len(word))) + hiss, -32768, 32767).astype("<i2").tobytes()
    commands = CommandSet.load("en")
    for recognizer, suppressed in ((NeuralRecognizer(commands, head=head), True),
                                   (NeuralRecognizer(commands, head=given), False)):
        recognizer.recognize(pcm)
        heard = recognizer.last[0][3]
        assert np.allclose(heard, features(pcm[:-640], suppressed=suppressed), atol=1e-4)
        assert not np.allclose(heard, features(pcm[:-640], suppressed=not suppressed), atol=1e-2)


def test_merging_heads_into_a_file_name_is_refused_in_one_line_naming_the_folder_it_wants(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import merge_heads

    with pytest.raises(SystemExit) as stop:
        merge_heads.main([str(MODEL), str(MODEL), "--tune", str(tmp_path / "tune.npz"),
                          "--out", str(tmp_path / "merged.npz")])
    assert stop.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--out names a folder" in error and "merged.npz" in error
    assert not (tmp_path / "merged.npz").exists()


def test_talk_copies_hear_each_take_that_is_not_a_command_in_more_rooms_and_leave_the_commands_alone(
        tmp_path: Path) -> None:
    counts = []
    for extra in ([], ["--talk-copies", "4"]):
        work = tmp_path / ("more" if extra else "default")
        run = subprocess.run([sys.executable, str(ROOT / "scripts" / "train_command_head.py"), "--tiny",
                              "--data-only", "--work", str(work), *extra],
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-2000:]
        (train,) = work.glob("train-*.npz")
        with np.load(train) as data:
            kinds = [str(kind) for kind in data["kind"]]
        counts.append((kinds.count("command"), sum(kind not in ("command", "noise") for kind in kinds)))
    (commands, others), (commands_more, others_more) = counts
    assert commands_more == commands > 0
    assert others_more == 4 * others > 0, "the tiny recipe hears each in one room; four asked for"
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "train_command_head.py"), "--tiny",
                          "--data-only", "--work", str(tmp_path / "none"), "--talk-copies", "-1"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "--talk-copies is a number of rooms" in run.stderr.strip().splitlines()[-1]
    assert "Traceback" not in run.stderr
