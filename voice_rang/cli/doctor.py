"""``voice-rang doctor``: what works for speech and sound here, what is missing, how to fix it.

One finding per line, the important words first ("Speech output works", "No microphone
found"), the exact fix after a colon. First what every game needs: its words (the prompts
files installed with it) and, for voice commands, its models; an installation that cannot read
them is "Not ready", with the fix. Exit 0 when the words load and spoken output works, 1 when
either does not (the game still runs as text without speech). Nothing here ends in a traceback:
every check catches its own failure and says it in a sentence. The C libraries' start-up noise
is kept off the terminal.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["add_arguments", "run"]

_SHOW_VOICES = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", metavar="NAME_OR_NUMBER", default=None,
                        help="check this output device instead of the default")
    parser.add_argument("--voice", default=None, help="check this voice instead of the default")
    parser.add_argument("--say", action="store_true",
                        help="also speak a short test sentence through the speaker")
    parser.add_argument("--all-voices", action="store_true", help="list every voice")


def _device_arg(value: str | None) -> str | int | None:
    if value is not None and value.strip().isdigit():
        return int(value)
    return value


def run(args: argparse.Namespace) -> int:
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        print(line, flush=True)

    try:
        return _check(args, say)
    except KeyboardInterrupt:
        raise
    except Exception as error:  # the doctor must never show a traceback
        say(f"Doctor could not finish ({type(error).__name__}: {error}): "
            "please report this line.")
        return 1


def _check(args: argparse.Namespace, say: Callable[[str], None]) -> int:
    from voice_rang.speech.deadlines import (
        START_TIMEOUT_S,
        SoundSystemNotAnswering,
        answer_within,
        sound_system_stuck,
    )
    from voice_rang.speech.devices import AudioDevice, describe_devices, list_devices

    broken = _check_words(say)
    broken = _check_listening(say) or broken
    synth_ok = _check_synthesizer(args, say)

    devices: list[AudioDevice] = []
    # A stuck sound server hangs the synthesizer's start too: then it was said once already, and
    # "no speaker" or "no microphone" would mislead.
    stuck = sound_system_stuck()
    if not stuck:
        try:
            devices = answer_within(START_TIMEOUT_S, list_devices, name="doctor-devices")
        except ImportError:
            from voice_rang.listen.microphone import pyaudio_fix

            say(f"No PyAudio, so no microphone and no PortAudio speaker: {pyaudio_fix()}.")
        except SoundSystemNotAnswering as error:
            stuck = True
            say(f"{error} Then run voice-rang doctor again.")
        except Exception as error:
            say(f"Audio system failed to start ({error}): "
                "check that PulseAudio or PipeWire is running, then run voice-rang doctor again.")

    outputs = describe_devices(devices, output=True)
    inputs = describe_devices(devices, output=False)
    if outputs:
        say(f"Output devices: {outputs}.")
    elif not stuck:
        say("No speaker or headphones found: plug one in, or start PulseAudio or PipeWire, "
            "and run voice-rang doctor again; meanwhile play with your screen reader.")
    if inputs:
        say(f"Input devices: {inputs}.")
    elif not stuck:
        say("No microphone found: play by keyboard, or plug one in and run voice-rang doctor "
            "again.")

    speech_ok = False
    if synth_ok and (outputs or _speaks_itself()):
        speech_ok = _check_speech(args, say)
    if broken:
        say(f"Not ready: {broken}.")
        return 1
    if speech_ok:
        say("Ready: voice-rang will speak; screen-reader users can turn our voice off "
            "and read the lines instead.")
    else:
        say("Speech output missing: the game still works as text lines for your screen reader.")
    return 0 if speech_ok else 1


REINSTALL = "reinstall voice-rang (pipx reinstall voice-rang; in a checkout, scripts/dev setup)"
"""The fix for a file that came with the program and cannot be read."""


def _speaks_itself() -> bool:
    """Whether speech goes through the system's own voice (Windows, macOS), which needs no
    device listed here."""
    from voice_rang.speech.driver import speaks_through_driver

    return speaks_through_driver()


def _check_words(say: Callable[[str], None]) -> str:
    """Whether every prompts file loads (the words of every message and command); the fix when
    one does not, else ``""``."""
    import os

    from voice_rang.commands import CommandSet
    from voice_rang.prompts import PromptsError, available_languages, load_prompts, prompts_dir

    override = os.environ.get("VOICE_RANG_PROMPTS")
    fix = (f"fix the prompts files in {override}, or unset VOICE_RANG_PROMPTS" if override
           else REINSTALL)
    languages = available_languages()
    if "en" not in languages:
        say(f"The game's words are missing (no en.toml in {prompts_dir()}): {fix}.")
        return fix
    try:
        CommandSet.load("en")
    except PromptsError as error:
        say(f"The game's words cannot be read ({error}): {fix}.")
        return fix
    names = []
    for language in languages:
        try:
            names.append(f"{load_prompts(language).name} ({language})")
        except PromptsError:
            continue  # said with the language's voice below
    say(f"Words load: {', '.join(names)}.")
    return ""


def _check_listening(say: Callable[[str], None]) -> str:
    """What voice commands will listen with here, the models loaded to be sure; the fix for a
    model that came with the program and cannot be read, else ``""``. A model that has no
    package for this computer is said, not a fault: pocketsphinx listens alone then."""
    import importlib.util

    if importlib.util.find_spec("pocketsphinx") is None:
        say("Voice commands are off: pocketsphinx is not installed: pipx install --force voice-rang "
            "(in a checkout, scripts/dev setup).")
        return ""
    from voice_rang.listen.command_head import CommandHead, ModelCorrupt
    from voice_rang.listen.moonshine import MoonshineUnavailable, shared_encoder
    from voice_rang.listen.neural import neural_front_missing

    try:
        CommandHead.released()
    except ModelCorrupt as error:
        say(f"The command model cannot be used ({error}): {REINSTALL}.")
        return REINSTALL
    why = neural_front_missing()
    if why is not None:
        say(f"Voice commands listen with pocketsphinx alone: {why} (it comes for Linux on x86_64); "
            "they are heard less well in noise.")
        return ""
    try:
        shared_encoder()
    except MoonshineUnavailable as error:
        say(f"Voice commands listen with pocketsphinx alone: {str(error).rstrip('.')}.")
        return ""
    from voice_rang.listen.moonshine import model_files

    try:
        model_files(extra=("tokenizer.bin",))
    except MoonshineUnavailable as error:
        say("Voice models load: pocketsphinx and the command head on Moonshine's encoder; Court Piece's "
            f"cards cannot be heard: {str(error).rstrip('.')}")
        return REINSTALL
    say("Voice models load: pocketsphinx and the command head on Moonshine's encoder; Court Piece's cards "
        "on its decoder.")
    _say_card_words(say)
    return ""


def _say_card_words(say: Callable[[str], None]) -> None:
    """Which of the player's own card words (``enroll --cards``) are kept, when any are."""
    from voice_rang.listen.card_words import WORDS, card_words_dir
    from voice_rang.listen.personal import command_of_file

    folder = card_words_dir()
    kept = {command_of_file(path.name, set(WORDS)) for path in folder.glob("*.wav")} if folder.is_dir() else set()
    kept.discard(None)
    if not kept:
        return
    missing = [word for word in WORDS if word not in kept]
    say(f"Your own card words for Court Piece: {len(kept)} of {len(WORDS)} kept"
        + (f"; not yet {', '.join(missing)} (voice-rang enroll --cards --only {','.join(missing)})." if missing
           else "."))


