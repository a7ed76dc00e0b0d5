"""The command head: the released weights, checked by their hash, heard on real synthetic speech,
and the recipe that makes them, run on a tiny set."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from speech_samples import synthesize

from voice_rang.commands import CommandSet
from voice_rang.listen.command_head import WEIGHTS_SHA256, CommandHead, ModelCorrupt
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


def test_the_head_runs_in_numpy_on_any_utterance() -> None:
    head = CommandHead.released()
    scores = head.scores(np.zeros((20, 96), dtype=np.float32))
    assert abs(sum(scores.probabilities) - 1.0) < 1e-5


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("flite") is None,
                    reason="needs espeak-ng and flite")
def test_the_training_recipe_runs_end_to_end_on_a_tiny_set(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "train_command_head.py"), "--tiny",
                          "--out", str(tmp_path / "model"), "--work", str(tmp_path / "work")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    head = CommandHead(tmp_path / "model" / "command_head.npz")
    assert head.labels[0] == "" and len(head.labels) == 1 + len(CommandSet.load("en").spoken())
    assert head.scores(np.zeros((20, 96), dtype=np.float32)).labels == head.labels
