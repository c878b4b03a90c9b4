"""1-induction one command at a time (`verify.commandwise`), on small guarded-command systems."""
from __future__ import annotations

from rulekit.verify import budget, commandwise
from rulekit.verify.terms import TRUE, Command, Slot, System, arith, compare, const, ite

X, Y, LIMIT = ("s", 0), ("s", 1), ("s", 2)


def system(commands: dict, init=(0, 0, 3)) -> System:
    slots = [Slot(("var", "x", None), "x", None, None), Slot(("var", "y", None), "y", None, None),
             Slot(("var", "limit", None), "limit", None, None)]
    return System(players=1, options={}, slots=slots, init=list(init),
                  commands=[Command(label, 0, i, (), guard, ("b", False), updates)
                            for i, (label, (guard, updates)) in enumerate(commands.items())])


def kept(sys: System, expr, lemmas=None, size_limit=1000) -> commandwise.Kept:
    with budget.fresh_context():
        return commandwise.kept_by_each(sys, expr, size_limit, 2000, lemmas=lemmas)


AT_MOST_LIMIT = compare("<=", X, LIMIT)


def test_a_counter_held_below_its_limit_is_proven_one_command_at_a_time():
    up = (compare("<", X, LIMIT), {0: arith("+", X, const(1))})
    reset = (TRUE, {0: const(0)})
    answer = kept(system({"up": up, "reset": reset}), AT_MOST_LIMIT)
    assert answer.proven and answer.queries >= 2


def test_a_slot_another_command_writes_is_any_value_in_each_query():
    """`copy` alone keeps x <= limit if y kept its initial 0; but `set_y` makes y 5, and then `copy`
    breaks it. A query for `copy` that took y for its initial value would prove a false invariant."""
    copy = (TRUE, {0: Y})
    set_y = (TRUE, {1: const(5)})
    answer = kept(system({"copy": copy, "set_y": set_y}), AT_MOST_LIMIT)
    assert not answer.proven
    assert answer.why.startswith("rule copy does not keep it (it may need a lemma")


def test_a_slot_no_command_writes_keeps_its_initial_value():
    """limit is never written: it stays 3, so `up` guarded by x < 3 keeps x <= limit."""
    up = (compare("<", X, const(3)), {0: arith("+", X, const(1))})
    assert kept(system({"up": up}), AT_MOST_LIMIT).proven


def test_an_invariant_that_needs_a_lemma_is_proven_with_it_and_not_without():
    """x <= y holds because y never drops below 3 and x never passes 3; x <= y alone is not inductive."""
    up = (compare("<", X, const(3)), {0: arith("+", X, const(1))})
    grow_y = (TRUE, {1: ite(compare("<", Y, const(9)), arith("+", Y, const(1)), Y)})
    sys = system({"up": up, "grow_y": grow_y}, init=(0, 3, 3))
    x_below_y = compare("<=", X, Y)
    assert not kept(sys, x_below_y).proven
    lemmas = {"y >= 3": compare(">=", Y, const(3)), "x <= 3": compare("<=", X, const(3)),
              "y <= 0 (false at the start)": compare("<=", Y, const(0)),
              "y <= 3 (true at the start, broken by grow_y)": compare("<=", Y, const(3))}
    assert kept(sys, x_below_y, lemmas=lemmas).proven


def test_an_invariant_false_at_the_start_is_no_proof():
    answer = kept(system({"stay": (TRUE, {})}, init=(5, 0, 3)), AT_MOST_LIMIT)
    assert not answer.proven and "does not hold before the set-up" in answer.why


def test_a_command_above_the_size_limit_is_not_asked_about():
    up = (compare("<", X, LIMIT), {0: arith("+", X, const(1))})
    answer = kept(system({"up": up}), AT_MOST_LIMIT, size_limit=2)
    assert not answer.proven and "alone is too large" in answer.why and answer.queries == 0
