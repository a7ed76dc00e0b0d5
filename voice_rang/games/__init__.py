"""The games this table can hold, one folder each; every game is pure (no I/O, injected chance)."""
