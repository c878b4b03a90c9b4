"""Answers worked out once per object, such as a configuration or its lowered model (the lowering, the
engine and the checks all ask them).

The objects are frozen dataclasses whose hash walks the whole model, so they are kept by identity:
each answer is stored beside the object it was computed for, and an id that a new object reuses
finds a different object there and computes afresh. The store is emptied when it grows past its
limit, so that the many configurations of a long run are not all kept alive.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class PerObject:
    """A store of answers, one per (question, object)."""

    def __init__(self, limit: int = 1024):
        self.limit = limit
        self.kept: dict[tuple, tuple] = {}  # (question, id of the object) -> (the object, the answer)

    def get(self, what: str, obj, compute: Callable[[], T]) -> T:
        """The answer to `what` about `obj`: `compute()` the first time it is asked."""
        hit = self.kept.get((what, id(obj)))
        if hit is not None and hit[0] is obj:
            return hit[1]
        if len(self.kept) > self.limit:
            self.kept.clear()
        value = compute()
        self.kept[(what, id(obj))] = (obj, value)
        return value


__all__ = ["PerObject"]
