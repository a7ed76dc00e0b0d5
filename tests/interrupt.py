"""Ctrl-C for the programs the tests start, however the test run itself was started.

A run started in the background (``pytest &`` in a script, or by a tool) ignores SIGINT, and a
child inherits an ignored signal: a test that presses Ctrl-C on its child would then see it go on.
Each child that is sent Ctrl-C gets the default handler back as it starts.
"""

from __future__ import annotations

import signal

__all__ = ["default_sigint"]


def default_sigint() -> None:
    """Run in the child before the program (``preexec_fn``): SIGINT stops it again."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
