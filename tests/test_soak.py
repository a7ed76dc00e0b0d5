"""The soak, for one minute: a spoken, listening game played through the test sound card while
the sound server is killed and started again; no crash, and every game in its log obeys the rules.
``benchmarks/soak.py --minutes 30`` is the long run (figures in docs/robustness.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.audio, pytest.mark.slow]

SOAK = Path(__file__).resolve().parent.parent / "benchmarks" / "soak.py"


def test_a_minute_of_play_through_a_restarting_sound_server_never_crashes(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(SOAK), "--minutes", "1", "--restart-every", "25",
                             "--keep", str(tmp_path), "--json"],
                            capture_output=True, text=True, timeout=240)
    figures = json.loads(result.stdout.splitlines()[-1])
    assert figures["crashes"] == 0, figures["crash_lines"]
    assert figures["sound_server_restarts"] >= 2
    assert figures["reveals"] > 0
    assert figures["rules_ok"], figures["rule_violations"]
    assert result.returncode == 0, result.stderr[-500:]
