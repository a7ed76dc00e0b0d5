"""Outputs: plain text lines, and speech (pyttsx3 synthesis, interruptible PyAudio playback).

``TextOutput`` costs nothing to import. ``SpeechOutput`` and friends are imported on first use,
so pyttsx3, libespeak-ng and PortAudio load only when speech is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Output, TextOutput, one_line

if TYPE_CHECKING:
    from .quiet import quiet_pyaudio
    from .spoken import SpeechOutput, SpeechUnavailable

__all__ = ["Output", "SpeechOutput", "SpeechUnavailable", "TextOutput", "one_line", "quiet_pyaudio"]


def __getattr__(name: str) -> Any:
    if name in ("SpeechOutput", "SpeechUnavailable"):
        from . import spoken

        return getattr(spoken, name)
    if name == "quiet_pyaudio":
        from . import quiet

        return quiet.quiet_pyaudio
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
