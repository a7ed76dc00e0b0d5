"""What a table needs of this device, whatever the game: the outputs (printed lines, speech and
its sound cues), ``--log``, the save's resume line, and the inputs (keys, lines, the voice).

Shared by ``play`` (both games), ``host``, ``join``, ``demo`` and ``enroll``; it knows no game's
rules. Every message it says comes from the narrator it is handed.
"""

from __future__ import annotations

import argparse
import os
import queue
import shlex
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..commands import CommandSet
from ..keyboard import KeyReader, LineReader, terminal_keys
from ..messages import Message
from ..narration import VERBOSITIES, Narrator
from ..prompts import PromptsError, load_prompts
from ..table import Table
from ..table.loop import BARGE_IN, INPUT_ENDED, SPEECH_ENDED, Guess, Inbox, LogFile, TableOutputs, run_table
from ..table.save import Keeper, SavedGame, SaveError, read_save, save_path
from ..table.save import open_log as open_save_log
from . import UsageError

if TYPE_CHECKING:
    from ..listen.recognizer import Recognition

Saved = TypeVar("Saved")


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """Keys, lines and voice: shared by play, host and join."""
    parser.add_argument("--no-listen", action="store_true", help="do not listen to the microphone")
    parser.add_argument("--listen", action="store_true",
                        help="listen to the microphone even with --text (keep your screen reader off the mic)")
    parser.add_argument("--mic", help="microphone name or index (default: the system's default input)")
    parser.add_argument("--headphones", action="store_true",
                        help="the game's voice cannot reach the microphone (headphones, a headset): "
                             "listen while it talks, so you can talk over it")


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """Output options shared by play and demo."""
    parser.add_argument("--text", action="store_true",
                        help="print only, no speech: for your own screen reader")
    parser.add_argument("--voice", help="speech voice name (see voice-rang doctor)")
    parser.add_argument("--rate", type=int, help="speech rate in words per minute")
    parser.add_argument("--volume", type=float, help="speech volume from 0.0 to 1.0")
    parser.add_argument("--verbosity", choices=VERBOSITIES, default="normal",
                        help="brief (experts), normal, or full (adds every count)")
    parser.add_argument("--lang", default=os.environ.get("VOICE_RANG_LANG", "en"),
                        help="language of the prompts file (default en; bn for Bengali)")
    parser.add_argument("--sounds", choices=("on", "off"),
                        help="sound cues for misses, matches, your turn and more "
                             "(default on when speaking, off with --text)")


def check_output_arguments(args: argparse.Namespace) -> None:
    if args.rate is not None and not 50 <= args.rate <= 500:
        raise UsageError(f"--rate must be 50 to 500 words a minute, not {args.rate}")
    if args.volume is not None and not 0.0 <= args.volume <= 1.0:
        raise UsageError(f"--volume must be 0.0 to 1.0, not {args.volume}")
    try:
        load_prompts(args.lang)
    except PromptsError as error:
        raise UsageError(str(error)) from None


def sounds_wanted(args: argparse.Namespace) -> bool:
    """``--sounds``, else on when the game speaks and off with ``--text``."""
    return args.sounds == "on" if args.sounds else not args.text


def open_speech(args: argparse.Namespace, outputs: TableOutputs, narrator: Narrator) -> Any:
    """Speech output unless ``--text`` (then sound cues alone, with ``--sounds on``); when it
    can't start, one line says why and play goes on. Sets ``narrator.sounds``."""
    narrator.sounds = False
    words = not args.text
    if not words and not sounds_wanted(args):
        return None
    try:
        from ..speech import SpeechUnavailable
        from ..speech.driver import open_spoken
    except ImportError as error:  # pragma: no cover - broken installation
        outputs.say(narrator.say("answer", "speech_off", reason=f"{error}."))
        return None

    def lost(reason: str) -> None:
        outputs.speech_failed()
        narrator.sounds = False
        outputs.say(narrator.say("answer", "speech_off", reason=reason))

    voice = args.voice or load_prompts(args.lang).voice
    try:
        speech = open_spoken(voice=voice, rate=args.rate, volume=args.volume, on_failure=lost, words=words)
    except SpeechUnavailable as error:
        outputs.say(narrator.say("answer", "speech_off", reason=str(error)))
        return None
    outputs.speech = speech
    # The system voice of Windows and macOS says words only: there the cues are words too.
    narrator.sounds = sounds_wanted(args) and getattr(speech, "plays_cues", True)
    return speech


