"""Keyboard input: single keys in a terminal, or one command in words per line from a pipe."""

from .keys import KeyReader, LineReader, key_name, read_key, terminal_keys

__all__ = ["KeyReader", "LineReader", "key_name", "read_key", "terminal_keys"]
