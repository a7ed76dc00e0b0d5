"""The issue's table for the live recogniser (grammar decoders + command head, one rule) against
the released grammar recogniser, measured in the same run on the same decoding, on speakers that
never trained or tuned the head.

    .venv/bin/python benchmarks/bench_neural.py make      # held-out recordings (a few minutes)
    .venv/bin/python benchmarks/bench_neural.py score     # both recognisers on them
    .venv/bin/python benchmarks/bench_neural.py score --set corpus   # voice_corpus.py's slt rows
    .venv/bin/python benchmarks/bench_neural.py score --set human    # human_corpus.py's people
    .venv/bin/python benchmarks/bench_neural.py radio     # the held-out takes with a radio on
    .venv/bin/python benchmarks/bench_neural.py score --set radio
    .venv/bin/python benchmarks/bench_neural.py table --set radio   # the last score's rows, tabled
    .venv/bin/python benchmarks/bench_neural.py make --voices training   # new takes of the training
    .venv/bin/python benchmarks/bench_neural.py score --voices training  # voices: where a rule is tuned
    .venv/bin/python benchmarks/bench_neural.py conflicts --voices training  # where the models disagreed
    .venv/bin/python benchmarks/bench_neural.py ear --voices training-diphone  # the second ear's numbers
    .venv/bin/python benchmarks/bench_neural.py score --voices training --head DIR/command_head.npz
    .venv/bin/python benchmarks/bench_neural.py make --voices kokoro-heldout --espeak-takes 0 --seed 2021
    .venv/bin/python benchmarks/bench_neural.py score --voices kokoro-heldout  # 9 neural voices never heard

With Moonshine's decoder prepared (``scripts/dev setup`` for testing does it), ``score`` also gives the live rule with
the second ear (``second_ear.py``; not part of the game) and keeps its verdicts in the rows, for
``ear``.

``make`` writes ``benchmarks/out/neural/``: the held-out voices (:data:`command_corpus.HELD_OUT`:
CMU ARCTIC slt through flite and festival, espeak-ng's Caribbean and Scottish accents and six of
its voice variants) saying every command and talk that is not, dry, at 10 dB SNR (white, pink,
brown, babble of held-out voices) and in rooms made by sox ``reverb`` (not the training's own
simulated rooms), 0.3-0.8 s. The talk, numbers and cards are ``voice_corpus.py``'s hand-written
lists, which the head never trained on; the narration is the game's own lines (the head trained
on them in other voices); near words are the issue's and ``voice_corpus.py``'s. Three of the
voices enrol (:data:`ENROLLED`: three clean takes of every command) and say two new takes of each;
``--voices training`` enrols three training voices (:data:`TUNING_ENROLLED`) instead.

The ``personal`` column is a game where the player enrolled: every utterance, talk and other
people's commands too, is matched against the takes of its own voice where that voice enrolled,
else of one enrolled voice (picked by the file's name), as a room is heard against the player's
takes.

``radio`` puts real recorded music behind the same held-out takes (``make`` first): Frozen Bubble's
soundtrack, Debian ``fb-music-high`` (GPL-2+, fetched by ``apt-get download`` and cached as
``human_corpus.py`` fetches its packages, decoded by ffmpeg), a source that never trains the head.
Each clean take gets the music at one of 20, 15 or 10 dB SNR dry, and the same take across a room
(its sox ``reverb`` file) at another, in turn, so each level has a third of the takes; so do the
enrolled voices' new takes. A fresh stretch of the music is drawn for every file, and
it plays from the file's start, as a radio is on before the player speaks.

Every file is decoded once through ``decode_pcm`` (the live path); the released recogniser's
answer is the grammar decoders' part of that same decoding, so both columns see the same
endpointing. The other rules' columns are scored from the same decoding too, and each row keeps
what the models and the takes said of each utterance (``said``), so another rule can be weighed
on it later.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import json
import random
import subprocess
import sys
import wave
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT.parent / "scripts"))

import augment  # noqa: E402
import command_corpus as corpus  # noqa: E402
import fronts  # noqa: E402
import recordings  # noqa: E402
import voice_corpus  # noqa: E402
from second_ear import EarRule, candidates, hear_again, settle  # noqa: E402

from voice_rang.commands import CommandSet  # noqa: E402
from voice_rang.listen.decision import Rule, decide  # noqa: E402
from voice_rang.listen.recognizer import decode_pcm, summarize  # noqa: E402
from voice_rang.listen.wavfile import read_wav_16k  # noqa: E402

fronts.register()  # heads of earlier releases and trials (--head, --compare) read their own fronts
OUT = ROOT / "out" / "neural"
TUNING_OUT = ROOT / "out" / "neural-tuning"
"""``--voices training``: new takes of the training voices, where a rule may be tuned."""
VOICE_SETS = {"heldout": OUT, "training": TUNING_OUT, "training-diphone": ROOT / "out" / "neural-tuning-diphone",
              "kokoro-validation": ROOT / "out" / "neural-kokoro-validation",
              "kokoro-heldout": ROOT / "out" / "neural-kokoro-heldout"}
"""``--voices``: the held-out speakers (the figures); new takes of the training voices, where a rule
or a head may be chosen; the same with the training voices of Debian's diphone packages among them
(``command_corpus.DIPHONE_PACKAGES``), for a head trained on those; Kokoro's validation voices
(never trained on, a recipe may be chosen on them) and its held-out voices (figures only), each
voice saying every text (``kokoro_voices.py``)."""
HELD_OUT_SETS = ("heldout", "kokoro-heldout")
"""The ``--voices`` whose speakers give figures only: all of them say every text, to held-out music."""
TUNING_SEED = 7919
"""Added to ``--seed`` for the training voices' takes, so they are not the training's own."""
ROOMS = {"0.3s": ("20", "60", "30"), **voice_corpus.ROOMS}
ENROLLED = ("flite:slt", "espeak:en-029+f4", "espeak:en-gb-scotland+m3")
"""The held-out voices that enrol (three takes of each command) and say new takes."""
TUNING_ENROLLED = ("flite:kal16", "espeak:en-gb+f2", "espeak:en-us-nyc+m5")
"""``--voices training``: training voices that enrol, where a rule for the takes may be tuned."""
RADIO_PACKAGE = next(iter(corpus.HELD_OUT_MUSIC))
"""The benchmark's music: held out from training as a whole source, as speakers are."""
RADIO_SNR_DB = (20, 15, 10)
MUSIC = {**corpus.TRAIN_MUSIC, **corpus.HELD_OUT_MUSIC}


