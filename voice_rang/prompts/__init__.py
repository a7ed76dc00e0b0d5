"""Load the words of one language from ``<lang>.toml`` beside this module: data, not code.

Everything the program says (``[messages]``), every phrase it accepts
(``[commands]``), the phrases it accepts typed but does not listen for
(``[listen] typed_only``) and every key it maps (``[keys]``) lives there, so a
new language is a new file and nothing else. The files are package data, read
through :mod:`importlib.resources`, so a wheel, ``pipx install`` and a checkout
all find them the same way.
"""

from __future__ import annotations

import copy
import os
import string
import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    from importlib.resources.abc import Traversable

    import tomllib
else:  # pragma: no cover - Python 3.10
    from importlib.abc import Traversable

    import tomli as tomllib

__all__ = ["GameWords", "Prompts", "PromptsError", "PromptsFolder", "available_languages", "load_game_prompts",
           "load_prompts", "packaged_prompts", "prompts_dir"]


class PromptsError(ValueError):
    """A prompts file that is missing or malformed."""


PromptsFolder = Path | Traversable
"""A folder of prompts files: a path given by the player, or the package's own data (which
:mod:`importlib.resources` may hand out as something other than a path)."""


def packaged_prompts() -> Traversable:
    """The prompts files installed with the program (``voice_rang/prompts/*.toml``)."""
    return resources.files(__name__)


def prompts_dir() -> PromptsFolder:
    """Where prompts files live: ``$VOICE_RANG_PROMPTS`` (a translator's own folder), or the ones
    installed with the program."""
    override = os.environ.get("VOICE_RANG_PROMPTS")
    if override:
        return Path(override)
    return packaged_prompts()


def available_languages(directory: PromptsFolder | None = None) -> list[str]:
    """Language codes that have a prompts file."""
    folder = directory or prompts_dir()
    if not folder.is_dir():
        return []
    return sorted(entry.name[:-len(".toml")] for entry in folder.iterdir()
                  if entry.name.endswith(".toml") and entry.is_file())


@dataclass(frozen=True)
class Prompts:
    """One language's words: message templates, command phrases, keys."""

    language: str
    messages: dict[str, Any]
    commands: dict[str, list[str]]
    keys: dict[str, str]
    typed_only: frozenset[str] = frozenset()
    """Phrases of ``commands`` that work typed but are not listened for: short words that
    everyday talk is too often heard as."""
    voice: str | None = None
    """``[meta] voice``: the synthesizer voice that speaks this language (``bn`` for
    espeak-ng's Bengali), or None for the synthesizer's default."""
    name: str = ""
    """``[meta] name``: the language's name in English, for ``voice-rang doctor``."""