def open_log(path: str | None, stack: ExitStack, saved: SavedGame | None = None) -> LogFile | None:
    """``--log PATH`` opened for writing (for a resumed game, so that it reads as one unbroken
    game), or one line saying why it can't be."""
    if not path:
        return None
    try:
        return LogFile(stack.enter_context(open_save_log(path, saved)))
    except OSError as error:
        raise UsageError(
            f"cannot write the log to {path}: {error.strerror or error}; choose a writable path"
        ) from None


def start_inputs(args: argparse.Namespace, commands: CommandSet, inbox: queue.Queue[Inbox],
                 narrator: Narrator, speech: Any, outputs: TableOutputs, table: Listening,
                 stack: ExitStack, listen: bool, moves: MovesByVoice | None = None) -> None:
    """Keys (a terminal) or lines (a pipe), and the voice when ``listen``: each puts command ids
    on ``inbox``, and :data:`INPUT_ENDED` once all of them have ended."""
    remaining = [2 if listen else 1]

    def source_ended() -> None:
        remaining[0] -= 1
        if remaining[0] == 0:
            inbox.put(INPUT_ENDED)

    if sys.stdin.isatty():
        stack.enter_context(terminal_keys(sys.stdin.fileno()))
        reader: KeyReader | LineReader = KeyReader(commands, inbox.put, source_ended)
        outputs.say(narrator.say("prompt", "keys_hint", kind="hint"))
    else:
        reader = LineReader(commands, inbox.put, source_ended)
    reader.start()
    stack.callback(reader.stop)
    if listen:
        # The recogniser takes a moment to load: the game starts talking meanwhile.
        voice = VoiceStarter(args, commands, inbox, narrator, speech, table, source_ended, moves)
        voice.start()
        stack.callback(voice.stop)


@dataclass
class Device:
    """What this device opened for a game (``play``, ``host`` and ``join`` alike): the log, the
    outputs with speech (or text alone), and whether the microphone is wanted."""

    stack: ExitStack
    outputs: TableOutputs
    log: LogFile | None
    speech: Any
    listen: bool

    def keeper(self, args: argparse.Namespace, narrator: Narrator, name: str,
               table: Callable[[], dict[str, Any]] | None = None) -> Keeper:
        """The save of this kind of table (``play``, ``host``), kept beside ``--log``; a disk that
        refuses is said once and play goes on."""
        path = save_path(name)
        return Keeper(path, log=os.path.abspath(args.log) if args.log else None,
                      log_size=self.log.tell if self.log is not None else None, table=table,
                      on_error=lambda error: self.outputs.say(narrator.say(
                          "save", "not_saved", path=path, detail=error.strerror or str(error))),
                      command=resume_command(name, args))

    def serve(self, table: Table, inbox: queue.Queue[Inbox], keeper: Keeper, narrator: Narrator,
              *, start: bool = True) -> int:
        """Serve the table until it finishes (:func:`run_table`). Ctrl-C while the game is
        saved stops with one line on stderr: at which reveal, and what goes on from there."""

        def stopped() -> Message | None:
            command = keeper.resume_command()
            if command is None or table.game is None:
                return None
            return table.play.stopped("interrupted_saved", command=command)

        return until_ctrl_c(lambda: run_table(table, inbox, on_barge_in=self.outputs.stop, start=start),
                            stopped)

    def start_inputs(self, args: argparse.Namespace, commands: CommandSet, inbox: queue.Queue[Inbox],
                     narrator: Narrator, table: Listening, moves: MovesByVoice | None = None) -> None:
        start_inputs(args, commands, inbox, narrator, self.speech, self.outputs, table, self.stack,
                     self.listen, moves)


@contextmanager
def open_device(args: argparse.Namespace, narrator: Narrator,
                saved: SavedGame | None = None) -> Iterator[Device]:
    """Open ``--log`` (so that a resumed game reads as one unbroken game), speech and the
    outputs; close them all after. A game that ends normally lets its last words be heard."""
    with ExitStack() as stack:
        log = open_log(args.log, stack, saved)
        outputs = TableOutputs()
        speech = open_speech(args, outputs, narrator)
        if speech is not None:
            stack.callback(speech.close)
        listen = not args.no_listen and (args.listen or not args.text)
        yield Device(stack, outputs, log, speech, listen)
        if outputs.speech is not None:
            outputs.speech.wait_until_done(10.0)  # let the last words ("Goodbye.") be heard