def _out(args: argparse.Namespace) -> Path:
    return VOICE_SETS[args.voices]


def _radio_package(args: argparse.Namespace) -> str:
    """Held-out voices hear held-out music; training voices hear a training package's music."""
    return RADIO_PACKAGE if args.voices in HELD_OUT_SETS else next(iter(corpus.TRAIN_MUSIC))


def with_music(rng: np.random.Generator, speech: np.ndarray, track: np.ndarray, snr_db: float) -> np.ndarray:
    """``speech`` with a random stretch of ``track`` behind it at ``snr_db`` (speech power as the
    corpus measures it, against the music's mean power over the same stretch)."""
    start = int(rng.integers(0, max(1, len(track) - len(speech))))
    piece = track[start:start + len(speech)]
    piece = np.pad(piece, (0, len(speech) - len(piece)))
    gain = np.sqrt(augment.speech_power(speech) / 10 ** (snr_db / 10) / (np.mean(piece ** 2) + 1e-9))
    return speech + piece * gain


def radio(args: argparse.Namespace) -> int:
    """The held-out recordings of ``make`` again, with the radio on (see the module's docstring)."""
    out = _out(args)
    nprng = np.random.default_rng(args.seed + 1)
    package = _radio_package(args)
    track = recordings.music_track(package)
    rows = [json.loads(line) for line in (out / "index.jsonl").read_text().splitlines()]
    by_source = {(r["path"].split("/")[0], Path(r["path"]).stem): r for r in rows}
    index: list[dict[str, Any]] = []
    count = 0

    def mix(row: dict[str, Any], source: str, snr: int, label: str) -> None:
        samples = np.frombuffer(read_wav_16k(str(out / source)), dtype="<i2").astype(np.float32)
        name = f"{Path(source).stem}_radio_{label.replace(' ', '_')}.wav"
        # An enrolled voice's new take stays beside its takes, where the scorer finds them.
        target = (out / source).with_name(name) if row["kind"] == "test" else \
            out / "radio" / f"{Path(source).parent.name}_{name}"
        _write(target, with_music(nprng, samples, track, snr))
        index.append({**row, "path": str(target.relative_to(out)), "condition": f"radio {label}",
                      "music": f"{package}: {MUSIC[package]}"})

    for row in rows:
        if row["condition"] != "clean" or row["kind"] == "enrol":
            continue
        snr = RADIO_SNR_DB[count % 3]
        mix(row, row["path"], snr, f"{snr}dB")
        if row["kind"] != "test":
            wet = by_source.get(("room", Path(row["path"]).stem))
            if wet is not None:
                room_snr = RADIO_SNR_DB[(count + 1) % 3]
                mix(row, wet["path"], room_snr, f"room {room_snr}dB")
        count += 1
    # The enrolled voices' new takes across a room too (their own generator, so the files above
    # stay what they were): does a radio across the room leave the player's takes any use?
    nprng = np.random.default_rng(args.seed + 2)
    tests = [r for r in rows if r["kind"] == "test" and r["condition"] == "clean"]
    for n, row in enumerate(tests):
        source = out / row["path"]
        wet = source.with_name(source.stem + "_room.wav")
        _room(source, wet, list(ROOMS)[n % len(ROOMS)])
        snr = RADIO_SNR_DB[n % 3]
        mix(row, str(wet.relative_to(out)), snr, f"room {snr}dB")
    (out / "radio.jsonl").write_text("".join(json.dumps(r) + "\n" for r in index), encoding="utf-8")
    print(f"{len(index)} recordings with {package} ({len(track) / 16000:.0f} s of music) in {out / 'radio'}")
    return 0


