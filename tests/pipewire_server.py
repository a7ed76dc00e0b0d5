"""A private PipeWire sound server, as most Linux desktops now run: PipeWire, its session
manager WirePlumber and its PulseAudio server (``pipewire-pulse``), on a D-Bus session bus of
their own, with a null sink called ``speaker`` as the default output.

The game reaches it exactly as it reaches PulseAudio (libpulse, through ``PULSE_SERVER``), but the
server behind that protocol is another program, with its own buffering; the player's stream is
checked on both (``tests/test_pipewire.py``).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

__all__ = ["PipeWireServer", "pipewire_available", "start_pipewire"]

TOOLS = ("dbus-daemon", "pipewire", "wireplumber", "pipewire-pulse", "pactl", "parec")
SINK = "speaker"


def pipewire_available() -> str | None:
    """``None`` if the server can start here, else what is missing."""
    for tool in TOOLS:
        if shutil.which(tool) is None:
            return f"{tool} is not installed (scripts/dev test installs it)"
    return None


@dataclass
class PipeWireServer:
    runtime: Path
    env: dict[str, str]
    processes: list[subprocess.Popen[Any]] = field(default_factory=list)
    logs: list[IO[bytes]] = field(default_factory=list)

    def pactl(self, *args: str, timeout: float = 5.0) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["pactl", *args], env=self.env, capture_output=True, text=True, timeout=timeout,
                              check=False)

    def log_tail(self) -> str:
        """The last lines each program wrote, for a failure's message."""
        tails = []
        for log in self.logs:
            log.flush()
            lines = Path(log.name).read_text(errors="replace").splitlines()[-4:]
            tails.append(f"{Path(log.name).name}: " + " | ".join(lines))
        return "; ".join(tails)

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        for log in self.logs:
            log.close()
        shutil.rmtree(self.runtime, ignore_errors=True)


def _wait(server: PipeWireServer, ready: str, timeout: float) -> None:
    """Until ``pactl`` answers and, when ``ready`` is a sink's name, lists that sink."""
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        dead = [p.args for p in server.processes if p.poll() is not None]
        if dead:
            raise RuntimeError(f"PipeWire did not start: {dead[0]!r} exited; {server.log_tail()}")
        answer = server.pactl("list", "short", "sinks")
        last = answer.stderr.strip() or answer.stdout.strip()
        if answer.returncode == 0 and (not ready or any(line.split("\t")[1:2] == [ready]
                                                         for line in answer.stdout.splitlines())):
            return
        time.sleep(0.1)
    raise RuntimeError(f"PipeWire's PulseAudio server did not answer in {timeout:.0f} s: {last}")


def start_pipewire(timeout: float = 30.0) -> PipeWireServer:
    """Start the four programs in a private runtime directory and make ``speaker`` the default."""
    runtime = Path(tempfile.mkdtemp(prefix="voice-rang-pipewire-"))
    runtime.chmod(0o700)
    # Nothing of a PulseAudio server started before (the other tests' fixture sets PULSE_SERVER,
    # PULSE_RUNTIME_PATH…): pipewire-pulse would make its socket where that server has its own.
    daemons = {name: value for name, value in os.environ.items()
               if not name.startswith(("PULSE_", "PIPEWIRE_")) and name != "DISPLAY"}
    daemons.update(XDG_RUNTIME_DIR=str(runtime), XDG_STATE_HOME=str(runtime / "state"),
                   XDG_CONFIG_HOME=str(runtime / "config"))
    bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"], env=daemons,
                           stdout=subprocess.PIPE, text=True)
    assert bus.stdout is not None
    daemons["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().strip()
    bus.stdout.close()  # it says nothing more
    env = {**daemons, "PULSE_SERVER": f"unix:{runtime}/pulse/native"}
    server = PipeWireServer(runtime, env)
    server.processes.append(bus)
    try:
        for program in ("pipewire", "wireplumber", "pipewire-pulse"):
            log = (runtime / f"{program}.log").open("wb")
            server.logs.append(log)
            server.processes.append(subprocess.Popen([program], env=daemons, stdout=log, stderr=subprocess.STDOUT))
            time.sleep(0.3)
        _wait(server, "", timeout)
        loaded = server.pactl("load-module", "module-null-sink", f"sink_name={SINK}")
        if loaded.returncode != 0:
            raise RuntimeError(f"PipeWire would not make a null sink: {loaded.stderr.strip()}")
        _wait(server, SINK, timeout)
        server.pactl("set-default-sink", SINK)
    except BaseException:
        server.stop()
        raise
    return server

