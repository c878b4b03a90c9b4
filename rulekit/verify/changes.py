"""How far one step of a command can move a slot, read off its update with interval arithmetic, no solver.

A ranking search asks, for many weighted sums of slots, whether a command can increase one or always
decreases it. Most updates are simple: `steps + 1`, `hand - ite(..., 1, 0)`, one branch or another of
such forms. For those the change `new - old` lies in an interval that the update's shape gives at
once, in every state where the slots lie within their declared ranges; a query to Z3, which costs
thousands to hundreds of thousands of resource units on a whole-language step, is then needed only
where the interval does not decide. The bounds are sound and may be loose: a command that never
steps at all still gets them.
"""
from __future__ import annotations

from . import terms as t


class ChangeBounds:
    """The (low, high) change of slot `i` under an update term, each end None where unknown; memoized
    per update node, so that the commands' shared subterms are bounded once."""

    def __init__(self, ranges: dict):
        self.ranges = ranges  # slot -> (low, high): its declared range, where it has one
        self._interval_memo: dict = {}
        self._memo: dict = {}

    def of(self, update, i: int) -> tuple:
        key = (id(update), i)
        if key not in self._memo:
            self._memo[key] = (update, self._change(update, i))
        return self._memo[key][1]

    def branch_ends(self, update, i: int) -> tuple:
        """(the highest low, the lowest high) of the change of slot `i` over the branches of `update`'s
        conditionals: whether some branch surely moves the slot down (a lowest high below 0) or up."""
        key = (id(update), i, "branches")
        if key not in self._memo:
            if update[0] == "ite":
                (a0, a1), (b0, b1) = self.branch_ends(update[2], i), self.branch_ends(update[3], i)
                ends = _tighter(max, a0, b0), _tighter(min, a1, b1)
            else:
                ends = self.of(update, i)
            self._memo[key] = (update, ends)
        return self._memo[key][1]

    def _range(self, x) -> tuple:
        return t.interval(x, self.ranges, self._interval_memo)

    def _change(self, x, i: int) -> tuple:
        tag = x[0]
        if x == ("s", i):
            return 0, 0
        if tag == "ite":
            (a0, a1), (b0, b1) = self.of(x[2], i), self.of(x[3], i)
            return _either(min, a0, b0), _either(max, a1, b1)
        if tag == "+":  # (a - slot) + b, or a + (b - slot): both hold, so the tighter ends do
            (a0, a1), (b0, b1) = self.of(x[1], i), self._range(x[2])
            (c0, c1), (e0, e1) = self._range(x[1]), self.of(x[2], i)
            return _tighter(max, _add(a0, b0), _add(e0, c0)), _tighter(min, _add(a1, b1), _add(e1, c1))
        if tag == "-":
            (a0, a1), (b0, b1) = self.of(x[1], i), self._range(x[2])
            loose = self._loose(x, i)
            return _tighter(max, _add(a0, _neg(b1)), loose[0]), _tighter(min, _add(a1, _neg(b0)), loose[1])
        if tag in ("min", "max"):
            (a0, a1), (b0, b1) = self.of(x[1], i), self.of(x[2], i)
            if tag == "min":  # below both arguments' highs; not below the lesser of their lows
                return _either(min, a0, b0), _tighter(min, a1, b1)
            return _tighter(max, a0, b0), _either(max, a1, b1)
        return self._loose(x, i)

    def _loose(self, x, i: int) -> tuple:
        """`x - slot i` from the two intervals alone (the slot may take any value of its range)."""
        (v0, v1), (s0, s1) = self._range(x), self.ranges.get(i, (None, None))
        return _add(v0, _neg(s1)), _add(v1, _neg(s0))


def _add(a, b):
    return None if a is None or b is None else a + b


def _neg(a):
    return None if a is None else -a


def _either(pick, a, b):
    """An end that holds for a value that is one of two: known only where both are."""
    return None if a is None or b is None else pick(a, b)


def _tighter(pick, a, b):
    """Of two sound ends of the same value, the tighter (`max` of lows, `min` of highs), or the known one."""
    return b if a is None else a if b is None else pick(a, b)


def weighted_high(bounds: ChangeBounds, updates: dict, weights: dict):
    """The most that the weighted sum of the slots can grow in one step of a command whose updates
    are `updates` (slot -> new value; a slot it does not update does not change), or None if unknown."""
    return _weighted_end(bounds, updates, weights, 1)


def weighted_low(bounds: ChangeBounds, updates: dict, weights: dict):
    """The least change of the weighted sum in one step (the most it can fall, negated), or None."""
    return _weighted_end(bounds, updates, weights, 0)


def _weighted_end(bounds: ChangeBounds, updates: dict, weights: dict, high: int):
    total = 0
    for i, w in weights.items():
        if not w or i not in updates:
            continue
        ends = bounds.of(updates[i], i)
        end = ends[high] if w > 0 else ends[1 - high]
        if end is None:
            return None
        total += w * end
    return total


def may_decrease_on_a_branch(bounds: ChangeBounds, updates: dict, weights: dict) -> bool:
    """Whether some branch of the updates surely moves one of the weighted slots the way that decreases
    the sum: a command worth splitting along its branches to find one that decreases it."""
    for i, w in weights.items():
        if w and i in updates:
            low, high = bounds.branch_ends(updates[i], i)
            if (w > 0 and high is not None and high < 0) or (w < 0 and low is not None and low > 0):
                return True
    return False


__all__ = ["ChangeBounds", "may_decrease_on_a_branch", "weighted_high", "weighted_low"]
