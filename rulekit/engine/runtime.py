"""Zone operations used by compiled games. Zones are lists of card-kind indices.

A `set` zone is kept sorted (a multiset); a `stack` zone is ordered with its top
last. A stack may hold one *undetermined block* [lo, hi): cards whose order is
not yet decided (after a shuffle), kept sorted as a set is: a shuffle sorts
it, and every operation takes cards out of it in order or puts them beside it,
so the block is one kind exactly when its two ends are, and equal cards lie
together. Taking a card from inside the block is a
chance event, resolved by the engine before the move happens (deferred
randomness: the same distribution as shuffling up front, with far fewer
outcomes and no hidden order to hide).
"""
from __future__ import annotations

from bisect import insort
from collections import Counter

from ..errors import EndlessRun, LongRun, RuleRuntimeError
from .subsets import every as subsets_every
from .subsets import index as bag_index
from .subsets import summing as subsets_summing
from .subsets import summing_kinds as subsets_summing_kinds


def fail(message, span=None):
    raise RuleRuntimeError(message, span)


def needs_top(s, z) -> bool:
    """True when the top card of zone z is still undetermined."""
    return s.hi[z] > s.lo[z] and s.hi[z] == len(s.z[z])


def needs_bottom(s, z) -> bool:
    """True when the bottom card of zone z is still undetermined (the top's test is inlined)."""
    return s.hi[z] > s.lo[z] and s.lo[z] == 0


def fix_end(s, z, kind: int, top: bool) -> None:
    """Decide that the top (or bottom) card of z's undetermined block is `kind`."""
    cards, lo, hi = s.z[z], s.lo[z], s.hi[z]
    i = cards.index(kind, lo, hi)
    del cards[i]
    if top:
        cards.insert(hi - 1, kind)
        s.hi[z] = hi - 1
    else:
        cards.insert(lo, kind)
        s.lo[z] = lo + 1


def take_top(s, z, span) -> int:
    cards = s.z[z]
    if not cards:
        fail(f"cannot take the top card of zone '{s.zone_names[z]}': it is empty", span)
    return cards.pop()


def take_bottom(s, z, span) -> int:
    cards = s.z[z]
    if not cards:
        fail(f"cannot take the bottom card of zone '{s.zone_names[z]}': it is empty", span)
    k = cards.pop(0)
    if s.hi[z] > s.lo[z]:
        s.lo[z] -= 1
        s.hi[z] -= 1
    return k


def _removed_at(s, z, i) -> None:
    lo, hi = s.lo[z], s.hi[z]
    if hi > lo:
        if i < lo:
            s.lo[z] = lo - 1
            s.hi[z] = hi - 1
        elif i < hi:
            s.hi[z] = hi - 1


def take_kind(s, z, kind, span) -> int:
    cards = s.z[z]
    try:
        i = cards.index(kind)
    except ValueError:
        fail(f"there is no {s.kind_names[kind] if 0 <= kind < len(s.kind_names) else kind} in zone '{s.zone_names[z]}'", span)
    del cards[i]
    _removed_at(s, z, i)
    return kind


def take_bag(s, z, bag, span) -> list[int]:
    """Take each card of a multiset of kinds out of a zone (all of them, or none if one is missing)."""
    cards = s.z[z]
    for kind in bag:  # a set of cards is a few cards: counting each kind again costs less than two Counters
        if cards.count(kind) < bag.count(kind):
            fail(f"there is no {s.kind_names[kind]} left in zone '{s.zone_names[z]}' for this set of cards", span)
    for kind in bag:
        take_kind(s, z, kind, span)
    return list(bag)


def take_where(s, z, pred, only_one: bool) -> list[int]:
    cards = s.z[z]
    taken = []
    i = 0
    while i < len(cards):
        if pred(cards[i]):
            taken.append(cards[i])
            del cards[i]
            _removed_at(s, z, i)
            if only_one:
                break
        else:
            i += 1
    return taken


def take_all(s, z) -> list[int]:
    cards = s.z[z]
    s.z[z] = []
    s.lo[z] = s.hi[z] = 0
    return cards