def _check_synthesizer(args: argparse.Namespace, say: Callable[[str], None]) -> bool:
    from voice_rang.speech.deadlines import START_TIMEOUT_S, SoundSystemNotAnswering, answer_within
    from voice_rang.speech.synth import SynthUnavailable, open_synthesizer

    try:
        # espeak-ng connects to the sound server as it starts, so a frozen one hangs it
        synth = answer_within(START_TIMEOUT_S, open_synthesizer, name="doctor-synth")
        voices = synth.voices()
    except SoundSystemNotAnswering as error:
        say(f"{error} Then run voice-rang doctor again.")
        return False
    except SynthUnavailable as error:
        say(str(error))
        return False
    except Exception as error:
        say(f"Speech synthesizer failed ({error}): reinstall espeak-ng, "
            "then run voice-rang doctor again.")
        return False
    if not voices:
        say("No voices installed: install espeak-ng-data, then run voice-rang doctor again.")
        return False
    if args.all_voices:
        shown = voices
    else:
        default = getattr(synth, "default_voice", lambda: None)()
        first = [voice for voice in voices if default in (voice.id, voice.name)]
        english = [voice for voice in voices if voice.name.startswith("English")]
        shown = list(dict.fromkeys(first + english + voices))[:_SHOW_VOICES]
    names = ", ".join(f"{voice.name} ({voice.id})" for voice in shown)
    more = "" if args.all_voices or len(voices) <= _SHOW_VOICES else (
        "; see them all with voice-rang doctor --all-voices")
    say(f"Speech synthesizer works: {synth.name} through pyttsx3, {len(voices)} voices, "
        f"for example {names}{more}.")
    _check_language_voices(synth, say)
    if args.voice:
        try:
            chosen = synth.check_voice(args.voice)
        except SynthUnavailable as error:
            say(str(error))
            return False
        say(f"Voice found: {args.voice} is {chosen}.")
    return True


