"""The stderr filter drops PortAudio's and ALSA's own lines and keeps everything else, in order."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from voice_rang.speech.stderr_filter import NATIVE_NOISE

CHILD = textwrap.dedent("""
    import os, sys
    from voice_rang.speech.stderr_filter import filter_native_stderr
    assert filter_native_stderr() and filter_native_stderr()
    os.write(2, b"Expression 'AlsaRestart( self )' failed in 'src/hostapi/alsa/pa_linux_alsa.c', line: 3313\\n")
    print("voice-rang play: the game's own line", file=sys.stderr)
    os.write(2, b"ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM cards.pcm.rear\\n")
    sys.stderr.flush()
    os.write(2, b"a C library's line, kept\\nand a last one with no newline")
    sys.stderr.write("\\n")
    raise RuntimeError("a traceback still gets through")
""")


def test_native_noise_is_dropped_and_every_other_line_kept_in_order_through_exit() -> None:
    result = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=30)
    lines = result.stderr.splitlines()
    assert result.returncode == 1
    assert lines[:3] == ["voice-rang play: the game's own line", "a C library's line, kept",
                         "and a last one with no newline"]
    assert lines[3].startswith("Traceback") and lines[-1].endswith("a traceback still gets through")
    assert not any("failed in" in line or line.startswith("ALSA lib") for line in lines)


def test_only_the_native_libraries_lines_count_as_noise() -> None:
    assert NATIVE_NOISE.match(b"Expression 'PaAlsaStream_HandleXrun( stream )' failed in "
                              b"'src/hostapi/alsa/pa_linux_alsa.c', line: 4555")
    assert NATIVE_NOISE.match(b"ALSA lib confmisc.c:855:(parse_card) cannot find card '0'")
    assert NATIVE_NOISE.match(b"\x1b[0;93m2026-12-06 00:09:38.692790279 [W:onnxruntime:Default, telemetry_1ds.cc:613 "
                              b"operator()] Failed to persist telemetry device ID; using an in-memory identifier\x1b[m")
    for kept in (b"voice-rang play: --seats must be 2 to 6, not 9",
                 b"Expression of interest failed",
                 b"2026-12-06 00:09:38 [E:onnxruntime:Default, inference_session.cc:1] model failed",
                 b"Traceback (most recent call last):"):
        assert not NATIVE_NOISE.match(kept)


CHILD_QUIET_AT_EXIT = textwrap.dedent("""
    import atexit, os, sys, threading
    from voice_rang.speech.quiet import quiet_pyaudio
    from voice_rang.speech.stderr_filter import filter_native_stderr

    inside, go = threading.Event(), threading.Event()

    def starting_portaudio():
        with quiet_pyaudio():
            inside.set()
            go.wait(10)
            os.write(2, b"Cannot connect to server socket err = No such file or directory\\n")
        print("a line after the quiet block", file=sys.stderr, flush=True)

    starter = threading.Thread(target=starting_portaudio, daemon=True)

    def after_the_filter_let_go():  # registered first, so it runs after the filter's own
        go.set()
        starter.join(10)

    atexit.register(after_the_filter_let_go)
    filter_native_stderr()
    print("the game's last line", file=sys.stderr)
    starter.start()
    inside.wait(10)
""")


def test_a_portaudio_start_still_under_way_at_exit_stays_silent_and_later_lines_still_get_through() -> None:
    result = subprocess.run([sys.executable, "-c", CHILD_QUIET_AT_EXIT], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == ["the game's last line", "a line after the quiet block"]