def move_many(s, z, d, pred, only_one: bool, at_bottom: bool, span) -> list[int]:
    """Move the cards of stack z that `pred` accepts (all when None) to zone d, keeping what is
    undetermined undetermined: cards taken from z's undetermined block stay unordered in d."""
    cards, lo, hi = s.z[z], s.lo[z], s.hi[z]
    taken, keep = [], []
    from_block = new_lo = new_hi = 0
    for i, k in enumerate(cards):
        in_block = lo <= i < hi
        if (pred is None or pred(k)) and not (only_one and taken):
            taken.append(k)
            from_block += in_block
        else:
            keep.append(k)
            new_lo += i < lo
            new_hi += i < hi
    s.z[z] = keep
    s.lo[z], s.hi[z] = (new_lo, new_hi) if new_hi > new_lo else (0, 0)
    if not taken:
        return taken
    if s.is_set[d]:
        s.z[d].extend(taken)
        s.z[d].sort()
        return taken
    if from_block and from_block != len(taken):
        fail("cannot move known and undetermined cards of a shuffled stack together onto a stack", span)
    if from_block and s.hi[d] > s.lo[d]:
        fail(f"zone '{s.zone_names[d]}' already has shuffled cards; shuffle it after the move instead", span)
    if at_bottom:
        s.z[d][:0] = taken
        if from_block:
            s.lo[d], s.hi[d] = 0, len(taken)
        elif s.hi[d] > s.lo[d]:
            s.lo[d] += len(taken)
            s.hi[d] += len(taken)
    else:
        start = len(s.z[d])
        s.z[d].extend(taken)
        if from_block:
            s.lo[d], s.hi[d] = start, start + len(taken)
    return taken


def put(s, z, kind, at_bottom: bool) -> None:
    cards = s.z[z]
    if s.is_set[z]:
        insort(cards, kind)
    elif at_bottom:
        cards.insert(0, kind)
        if s.hi[z] > s.lo[z]:
            s.lo[z] += 1
            s.hi[z] += 1
    else:
        cards.append(kind)


def put_many(s, z, kinds, at_bottom: bool) -> None:
    if s.is_set[z]:
        s.z[z].extend(kinds)
        s.z[z].sort()
    elif not at_bottom:
        s.z[z].extend(kinds)
    else:
        for k in kinds:
            put(s, z, k, True)


SCANNED_CARDS = 16  # see `kind_counts`


def kind_counts(cards) -> dict[int, int]:
    """How many cards of each kind, kinds in increasing order: for a few cards, a scan of them (in C)
    per kind; for more, as `Counter` counts them."""
    if len(cards) <= SCANNED_CARDS:
        return {kind: cards.count(kind) for kind in sorted(set(cards))}
    return dict(sorted(Counter(cards).items()))


def shuffle(s, z) -> None:
    if not s.is_set[z]:
        s.z[z].sort()
        s.lo[z] = 0
        s.hi[z] = len(s.z[z])


def adjacent(a: int, b: int, columns: int) -> bool:
    """Next to each other on a grid, diagonals included."""
    ra, ca = divmod(a, columns)
    rb, cb = divmod(b, columns)
    return a != b and abs(ra - rb) <= 1 and abs(ca - cb) <= 1


def orthogonal(a: int, b: int, columns: int) -> bool:
    """Next to each other on a grid, in the same row or column."""
    ra, ca = divmod(a, columns)
    rb, cb = divmod(b, columns)
    return abs(ra - rb) + abs(ca - cb) == 1


def the(value, what, span):
    if value is None:
        fail(f"the({what}) found nothing", span)
    return value


def best(pairs, largest: bool, element: bool, what, span):
    """max/min (the value) or argmax/argmin (`element`: the element) over (value, element) pairs;
    ties go to the first element, in the order of the domain."""
    found = None
    for value, x in pairs:
        if found is None or (value > found[0] if largest else value < found[0]):
            found = (value, x)
    if found is None:
        fail(f"{what} ranges over nothing", span)
    return found[1] if element else found[0]