def _check_language_voices(synth: Any, say: Callable[[str], None]) -> None:
    """For every prompts file that names its own voice (``[meta] voice``), whether it is here."""
    from voice_rang.prompts import PromptsError, available_languages, load_prompts
    from voice_rang.speech.synth import SynthUnavailable

    for language in available_languages():
        try:
            prompts = load_prompts(language)
        except PromptsError as error:
            say(f"Prompts for {language} are broken ({error}): that language cannot be played.")
            continue
        if not prompts.voice:
            continue
        try:
            found = synth.check_voice(prompts.voice)
        except SynthUnavailable:
            say(f"No {prompts.name} voice installed ({prompts.voice}): --lang {language} plays as "
                f"text lines until one is; espeak-ng-data has it (sudo apt-get install "
                f"espeak-ng-data).")
            continue
        say(f"{prompts.name} voice installed: {found}, used by --lang {language}.")


def _check_speech(args: argparse.Namespace, say: Callable[[str], None]) -> bool:
    from voice_rang.messages import Message
    from voice_rang.speech.driver import open_spoken
    from voice_rang.speech.spoken import SpeechUnavailable

    speech: Any = None
    try:
        speech = open_spoken(voice=args.voice, device=_device_arg(args.device))
    except SpeechUnavailable as error:
        say(error.reason)
        return False
    except Exception as error:
        say(f"Speech output failed ({error}): run voice-rang doctor again after "
            "checking the speaker.")
        return False
    try:
        say(f"Speech output works: through {speech.device_name}, at {speech.rate} words a "
            f"minute, {speech.output_latency * 1000:.0f} ms output latency.")
        if args.say:
            speech.say(Message("Speech works. This is voice-rang."))
            if not speech.wait_until_done(timeout=15):
                say("Test sentence did not finish in time: the speaker may be stuck.")
                return False
            if speech.failure:
                say(speech.failure)
                return False
            say("Test sentence spoken: if you heard nothing, check the volume and the "
                "speaker, or choose another with --device.")
        return True
    finally:
        speech.close()


if __name__ == "__main__":
    main_parser = argparse.ArgumentParser(prog="voice-rang doctor")
    add_arguments(main_parser)
    sys.exit(run(main_parser.parse_args()))
