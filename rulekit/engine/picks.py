"""Uniform picks as `random.Random.choice` makes them, without its two Python calls per pick.

A uniformly random game picks each decision with `rng.choice(legal)`, which draws the index with
`getrandbits` by rejection: `k = n.bit_length()` bits, drawn again while the number is not below
`n`. The whole-game code repeats those steps inline on the same generator, so that it picks the
very index `choice` would (a test holds the two to that), one Python call fewer per step.
"""
from __future__ import annotations


def index_below(getrandbits, n: int) -> int:
    """The index in range(n), n > 0, that `choice` of a sequence of length n would take from the
    generator whose `getrandbits` this is."""
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def ascending_domain(iter_kind: str, has_start: bool = False) -> bool:
    """Whether a binder's domain, of this core type name, is listed in increasing order of its index
    in the action numbering (so that options listed by nested loops come in increasing id order)."""
    if iter_kind == "Seats":
        return not has_start  # a round of seats from a given one wraps around
    return iter_kind in ("CardsIn", "CardsInEvery", "Members", "Positions", "Numbers", "Items")
