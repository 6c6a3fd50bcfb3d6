"""Named contiguous ranges: the one mechanism behind every game's ``_a`` / ``_f`` / ``_o`` registries.

A game's layout module declares its action ids, state fields and observation blocks as a
sequence of named ranges, each starting where the previous one ends, so an id or offset is
never written as a literal and the tables in the docs are derived from the same list::

    _a = Ranges()
    A_PASS = _a("pass")           # 0
    A_PLAY = _a("play card", 10)  # 1 .. 10
    N_ACTIONS, ACTION_RANGES = _a.close()  # 11, (("pass", 0, 1), ("play card", 1, 10))

Each entry is ``(name, offset, size, *extra)``; extra columns (an observation block's scale and
bound) ride along unchanged.
"""

from __future__ import annotations

__all__ = ["Ranges", "append_range", "range_end"]


def range_end(table: list[tuple]) -> int:
    """First offset after the last range of ``table`` (0 when it is empty)."""
    return table[-1][1] + table[-1][2] if table else 0


def append_range(table: list[tuple], name: str, n: int = 1, *extra: object) -> int:
    """Append the range ``(name, offset, n, *extra)`` after the last one; return its offset.

    >>> t = []
    >>> append_range(t, "a", 3), append_range(t, "b"), append_range(t, "end", 0)
    (0, 3, 4)
    """
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"range {name!r}: size must be an int >= 0, got {n!r}")
    off = range_end(table)
    table.append((name, off, n, *extra))
    return off


class Ranges:
    """One registry of named contiguous ranges: calling it declares the next range and returns
    its offset; :meth:`close` ends the registry."""

    def __init__(self) -> None:
        self.entries: list[tuple] = []

    def __call__(self, name: str, n: int = 1, *extra: object) -> int:
        return append_range(self.entries, name, n, *extra)

    def close(self) -> tuple[int, tuple[tuple, ...]]:
        """The size of everything declared (the first offset after the last range) and every range."""
        end = range_end(self.entries)
        return end, tuple(self.entries)