def _write(path: Path, samples: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(np.clip(samples, -32768, 32767).astype("<i2").tobytes())


def _room(path: Path, wet: Path, room: str) -> None:
    wet.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["sox", "-R", str(path), str(wet), "reverb", *ROOMS[room], "channels", "1", "norm", "-3"],
                   check=True, capture_output=True)


def make(args: argparse.Namespace) -> int:
    out = _out(args)
    held_out = args.voices in HELD_OUT_SETS
    kokoro = args.voices.startswith("kokoro-")
    seed = args.seed if held_out else args.seed + TUNING_SEED
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    if kokoro:
        voices = people = espeak = corpus.kokoro_set(args.voices.removeprefix("kokoro-"))
        if not voices:
            print("bench_neural: Kokoro's voices are not installed; run: scripts/dev train")
            return 2
    else:
        voices = corpus.voices(held_out=held_out, diphone=args.voices == "training-diphone")
        people = [v for v in voices if v.engine != "espeak"]  # held out: slt through flite and festival
        espeak = [v for v in voices if v.engine == "espeak"]
    by_name = {f"{v.engine}:{v.name}": v for v in voices}
    index: list[dict[str, Any]] = []
    festival_cache: dict[Any, dict[str, np.ndarray]] = {}

    def take(voice: corpus.Voice, text: str) -> np.ndarray:
        if voice.engine == "festival":
            cache = festival_cache.setdefault(voice, {})
            if text not in cache:
                cache.update(corpus.festival_batch(voice, [text]))
            return cache[text]
        return corpus.synthesize(voice, text, random.Random(rng.randrange(1 << 30)))

    def clean(samples: np.ndarray) -> np.ndarray:
        framed = augment.frame(nprng, augment.trim(samples))
        framed = framed / (np.max(np.abs(framed)) + 1e-9) * 10 ** (nprng.uniform(-20, -6) / 20) * 32767
        return framed + nprng.standard_normal(len(framed)) * 2.0

    talk_audio = [take(rng.choice(espeak), t) for t in voice_corpus.TALK[:8]]
    noise_names = ("white", "pink", "brown", "babble")
    count = 0

    def add(samples: np.ndarray, kind: str, text: str, expected: str | None, voice: corpus.Voice,
            neg_type: str | None) -> None:
        nonlocal count
        count += 1
        base = out / "clean" / f"{count:05d}.wav"
        dry = clean(samples)
        _write(base, dry)
        row = {"kind": kind, "text": text, "expected": expected, "voice": f"{voice.engine}:{voice.name}",
               "speaker": voice.speaker, "neg_type": neg_type}
        index.append({**row, "path": str(base.relative_to(out)), "condition": "clean"})
        noise = noise_names[count % 4]
        mixed = dry + augment.noise(nprng, noise, len(dry), talk_audio) * np.sqrt(
            augment.speech_power(dry) / 10)
        noisy = out / "noisy" / f"{count:05d}.wav"
        _write(noisy, mixed)
        index.append({**row, "path": str(noisy.relative_to(out)), "condition": f"10dB {noise}"})
        room = list(ROOMS)[count % len(ROOMS)]
        wet = out / "room" / f"{count:05d}.wav"
        _room(base, wet, room)
        index.append({**row, "path": str(wet.relative_to(out)), "condition": f"room {room}"})

    phrases = corpus.command_phrases()
    for command, phrase in phrases:
        speakers = people if held_out or kokoro else rng.sample(people, 2)
        for voice in [*speakers, *rng.sample(espeak, args.espeak_takes)]:
            add(take(voice, phrase), "command", phrase, command, voice, None)
    negatives = ([("talk", t) for t in voice_corpus.TALK] + [("number", t) for t in voice_corpus.NUMBERS]
                 + [("card", t) for t in voice_corpus.CARDS] + [("narration", t) for t in voice_corpus.narration()]
                 + [("near", t) for t in sorted(set(voice_corpus.WORDS) - {"know"})])
    for kind, text in negatives:
        for voice in [rng.choice(people), rng.choice(espeak)]:
            add(take(voice, text), "negative", text, None, voice, kind)
    # Enrolment: three clean takes of each command by three held-out voices, and new takes to test.
    for name in ENROLLED if held_out else TUNING_ENROLLED:
        voice = by_name.get(name)
        if voice is None:
            continue
        for command, phrase in phrases:
            for n in range(5):
                samples = clean(take(voice, phrase))
                role = "enrol" if n < 3 else "test"
                path = _enrol_dir(out, name) / \
                    f"{command.replace(' ', '_')}__{role}{n}_{phrase.replace(' ', '_')}.wav"
                _write(path, samples)
                index.append({"kind": role, "text": phrase, "expected": command, "voice": name,
                              "speaker": voice.speaker, "path": str(path.relative_to(out)), "condition": "clean"})
                if role == "test":
                    noisy_path = path.with_name(path.stem + "_10dB.wav")
                    noise = noise_names[n % 4]
                    _write(noisy_path, samples + augment.noise(nprng, noise, len(samples), talk_audio)
                           * np.sqrt(augment.speech_power(samples) / 10))
                    index.append({"kind": role, "text": phrase, "expected": command, "voice": name,
                                  "speaker": voice.speaker, "path": str(noisy_path.relative_to(out)),
                                  "condition": f"10dB {noise}"})
    (out / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in index), encoding="utf-8")
    print(f"{len(index)} recordings in {out}")
    return 0


