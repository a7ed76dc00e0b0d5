"""``voice-rang enroll``: teach the game the player's own voice, three takes of each command, or
(``--cards``) of each card word: the thirteen ranks, the four suits and the four answers to the
game's questions, in the player's own language, which Court Piece then hears beside the stock
model (a Bengali-speaking child says "হরতনের বিবি").

Spoken and keyboard-driven like the game: it says each command to say, records the take through
the same microphone path as play (endpointer, half duplex), checks it (too quiet, clipped, unlike
the other two: "say it again"), and keeps the takes under ``$XDG_DATA_HOME/voice-rang/voice/``.
``--import DIR`` takes recordings instead (``<command id, _ for spaces>__anything.wav``, made by a
carer or a speech therapist; card words are named by their code in the log: ``Q__1.wav``,
``10__2.wav``, ``H__3.wav``); ``--forget`` deletes them all. ``play`` and ``recognize`` use the takes
from then on (``recognize --no-personal`` leaves them out).
"""

from __future__ import annotations

import argparse
import queue
import sys
import threading
import time
import wave
from pathlib import Path
from typing import Any

import numpy as np

from . import UsageError, chosen_commands
from .device import add_output_arguments, check_output_arguments, open_speech
from .models import models_usable

__all__ = ["add_arguments", "run"]

