"""Audio devices as a person picks them: listed, found by number or by name, described.

Receives the process's PortAudio (:func:`~voice_rang.speech.portaudio.portaudio`); emits
:class:`AudioDevice` records, the one output a person asked for (or one sentence saying why
there is none), and one line of device names for ``doctor``. Nothing here prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .portaudio import portaudio

__all__ = ["AudioDevice", "DeviceNotFound", "describe_devices", "find_output_device", "list_devices"]


class DeviceNotFound(LookupError):
    """No device matches what was asked for; the message is one sentence for a person."""


@dataclass(frozen=True)
class AudioDevice:
    """One PortAudio device as a person would pick it: by index or by (part of) its name."""

    index: int
    name: str
    host_api: str
    output_channels: int
    input_channels: int
    default_sample_rate: float
    is_default_output: bool = False
    is_default_input: bool = False

    @property
    def is_output(self) -> bool:
        return self.output_channels > 0

    @property
    def is_input(self) -> bool:
        return self.input_channels > 0


def _devices_of(pa: Any) -> list[AudioDevice]:
    def default_index(getter: Any) -> int | None:
        try:
            return int(getter()["index"])
        except (OSError, KeyError, ValueError):
            return None

    default_out = default_index(pa.get_default_output_device_info)
    default_in = default_index(pa.get_default_input_device_info)
    devices = []
    for index in range(pa.get_device_count()):
        try:
            info = pa.get_device_info_by_index(index)
            host_api = str(pa.get_host_api_info_by_index(info["hostApi"])["name"])
        except (OSError, KeyError, ValueError):
            continue
        devices.append(
            AudioDevice(
                index=index,
                name=str(info["name"]),
                host_api=host_api,
                output_channels=int(info["maxOutputChannels"]),
                input_channels=int(info["maxInputChannels"]),
                default_sample_rate=float(info["defaultSampleRate"]),
                is_default_output=index == default_out,
                is_default_input=index == default_in,
            )
        )
    return devices


def list_devices(pa: Any | None = None) -> list[AudioDevice]:
    """Every PortAudio device (outputs and inputs), found without printing anything.

    ``pa`` defaults to the process's PortAudio (:func:`portaudio`), started here if need be.
    Raises ``ImportError`` if PyAudio is missing.
    """
    return _devices_of(pa if pa is not None else portaudio())


def find_output_device(devices: list[AudioDevice], wanted: str | int | None) -> AudioDevice:
    """The output device a person asked for: ``None`` (the default), an index, or part of a name.

    A name matches exactly first, then as a case-insensitive part of a device name, so
    ``"pulse"`` and ``"USB"`` both work. Raises :class:`DeviceNotFound` with one sentence.
    """
    outputs = [device for device in devices if device.is_output]
    if not outputs:
        raise DeviceNotFound(
            "No speaker or headphones found: plug one in and run voice-rang doctor again, "
            "or play with your screen reader."
        )
    if wanted is None:
        for device in outputs:
            if device.is_default_output:
                return device
        return outputs[0]
    if isinstance(wanted, int) or (isinstance(wanted, str) and wanted.strip().isdigit()):
        index = int(wanted)
        for device in outputs:
            if device.index == index:
                return device
        raise DeviceNotFound(
            f"No audio output number {index}: run voice-rang doctor to list the outputs."
        )
    name = wanted.strip().casefold()
    for device in outputs:
        if device.name.casefold() == name:
            return device
    for device in outputs:
        if name and name in device.name.casefold():
            return device
    raise DeviceNotFound(
        f"No audio output named {wanted!r}: run voice-rang doctor to list the outputs."
    )


def describe_devices(devices: list[AudioDevice], *, output: bool) -> str:
    """Device names for one line of ``doctor`` output, the default marked."""
    chosen = [d for d in devices if (d.is_output if output else d.is_input)]
    parts = []
    for device in chosen:
        default = device.is_default_output if output else device.is_default_input
        parts.append(f"{device.name} (number {device.index}{', the default' if default else ''})")
    return ", ".join(parts)
