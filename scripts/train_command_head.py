#!/usr/bin/env python3
"""Train the command head (``voice_rang/listen/models/command_head.npz``) from registry packages
alone, deterministically given ``--seed``.

    .venv/bin/pip install torch==2.13.0        # training only; play needs numpy and onnxruntime
    nice -n 10 .venv/bin/python scripts/train_command_head.py --heldout  # 40-60 min on a busy machine
    .venv/bin/python scripts/train_command_head.py --tiny --out /tmp/h   # seconds: proves it runs

Steps: synthesise every command phrase and thousands of things that are not commands in the
training voices (:mod:`command_corpus`; whole speakers held out), hear each take in a random room
and noise (:mod:`augment`; half the training takes first made to sound like another speaker, their
formants and pitch moved apart), embed each as play does (:func:`speech_embedding.features`),
train the head (an ensemble of three small convolutional networks, label smoothing, masks over the
embeddings: :mod:`train_head`), choose its two thresholds on takes held back from the *training* voices (never on
held-out speakers), and write the weights with their hash into :mod:`voice_rang.listen.command_head`.
The features are cached under ``--work`` (``benchmarks/out/head/``, never committed).
``--radio-takes N`` adds a part of takes heard over recorded music from Debian packages
(:data:`command_corpus.TRAIN_MUSIC`; never the benchmark's radio): tried, not in the released head.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import augment  # noqa: E402
import command_corpus as corpus  # noqa: E402
import recordings  # noqa: E402
from fronts import whole_utterance_reader  # noqa: E402
from speech_embedding import SpeechEmbedding, features  # noqa: E402
from suppressed_takes import suppress_utterance  # noqa: E402

from voice_rang.listen.command_head import (  # noqa: E402
    FRONT_BOTH,
    FRONT_EMBEDDING,
    FRONT_MOONSHINE,
    FRONT_WHISPER,
    HEARS_SUPPRESSED,
)
from voice_rang.listen.front import moonshine_features  # noqa: E402

PACKAGE_MODEL = HERE.parent / "voice_rang" / "listen" / "models" / "command_head.npz"
HEAD_MODULE = HERE.parent / "voice_rang" / "listen" / "command_head.py"
WORK = HERE.parent / "benchmarks" / "out" / "head"
RECIPE = 3
"""Bumped whenever the voices or the conditions of the training or tuning takes change, so a cache
made by an older recipe is never read as this one's."""
RADIO_RECIPE = 1
"""The same for the takes heard over recorded music (``--radio-takes``), cached apart: they are an
extra part, so the main takes of :data:`RECIPE` stay as they were."""


def log(*parts: object) -> None:
    print(time.strftime("%H:%M:%S"), *parts, flush=True)


def _takes(voices: list[corpus.Voice], texts: list[str], per_text: int, rng: random.Random,
           workers: int, kokoro_parts: int = 30) -> list[tuple[str, corpus.Voice, np.ndarray]]:
    """``per_text`` takes of every text, each by a voice drawn at random (espeak-ng has the
    most voices, so each family gets a share: espeak-ng 45 %, flite 25 %, piper 20 %,
    festival 10 %, of those installed; MBROLA 30, Pico 8, RHVoice 25 and Kokoro ``kokoro_parts``
    parts more when they train, and Kokoro's blends as many again)."""
    families: dict[str, list[corpus.Voice]] = {}
    for voice in voices:
        families.setdefault(corpus.family(voice), []).append(voice)
    weights = {"espeak": 45, "flite": 25, "piper": 20, "festival": 10, "espeak-foreign": 15, "mbrola": 30,
               "pico": 8, "rhvoice": 25, "kokoro": kokoro_parts, "kokoro-blend": kokoro_parts}
    names = sorted(families)
    plan = []
    for text in texts:
        for _ in range(per_text):
            family = rng.choices(names, [weights[n] for n in names])[0]
            plan.append((text, rng.choice(families[family]), rng.randrange(1 << 30)))
    festival = [(t, v) for t, v, _ in plan if v.engine == "festival"]
    batches = {v: corpus.festival_batch(v, sorted({t for t, w in festival if w == v}))
               for v in {v for _, v in festival}}

    def make(item: tuple[str, corpus.Voice, int]) -> tuple[str, corpus.Voice, np.ndarray] | None:
        text, voice, seed = item
        try:
            if voice.engine == "festival":
                audio = batches[voice].get(text)
                return None if audio is None else (text, voice, audio)
            return text, voice, corpus.synthesize(voice, text, random.Random(seed))
        except Exception as error:  # one voice failing on one text must not stop the run
            log("skipped", voice.name, repr(text), type(error).__name__)
            return None

    piper = [p for p in plan if p[1].engine == "piper"]
    others = [p for p in plan if p[1].engine != "piper"]
    with ThreadPoolExecutor(workers) as pool:
        made = list(pool.map(make, others))
    made += [make(p) for p in piper]  # one model in memory, one thread
    return [m for m in made if m is not None and len(m[2]) > 800]