_state: dict[str, Any] = {}


def _init() -> None:
    from second_ear import MoonshineModel, Transcriber

    from voice_rang.listen.command_head import CommandHead
    from voice_rang.listen.moonshine import MoonshineUnavailable
    from voice_rang.listen.neural import NeuralRecognizer

    head = CommandHead(_state["head"]) if _state.get("head") else None
    commands = CommandSet.load("en")
    _state["recognizer"] = NeuralRecognizer(commands, head=head)
    _state["ear"] = None
    if _state.get("second_ear", True):
        with contextlib.suppress(MoonshineUnavailable):  # score says so once; the column is left out
            _state["ear"] = Transcriber(commands, MoonshineModel.shared())
    _state["recognizer"].keep_audio = _state["ear"] is not None
    _state["recognizer"].keep_read = bool(_state.get("variants"))
    _state["personal"] = {}
    if _state.get("compare"):
        _state["other"] = CommandHead(_state["compare"])


def _enrol_dir(root: Path, voice: str) -> Path:
    """Where ``make`` keeps an enrolled voice's takes (and its new takes beside them)."""
    return root / "enrol" / voice.replace(":", "_").replace("+", "_")


@functools.cache
def _enrolled_folders(root: Path) -> tuple[Path, ...]:
    return tuple(sorted(p for p in (root / "enrol").glob("*") if p.is_dir()))


def _enrolled_folder(item: dict[str, Any]) -> Path | None:
    """Whose takes an utterance is matched against: its own voice's where that voice enrolled (a
    test take, or the player's own talk), else one enrolled voice's picked by the file's name (a
    game where the player enrolled hears everyone in the room against the player's takes)."""
    root = Path(item["_root"])
    if item["kind"] == "test":
        return root / Path(item["path"]).parent
    folders = _enrolled_folders(root)
    if not folders:
        return None
    own = _enrol_dir(root, item["voice"]) if "voice" in item else None  # recordings of people have no voice name
    return own if own in folders else folders[zlib.crc32(item["path"].encode()) % len(folders)]


def _personal(item: dict[str, Any], head: Any = None) -> Any:
    """The enrolled voice's takes (:func:`_enrolled_folder`) as templates in ``head``'s space
    (the released head's), or ``None`` where no voice enrolled."""
    from voice_rang.listen.personal import PersonalVoice

    folder = _enrolled_folder(item)
    if folder is None:
        return None
    cache = _state["personal"]
    key = (folder, id(head))
    if key not in cache:
        cache[key] = PersonalVoice(enrolled_takes(folder), head=head or _state["recognizer"].head)
    return cache[key]


@functools.cache
def enrolled_takes(folder: Path) -> dict[str, list[np.ndarray]]:
    """The takes ``make`` enrolled for one voice, by command (its new takes beside them are left
    out), as 16-bit samples. Read once per folder; callers must not change them."""
    takes: dict[str, list[np.ndarray]] = {}
    for path in sorted(folder.glob("*__enrol*.wav")):
        if path.stem.endswith("_10dB"):
            continue
        command = path.stem.split("__", 1)[0].replace("_", " ")
        takes.setdefault(command, []).append(np.frombuffer(read_wav_16k(str(path)), dtype="<i2"))
    return takes


