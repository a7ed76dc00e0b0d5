"""Templates that hear the room, an upper bound: the player's takes mixed with the room heard
before each noisy utterance, then matched instead of the takes as recorded.

The takes are recorded in quiet and their match does not carry into noise (docs/voice.md, *What
is known to be weak*). Here, for every 10 dB recording of ``bench_neural.py make``, each enrolled
take is mixed with the room heard before the utterance (the recording's first 140 ms, which
``make`` leaves free of speech, looped from a random point) at 10 dB, the SNR the recording was
made at: an oracle the game would not have (it would have the endpointer's estimate). The noisy
takes are embedded (about 2 s of a core an utterance for 66 takes) and matched as
:class:`voice_rang.listen.personal.PersonalVoice` matches, through the live rule.

Receives the decoding ``bench_neural.py score`` made and the enrolled takes ``make`` wrote. Emits
``bench_neural``'s table for the 10 dB rows: the live rule without takes, with the takes as
recorded (as released), and with the takes in the room.

    .venv/bin/python benchmarks/bench_room_templates.py training   # or heldout; 10 minutes on 2 cores
"""

from __future__ import annotations

import argparse
import json
import sys
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "scripts"))

import augment  # noqa: E402
import bench_heads  # noqa: E402
import bench_neural  # noqa: E402

from voice_rang.listen.command_head import CommandHead  # noqa: E402
from voice_rang.listen.decision import decide  # noqa: E402
from voice_rang.listen.personal import PersonalVoice  # noqa: E402
from voice_rang.listen.recognizer import summarize  # noqa: E402
from voice_rang.listen.wavfile import read_wav_16k  # noqa: E402

ROOM_MS = 140
"""The room before each utterance: ``make`` puts 150-450 ms of it before every take."""


def room_templates(job: tuple[int, dict[str, Any], Path]) -> tuple[int, np.ndarray, list[str]]:
    """One recording's enrolled takes mixed with its room at 10 dB, as templates and their commands."""
    number, row, root = job
    rng = np.random.default_rng(number)
    folder = bench_neural._enrolled_folder({**row, "_root": str(root)})
    audio = np.frombuffer(read_wav_16k(str(root / row["path"])), dtype="<i2").astype(np.float32)
    room = audio[: 16 * ROOM_MS]
    room_power = float(np.mean(room ** 2)) + 1e-9
    noisy: dict[str, list[np.ndarray]] = {}
    for command, takes in bench_neural.enrolled_takes(folder).items():
        for take in (t.astype(np.float32) for t in takes):
            reps = len(take) // len(room) + 2
            start = int(rng.integers(len(room)))
            loop = np.tile(room, reps)[start:start + len(take)]
            scale = np.sqrt(augment.speech_power(take) / 10 / room_power)
            noisy.setdefault(command, []).append(np.clip(take + loop * scale, -32768, 32767))
    voice = PersonalVoice(noisy, head=CommandHead.released())
    return number, voice.templates, voice.commands


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("voices", choices=("training", "heldout"), nargs="?", default="training")
    root = bench_neural._out(parser.parse_args(argv))
    scores = root / "scores-heldout.jsonl"
    rows = [json.loads(line) for line in scores.read_text().splitlines()]
    head = CommandHead.released()
    bench_neural._state["personal"] = {}
    bench_neural._state["recognizer"] = argparse.Namespace(head=head)
    rule = bench_neural.rules(head.accept, head.ask)["live rule (+ trust)"]
    jobs = [(n, r, root) for n, r in enumerate(rows) if r["condition"].startswith("10dB") and r.get("said")]
    with Pool(2) as pool:
        made = {n: (t, c) for n, t, c in pool.imap_unordered(room_templates, jobs, chunksize=4)}
    name = "room templates (oracle 10 dB)"
    with np.load(bench_neural.features_path(scores)) as feats:
        for number, row in enumerate(rows):
            if not row["condition"].startswith("10dB"):
                continue
            said = row.get("said") or []
            if not said:
                row[name] = {"command": None, "unsure": False, "reason": "silence"}
                continue
            grammar = bench_heads.grammar_answers(said)
            us = feats[str(number)].astype(np.float32)
            voice = PersonalVoice.from_templates(*made[number], head=head)
            sc = [head.scores(u) for u in us]
            a = summarize([decide(g, s, None, rule, voice.match(u)) for g, s, u in zip(grammar, sc, us, strict=True)])
            row[name] = {"command": a.command, "unsure": a.unsure, "reason": a.reason}
    rows10 = [r for r in rows if r["condition"].startswith("10dB")]
    print("\n".join(bench_neural.table(rows10, ["live rule (+ trust)", "personal", name])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
