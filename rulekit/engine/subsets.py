"""Sub-multisets of a zone: the domain of a `subsets(zone)` binder.

Cards of one kind are interchangeable, so a choice of cards is a multiset of kinds, written as a
sorted tuple. A table of a dozen cards has up to 4,096 subsets; a condition of the form
`sum(c in s: value(c)) == target` is met by few of them, and `summing` finds those without
visiting the rest (a depth-first search over kinds that stops as soon as the running sum cannot
reach the target any more). Both enumerations list multisets in the same deterministic order.
"""
from __future__ import annotations

from typing import Callable, Iterable, Iterator


def _groups(cards) -> list[tuple[int, int]]:
    """(kind, copies) for each kind, by kind."""
    out: list[list[int]] = []
    for kind in sorted(cards):
        if out and out[-1][0] == kind:
            out[-1][1] += 1
        else:
            out.append([kind, 1])
    return [(k, n) for k, n in out]


ONLY_EMPTY = ((),)  # the sub-multisets of no cards


def every(cards) -> Iterable[tuple[int, ...]]:
    """Every sub-multiset of `cards`, the empty one included. Of an empty zone, the commonest case
    (a zone that fills now and then, tested at every turn), a constant rather than a generator."""
    return _every(cards) if cards else ONLY_EMPTY


def _every(cards) -> Iterator[tuple[int, ...]]:
    groups = _groups(cards)

    def rec(i: int, chosen: tuple[int, ...]):
        if i == len(groups):
            yield chosen
            return
        kind, copies = groups[i]
        for n in range(copies + 1):
            yield from rec(i + 1, chosen + (kind,) * n)

    yield from rec(0, ())


def summing(cards, value: Callable[[int], int], target: int) -> Iterator[tuple[int, ...]]:
    """The sub-multisets of `cards` whose values add up to `target`, in the order of `every`.

    The pruning needs values of one sign; with mixed signs every subset is tried."""
    groups = _groups(cards)
    values = [value(kind) for kind, _ in groups]
    if any(v < 0 for v in values):
        yield from (c for c in every(cards) if sum(value(k) for k in c) == target)
        return
    # reach[i]: the largest sum the groups from i on can still add
    reach = [0] * (len(groups) + 1)
    for i in range(len(groups) - 1, -1, -1):
        reach[i] = reach[i + 1] + values[i] * groups[i][1]

    def rec(i: int, left: int, chosen: tuple[int, ...]):
        if left == 0 and (i == len(groups) or reach[i] == 0):
            # only zero-valued kinds remain: every way of adding them keeps the sum
            yield from _with_zeros(groups[i:], chosen)
            return
        if i == len(groups) or left < 0 or left > reach[i]:
            return
        kind, copies = groups[i]
        v = values[i]
        for n in range(copies + 1):
            if n * v > left:
                break
            yield from rec(i + 1, left - n * v, chosen + (kind,) * n)

    yield from rec(0, target, ())


# (the values of the kinds, the cards, the target) -> the sub-multisets that make it, for `summing_kinds`.
_SUMS: dict = {}
SUMS_KEPT = 200_000  # sub-multisets remembered (over all answers) before the memo starts afresh
_kept = 0


def summing_kinds(cards, values: tuple, target: int) -> tuple[tuple[int, ...], ...]:
    """`summing` for a value that is a constant of each kind (`values[kind]`): remembered, since a
    rule asks for the same cards and target again and again (for each card of a hand, say) while
    the cards stay where they are. The memo is held to SUMS_KEPT sub-multisets in all: a crowded
    table has thousands that make a sum."""
    global _kept
    key = (values, tuple(cards), target)
    found = _SUMS.get(key)
    if found is None:
        found = tuple(summing(cards, values.__getitem__, target))
        size = len(found) + 1
        if size > SUMS_KEPT:  # larger than the memo itself: not kept
            return found
        if _kept + size > SUMS_KEPT:
            _SUMS.clear()
            _kept = 0
        _SUMS[key] = found
        _kept += size
    return found


def remembered() -> int:
    """The size of what `summing_kinds` remembers: its answers' sub-multisets, plus one per answer."""
    return _kept


def _with_zeros(groups, chosen):
    if not groups:
        yield chosen
        return
    kind, copies = groups[0]
    for n in range(copies + 1):
        yield from _with_zeros(groups[1:], chosen + (kind,) * n)


def weights(copies: list[int]) -> tuple[int, ...]:
    """Mixed-radix weights that number every multiset of kinds: kind k may appear 0..copies[k] times."""
    out, w = [], 1
    for c in copies:
        out.append(w)
        w *= c + 1
    return tuple(out)


def index(bag, kind_weights) -> int:
    # in C: every option of a decision over subsets is numbered so (a crowded table lists thousands)
    return sum(map(kind_weights.__getitem__, bag))


def from_index(number: int, copies) -> tuple[int, ...]:
    """The multiset numbered `number` by `weights(copies)`."""
    bag = []
    for kind, c in enumerate(copies):
        if not number:  # the digits left are all zero
            break
        if c:
            number, n = divmod(number, c + 1)
            if n:
                bag += [kind] * n
    return tuple(bag)


DECODED_KEPT = 65_536  # numbers a Decoder remembers before it starts afresh


class Decoder:
    """`from_index` for one table of copies, remembered: the engine decodes the same few sets of cards
    (those of a small table or hand) again at every decision that offers them, and a table of forty
    kinds costs forty divisions each time."""

    __slots__ = ("copies", "_bags")

    def __init__(self, copies):
        self.copies = tuple(copies)
        self._bags: dict[int, tuple[int, ...]] = {}

    def __len__(self) -> int:
        """The numbers it remembers now."""
        return len(self._bags)

    def bag(self, number: int) -> tuple[int, ...]:
        found = self._bags.get(number)
        if found is None:
            if len(self._bags) >= DECODED_KEPT:
                self._bags.clear()
            found = self._bags[number] = from_index(number, self.copies)
        return found