def rules(head_accept: float, head_ask: float) -> dict[str, Rule]:
    base = Rule(accept=head_accept, ask=head_ask)
    return {"released": replace(base, use_head=False),
            "head alone": replace(base, grammar_veto=False, grammar_rescue=False, grammar_trust=False),
            "head + veto + rescue": replace(base, grammar_trust=False),
            "live rule, no second opinion": replace(base, second_opinion=1.0), "live rule (+ trust)": base}


def _decode(item: dict[str, Any]) -> dict[str, Any]:
    recognizer = _state["recognizer"]
    recognizer.personal = _personal(item)
    pcm = read_wav_16k(str(Path(item["_root"]) / item["path"]))
    list(decode_pcm(recognizer, pcm))
    row = {k: v for k, v in item.items() if not k.startswith("_")}
    said = recognizer.last
    for name, rule in rules(recognizer.head.accept, recognizer.head.ask).items():
        answers = [decide(h, s, None, rule, None) for h, s, _, _ in said]
        result = summarize(answers)
        row[name] = {"command": result.command, "unsure": result.unsure, "reason": result.reason}
    if "other" in _state:
        other = _state["other"]
        rule = rules(other.accept, other.ask)["live rule (+ trust)"]
        result = summarize([decide(h, other.scores(u), None, rule, None) for h, _, _, u in said])
        row["other head"] = {"command": result.command, "unsure": result.unsure, "reason": result.reason}
        theirs = _personal(item, other)
        if theirs is not None:
            result = summarize([decide(h, other.scores(u), None, rule, theirs.match(u)) for h, _, _, u in said])
            row["other head, personal"] = {"command": result.command, "unsure": result.unsure,
                                           "reason": result.reason}
    base = rules(recognizer.head.accept, recognizer.head.ask)["live rule (+ trust)"]
    ear = _state.get("ear")
    verdicts: dict[int, Any] = {}

    def second_ear(at: int, first: Any) -> Any:
        """``first``, settled by the second ear where it would be asked."""
        if ear is None or not hear_again(first):
            return first
        if at not in verdicts:
            heard, scores = said[at][0], said[at][1]
            verdicts[at] = ear.hear(recognizer.audio[at], candidates(heard, scores))
        return settle(first, verdicts[at], None)

    if ear is not None:
        result = summarize([second_ear(i, decide(h, s, None, base, None)) for i, (h, s, _, _) in enumerate(said)])
        row["live rule + second ear"] = {"command": result.command, "unsure": result.unsure, "reason": result.reason}
    if recognizer.personal is not None:
        result = summarize([decide(h, s, None, base, m) for h, s, m, _ in said])
        row["personal"] = {"command": result.command, "unsure": result.unsure, "reason": result.reason}
        if ear is not None:
            result = summarize([second_ear(i, decide(h, s, None, base, m)) for i, (h, s, m, _) in enumerate(said)])
            row["personal + second ear"] = {"command": result.command, "unsure": result.unsure,
                                            "reason": result.reason}
    row["said"] = [{"grammar": dataclasses.asdict(h), "head": list(s.probabilities),
                    "personal": None if m is None else dataclasses.asdict(m),
                    "verdict": None if i not in verdicts else dataclasses.asdict(verdicts[i])}
                   for i, (h, s, m, _) in enumerate(said)]
    if said:  # kept apart from the rows (benchmarks/bench_heads.py weighs other heads on them)
        row["_features"] = np.stack([u for _, _, _, u in said]).astype(np.float16)
    if recognizer.read:  # each utterance as other speakers might say it (benchmarks/bench_variants.py)
        from variants import VARIANTS, variant

        from voice_rang.listen.front import moonshine_features

        heard = [np.frombuffer(pcm, dtype="<i2") for pcm in recognizer.read]
        row["_variants"] = {name: np.stack([moonshine_features(variant(pcm, name)) for pcm in heard]).astype(np.float16)
                            for name in VARIANTS}
    row["ms"] = max((h.ms for h, _, _, _ in said), default=0.0)
    row["snr_db"] = max((h.snr_db for h, _, _, _ in said), default=None)
    return row


_MADE_BY = {"heldout": "benchmarks/bench_neural.py make", "radio": "benchmarks/bench_neural.py radio",
            "corpus": "benchmarks/voice_corpus.py", "human": "benchmarks/human_corpus.py"}


def _items(which: str, out: Path) -> list[dict[str, Any]]:
    """The recordings of one set; exits with one line naming the script that makes them if missing."""
    try:
        return _read_items(which, out)
    except FileNotFoundError as missing:
        raise SystemExit(f"bench_neural: no recordings ({missing.filename}); "
                         f"make them first with .venv/bin/python {_MADE_BY[which]}") from None


