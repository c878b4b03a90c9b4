"""Actions with binders in the whole-language relation (`verify.control`): one command per action, its
binders free slots that the guard holds to the values allowed, so that the rules after the action are
translated once. The relation must be the one of a command per value: engine games follow it, BMC
gives the same answers and its witnesses replay in the engine, a deadlock is not found where some value
is allowed, and an action whose values the rules need before play gets a command per value."""
from __future__ import annotations

import random

import pytest

from rulekit.pipeline import Spec
from rulekit.verify import control, replay, symbolic

from helpers import write_spec

# Binders over a number range (with a `where` on a variable), seats, the cards of a hand, the places of
# a board, and {true, false}; two binders in one action; a `when` that reads a binder; and `split`,
# whose division needs its binder's value before play.
PICK = """
game pick "Pick"
rulebook "rulebook.txt" source "pick.txt"
players 2 to 3
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
board grid: 2 by 2
card Ace x 1
card Two x 2
zone box: set, public, initial
zone hand per player: set, owner
zone cell per grid: set, public
var total: int 0..40 = 0
var last: int 0..40 = 0
var gifts per player: int 0..9 = 0
var flag: bool = false
flow {
  move Ace from box to hand(seat(0))
  move all from box to hand(seat(1))
  rounds {
    turns from seat(0) {
      choose by current {
        action add(n in 1..3 where n != last) when total < 30 "Add." { add n to total  set last = n }
        action give(q in players where q != current, c in hand(current)) "Give." {
          move c from hand(current) to hand(q)
          add 1 to gifts(q)
        }
        action place(x in grid where size(cell(x)) == 0, c in hand(current)) when total > 2 "Place." {
          move c from hand(current) to cell(x)
        }
        action mark(b in {true, false}) when total > 0 "Mark." { set flag = b }
        action split(d in 1..2) when total >= d "Split." { set last = total / d }
        action stop when total >= 9 "Stop." { end game }
      }
    }
  }
}
"""

PICK_CHECKS = """
checks pick
invariant never_seven "The total is never seven." : total != 7
invariant one_gift "Nobody is given more than one card." : forall(p in players: gifts(p) <= 1)
invariant low_total "The total stays at most forty." : total <= 40
reachable placed "A card lies on the board." : exists(x in grid where size(cell(x)) > 0)
reachable marked "The flag is raised." : flag
"""


@pytest.fixture(scope="module")
def pick(tmp_path_factory):
    return Spec.find(str(write_spec(tmp_path_factory.mktemp("pick"), PICK, name="pick", checks=PICK_CHECKS)))


def _per_value(config) -> control.ControlBuilder:
    builder = control.ControlBuilder(config)
    builder.symbolic_binders = False
    return builder


def test_an_action_with_binders_is_one_command_unless_its_values_are_needed_before_play(pick):
    system = control.build(pick.config(2))
    labels = [c.label for c in system.commands]
    for name in ("add", "give", "place", "mark"):
        assert f"{name}(chosen)" in labels
        assert not any(label.startswith(f"{name}(") and label != f"{name}(chosen)" for label in labels)
    assert "split(1)" in labels and "split(2)" in labels  # `total / d` needs d before play
    plain = _per_value(pick.config(2)).build()
    assert len(plain.commands) > len(system.commands)
    chosen = [c for c in system.commands if c.chosen]
    assert chosen and all(set(c.chosen[0]) <= system.free for c in chosen)


def test_every_slot_has_a_name_of_its_own(pick):
    # Z3 names a slot's constants after it: two locals of one name were once one constant, and BMC
    # then missed a violation that a command per value reaches in four steps (see the test below).
    for system in (control.build(pick.config(2)), _per_value(pick.config(2)).build()):
        names = [s.name for s in system.slots]
        assert len(set(names)) == len(names)


@pytest.mark.parametrize("players", [2, 3])
def test_engine_games_follow_the_relation_with_binders_exactly(pick, players):
    system = control.build(pick.config(players))
    loaded = pick.engine(players)
    followed = 0
    for seed in range(8):
        rng = random.Random(seed)
        state = loaded.new_initial_state(seed)
        steps = 0
        while not state.is_terminal() and steps < 30 and state.legal_actions():
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        problems, n = replay.follow(system, loaded, state.history)
        assert not problems, (seed, problems)
        assert n == steps
        followed += n
    assert followed > 100


def test_bmc_answers_are_those_of_a_command_per_value(pick):
    config = pick.config(2)
    chosen = symbolic.bmc(control.build(config), 5, timeout_ms=60000)
    plain = symbolic.bmc(_per_value(config).build(), 5, timeout_ms=60000)
    assert {k: (a.status, a.depth) for k, a in chosen.items()} == {k: (a.status, a.depth) for k, a in plain.items()}
    assert chosen[("invariant", "never_seven")].status == "refuted"
    assert chosen[("invariant", "one_gift")].status == "refuted"
    assert chosen[("invariant", "low_total")].status == "bounded"
    assert chosen[("reachable", "placed")].status == "reached"
    assert chosen[("reachable", "marked")].status == "reached"
    assert chosen[("deadlock",)].status == "none"  # some value is always allowed: no free slot may hide it


@pytest.mark.parametrize("question, check", [
    (("invariant", "never_seven"), lambda state: state.value("total") == 7),
    (("invariant", "one_gift"), lambda state: max(state.value("gifts", p) for p in range(2)) > 1),
    (("reachable", "placed"), lambda state: state.value("total") > 2),
    (("reachable", "marked"), lambda state: state.value("flag")),
])
def test_witnesses_through_chosen_values_replay_in_the_engine(pick, question, check):
    system = control.build(pick.config(2))
    answer = symbolic.bmc(system, 5, timeout_ms=60000, questions={question})[question]
    assert answer.status in ("refuted", "reached")
    assert any(system.commands[c].chosen for c in answer.path)
    loaded = pick.engine(2)
    state = loaded.new_initial_state(None)
    for action in replay.history(system, loaded, answer.path, answer.states):
        state.apply_action(action)
    assert check(state)