def stack_end(s, z, top: bool, span) -> int:
    """The top (last) or bottom (first) card of stack z, as a value (`top(Z)`, `bottom(Z)`)."""
    cards = s.z[z]
    which = "top" if top else "bottom"
    if not cards:
        fail(f"{which}({s.zone_names[z]}) has no card: the zone is empty", span)
    if needs_top(s, z) if top else needs_bottom(s, z):
        fail(f"the {which} card of '{s.zone_names[z]}' is not decided yet (the stack was shuffled): read it in a "
             "statement, where the engine settles it by chance first, not in a condition checked at any moment", span)
    return cards[-1] if top else cards[0]


def show_card(s, z, kind, to, span) -> None:
    """`reveal CARD in ZONE to ...`: one card is shown; it must be there."""
    if kind not in s.z[z]:
        fail(f"cannot reveal {s.kind_names[kind] if 0 <= kind < len(s.kind_names) else kind}: "
             f"it is not in zone '{s.zone_names[z]}'", span)
    s.log.append(("show", z, kind, to))


def real_seat(p, span) -> int:
    """A player value where a seat is needed: `none` (no player) is a rule error there."""
    if p < 0:
        fail("no player ('none') stands where the rules need a real player", span)
    return p


LOOP_LIMIT = 1_000_000  # rounds of a loop compiled to Python before it counts as too long
WATCH_AFTER = 10_000  # steps of a run (or rounds of such a loop) after which it is watched for a state that comes back
WATCH_UNTIL = 200_000  # and until which (each look at the state costs a copy of it)


class CycleWatch:
    """Brent's cycle finding over a run with no decision and no chance event: a state kept, replaced
    at each power of two of the steps since; a run whose state comes back comes back for ever.
    `here` is a cheap part of the state (a pc), compared before the whole key is made."""

    __slots__ = ("here", "key", "at", "power")

    def __init__(self, here, key: str, step: int):
        self.here, self.key, self.at, self.power = here, key, step, 1

    def came_back(self, here, key, step: int) -> bool:
        """Whether the state at `step` (`key()` makes its whole key) is the one kept."""
        if here == self.here and key() == self.key:
            return True
        if step - self.at == self.power:
            self.here, self.key, self.at, self.power = here, key(), step, 2 * self.power
        return False

    def endless(self, step: int, where: str, span) -> EndlessRun:
        return EndlessRun("the rules go round for ever without waiting for a decision or a chance event: the same "
                          f"state comes back{where}", span, self.at, step - self.at)


def watch_loop(s, watch: CycleWatch | None, rounds: int, names: dict, span) -> CycleWatch | None:
    """One round, past WATCH_AFTER, of a loop with no decision and no chance event inside (one Python
    loop in an instruction), watched over the state and the loop's locals (`names`, the instruction's
    `locals()`, its loop counters and watchers left out); returns the watch to pass next round."""
    if rounds > WATCH_UNTIL:  # a cycle longer than the watch is left to the limit
        if rounds > LOOP_LIMIT:
            raise LongRun(f"a loop ran {LOOP_LIMIT:,} times without waiting for anything (an endless loop?)", span)
        return watch

    def key() -> str:
        return s.run_key(sorted((k, v) for k, v in names.items() if k[:2] not in ("_g", "_w") and k not in ("s", "fr")))

    if watch is None:
        return CycleWatch(None, key(), rounds)
    if watch.came_back(None, key, rounds):
        raise watch.endless(rounds, "", span)
    return watch


def check_range(value, low, high, name, span):
    if not low <= value <= high:
        fail(f"'{name}' would become {value}, outside its range {low}..{high}", span)
    return value


# The names generated code runs with; the set helpers are `subsets`' own, named as the code calls them.
__all_helpers__ = __all__ = ("fail", "needs_bottom", "take_top", "take_bottom", "take_kind", "take_where",
                   "take_all", "put", "put_many", "move_many", "shuffle", "the", "best", "check_range", "insort", "adjacent", "orthogonal",
                   "subsets_every", "subsets_summing", "subsets_summing_kinds", "bag_index", "take_bag", "stack_end", "show_card", "real_seat",
                   "watch_loop")
