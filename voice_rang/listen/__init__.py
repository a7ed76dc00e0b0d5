"""Inputs by voice: the recogniser (pocketsphinx grammar with rejection), the endpointer made for
short commands, and the microphone listener that runs them in a background thread.

Contract (see ``docs/voice.md``): 16 kHz mono 16-bit audio in, one :class:`Recognition` per
utterance out; only a confident, whole-utterance, currently-valid command carries a command id.
The microphone half (PyAudio) is imported lazily so decoding files needs no audio device.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .endpoint import Endpointer, Utterance
from .recognizer import Recognition, Recognizer, decode_pcm

if TYPE_CHECKING:
    from .microphone import MicrophoneUnavailable, VoiceListener

__all__ = [
    "Endpointer",
    "MicrophoneUnavailable",
    "Recognition",
    "Recognizer",
    "Utterance",
    "VoiceListener",
    "decode_pcm",
]


def __getattr__(name: str) -> object:
    """``VoiceListener`` and ``MicrophoneUnavailable`` load PyAudio: only when asked for."""
    if name in ("VoiceListener", "MicrophoneUnavailable"):
        from . import microphone

        return getattr(microphone, name)
    raise AttributeError(name)
