"""``voice-rang recognize``: decode WAV recordings through exactly the recogniser used in play.

Each file goes through the live pipeline (endpointer, streaming decoder, rejection), so what it
prints is what the game would have done. One line per file; ``--json`` gives one object per line:
``{"file", "command", "heard", "ms", "unsure", "reason", "snr_db", "warp", "confidence", "personal"}``
(``snr_db`` is null for silence; ``warp`` is the vocal tract warp the answer was heard through;
``confidence`` the decision rule's own; ``personal`` whether the player's enrolled takes decided it). A file that cannot
be read gets one line saying why, and the exit code is 1; the others are still decoded.

``--game court-piece --legal CARDS [--trump S]`` decodes as a Court Piece turn does: listening for
the legal moves named (card codes as in the log, ``QH,10C``; suit letters, ``C,D,H,S``, while
trumps are called; ``reveal``), the ways to say each ("queen of hearts", "the queen" where it is
the only queen, "lowest heart", "trump" with ``--trump``), and the table's questions. The JSON
adds ``between`` (two moves heard alike, which the game asks between) and the reasons ``which``
and ``confirm``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

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
    parser.add_argument("--game", choices=("rang-milanti", "court-piece"), default="rang-milanti",
                        help="the game whose turn is decoded (default: rang-milanti)")
    parser.add_argument("--legal", metavar="CARDS",
                        help="Court Piece: the legal moves, comma-separated: card codes (QH,10C), suit "
                             "letters while calling trumps (H,S), reveal")
    parser.add_argument("--trump", metavar="S", help="Court Piece: the trump suit known to all (C, D, H or S)")


def run(args: argparse.Namespace) -> int:
    from ..commands import CommandSet
    from ..listen.neural import live_recognizer
    from ..listen.recognizer import decode_pcm, summarize
    from ..listen.wavfile import WavError, read_wav_16k
    from ..prompts import PromptsError

    court_piece = args.game == "court-piece"
    if not court_piece and (args.legal or args.trump):
        raise UsageError("--legal and --trump are Court Piece's: add --game court-piece")
    if court_piece and not args.legal:
        raise UsageError("--game court-piece needs --legal, the moves legal now (for example --legal QH,QS,4C)")
    try:
        commands = CommandSet.load(args.language)
        if court_piece:
            from ..prompts import load_game_prompts

            prompts, _ = load_game_prompts(args.language, "court-piece")
            commands = CommandSet(phrases=prompts.commands, keys=prompts.keys, typed_only=prompts.typed_only)
    except PromptsError as error:
        raise UsageError(str(error)) from None
    allowed = chosen_commands(args.only, list(commands.phrases)) if args.only else None
    try:
        if court_piece:
            recognizer: Any = _court_piece_recognizer(commands, args)
        else:
            recognizer = live_recognizer(commands, language=args.language, personal=not args.no_personal,
                                         plain=lambda why: print(f"voice-rang recognize: listening with "
                                                                 f"pocketsphinx alone: {why}.", file=sys.stderr,
                                                                 flush=True))
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
                              "confidence": round(result.confidence, 3), "personal": result.personal,
                              **({"guess": result.guess, "between": list(result.between)} if court_piece else {})}),
                  flush=True)
        else:
            answer = result.command or ("unsure" if result.unsure else "no command")
            if result.between:
                answer = f"which: {' or '.join(result.between)}"
            elif result.unsure and result.guess:
                answer = f"{'confirm' if result.reason == 'confirm' else 'unsure'}: {result.guess}"
            heard = f"heard {result.heard!r}" if result.heard else "heard nothing"
            print(f"{name}: {answer} ({heard}, {result.reason}, {result.ms:.0f} ms)", flush=True)
    return status


def _court_piece_recognizer(commands: Any, args: argparse.Namespace) -> Any:
    """The live recogniser of a Court Piece turn whose legal moves are ``--legal``."""
    from ..cards import Card, Suit
    from ..games.court_piece.actions import Action, NameTrump, PlayCard, RevealTrump
    from ..games.court_piece.deck import SUIT_INDEX
    from ..games.court_piece.spoken import deck_words, every_phrase, said_as
    from ..listen.choices import live_choice_recognizer
    from ..listen.moonshine import MoonshineUnavailable

    legal: list[Action] = []
    for code in (part.strip() for part in args.legal.split(",")):
        try:
            if code.lower() == "reveal":
                legal.append(RevealTrump())
            elif code.upper() in ("C", "D", "H", "S"):
                legal.append(NameTrump(Suit(code.upper())))
            else:
                legal.append(PlayCard(Card(code.upper())))
        except ValueError:
            raise UsageError(f"--legal: {code!r} is not a card code (QH, 10C), a suit letter or reveal") from None
    if any(isinstance(action, NameTrump) for action in legal) and any(isinstance(a, PlayCard) for a in legal):
        raise UsageError("--legal: name cards to play or suits to call trumps, not both")
    trump = -1
    if args.trump:
        if args.trump.upper() not in ("C", "D", "H", "S"):
            raise UsageError(f"--trump must be C, D, H or S, not {args.trump!r}")
        trump = SUIT_INDEX[Suit(args.trump.upper())]
    moves = said_as(legal, trump)
    try:
        return live_choice_recognizer(commands, lambda: moves, every_phrase(), language=args.language,
                                      deck=deck_words(), personal=not args.no_personal)
    except MoonshineUnavailable as error:
        raise UsageError(str(error).rstrip(".")) from None
