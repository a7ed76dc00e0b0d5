"""``voice-rang recognize``: decode WAV recordings through exactly the recogniser used in play.

Each file goes through the live pipeline (endpointer, streaming decoder, rejection), so what it
prints is what the game would have done. One line per file; ``--json`` gives one object per line:
``{"file", "command", "heard", "ms", "unsure", "reason", "snr_db", "warp", "confidence", "personal"}``
(``snr_db`` is null for silence; ``warp`` is the vocal tract warp the answer was heard through;
``confidence`` the decision rule's own; ``personal`` whether the player's enrolled takes decided it). A file that cannot
be read gets one line saying why, and the exit code is 1; the others are still decoded.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from . import UsageError, chosen_commands

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE.wav",
                        help="WAV recordings: any rate, mono or stereo, 16-, 24- or 32-bit or floating point")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--language", default="en", help="prompts language (default: en)")
    parser.add_argument("--no-personal", action="store_true",
                        help="leave out the takes of your voice that voice-rang enroll kept")
    parser.add_argument("--only", metavar="COMMANDS",
                        help="comma-separated command ids valid now (default: all)")


def run(args: argparse.Namespace) -> int:
    from ..commands import CommandSet
    from ..listen.neural import live_recognizer
    from ..listen.recognizer import decode_pcm, summarize
    from ..listen.wavfile import WavError, read_wav_16k
    from ..prompts import PromptsError

    try:
        commands = CommandSet.load(args.language)
    except PromptsError as error:
        raise UsageError(str(error)) from None
    allowed = chosen_commands(args.only, list(commands.phrases)) if args.only else None
    try:
        recognizer = live_recognizer(commands, language=args.language, personal=not args.no_personal,
                                     plain=lambda why: print(f"voice-rang recognize: listening with pocketsphinx "
                                                             f"alone: {why}.", file=sys.stderr, flush=True))
    except ImportError as error:
        raise UsageError(f"{error.name or 'a voice package'} is not installed: "
                         "pipx install --force voice-rang (scripts/dev setup in a checkout)") from None
    status = 0
    for name in args.files:
        try:
            pcm = read_wav_16k(name)
        except WavError as error:
            status = 1
            if args.json:
                print(json.dumps({"file": name, "command": None, "heard": "", "ms": 0.0,
                                  "error": str(error)}), flush=True)
            else:
                print(f"{name}: {error}", file=sys.stderr, flush=True)
            continue
        result = summarize(decode_pcm(recognizer, pcm, allowed=allowed))
        if args.json:
            print(json.dumps({"file": name, "command": result.command, "heard": result.heard,
                              "ms": round(result.ms, 1), "unsure": result.unsure,
                              "reason": result.reason,
                              "snr_db": round(result.snr_db, 1) if math.isfinite(result.snr_db)
                              else None, "warp": result.warp,
                              "confidence": round(result.confidence, 3), "personal": result.personal}),
                  flush=True)
        else:
            answer = result.command or ("unsure" if result.unsure else "no command")
            heard = f"heard {result.heard!r}" if result.heard else "heard nothing"
            print(f"{name}: {answer} ({heard}, {result.reason}, {result.ms:.0f} ms)", flush=True)
    return status
