"""Court Piece's rules options, declared once for every command that sets up a session
(``play``, ``host`` and ``simulate``): a light module, so ``simulate`` starts without the table."""

from __future__ import annotations

import argparse

__all__ = ["add_rules_arguments"]


def add_rules_arguments(parser: argparse.ArgumentParser, label: str = "") -> None:
    """The rules options, each help beginning with ``label`` where a command also has another game's
    options ("Court Piece: "); one flat list, so a screen reader hears each option on its own line."""
    parser.add_argument("--variant", help=f"{label}court-piece (the default), double-sir, be-ranga or hidden-rung")
    parser.add_argument("--trump", help=f"{label}how trumps are chosen: named, card, hidden, blind or later")
    parser.add_argument("--scoring", help=f"{label}points (to a target, the default) or courts (over some deals)")
    parser.add_argument("--target", type=int, help=f"{label}points that win a session (default 10)")
    parser.add_argument("--deals", type=int, help=f"{label}deals in a session scored by courts (default 8)")
    parser.add_argument("--redeal", action="store_true", default=None,
                        help=f"{label}the caller may ask for a new deal when its first five are all below the jack")
    parser.add_argument("--no-early-late", action="store_true", default=None,
                        help="Double Sir: no collecting after tricks 1-2 or 11-12")
    parser.add_argument("--aces-no-collect", action="store_true", default=None,
                        help="Double Sir: two tricks in a row won with aces collect nothing")
    parser.add_argument("--goon", type=int, help="Double Sir: courts a goon court counts, 3 (default) or 10")
