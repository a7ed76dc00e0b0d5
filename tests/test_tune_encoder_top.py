"""The trial of fine-tuning the top of Moonshine's encoder: its torch layers compute what
onnxruntime does, and the trial runs end to end on a tiny set."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "tune_encoder_top.py"
sys.path.insert(0, str(ROOT / "scripts"))


@pytest.mark.parametrize("layers", [1, 2])
def test_the_encoders_last_layers_run_in_torch_give_onnxruntimes_states(layers: int) -> None:
    torch = pytest.importorskip("torch", reason="needs the train extra (scripts/dev train)")
    import onnxruntime as ort
    import tune_encoder_top as trial

    model = trial.encoder_graph()
    top = trial.encoder_top(model, layers)
    session = ort.InferenceSession(trial.with_outputs(model, top.inputs), providers=["CPUExecutionProvider"])
    audio = (np.random.default_rng(layers).standard_normal((1, 24000)) * 0.05).astype(np.float32)
    expected, *feeds = session.run(["last_hidden_state", *top.inputs], {"input_values": audio})
    assert feeds[0].shape == expected.shape, "the cut is the residual stream, one state a frame"
    with torch.no_grad():
        got = top({name: torch.tensor(value) for name, value in zip(top.inputs, feeds, strict=True)}).numpy()
    assert np.abs(got - expected).max() < 1e-4
    assert sum(w.numel() for w in top.weights.values()) > layers * 2_000_000, "every weight matrix learns"


def test_the_encoder_top_trial_runs_end_to_end_on_a_tiny_set(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="needs the train extra (scripts/dev train)")
    work = ["--work", str(tmp_path)]
    made = subprocess.run([sys.executable, str(SCRIPT), *work, "data", "--tiny"],
                          capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr[-2000:]
    fitted = subprocess.run([sys.executable, str(SCRIPT), *work, "fit", "--name", "t", "--layers", "1",
                             "--epochs", "1"], capture_output=True, text=True, timeout=600)
    assert fitted.returncode == 0, fitted.stderr[-2000:]
    report = json.loads((tmp_path / "result-t.json").read_text())
    rows = report["validation"][f"{report['accept']:.2f}"]
    assert rows["all"]["commands"] > 0 and {"clean", "noisy", "room"} <= set(rows)
    assert {"right", "wrong", "talk", "near"} <= set(rows["all"])


def test_a_layer_count_the_trial_does_not_keep_is_refused_in_one_line(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, str(SCRIPT), "--work", str(tmp_path), "fit", "--name", "x",
                          "--layers", "3"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "--layers" in run.stderr.strip().splitlines()[-1]


def test_fitting_before_the_takes_are_made_is_refused_in_one_line_naming_the_step(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, str(SCRIPT), "--work", str(tmp_path), "fit", "--name", "x"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "data" in run.stderr.strip().splitlines()[-1]