TAKES = 3
WAIT_S = 10.0
"""How long a take is waited for before the game asks again."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--import", dest="import_dir", metavar="DIR",
                        help="take recordings from DIR instead: <command id, _ for spaces>__anything.wav")
    parser.add_argument("--forget", action="store_true", help="delete the takes of your voice")
    parser.add_argument("--cards", action="store_true",
                        help="teach your card words for Court Piece instead (ranks, suits, yes, no, first, second), "
                             "in the --lang language")
    parser.add_argument("--mic", help="microphone name or index (default: the system's default input)")
    parser.add_argument("--only", metavar="COMMANDS",
                        help="comma-separated command ids to record (with --cards: codes, Q,H,10,first; default: all)")
    add_output_arguments(parser)


def _write(path: Path, pcm: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with wave.open(str(partial), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(pcm)
    partial.replace(path)


def _slug(command: str) -> str:
    return command.replace(" ", "_")


class _Session:
    """The words and the outputs of one enrolment."""

    def __init__(self, args: argparse.Namespace) -> None:
        from ..commands import CommandSet
        from ..narration import Narrator
        from ..prompts import load_prompts
        from ..table.loop import TableOutputs

        check_output_arguments(args)
        prompts = load_prompts(args.lang)
        self.commands = CommandSet.load(args.lang)
        self.narrator = Narrator(prompts, seats=2)
        self.outputs = TableOutputs()
        self.args = args
        self.cards = bool(getattr(args, "cards", False))
        if self.cards:
            from ..listen.card_words import ANSWERS, RANK_CODES, SUIT_CODES
            from ..prompts import load_game_prompts

            words = prompts.messages["words"]
            answers = load_game_prompts(args.lang, "court-piece")[0].commands
            self.items: dict[str, str] = {**dict(zip(RANK_CODES, words["ranks"], strict=True)),
                                          **{code: words["suits"][code] for code in SUIT_CODES},
                                          **{answer: answers[answer][0] for answer in ANSWERS}}
        else:
            self.items = {command: phrases[0] for command, phrases in self.commands.spoken().items()}

    def say(self, key: str, **fields: Any) -> None:
        if self.cards and key in ("start", "done", "stopped", "imported", "import_unknown"):
            key = f"{key}_cards"
        self.outputs.say(self.narrator.say("enroll", key, kind="hint", **fields))

    def phrase(self, item: str) -> str:
        return self.items[item]


def _wanted(session: _Session) -> list[str]:
    """The commands (or card words) to take: all, or those ``--only`` names."""
    wanted = list(session.items)
    if session.args.only:
        chosen = chosen_commands(session.args.only, wanted)
        wanted = [c for c in wanted if c in chosen]
    return wanted


def _forget(session: _Session, directory: Path) -> int:
    from ..listen.card_words import card_words_dir

    takes = [path for folder in (directory, card_words_dir()) if folder.is_dir()
             for path in sorted(folder.glob("*.wav"))]
    for path in takes:
        path.unlink()
    session.say("forgot" if takes else "nothing_to_forget", count=len(takes))
    return 0


def _import(session: _Session, source: Path, directory: Path) -> int:
    from ..listen.personal import check_takes, command_of_file
    from ..listen.wavfile import WavError, read_wav_16k

    if not source.is_dir():
        raise UsageError(f"--import needs a folder of WAV files; {source} is not one")
    files = sorted(source.glob("*.wav"))
    if not files:
        how = ("its card word's code, like Q__1.wav, 10__2.wav or H__3.wav" if session.cards
               else "its command, like turn__1.wav or auto-reveal_on__2.wav")
        raise UsageError(f"--import found no .wav files in {source}: name each take after {how}")
    known = set(session.items)
    wanted = set(_wanted(session))
    grouped: dict[str, list[tuple[Path, np.ndarray]]] = {}
    status = 0
    for path in files:
        command = command_of_file(path.name, known)
        if command is None:
            session.say("import_unknown", file=path.name)
            status = 1
            continue
        if command not in wanted:  # a take of a command --only leaves out
            continue
        try:
            pcm = read_wav_16k(path)
        except WavError as error:
            session.say("import_unreadable", file=path.name, reason=str(error))
            status = 1
            continue
        grouped.setdefault(command, []).append((path, np.frombuffer(pcm, dtype="<i2")))
    count = 0
    enrolled = 0
    for command, takes in sorted(grouped.items()):
        problems = check_takes([samples for _, samples in takes])
        good = 0
        for (path, samples), problem in zip(takes, problems, strict=True):
            if problem is not None:
                session.say("import_bad", file=path.name,
                            problem=session.narrator.say("enroll", f"problem_{problem}").text.lower())
                status = 1
                continue
            _write(directory / f"{_slug(command)}__import_{path.stem.split('__', 1)[1]}.wav", samples.tobytes())
            good += 1
        count += good
        enrolled += good > 0
        if good < TAKES:
            session.say("import_few", count=good, phrase=session.phrase(command))
    session.say("imported", count=count, commands=enrolled, directory=str(source))
    return status


def _lines(into: queue.Queue[Any]) -> None:
    for line in sys.stdin:
        into.put(("key", line.strip().lower()))
    into.put(("key", "q"))


def _record(session: _Session, directory: Path) -> int:
    from ..listen import MicrophoneUnavailable, VoiceListener
    from ..listen.personal import check_takes
    from ..listen.takes import TakeRecorder

    wanted = _wanted(session)
    speech = open_speech(session.args, session.outputs, session.narrator)
    recorder = TakeRecorder()
    events: queue.Queue[Any] = queue.Queue()
    mic: str | int | None = session.args.mic
    if isinstance(mic, str) and mic.isdigit():
        mic = int(mic)
    listener = VoiceListener(session.commands, on_command=lambda _: None, mic=mic, recognizer=recorder,
                             on_error=lambda sentence: events.put(("error", sentence)))
    if speech is not None:
        speech.add_activity_listener(listener.set_output_activity)
    try:
        listener.start()
    except MicrophoneUnavailable as problem:
        session.say("no_microphone", reason=str(problem))
        if speech is not None:
            speech.close()
        return 1
    threading.Thread(target=_lines, args=(events,), daemon=True).start()

    def pump() -> None:
        while True:
            events.put(("take", recorder.takes.get()))

    threading.Thread(target=pump, daemon=True).start()
    kept = 0
    stopped = False
    try:
        session.say("start")
        for command in wanted:
            phrase = session.phrase(command)
            takes: list[bytes] = []
            while len(takes) < TAKES and not stopped:
                session.say("say_it", phrase=phrase, take=len(takes) + 1)
                if speech is not None:
                    speech.wait_until_done(15.0)
                _drain(events)
                kind, value = _next(events)
                if kind == "key" and value == "q":
                    stopped = True
                elif kind == "key" and value == "s":
                    session.say("skipped", phrase=phrase)
                    break
                elif kind == "error":
                    session.say("no_microphone", reason=value)
                    stopped = True
                elif kind == "take" and value:
                    takes.append(value)
                    if len(takes) == TAKES:
                        problems = check_takes([np.frombuffer(t, dtype="<i2") for t in takes])
                        for number, wrong in reversed(list(enumerate(problems, 1))):
                            if wrong is not None:
                                session.say(f"again_{wrong}", take=number)
                                del takes[number - 1]
                elif kind == "none":
                    session.say("not_heard", phrase=phrase)
            if len(takes) == TAKES:
                for number, take in enumerate(takes, 1):
                    _write(directory / f"{_slug(command)}__take{number}.wav", take)
                kept += 1
                session.say("kept", phrase=phrase)
            if stopped:
                break
        session.say("stopped" if stopped else "done", count=kept)
    finally:
        listener.stop()
        if speech is not None:
            speech.wait_until_done(10.0)
            speech.close()
    return 0


def _drain(events: queue.Queue[Any]) -> None:
    """Drop takes recorded before the question was asked (the player spoke early, or noise)."""
    kept = []
    while True:
        try:
            item = events.get_nowait()
        except queue.Empty:
            break
        if item[0] != "take":
            kept.append(item)
    for item in kept:
        events.put(item)


def _next(events: queue.Queue[Any]) -> tuple[str, Any]:
    deadline = time.monotonic() + WAIT_S
    try:
        item: tuple[str, Any] = events.get(timeout=max(0.0, deadline - time.monotonic()))
        return item
    except queue.Empty:
        return "none", None


def run(args: argparse.Namespace) -> int:
    from ..listen.card_words import card_words_dir
    from ..listen.personal import voice_dir

    if args.forget and (args.import_dir or args.only or args.cards):
        raise UsageError("--forget deletes every take, so it goes alone: forget first, then record or --import")
    session = _Session(args)
    _wanted(session)  # a wrong --only is one line before anything is read or recorded
    directory = card_words_dir() if args.cards else voice_dir()
    if args.forget:
        return _forget(session, directory)
    with models_usable("enroll"):  # takes are checked with the models
        if args.import_dir:
            return _import(session, Path(args.import_dir), directory)
        return _record(session, directory)

