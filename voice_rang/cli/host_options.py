"""The host's own options, checked, and the address it tells guests: shared by both games' hosts."""

from __future__ import annotations

import argparse
import secrets
import socket

from ..games.rang_milanti import MAX_SEATS, MIN_SEATS
from . import UsageError

__all__ = ["check_host_arguments", "reachable_address"]


def check_host_arguments(args: argparse.Namespace) -> str:
    """Check the host's own options; the join code."""
    if not MIN_SEATS <= args.seats <= MAX_SEATS:
        raise UsageError(f"--seats must be {MIN_SEATS} to {MAX_SEATS}, not {args.seats}")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0 to 65535, not {args.port}")
    if not 0 <= args.grace <= 600:
        raise UsageError(f"--grace must be 0 to 600 seconds, not {args.grace}")
    if args.code is None:
        return "".join(secrets.choice("0123456789") for _ in range(4))
    if not (args.code.isascii() and args.code.isdigit() and 4 <= len(args.code) <= 8):
        raise UsageError(f"--code must be 4 to 8 digits, not {args.code!r}")
    return str(args.code)


def reachable_address(bind: str) -> str:
    """The address guests on the same network use: the bound one, or this machine's own."""
    if bind not in ("0.0.0.0", "::", ""):
        return bind
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"