def _read_items(which: str, out: Path) -> list[dict[str, Any]]:
    if which in ("heldout", "radio"):
        root = out
        index = "index.jsonl" if which == "heldout" else "radio.jsonl"
        rows = [json.loads(line) for line in (root / index).read_text().splitlines()]
        rows = [r for r in rows if r["kind"] != "enrol"]
    elif which == "corpus":
        root = voice_corpus.OUT
        rows = [json.loads(line) for line in (root / "index.jsonl").read_text().splitlines()]
        typed = {p for p in CommandSet.load("en").typed_only}
        rows = [{**r, "condition": "10dB" if r["noise"] else (f"room {r['room']}" if r["room"] else "clean")}
                for r in rows if r["speaker"] == "slt" and r["text"] not in typed]
    else:
        root = ROOT / "out" / "human"
        rows = [json.loads(line) for line in (root / "index.jsonl").read_text().splitlines()]
        rows = [{**r, "kind": "command" if r["expected"] else "negative", "condition": "clean",
                 "neg_type": "talk"} for r in rows]
    return [{**r, "_root": str(root)} for r in rows]


def _rate(rows: list[dict[str, Any]], key: str, test: Any) -> str:
    if not rows:
        return "-"
    return f"{100 * sum(1 for r in rows if test(r[key])) / len(rows):.1f} %"


