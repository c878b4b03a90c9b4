"""The change of a slot that an update's shape shows (`verify.changes`): sound for every state within the
declared ranges, and tight on the shapes the rules write most."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rulekit.verify import terms as t
from rulekit.verify.changes import ChangeBounds, may_decrease_on_a_branch, weighted_high, weighted_low

RANGES = {0: (0, 5), 1: (0, 3), 2: (-2, 2)}
X, Y, Z = ("s", 0), ("s", 1), ("s", 2)


def test_the_shapes_the_rules_write_most_are_bounded_tightly():
    bounds = ChangeBounds(RANGES)
    assert bounds.of(t.arith("+", X, t.const(1)), 0) == (1, 1)
    assert bounds.of(t.ite(t.compare("<", X, t.const(5)), t.arith("+", X, t.const(1)), X), 0) == (0, 1)
    assert bounds.of(t.arith("-", X, t.ite(t.compare(">", Y, t.const(0)), t.const(1), t.const(0))), 0) == (-1, 0)
    assert bounds.of(t.arith("min", t.arith("+", X, t.const(2)), t.const(5)), 0) == (0, 2)
    assert bounds.of(t.arith("+", X, Y), 0) == (0, 3)
    assert bounds.of(Y, 0) == (-5, 3)  # another slot: only the two ranges bound it
    assert bounds.of(("s", 7), 0) == (None, None)  # a slot with no range: unknown


def test_a_weighted_sum_and_the_branches_of_an_update():
    bounds = ChangeBounds(RANGES)
    counted = t.ite(t.compare("<", X, t.const(5)), t.arith("+", X, t.const(1)), X)
    updates = {0: counted, 1: t.arith("-", Y, t.const(1))}
    assert weighted_high(bounds, updates, {0: -1}) == 0 and weighted_low(bounds, updates, {0: -1}) == -1
    assert weighted_high(bounds, updates, {0: 1, 1: 2}) == -1  # +1 at most, -2 surely
    assert weighted_high(bounds, updates, {2: 1}) == 0  # a slot it does not update does not change
    assert may_decrease_on_a_branch(bounds, updates, {0: -1})  # the branch that counts
    assert not may_decrease_on_a_branch(bounds, updates, {0: 1})


def terms(depth: int):
    leaves = st.one_of(st.sampled_from([X, Y, Z]), st.integers(-3, 6).map(t.const))
    if depth == 0:
        return leaves
    sub = terms(depth - 1)
    return st.one_of(
        leaves,
        st.tuples(st.sampled_from(["+", "-", "min", "max"]), sub, sub).map(lambda x: t.arith(*x)),
        st.tuples(st.sampled_from(["<", "<=", "=="]), sub, sub, sub, sub).map(
            lambda x: t.ite(t.compare(x[0], x[1], x[2]), x[3], x[4])),
        sub.map(t.neg),
    )


@settings(max_examples=300, deadline=None)
@given(update=terms(3), slot=st.sampled_from([0, 1, 2]),
       values=st.tuples(st.integers(0, 5), st.integers(0, 3), st.integers(-2, 2)))
def test_every_change_lies_within_the_bounds(update, slot, values):
    """Whatever the update and whatever state within the ranges, `new - old` lies within the bounds: a
    bound that is too tight would let the ranking search prove a game ends when it does not."""
    low, high = ChangeBounds(RANGES).of(update, slot)
    change = t.evaluate(update, list(values)) - values[slot]
    assert low is None or low <= change
    assert high is None or change <= high
