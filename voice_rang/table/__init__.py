"""The dialogue loop: one owner of the game; commands in, messages out."""

from .table import Outputs, SeatKind, Table

__all__ = ["Outputs", "SeatKind", "Table"]