def table(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    groups = {
        "clean commands": [r for r in rows if r["kind"] == "command" and r["condition"] == "clean"],
        "10 dB commands": [r for r in rows if r["kind"] == "command" and r["condition"].startswith("10dB")],
        "room commands": [r for r in rows if r["kind"] == "command" and r["condition"].startswith("room")],
        "talk/numbers/cards/narration, clean": [r for r in rows if r["kind"] == "negative" and r["condition"] == "clean"
                                                and r.get("neg_type") in ("talk", "number", "card", "narration")],
        "talk/numbers/cards/narration, noisy or room": [
            r for r in rows if r["kind"] == "negative" and r["condition"].startswith(("10dB", "room"))
            and r.get("neg_type") in ("talk", "number", "card", "narration")],
        "near words (clean)": [r for r in rows if r["kind"] == "negative" and r["condition"] == "clean"
                               and r.get("neg_type") in ("near", "word")],
        "enrolled voice, clean": [r for r in rows if r["kind"] == "test" and r["condition"] == "clean"],
        "enrolled voice, 10 dB": [r for r in rows if r["kind"] == "test" and r["condition"].startswith("10dB")],
    }
    for label in sorted({r["condition"] for r in rows if r["condition"].startswith("radio")},
                        key=lambda c: ("room" in c, -int(c.split()[-1][:-2]))):
        here = [r for r in rows if r["condition"] == label]
        groups[f"{label} commands"] = [r for r in here if r["kind"] == "command"]
        groups[f"{label} talk/numbers/cards/narration"] = [r for r in here if r["kind"] == "negative"
                                                           and r.get("neg_type") != "near"]
        groups[f"{label} near words"] = [r for r in here if r.get("neg_type") == "near"]
        groups[f"{label} enrolled voice"] = [r for r in here if r["kind"] == "test"]
    lines = ["| | n | " + " | ".join(f"{c}: right / wrong (asked)" for c in columns) + " |",
             "| --- | --- | " + " | ".join("---" for _ in columns) + " |"]
    for name, chosen in groups.items():
        if not chosen:
            continue
        cells = []
        for column in columns:
            present = [r for r in chosen if column in r]
            if not present:
                cells.append("-")
                continue
            if chosen[0]["kind"] == "negative":
                cells.append(f"taken {_rate(present, column, lambda a: a['command'] is not None)}"
                             f" ({_rate(present, column, lambda a: a['command'] is None and a['unsure'])})")
            else:
                n = max(1, len(present))
                right = sum(1 for r in present if r[column]["command"] == r["expected"]) / n
                wrong = sum(1 for r in present if r[column]["command"] not in (None, r["expected"])) / n
                asked = _rate(present, column, lambda a: a["command"] is None and a["unsure"])
                noisy = sum(1 for r in present if r[column]["reason"] == "too noisy")
                if noisy:
                    asked += f"; too noisy {100 * noisy / n:.1f} %"
                cells.append(f"{100 * right:.1f} % / {100 * wrong:.1f} % ({asked})")
        lines.append(f"| {name} | {len(chosen)} | " + " | ".join(cells) + " |")
    return lines


def features_path(scores: Path) -> Path:
    """Where a score run keeps each row's utterances' embeddings (``str(row number)`` -> ``(utterances,
    20, 96)``), beside its rows: another head can then be weighed on the same decoding without
    decoding again (``benchmarks/bench_heads.py``)."""
    return scores.with_name(scores.stem.replace("scores-", "features-") + ".npz")


def variants_path(scores: Path) -> Path:
    """Where ``score --variants`` keeps each row's utterances as the head reads them changed
    (``"row number|variant"`` -> ``(utterances, bins, values)``; :mod:`variants`)."""
    return scores.with_name(scores.stem.replace("scores-", "variants-") + ".npz")


def heads_only(items: list[dict[str, Any]], other: str) -> list[str]:
    """Both heads alone on each whole file's embeddings (no endpointer, no grammar decoders): a
    quick comparison of two heads' weights on the same inputs, not the live path's figures."""
    from voice_rang.listen.command_head import CommandHead
    from voice_rang.listen.front import head_features

    heads = {"released head": CommandHead.released(), "other head": CommandHead(other)}
    rows = []
    for item in items:
        pcm = np.frombuffer(read_wav_16k(str(Path(item["_root"]) / item["path"])), dtype="<i2")
        row = {k: v for k, v in item.items() if not k.startswith("_")}
        for name, head in heads.items():
            command, p, _ = head.scores(head_features(pcm, head)).best(None)
            acted = command if p >= head.accept else None
            row[name] = {"command": acted, "unsure": acted is None and command is not None and p >= head.ask,
                         "reason": "command" if acted else "head"}
        rows.append(row)
    return table(rows, list(heads))


def decode_all(items: list[dict[str, Any]], workers: int, out: Path) -> list[dict[str, Any]]:
    """Decode every item through the live path (:func:`_decode`, in ``workers`` processes), and keep
    the rows in ``out`` and their embeddings beside them (:func:`features_path`)."""
    with ProcessPoolExecutor(workers, initializer=_init) as pool:
        rows = list(pool.map(_decode, items, chunksize=4))
    out.parent.mkdir(parents=True, exist_ok=True)
    features = {str(n): row.pop("_features") for n, row in enumerate(rows) if "_features" in row}
    np.savez_compressed(features_path(out), **features)  # type: ignore[arg-type]
    variants = {f"{n}|{name}": array for n, row in enumerate(rows)
                for name, array in row.pop("_variants", {}).items()}
    if variants:
        np.savez_compressed(variants_path(out), **variants)  # type: ignore[arg-type]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return rows


def score(args: argparse.Namespace) -> int:
    items = _items(args.set, _out(args))
    if args.only_enrolled:
        items = [it for it in items if it["kind"] == "test"]
    if args.limit:
        items = items[::args.limit]
    if args.heads_only:
        print("\n".join(heads_only(items, args.compare_head)))
        return 0
    _state["compare"] = args.compare_head
    _state["head"] = args.head
    _state["second_ear"] = not args.without_second_ear
    _state["variants"] = args.variants
    tag = f"-{Path(args.head).parent.name}" if args.head else ""
    out = _out(args) / f"scores-{args.set}{'-enrolled' if args.only_enrolled else ''}{tag}.jsonl"
    if args.action == "table":  # the last run's rows again, tabled
        rows = [json.loads(line) for line in out.read_text().splitlines()]
    else:
        from voice_rang.listen.moonshine import MoonshineUnavailable, model_files

        try:
            if not args.without_second_ear:
                model_files()
        except MoonshineUnavailable as missing:
            print(f"bench_neural: {missing} The second ear's column is left out.", file=sys.stderr)
        rows = decode_all(items, args.workers, out)
    columns = ["released", "head alone", "head + veto + rescue", "live rule, no second opinion",
               "live rule (+ trust)"]
    columns += ["live rule + second ear"] if any("live rule + second ear" in r for r in rows) else []
    if args.compare_head or any("other head" in r for r in rows):
        columns.insert(1, "other head")
    if any("personal" in r for r in rows):
        columns.append("personal")
        columns += ["personal + second ear"] if any("personal + second ear" in r for r in rows) else []
        if "other head" in columns:
            columns.append("other head, personal")
    print("\n".join(table(rows, columns)))
    ms = sorted(r["ms"] for r in rows)
    print(f"decode ms after the endpoint (both models): median {ms[len(ms) // 2]:.1f}, "
          f"90th {ms[int(len(ms) * 0.9)]:.1f}; rows in {out}")
    return 0


def conflicts(args: argparse.Namespace) -> int:
    """The last score's utterances where the grammar decoders were sure of a command and the head
    leant (``ask`` to ``accept``) to another: where ``Rule.second_opinion`` decides."""
    from voice_rang.listen.command_head import CommandHead, HeadScores

    head = CommandHead.released()
    out = _out(args) / f"scores-{args.set}.jsonl"
    for line in out.read_text().splitlines():
        row = json.loads(line)
        for said in row.get("said", []):
            grammar, scores = said["grammar"], HeadScores(head.labels, tuple(said["head"]))
            command, p, _ = scores.best(None)
            if grammar["reason"] == "command" and command != grammar["command"] and head.ask <= p < head.accept:
                print(f"{row['condition']}: {row['text']!r} ({row['voice']}, expected {row['expected']}): "
                      f"grammar {grammar['command']!r}, head {command!r} {p:.2f}, "
                      f"head gave the grammar's {scores.of(grammar['command']):.2f}")
    return 0


EAR_WITHIN = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
EAR_LEAD = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0)


