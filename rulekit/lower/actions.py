"""Action ids: one contiguous range per action of each choice point, numbered in mixed radix.

An id says which action was taken and the index of each parameter in its domain. Ids are the
same in every state of a game configuration, as OpenSpiel asks. A parameter that ranges over
the subsets of a zone makes a range astronomically large, so ids are decoded on demand rather
than listed.
"""
from __future__ import annotations

from bisect import bisect_right


class ActionTable:
    def __init__(self):
        self._offsets: list[int] = []
        self._entries: list[tuple] = []  # (choice point, action index, domain sizes, value names)
        self.sizes: dict[tuple[int, int], tuple[int, ...]] = {}  # (choice point, action index) -> domain sizes
        self.bases: dict[tuple[int, int], int] = {}  # (choice point, action index) -> its first id
        self.size = 0

    def add(self, point: int, action: int, sizes: list[int], names: list[list[str] | None]) -> int:
        offset = self.size
        self._offsets.append(offset)
        self._entries.append((point, action, tuple(sizes), tuple(names)))
        self.sizes[(point, action)] = tuple(sizes)
        self.bases[(point, action)] = offset
        span = 1
        for s in sizes:
            span *= s
        self.size += max(1, span)
        return offset

    def __len__(self) -> int:
        return self.size

    def owner(self, action: int) -> tuple[int, int]:
        """(choice point, action index) of an id, without decoding its parameters: what the checks
        ask at every step."""
        if not 0 <= action < self.size:
            raise IndexError(action)
        return self._entries[bisect_right(self._offsets, action) - 1][:2]

    def __getitem__(self, action: int) -> tuple:
        """(choice point, action index, index of each parameter, how each parameter reads or None)."""
        if not 0 <= action < self.size:
            raise IndexError(action)
        i = bisect_right(self._offsets, action) - 1
        point, ai, sizes, names = self._entries[i]
        rest = action - self._offsets[i]
        combo = []
        for size in reversed(sizes):
            rest, index = divmod(rest, size) if size else (rest, 0)
            combo.append(index)
        combo.reverse()
        shown = tuple(n[k] if n is not None and k < len(n) else None for n, k in zip(names, combo))
        return point, ai, tuple(combo), shown