@cache
def load_prompts(language: str = "en", directory: PromptsFolder | None = None) -> Prompts:
    """Read and check ``<language>.toml``.

    >>> load_prompts("en").commands["turn"][0]
    'turn'
    """
    path = (directory or prompts_dir()) / f"{language}.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        known = ", ".join(available_languages(directory)) or "none"
        raise PromptsError(f"no prompts for language {language!r} (known: {known})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise PromptsError(f"{path.name} is not valid TOML: {error}") from None
    commands = data.get("commands", {})
    if not isinstance(commands, dict) or not all(
        isinstance(phrases, list) and phrases and all(isinstance(p, str) for p in phrases)
        for phrases in commands.values()
    ):
        raise PromptsError(f"{path.name}: [commands] maps each command to a list of phrases")
    meta = data.get("meta", {}) if isinstance(data.get("meta"), dict) else {}
    messages = data.get("messages", {})
    if not isinstance(messages, dict):
        raise PromptsError(f"{path.name}: [messages] is a table of message templates")
    listen = data.get("listen", {})
    fallback = meta.get("fallback")
    if isinstance(fallback, str) and fallback != language:
        # A message or command the file does not have yet is said and heard as in the fallback
        # language, so a sentence added to en.toml never breaks a game in another language.
        base = load_prompts(fallback, directory)  # type: ignore[arg-type]  # paths and resources hash
        messages = _merged(base.messages, messages)
        missing = {c: p for c, p in base.commands.items() if c not in commands}
        commands = {**commands, **missing}
        if isinstance(listen, dict):
            inherited = [p for phrases in missing.values() for p in phrases if p in base.typed_only]
            typed = [c for c, phrases in missing.items() if set(phrases) <= base.typed_only]
            listen = {**listen, "typed_only": list(listen.get("typed_only", [])) + inherited,
                      "typed_commands": list(listen.get("typed_commands", [])) + typed}
    typed_only = _typed_only(path.name, listen, commands)
    messages = _complete(path.name, language, messages)
    voice = meta.get("voice")
    return Prompts(
        language=language,
        messages=messages,
        commands={key: list(value) for key, value in commands.items()},
        keys=dict(data.get("keys", {})),
        typed_only=typed_only,
        voice=str(voice) if voice else None,
        name=str(meta.get("name", language)),
    )


def _merged(base: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """``own`` with every key it lacks taken from ``base``, table by table."""
    merged = dict(base)
    for key, value in own.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict) and not (
                set(value) <= {"you", "other"}):
            merged[key] = _merged(base[key], value)
        else:
            merged[key] = value
    return merged


def _typed_only(name: str, listen: Any, commands: dict[str, list[str]]) -> frozenset[str]:
    """``[listen] typed_only``, checked: known phrases, and every command still has one to say,
    except the commands ``[listen] typed_commands`` names: typed or keyed only, on purpose (none
    of their phrases is listened for)."""
    phrases = listen.get("typed_only", []) if isinstance(listen, dict) else None
    if not isinstance(phrases, list) or not all(isinstance(p, str) for p in phrases):
        raise PromptsError(f"{name}: [listen] typed_only is a list of command phrases")
    typed_commands = listen.get("typed_commands", []) if isinstance(listen, dict) else []
    if not isinstance(typed_commands, list) or not all(c in commands for c in typed_commands):
        raise PromptsError(f"{name}: [listen] typed_commands is a list of commands in [commands]")
    phrases = phrases + [p for c in typed_commands for p in commands[c]]
    unknown = [p for p in phrases if not any(p in known for known in commands.values())]
    if unknown:
        raise PromptsError(f"{name}: [listen] typed_only names {unknown[0]!r}, "
                           "which is not a phrase in [commands]")
    silent = [command for command, known in commands.items()
              if set(known) <= set(phrases) and command not in typed_commands]
    if silent:
        raise PromptsError(f"{name}: [listen] typed_only leaves {silent[0]!r} "
                           "with no phrase to say")
    return frozenset(phrases)


REFERENCE_LANGUAGE = "en"
"""The language whose prompts file names every message the game can say."""


def _reference_messages() -> dict[str, Any]:
    path = packaged_prompts() / f"{REFERENCE_LANGUAGE}.toml"
    messages: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))["messages"]
    return messages


def _fields(template: str) -> set[str]:
    """The placeholders of a template; ``ValueError`` if its braces do not pair up."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template)
            if name is not None}


SEAT_FIELDS = frozenset({"who", "Who", "whose", "Whose"})
"""Placeholders the narrator fills in for every message about a seat: a language may name the
seat where English does not (a possessive, say)."""


SHARED_FIELD_SECTIONS = frozenset({"reveal"})
"""Sections whose templates all get the same fields from the narrator (a reveal's card, the card
under it, both suits, ...), so a translation may use any of them."""


def _section_fields(section: Any) -> set[str]:
    """Every placeholder the reference uses anywhere in one section."""
    if isinstance(section, dict):
        return set().union(*(_section_fields(inner) for inner in section.values()))
    if isinstance(section, list):
        return set().union(*(_fields(str(item)) for item in section))
    return _fields(str(section))


def _problems(reference: Any, value: Any, where: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Where ``value`` lacks a message of ``reference``, has the wrong shape, or uses a
    placeholder the game never fills in (each would fail in the middle of a game)."""
    if not where and isinstance(reference, dict) and isinstance(value, dict):
        return [problem for key, section in reference.items()
                for problem in ([key] if key not in value else _problems(
                    section, value[key], key, SEAT_FIELDS | (
                    _section_fields(section) if key in SHARED_FIELD_SECTIONS else set())))]
    if isinstance(reference, dict) and not {"you", "other"} >= set(reference):
        if not isinstance(value, dict):
            return [where]
        found: list[str] = []
        for key, inner in reference.items():
            if key not in value:
                found.append(f"{where}.{key}".lstrip("."))
            else:
                found += _problems(inner, value[key], f"{where}.{key}".lstrip("."), allowed)
        return found
    if isinstance(reference, list):
        ok = isinstance(value, list) and len(value) == len(reference) and all(
            isinstance(item, str) for item in value)
        return [] if ok else [where]
    variants = value if isinstance(value, dict) else {"": value}
    known: set[str] = set(allowed)
    for template in (reference.values() if isinstance(reference, dict) else [reference]):
        known |= _fields(str(template))
    if isinstance(value, dict) and not {"you", "other"} <= set(value):
        return [where]
    for template in variants.values():
        if not isinstance(template, str):
            return [where]
        try:
            if not _fields(template) <= known:
                return [where]
        except ValueError:
            return [where]
    return []