def build(split: str, args: argparse.Namespace, seed: int) -> dict[str, np.ndarray]:
    """Features and labels of one split: ``train`` and ``tune`` (training voices, different takes),
    ``validate`` (the validation speakers, left out of those with ``--validate``: to choose a recipe
    on) or ``heldout`` (held-out speakers: for the model card's own figures only)."""
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    held = split in ("heldout", "validate")  # speakers this run never trains on; the same texts whatever the recipe
    if split == "validate":
        voices = [v for v in corpus.voices(held_out=False, diphone=True) if corpus.validation(v)]
    else:
        voices = corpus.voices(held_out=split == "heldout", foreign=() if held else tuple(args.foreign_accents),
                               diphone=args.diphone_voices, rhvoice=args.rhvoice_voices,
                               kokoro=args.kokoro_voices > 0, kokoro_blends=args.kokoro_blends)
        if args.validate:
            voices = [v for v in voices if not corpus.validation(v)]
    radio = split == "radio"  # a part of the training takes heard over recorded music alone
    tracks = [recordings.music_track(package) for package in corpus.TRAIN_MUSIC] if radio else None
    noises = (augment.RADIO,) if radio else augment.NOISES
    if args.tiny:
        voices = [v for v in voices if v.engine in ("espeak", "flite")][:6]
    phrases = corpus.command_phrases()
    # The held-out split is the model card's yardstick: the same texts whatever the recipe.
    negatives = corpus.negative_texts(random.Random(seed + 1), sentences_n=20 if args.tiny else 400 if held
                                      else args.sentences,
                                      command_talk_n=0 if held else args.command_talk // (20 if args.tiny else 1),
                                      near_takes=1 if held else args.near_takes,
                                      word_takes=1 if held else args.word_takes)
    if args.tiny:
        phrases = phrases[:4]
        negatives = negatives[::60]
    per_command = (args.takes if split == "train" else args.radio_takes if radio
                   else 20 if split == "validate" else max(2, args.takes // 6))  # validation: the same for every recipe
    log(split, len(voices), "voices,", len(phrases), "phrases,", len(negatives), "negatives")
    positives = _takes(voices, [p for _, p in phrases], per_command, rng, args.workers, args.kokoro_voices)
    negative_share = 1 if split == "train" else 3  # the radio part: a third, as tuning has
    negative_texts = [t for _, t in negatives][::negative_share]
    negative_takes = _takes(voices, negative_texts, 1, rng, args.workers, args.kokoro_voices)
    kind_of = {t: k for k, t in negatives}
    command_of = {p: c for c, p in phrases}
    talk = [a for t, _, a in negative_takes if kind_of.get(t) in ("talk", "narration")][:200]
    log(split, len(positives), "command takes,", len(negative_takes), "other takes")

    audio: list[np.ndarray] = []
    labels: list[str] = []
    kinds: list[str] = []
    speakers: list[str] = []
    conditions: list[str] = []

    def add(samples: np.ndarray, label: str, kind: str, speaker: str, described: str) -> None:
        audio.append(samples)
        labels.append(label)
        kinds.append(kind)
        speakers.append(speaker)
        conditions.append(described)

    copies = args.copies if split == "train" else 2
    # Made-up speakers (formants and pitch moved apart) only train; the tuning takes stay the voices
    # as their synthesisers made them, so the thresholds are chosen on real voices.
    shifted = args.new_speakers if split in ("train", "radio") else 0.0
    far = args.other_speakers if split in ("train", "radio") else 0.0
    for text, voice, samples in positives:
        for n in range(copies):
            conditioned, described = augment.condition(nprng, samples, talk, new_speaker_share=shifted,
                                                       other_speaker_share=far,
                                                       clean_share=(0.5 if n == 0 else 0.1) / (3 if radio else 1),
                                                       noises=noises, tracks=tracks)
            add(conditioned, command_of[text], "command", voice.speaker, described)
    other_copies = args.talk_copies if split == "train" and args.talk_copies else max(1, copies - 1)
    for text, voice, samples in negative_takes:
        for _ in range(other_copies):
            conditioned, described = augment.condition(nprng, samples, talk, new_speaker_share=shifted,
                                                       other_speaker_share=far, noises=noises, tracks=tracks)
            add(conditioned, "", kind_of[text], voice.speaker, described)
    if args.real_talk and split in ("train", "tune"):  # people: every other clip trains, the rest tune
        clips = recordings.real_talk()[0 if split == "train" else 1::2]
        for _, clip in clips:
            for piece in recordings.pieces(clip, rng):
                for _ in range(copies):  # few as they are, each heard in as many rooms as a command
                    conditioned, described = augment.condition(nprng, piece, talk, noises=noises)
                    add(conditioned, "", "talk", f"people:{recordings.REAL_TALK_PACKAGE}", described)
    for _ in range(len(negative_takes) // (1 if radio else 4)):  # the radio alone, nobody speaking
        sound, described = augment.noise_alone(nprng, talk, noises, tracks)
        add(sound, "", "noise", "-", described)
    log(split, len(audio), "examples: embedding")
    if args.suppressed:  # as a head that hears the suppressed sound is fed in play
        audio = [np.frombuffer(suppress_utterance(np.clip(a, -32768, 32767).astype(np.int16).tobytes()),
                               dtype=np.int16).astype(np.float32) for a in audio]
    # (moonshine_features looked up here, where scripts/tune_encoder_top.py puts its own cut)
    read = moonshine_features if args.front == FRONT_MOONSHINE else whole_utterance_reader(args.front)
    if read is not None:  # the whole take, as the live path gives such a head the whole cut
        with ThreadPoolExecutor(args.workers) as pool:
            x = np.stack(list(pool.map(lambda a: read(a.astype(np.int16)), audio))).astype(np.float16)
    else:
        model = SpeechEmbedding.shared()
        # Each take already has its 100-600 ms of room after the word (augment.condition); the
        # closing silence play adds makes up for an endpointer that closes sooner than that.
        x = np.stack([features(a.astype(np.int16), model, closing_ms=0) for a in audio]).astype(np.float16)
    return {"x": x, "label": np.array(labels), "kind": np.array(kinds),
            "speaker": np.array(speakers), "condition": np.array(conditions)}


def cached(split: str, args: argparse.Namespace, seed: int) -> dict[str, np.ndarray]:
    # The held-out split depends only on the held-out voices installed (more since Debian's diphone voices).
    recipe = f"-h{len(corpus.voices(held_out=True))}" if split == "heldout" else f"-r{RECIPE}"
    if split == "validate":
        recipe = "-validation"
    elif split != "heldout" and args.validate:
        recipe += "-nv"
    if split == "radio":
        recipe = f"-music{RADIO_RECIPE}-{args.radio_takes}"
    if split == "train" and args.talk_copies:
        recipe += f"-tc{args.talk_copies}"
    if split in ("train", "radio") and args.new_speakers:
        recipe += f"-s{round(100 * args.new_speakers)}"
        if args.other_speakers:
            recipe += f"-o{round(100 * args.other_speakers)}"
    if split not in ("heldout", "validate"):  # their voices and texts are the same whatever the recipe
        if args.foreign_accents:
            recipe += "-f" + ".".join(args.foreign_accents)
        if args.diphone_voices:
            recipe += "-mb"
        if args.rhvoice_voices:
            recipe += "-rh"
        if args.kokoro_voices:
            recipe += "-ko" if args.kokoro_voices == 30 else f"-ko{args.kokoro_voices}"
        if args.kokoro_blends:
            recipe += f"-kb{args.kokoro_blends}"
        if args.real_talk:
            recipe += "-rt"
        if (args.sentences, args.command_talk, args.near_takes, args.word_takes) != (400, 0, 1, 1):
            recipe += f"-n{args.sentences}.{args.command_talk}.{args.near_takes}.{args.word_takes}"
    if args.suppressed:
        recipe += "-ns"
    if args.front == FRONT_MOONSHINE:
        recipe += "-ms"
    elif args.front == FRONT_WHISPER:
        recipe += "-wb"
    elif args.front == FRONT_BOTH:
        recipe += "-mw"
    path = args.work / f"{split}-{seed}{'-tiny' if args.tiny else ''}-{args.takes}-{args.copies}{recipe}.npz"
    if split == "validate":  # the same takes whatever the recipe, so every recipe is scored on one file
        path = args.work / f"{split}-{seed}{'-tiny' if args.tiny else ''}{recipe}.npz"
    if path.exists() and not args.rebuild:
        with np.load(path) as data:
            return {k: data[k] for k in data.files}
    data = build(split, args, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **data)  # type: ignore[arg-type]
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--tiny", action="store_true", help="a few voices and phrases: seconds")
    parser.add_argument("--takes", type=int, default=60, help="takes of each command phrase")
    parser.add_argument("--copies", type=int, default=3, help="rooms/noises each take is heard in")
    parser.add_argument("--talk-copies", type=int, default=0, metavar="N",
                        help="rooms/noises each training take that is not a command is heard in (0: one "
                             "fewer than --copies)")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--arch", choices=("gru", "conv"), default="conv")
    parser.add_argument("--members", type=int, default=3, help="heads in the ensemble (seeds apart)")
    parser.add_argument("--mixup", type=float, default=0.0)
    parser.add_argument("--channels", type=int, default=64, help="channels of each convolution")
    parser.add_argument("--hidden", type=int, default=64, help="width of the dense layer")
    parser.add_argument("--smoothing", type=float, default=0.1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="write command_head.npz into this folder instead of into the package (and "
                             "leave the hash alone)")
    parser.add_argument("--rebuild", action="store_true", help="synthesise again, ignoring the cache")
    parser.add_argument("--heldout", action="store_true", help="also report on the held-out speakers")
    parser.add_argument("--more", type=int, nargs="*", default=[], metavar="SEED",
                        help="also train on the takes made with these seeds (more of the same voices)")
    parser.add_argument("--data-only", action="store_true", help="make (and cache) the takes, train nothing")
    parser.add_argument("--radio-takes", type=int, default=0, metavar="N",
                        help="also train on N takes of each command (and a third of the rest) heard over "
                             "recorded music (command_corpus.TRAIN_MUSIC, Debian packages)")
    parser.add_argument("--other-speakers", type=float, default=0.0, metavar="SHARE",
                        help="share of those made to sound much higher or lower (a woman or a child from a "
                             "man, a man from a woman: augment.other_speaker)")
    parser.add_argument("--foreign-accents", nargs="*", default=[], choices=corpus.FOREIGN_ACCENTS, metavar="LANG",
                        help="also espeak-ng voices of these languages reading the English text (a family of "
                             "their own, 15 parts in 115 of the takes)")
    parser.add_argument("--validate", action="store_true",
                        help="leave the validation speakers (command_corpus.VALIDATION_*) out of training and "
                             "tuning, and report the head on them: to choose a recipe on training speakers")
    parser.add_argument("--real-talk", action="store_true",
                        help="also train on people talking (recordings.REAL_TALK_PACKAGE, a Debian package's "
                             "spoken messages) as what is not a command")
    parser.add_argument("--diphone-voices", action="store_true",
                        help="also train on MBROLA's and SVOX Pico's voices and festival's rab and don "
                             "(command_corpus.DIPHONE_PACKAGES: scripts/dev voices), those not held out")
    parser.add_argument("--sentences", type=int, default=400, help="sentences of random ordinary words")
    parser.add_argument("--command-talk", type=int, default=0, metavar="N",
                        help="lines of table talk holding a command word (command_corpus.COMMAND_WORD_FRAMES)")
    parser.add_argument("--near-takes", type=int, default=1, help="takes of each word one sound from a command")
    parser.add_argument("--word-takes", type=int, default=1, help="takes of each ordinary word")
    parser.add_argument("--new-speakers", type=float, default=0.5, metavar="SHARE",
                        help="share of training takes made to sound like another speaker (formants, pitch)")
    parser.add_argument("--rhvoice-voices", action="store_true",
                        help="also train on RHVoice's English voices (command_corpus.RHVOICE_VOICES, Debian "
                             "non-free rhvoice-english), slt never: four people no other engine speaks for")
    parser.add_argument("--kokoro-voices", type=int, nargs="?", const=30, default=0, metavar="PARTS",
                        help="also train on Kokoro-82M's training voices (scripts/kokoro_voices.py, PyPI "
                             "packages of the train extra): 38 neural voices of 34 speakers, some with an "
                             "accent, a family of PARTS parts (30) beside espeak-ng's 45")
    parser.add_argument("--kokoro-blends", type=int, default=0, metavar="N",
                        help="with --kokoro-voices, also N speakers each a mix of two Kokoro training "
                             "voices (kokoro_voices.blends), a family of as many parts again")
    parser.add_argument("--suppressed", action="store_true",
                        help="train and tune on each take as heard through the noise suppressor "
                             "(suppressed_takes.suppress_utterance); the head says so, and "
                             "the live path then feeds it that sound")
    parser.add_argument("--front", choices=(FRONT_EMBEDDING, FRONT_MOONSHINE, FRONT_WHISPER, FRONT_BOTH),
                        default=FRONT_EMBEDDING,
                        help="what the head reads: the speech embedding (the heads before), Moonshine's encoder "
                             "states (the released head; voice_rang.listen.front), Whisper base's, or both "
                             "encoders' side by side")
    parser.add_argument("--accept", type=float, default=None, metavar="P",
                        help="act from this probability instead of the one chosen on the tuning takes (a "
                             "sweep on the validation sets chose 0.80 for the released head)")
    args = parser.parse_args(argv)
    if args.kokoro_blends and not args.kokoro_voices:
        parser.error("--kokoro-blends mixes Kokoro's training voices: add --kokoro-voices")
    if args.talk_copies < 0:
        parser.error(f"--talk-copies is a number of rooms, 1 or more (0 for the default), not {args.talk_copies}")
    if args.tiny:
        args.takes, args.copies, args.epochs, args.members = 3, 1, 3, 2
    parts = [cached("train", args, seed) for seed in (args.seed, *args.more)]
    if args.radio_takes:
        parts.append(cached("radio", args, args.seed + 500))
    if args.data_only:
        cached("tune", args, args.seed + 1000)
        return 0
    from train_head import Recipe, fit, thresholds  # the torch half: making the takes needs none of it

    train = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
    tune = cached("tune", args, args.seed + 1000)
    labels = ("", *sorted({c for c, _ in corpus.command_phrases()}))
    recipe = Recipe(arch=args.arch, members=args.members, epochs=args.epochs, mixup=args.mixup,
                    smoothing=args.smoothing, channels=args.channels, hidden=args.hidden)
    weights = fit(train, labels, recipe=recipe, seed=args.seed)
    accept, ask = thresholds(weights, labels, tune)
    weights["thresholds"] = np.array([args.accept or accept, ask], dtype=np.float32)
    weights["labels"] = np.array(labels)
    if args.suppressed:
        weights["hears"] = np.array(HEARS_SUPPRESSED)
    if args.front != FRONT_EMBEDDING:
        weights["front"] = np.array(args.front)
    out = args.out / "command_head.npz" if args.out else PACKAGE_MODEL
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, **weights)  # type: ignore[arg-type]
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    log("wrote", out, f"{out.stat().st_size / 1024:.0f} KiB", "sha256", digest,
        "thresholds", weights["thresholds"].tolist())
    if args.out is None:
        source = HEAD_MODULE.read_text(encoding="utf-8")
        HEAD_MODULE.write_text(re.sub(r'WEIGHTS_SHA256 = "[0-9a-f]{64}"', f'WEIGHTS_SHA256 = "{digest}"',
                                      source), encoding="utf-8")
    summary = {"train_examples": len(train["label"]), "tune_examples": len(tune["label"]),
               "front": args.front, "frames": int(train["x"].shape[1]), "values": int(train["x"].shape[2]),
               "seed": args.seed, "more": args.more, "sha256": digest,
               "recipe": vars(recipe), "new_speakers": args.new_speakers,
               "other_speakers": args.other_speakers, "radio_takes": args.radio_takes,
               "thresholds": weights["thresholds"].tolist(),
               "train_speakers": sorted(set(train["speaker"].tolist()) - {"-"})}
    if args.validate:
        from train_head import report

        validation = cached("validate", args, args.seed + 3000)
        summary["validation"] = report(weights, labels, validation)
        summary["validation_speakers"] = sorted(set(validation["speaker"].tolist()) - {"-"})
    if args.heldout:
        from train_head import report

        held = cached("heldout", args, args.seed + 2000)
        summary["heldout"] = report(weights, labels, held)
        summary["heldout_speakers"] = sorted(set(held["speaker"].tolist()) - {"-"})
    (out.parent / "command_head.json" if args.out else args.work / "summary.json").write_text(
        json.dumps(summary, indent=1), encoding="utf-8")
    print(json.dumps({k: v for k, v in summary.items() if "speakers" not in k}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
