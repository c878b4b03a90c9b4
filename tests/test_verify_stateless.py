"""Definitions that read nothing of the state, worked out once per tuple of constant arguments while a
symbolic relation is built (`verify.fragment.Builder.stateless`): the relation must be the one built
without that memo, and a definition the engine refuses for some arguments must still be refused at
every place that calls it there."""
from __future__ import annotations

import pytest

from rulekit.pipeline import Spec
from rulekit.verify import control, fragment

from helpers import write_spec

# `twice` and `first_above` read no slot; `ahead` and `lead` read a variable through their bodies,
# `behind` only through a definition it calls. `first_above(3)` has no value: the engine refuses it.
COUNTER = """
game counter "Counter"
rulebook "rulebook.txt" source "counter.txt"
players 2 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
zone box: set, public, initial
card Ace x 1
var score per player: int 0..40 = 0
var far: int 0..9 = 0
define twice(x: int): int = x * 2
define first_above(x: int): int = the(y in 1..3 where y > x)
define ahead(p: player): bool = score(p) > twice(3)
define behind(p: player): bool = not ahead(p)
define limit(x: int): int = twice(x) + first_above(1)
define lead: bool = score(seat(0)) > 3
flow {
  loop {
    choose by current {
      action step "Step." { add twice(1) to score(current)  set far = first_above(twice(0)) }
      action leap when behind(current) "Leap." { add limit(2) to score(current) }
      action slip when far == 9 "Slip." { set far = first_above(3) }
      action slide when far == 8 "Slide." { set far = first_above(3) }
      action hop "Hop." { add first_above(1) to score(current)  add limit(2) to score(current) }
      action dash when not lead "Dash." { add 5 to score(seat(0))  if lead { set far = 2 } }
      action stop "Stop." { end game }
    }
  }
}
"""

COUNTER_CHECKS = """
checks counter
invariant bounded_score "Scores stay small." : forall(p in players: score(p) <= twice(20) + first_above(0))
"""


@pytest.fixture(scope="module")
def counter(tmp_path_factory):
    return Spec.find(str(write_spec(tmp_path_factory.mktemp("counter"), COUNTER, name="counter",
                                    checks=COUNTER_CHECKS)))


def _without_memo(monkeypatch):
    monkeypatch.setattr(fragment.Builder, "stateless", lambda self, name: False)
    monkeypatch.setattr(control.ControlBuilder, "sharable", lambda self, e: False)  # which covers these too


def test_definitions_that_read_no_slot_are_told_apart_from_those_that_do(counter):
    builder = control.ControlBuilder(counter.config(2))
    assert builder.stateless("twice") and builder.stateless("first_above") and builder.stateless("limit")
    assert not builder.stateless("ahead")  # reads a variable
    assert not builder.stateless("behind")  # only through the definition it calls
    assert not builder.stateless("lead")  # no arguments, but a variable


@pytest.mark.parametrize("build", [fragment.build, control.build], ids=["fragment", "whole-language"])
def test_the_relation_is_the_one_built_without_the_memo(counter, build, monkeypatch):
    config = counter.config(2)
    memo = build(config)
    _without_memo(monkeypatch)
    plain = build(config)
    assert [c.label for c in memo.commands] == [c.label for c in plain.commands]
    for a, b in zip(memo.commands, plain.commands):
        assert (a.guard, a.error, a.updates) == (b.guard, b.error, b.updates), a.label
    assert memo.invariants == plain.invariants


def test_the_memo_saves_work(counter, monkeypatch):
    config = counter.config(2)
    memo = control.ControlBuilder(config)
    memo.build()
    _without_memo(monkeypatch)
    plain = control.ControlBuilder(config)
    plain.build()
    assert memo.work < plain.work


@pytest.mark.parametrize("build", [fragment.build, control.build], ids=["fragment", "whole-language"])
def test_a_definition_the_engine_refuses_is_refused_at_every_call(counter, build):
    by_label = {c.label: c for c in build(counter.config(2)).commands}
    # `slip` and then `slide` ask first_above(3): the value of the first must not be kept for the second.
    assert by_label["slip"].error == fragment.TRUE and by_label["slide"].error == fragment.TRUE
    assert by_label["step"].error != fragment.TRUE and by_label["hop"].error != fragment.TRUE