def until_ctrl_c(run: Callable[[], int], stopped: Callable[[], Message | None]) -> int:
    """``run()``'s exit code. Ctrl-C during it prints ``stopped()`` (where the game stopped and
    the command that goes on from there) on stderr and exits 130; with nothing to say
    (``None``), it stops as any command does ("Stopped.")."""
    try:
        return run()
    except KeyboardInterrupt:
        line = stopped()
        if line is None:
            raise
        print(line.text, file=sys.stderr)
        return 130


def played_as(args: argparse.Namespace) -> list[str]:
    """The options that say how this player plays, for a command line told back to them: text
    only, and the language."""
    words = ["--text"] if getattr(args, "text", False) else []
    if args.lang != "en":
        words += ["--lang", args.lang]
    return words


def resume_command(name: str, args: argparse.Namespace) -> str:
    """The command line that goes on with the save of ``name`` (``play``, ``host``), keeping the
    options that say how this player plays: text only, the language, the log.

    >>> resume_command("play", argparse.Namespace(text=True, lang="bn", log=None))
    'voice-rang play --resume --text --lang bn'
    >>> resume_command("host", argparse.Namespace(text=False, lang="en", log="my game.jsonl"))
    "voice-rang host --resume --log 'my game.jsonl'"
    """
    words = ["voice-rang", name, "--resume", *played_as(args)]
    if args.log:
        words += ["--log", shlex.quote(args.log)]
    return " ".join(words)


def load_saved_game(args: argparse.Namespace, name: str = "play",
                    read: Callable[[Path], Saved] = read_save) -> Saved | None:  # type: ignore[assignment]
    """The game ``--resume`` goes on with (the save of ``name``, read by ``read``); ``None``
    after one line on stderr saying why not (``[messages.save]``, the keys of another kind of
    table prefixed with its name)."""
    try:
        return read(save_path(name))
    except SaveError as error:
        key = error.problem if name == "play" else f"{name}_{error.problem}"
        words = load_prompts(args.lang).messages["save"][key]
        print(words.format(path=error.path, detail=error.detail), file=sys.stderr)
        return None


class Listening(Protocol):
    """What the voice needs of whatever it serves (a table, or a guest's session)."""

    quiet_gap: float
    heard_quiet_until: Callable[[], float] | None

    def valid_commands(self) -> set[str]: ...


@dataclass(frozen=True)
class MovesByVoice:
    """A game whose moves are said by name (Court Piece: "queen of hearts"): what the voice
    listens for on a turn (:mod:`voice_rang.listen.choices`), and how its questions name a move."""

    moves: Callable[[], Mapping[str, Any]]
    """The legal moves now, each with ``phrases`` and ``caution`` (empty: not a person's turn)."""
    vocabulary: tuple[str, ...]
    """Every phrase a move can ever be said with."""
    name: Callable[[str], str]
    """A move as a question names it ("the queen of hearts")."""
    question: Callable[[str], Message | None]
    """The question asked before a move that deserves one."""
    listening: tuple[str, str]
    """What to say once listening (section, key)."""
    deck: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    """Every card by the player's own card words (``enroll --cards``): what a card heard must
    stand out from."""


def moves_by_voice(play: Any) -> MovesByVoice:
    """What the voice listens for at a Court Piece table (``play``: its ``CourtPiecePlay``)."""
    from ..games.court_piece.spoken import deck_words, every_phrase

    return MovesByVoice(play.spoken_moves, every_phrase(), play.move_name, play.caution_question,
                        ("court_piece", "prompt.listening"), deck_words())