def _complete(name: str, language: str, messages: dict[str, Any]) -> dict[str, Any]:
    """The messages, checked against the reference language's: in the reference itself a
    message missing or malformed is a :class:`PromptsError` naming it; in another language it
    is said in the reference language instead (a translation a key behind still plays)."""
    reference = _reference_messages()
    problems = _problems(reference, messages, "")
    if not problems:
        return messages
    if language == REFERENCE_LANGUAGE:
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        raise PromptsError(f"{name}: the message {problems[0]} is missing or malformed{more}; "
                           "restore it from the prompts file installed with voice-rang")
    filled = copy.deepcopy(messages)
    for dotted in problems:
        parts = dotted.split(".")
        target, source = filled, reference
        for part in parts[:-1]:
            source = source[part]
            if not isinstance(target.get(part), dict):
                target[part] = {}
            target = target[part]
        target[parts[-1]] = copy.deepcopy(source[parts[-1]])
    return filled


@dataclass(frozen=True)
class GameWords:
    """A game's own words beside the table's: card and suit phrases, its patterns and word lists."""

    game: str
    patterns: dict[str, list[str]]
    """Phrases with a ``{card}``, ``{suit}`` or ``{rank}`` in them, by what they ask for."""
    words: dict[str, Any]
    """``[words]``: more ways to say a rank or a suit, and filler words a phrase may carry."""


@cache
def load_game_prompts(language: str, game: str) -> tuple[Prompts, GameWords]:
    """The table's words of ``language`` with those of ``game`` (``<game>/<language>.toml``) added.

    The game's messages come under ``messages[<game with underscores>]``; its commands join the
    table's (less those the game's ``[meta] drop`` names, which mean nothing in it); its
    ``[keys]`` are the whole key map. A language with no file for the game, or a message or
    command it lacks, has them in English (``<game>/en.toml``), as for the table's own words.

    >>> prompts, words = load_game_prompts("en", "court-piece")
    >>> prompts.keys["left"], "turn" in prompts.commands, prompts.commands["hand"][0]
    ('hand previous', False, 'hand')
    """
    base = load_prompts(language)
    folder = packaged_prompts() / game
    override = os.environ.get("VOICE_RANG_PROMPTS")
    if override and (Path(override) / game).is_dir():
        folder = Path(override) / game
    reference = _read_game_file(folder, REFERENCE_LANGUAGE, game)
    own = _read_game_file(folder, language, game) if language != REFERENCE_LANGUAGE else reference
    data = _merged(reference, own) if own is not reference else reference
    for table_name in ("commands", "patterns"):
        if own is not reference:  # a translation's phrases first, English's still understood
            data[table_name] = {key: list(own.get(table_name, {}).get(key, []))
                                + [p for p in phrases if p not in own.get(table_name, {}).get(key, [])]
                                for key, phrases in reference.get(table_name, {}).items()}
    dropped = set(data.get("meta", {}).get("drop", []))
    commands = {command: phrases for command, phrases in base.commands.items() if command not in dropped}
    commands.update({command: list(phrases) for command, phrases in data.get("commands", {}).items()})
    listen = data.get("listen", {})
    typed = {phrase for phrase in base.typed_only if any(phrase in p for p in commands.values())}
    typed |= set(listen.get("typed_only", []))
    section = game.replace("-", "_")
    prompts = Prompts(
        language=base.language,
        messages={**base.messages, section: data.get("messages", {})},
        commands=commands,
        keys=dict(data.get("keys", {})),
        typed_only=frozenset(typed),
        voice=base.voice,
        name=base.name,
    )
    return prompts, GameWords(game, dict(data.get("patterns", {})), dict(data.get("words", {})))


def _read_game_file(folder: PromptsFolder, language: str, game: str) -> dict[str, Any]:
    path = folder / f"{language}.toml"
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if language == REFERENCE_LANGUAGE:
            raise PromptsError(f"no words for the game {game!r}") from None
        return {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise PromptsError(f"{game}/{path.name} is not valid TOML: {error}") from None
    return data
