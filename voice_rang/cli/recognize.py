"""``voice-rang recognize``."""

from __future__ import annotations

import argparse

from . import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser


def run(args: argparse.Namespace) -> int:
    raise UsageError("not available yet")