class VoiceStarter:
    """Starts listening on a thread of its own; says on the table's queue whether it could."""

    def __init__(self, args: argparse.Namespace, commands: CommandSet, inbox: queue.Queue[Inbox],
                 narrator: Narrator, speech: Any, table: Listening, gave_up: Callable[[], None],
                 moves: MovesByVoice | None = None) -> None:
        self._moves = moves
        self._args, self._commands, self._inbox = args, commands, inbox
        self._narrator, self._speech, self._table, self._gave_up = narrator, speech, table, gave_up
        self._listener: Any = None
        self._lock = threading.Lock()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="voice-start", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            listener = self._listener
        if listener is not None:
            listener.stop()

    def _say(self, section: str, key: str, **fields: Any) -> None:
        self._inbox.put(self._narrator.say(section, key, kind="hint", **fields))

    def unsure(self, result: Recognition) -> None:
        """Half heard: the table asks "Did you say …?" about the guess, and acts only on a yes;
        two moves heard alike are asked between; a move that deserves a question gets its own."""
        moves = self._moves
        if moves is not None and result.reason == "which" and len(result.between) > 1:
            names = tuple(moves.name(command) for command in result.between)
            self._inbox.put(Guess(result.between[0], names[0], between=result.between, names=names))
        elif moves is not None and result.reason == "confirm" and result.guess is not None:
            question = moves.question(result.guess)
            self._inbox.put(Guess(result.guess, moves.name(result.guess), question=question))
        elif result.guess is None or result.reason not in ("unsure", "poor match", "doubt"):
            self._inbox.put(self._narrator.say("answer", "not_caught"))
        elif moves is not None and self._commands.parse(result.guess) is None:
            self._inbox.put(Guess(result.guess, moves.name(result.guess)))
        else:
            self._inbox.put(Guess(result.guess, self._commands.asked_as(result.guess, result.heard)))

    def _run(self) -> None:
        try:
            from ..listen import MicrophoneUnavailable, VoiceListener
            from ..listen.command_head import ModelCorrupt
            from ..listen.microphone import TURN_TAKING_GAP_S, check_microphone
            from ..listen.moonshine import MoonshineUnavailable
            from ..listen.neural import live_recognizer
            from ..speech.deadlines import START_TIMEOUT_S, SoundSystemNotAnswering, answer_within
        except ImportError as error:  # pragma: no cover - broken installation
            self._say("answer", "voice_off", reason=f"{error}.")
            self._gave_up()
            return

        noisy_told = False

        def too_noisy(result: Recognition) -> None:
            # Why, once; after that the short answer, so talk in a loud room is not met with a
            # speech every time. Not asked about: a yes would be just as hard to hear.
            nonlocal noisy_told
            del result
            self._inbox.put(self._narrator.say("answer", "not_caught" if noisy_told else "too_noisy"))
            noisy_told = True

        def failed(reason: str) -> None:
            self._table.quiet_gap = 0.0
            self._say("answer", "voice_off", reason=reason)
            self._gave_up()

        mic: str | int | None = self._args.mic
        if isinstance(mic, str) and mic.isdigit():
            mic = int(mic)

        def within_time(step: Callable[[], object], name: str, discard: Callable[[Any], object] | None = None) -> bool:
            try:
                answer_within(START_TIMEOUT_S, step, name=name, discard=discard)
            except (MicrophoneUnavailable, SoundSystemNotAnswering) as problem:
                failed(str(problem))
                return False
            return True

        # Before the recogniser loads: a player without a microphone hears so at the start.
        if not within_time(partial(check_microphone, mic), "voice-check"):
            return
        try:
            if self._moves is not None:
                from ..listen.choices import live_choice_recognizer

                recognizer: Any = live_choice_recognizer(self._commands, self._moves.moves, self._moves.vocabulary,
                                                         language=self._args.lang, deck=self._moves.deck)
            else:
                recognizer = live_recognizer(self._commands, language=self._args.lang,
                                             plain=lambda why: self._say("answer", "voice_plain", reason=why))
        except (ModelCorrupt, MoonshineUnavailable) as error:
            failed(f"{str(error).rstrip('.')}.")
            return
        listener = VoiceListener(self._commands, on_command=self._inbox.put, on_unsure=self.unsure,
                                 on_too_noisy=too_noisy,
                                 on_error=failed, on_speech_start=lambda: self._inbox.put(BARGE_IN),
                                 on_speech_end=lambda: self._inbox.put(SPEECH_ENDED),
                                 mic=mic, allowed=self._table.valid_commands,
                                 # loaded above, so that only opening the device is timed below
                                 recognizer=recognizer)
        half_duplex = self._speech is not None and not self._args.headphones
        if half_duplex:
            # Half duplex from the first word: the game may already be talking.
            self._speech.add_activity_listener(listener.set_output_activity)
            if self._speech.is_speaking:
                listener.set_output_activity(True, time.monotonic())
        if not within_time(listener.start, "voice-open", discard=lambda _: listener.stop()):
            return
        with self._lock:
            if self._stopped:
                listener.stop()
                return
            self._listener = listener
        if half_duplex:
            # The microphone is deaf while the game talks: leave the player room to start.
            self._table.heard_quiet_until = listener.heard_quiet_until
            self._table.quiet_gap = TURN_TAKING_GAP_S
        section, key = self._moves.listening if self._moves is not None else ("prompt", "listening")
        if getattr(recognizer, "card_words", None) is not None:
            key += "_own"  # the player taught the game their card words
        self._say(section, key)
