"""A private PulseAudio server that gives tests real audio devices on a machine with no sound card.

It has a null sink (the speaker; its monitor records what was played) and a pipe source (the
microphone, fed from a FIFO in real time). PortAudio reaches it through ALSA's pulse plugin, so
PyAudio sees ordinary devices. Processes started by the tests inherit ``PULSE_SERVER``.

Used by the ``audio_server`` fixture in ``conftest.py`` and by the benchmarks.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import wave
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["MIC_RATE", "AudioServer", "audio_server_available", "start_audio_server"]

MIC_RATE = 16000
_CHUNK_SECONDS = 0.02


def audio_server_available() -> str | None:
    """``None`` if the server can start here, else what is missing."""
    for tool in ("pulseaudio", "pactl", "parec"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (scripts/dev setup installs it)"
    return None


@dataclass
class AudioServer:
    """A running private PulseAudio server, its speaker and its microphone."""

    runtime: Path
    fifo: Path
    env: dict[str, str]
    _feeder: threading.Thread | None = None
    _queue: list[bytes] = field(default_factory=list)
    _marks: list[tuple[int, threading.Event, list[float]]] = field(default_factory=list)
    _written: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _radio: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    _radio_at: int = 0

    @property
    def server(self) -> str:
        return self.env["PULSE_SERVER"]

    # ----- the microphone ---------------------------------------------------------------------

    def start_microphone(self) -> None:
        """Keep the FIFO fed in real time: queued speech, silence in between (the source stalls
        when nobody writes)."""
        if self._feeder is not None:
            return
        self._stop.clear()
        self._feeder = threading.Thread(target=self._feed, name="virtual-mic", daemon=True)
        self._feeder.start()

    def say_into_microphone(self, pcm16_mono_16k: bytes) -> float:
        """Queue audio for the microphone; returns the time (monotonic) its last sample will play."""
        return self.say_and_mark(pcm16_mono_16k)[0]

    def say_and_mark(self, pcm16_mono_16k: bytes) -> tuple[float, threading.Event, list[float]]:
        """Queue audio; also returns an event set, with the exact monotonic time appended to the
        list, when the chunk holding its last sample has been written to the microphone."""
        done, when = threading.Event(), list[float]()
        with self._lock:
            pending = sum(len(chunk) for chunk in self._queue)
            self._queue.append(pcm16_mono_16k)
            self._marks.append((self._written + pending + len(pcm16_mono_16k), done, when))
        return time.monotonic() + (pending + len(pcm16_mono_16k)) / (2 * MIC_RATE), done, when

    def play_radio(self, pcm16_mono_16k: bytes) -> None:
        """Keep ``pcm16_mono_16k`` playing into the microphone, looped, under whatever is said
        (a radio on in the room); ``b""`` turns it off."""
        with self._lock:
            self._radio = np.frombuffer(pcm16_mono_16k, dtype="<i2").astype(np.int32)
            self._radio_at = 0

    def _with_radio(self, chunk: bytes) -> bytes:
        """Called with the lock held: ``chunk`` with the radio's next stretch added to it."""
        radio = self._radio
        if not len(radio):
            return chunk
        samples = np.frombuffer(chunk, dtype="<i2").astype(np.int32)
        at = (self._radio_at + np.arange(len(samples))) % len(radio)
        self._radio_at = int(at[-1] + 1) % len(radio)
        return bytes(np.clip(samples + radio[at], -32768, 32767).astype("<i2").tobytes())

    def microphone_idle(self) -> bool:
        with self._lock:
            return not self._queue

    def _feed(self) -> None:
        realtime()  # a microphone keeps real time, however busy the machine
        chunk_bytes = int(MIC_RATE * _CHUNK_SECONDS) * 2
        silence = b"\0" * chunk_bytes
        with open(self.fifo, "wb", buffering=0) as pipe:
            next_time = time.monotonic()
            while not self._stop.is_set():
                consumed = 0
                with self._lock:
                    if self._queue:
                        head = self._queue[0]
                        chunk, rest = head[:chunk_bytes], head[chunk_bytes:]
                        consumed = len(chunk)
                        if rest:
                            self._queue[0] = rest
                        else:
                            self._queue.pop(0)
                        chunk = chunk.ljust(chunk_bytes, b"\0")
                    else:
                        chunk = silence
                    chunk = self._with_radio(chunk)
                try:
                    pipe.write(chunk)
                except BrokenPipeError:
                    return
                if consumed:
                    written_at = time.monotonic()
                    with self._lock:
                        self._written += consumed
                        while self._marks and self._marks[0][0] <= self._written:
                            _, done, when = self._marks.pop(0)
                            when.append(written_at)
                            done.set()
                next_time += _CHUNK_SECONDS
                delay = next_time - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                else:
                    next_time = time.monotonic()

    # ----- the speaker ------------------------------------------------------------------------

    def record_speaker(self, path: Path, rate: int = 16000) -> subprocess.Popen[bytes]:
        """Start recording the speaker's monitor to a WAV file; stop with ``terminate()``."""
        return subprocess.Popen(
            ["parec", "-d", "spk.monitor", f"--rate={rate}", "--channels=1",
             "--format=s16le", "--file-format=wav", str(path)],
            env=self.env,
        )

    def freeze(self) -> None:
        """Stop the daemon without ending it, as a stuck sound server: every call on it hangs
        instead of failing. :meth:`thaw` lets it go on."""
        os.kill(self._pid(), signal.SIGSTOP)

    def thaw(self) -> None:
        os.kill(self._pid(), signal.SIGCONT)

    def _pid(self) -> int:
        return int((self.runtime / "pulse" / "pid").read_text().split()[0])

    def restart(self) -> None:
        """Kill the daemon and start it again on the same socket, as a desktop's sound server
        restarts: every client's streams break, and new ones can be opened a moment later."""
        self._stop_feeding()
        subprocess.run(["pulseaudio", "--kill"], env=self.env, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while subprocess.run(["pactl", "info"], env=self.env, capture_output=True).returncode == 0:
            if time.monotonic() > deadline:
                raise RuntimeError("the PulseAudio test server did not stop")
            time.sleep(0.05)
        self.fifo.unlink(missing_ok=True)
        _launch(self.env, self.fifo)
        self.start_microphone()

    def _stop_feeding(self) -> None:
        self._stop.set()
        if self._feeder is not None:
            self._feeder.join(timeout=2)
            self._feeder = None

    def stop(self) -> None:
        self._stop_feeding()
        with contextlib.suppress(OSError, ValueError, IndexError):
            self.thaw()  # a frozen daemon would not act on being told to end
        subprocess.run(["pulseaudio", "--kill"], env=self.env, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.runtime, ignore_errors=True)


def _launch(env: dict[str, str], fifo: Path) -> None:
    """Start the daemon and give it its speaker and microphone, both defaults."""
    subprocess.run(
        ["pulseaudio", "-D", "--exit-idle-time=-1", "-n", "--disallow-exit", "--log-target=stderr",
         "--load=module-native-protocol-unix", "--daemonize=yes"],
        env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while subprocess.run(["pactl", "info"], env=env, capture_output=True).returncode != 0:
        if time.monotonic() > deadline:
            raise RuntimeError("the PulseAudio test server did not start")
        time.sleep(0.05)
    for args in (
        ["load-module", "module-null-sink", "sink_name=spk"],
        ["load-module", "module-pipe-source", "source_name=vmic", f"file={fifo}",
         "format=s16le", f"rate={MIC_RATE}", "channels=1"],
        ["set-default-sink", "spk"],
        ["set-default-source", "vmic"],
    ):
        subprocess.run(["pactl", *args], env=env, check=True, capture_output=True)
    _realtime(Path(env["PULSE_RUNTIME_PATH"]) / "pid")


def realtime(task: int = 0) -> None:
    """Give one thread (``task``, a thread or process id; the calling thread by default) the
    real-time scheduling the sound server's threads get. For the rig's stand-ins for hardware: a
    real microphone keeps time and a real speaker plays whatever the load, so the thread feeding
    the pipe microphone and the readers of the speaker's monitor must not fall behind a CPU hog,
    or a test measures the rig instead of the game. Best effort, like :func:`_realtime`."""
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(task, os.SCHED_RR, os.sched_param(5))


def _realtime(pid_file: Path) -> None:
    """Give the server's threads the real-time scheduling a desktop's sound server gets (through
    rtkit, or its own rights). Without it, under a CPU hog on every core, this server took 27 to
    47 s to play 9.5 s of speech; with it, 11 s (docs/robustness.md). Best effort: a user who may
    not raise priorities keeps the ordinary scheduler."""
    try:
        pid = int(pid_file.read_text().split()[0])
        for task in os.listdir(f"/proc/{pid}/task"):
            os.sched_setscheduler(int(task), os.SCHED_RR, os.sched_param(5))
    except (OSError, ValueError, AttributeError):
        pass


def start_audio_server() -> AudioServer:
    """Start a private server with ``spk`` (null sink) and ``vmic`` (pipe source) as defaults."""
    runtime = Path(tempfile.mkdtemp(prefix="voice-rang-pulse-"))
    env = dict(os.environ)
    env.update(
        XDG_RUNTIME_DIR=str(runtime),
        PULSE_RUNTIME_PATH=str(runtime / "pulse"),
        PULSE_STATE_PATH=str(runtime / "state"),
        PULSE_SERVER=f"unix:{runtime}/pulse/native",
        HOME=os.environ.get("HOME", str(runtime)),
    )
    env.pop("PULSE_SINK", None)
    env.pop("PULSE_SOURCE", None)
    fifo = runtime / "mic.fifo"
    _launch(env, fifo)
    server = AudioServer(runtime=runtime, fifo=fifo, env=env)
    server.start_microphone()
    return server


def read_wav_mono(path: Path) -> tuple[bytes, int]:
    """PCM16 frames and rate of a mono 16-bit WAV file."""
    with wave.open(str(path), "rb") as wav:
        return wav.readframes(wav.getnframes()), wav.getframerate()