def ear(args: argparse.Namespace) -> int:
    """The last score's rows settled again with every pair of the second ear's numbers
    (``EarRule.within``, ``EarRule.lead``; the verdicts were kept in the rows), against the live
    rule without it: commands right and wrong, other lines taken. Where the numbers are chosen
    (on the training voices' rows only, ``--voices training-diphone``)."""
    from second_ear import Verdict

    from voice_rang.listen.command_head import CommandHead, HeadScores
    from voice_rang.listen.results import Recognition

    head = CommandHead.released()
    labels = head.labels
    base = rules(head.accept, head.ask)["live rule (+ trust)"]
    rows = [json.loads(line) for line in (_out(args) / f"scores-{args.set}.jsonl").read_text().splitlines()]

    def counts(rule: EarRule | None) -> dict[str, tuple[int, int, int]]:
        tally: dict[str, list[int]] = {}
        for row in rows:
            answers = []
            for said in row.get("said", []):
                first = decide(Recognition(**said["grammar"]), HeadScores(labels, tuple(said["head"])),
                               None, base, None)
                if rule is not None and said.get("verdict") and hear_again(first):
                    first = settle(first, Verdict(**said["verdict"]), None, rule)
                answers.append(first)
            result = summarize(answers)
            kind = {"command": "commands", "test": "enrolled"}.get(row["kind"]) or (
                "near words" if row.get("neg_type") in ("near", "word") else "other lines")
            key = f"{kind} {row['condition'].split()[0]}"
            right = int(row["kind"] != "negative" and result.command == row["expected"])
            wrong = int(result.command is not None and not right)
            entry = tally.setdefault(key, [0, 0, 0])
            entry[0] += right
            entry[1] += wrong
            entry[2] += 1
        return {key: (a, b, n) for key, (a, b, n) in sorted(tally.items())}

    def line(name: str, tally: dict[str, tuple[int, int, int]]) -> str:
        return f"{name:<22}" + "  ".join(f"{key} {a}/{b} of {n}" if key.startswith(("commands", "enrolled"))
                                         else f"{key} {b} of {n}" for key, (a, b, n) in tally.items())

    print("right/wrong of n for commands; taken of n for the rest")
    print(line("without", counts(None)))
    for within in EAR_WITHIN:
        for lead in EAR_LEAD:
            print(line(f"within {within:g} lead {lead:g}", counts(EarRule(within, lead))))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("make", "radio", "score", "table", "conflicts", "ear"))
    parser.add_argument("--set", choices=("heldout", "radio", "corpus", "human"), default="heldout")
    parser.add_argument("--voices", choices=tuple(VOICE_SETS), default="heldout",
                        help="training: new takes of the training voices (benchmarks/out/neural-tuning), "
                             "where a rule may be tuned; training-diphone: the same with the diphone "
                             "packages' training voices; heldout: the figures")
    parser.add_argument("--seed", type=int, default=2019)
    parser.add_argument("--espeak-takes", type=int, default=4, help="held-out espeak voices per phrase")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="score every Nth recording")
    parser.add_argument("--only-enrolled", action="store_true", help="only the enrolled voices' new takes")
    parser.add_argument("--compare-head", default=None, metavar="NPZ",
                        help="also score another head's weights (its live rule) on the same decoding")
    parser.add_argument("--head", default=None, metavar="NPZ",
                        help="decode with this head instead of the released one (rows in "
                             "scores-SET-<its folder>.jsonl); a head that learnt on suppressed sound is fed it")
    parser.add_argument("--without-second-ear", action="store_true",
                        help="leave the second ear's columns out (quicker)")
    parser.add_argument("--heads-only", action="store_true",
                        help="with --compare-head: both heads alone on whole files (quick, not the live path)")
    parser.add_argument("--variants", action="store_true",
                        help="also keep each utterance's features changed as other speakers (bench_variants.py)")
    args = parser.parse_args(argv)
    return {"make": make, "radio": radio, "score": score, "table": score, "conflicts": conflicts,
            "ear": ear}[args.action](args)


if __name__ == "__main__":
    sys.exit(main())
