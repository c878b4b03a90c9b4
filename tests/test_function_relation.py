"""Functions (procedures with a result type) in the whole-language relation: a call is its body run on
the store, its own values set on the running paths only, each `return` ending the paths that reach
it; and the seat `none` read as a seat is the engine's rule error, not a construct the relation
refuses."""
from __future__ import annotations

import pytest

from rulekit.checking import PlayBounds, check_spec
from rulekit.pipeline import Spec
from rulekit.verify import Unsupported, control, terms

from helpers import follow_random_games, write_spec

RULEBOOK = """Leader
On your turn, score, catch up, push the next player or lift yourself.
The first player with six points wins.
"""

# Functions with every statement a function may hold: a `for` whose `if` sets a value kept after it, a
# `return` inside a loop, a `while` left by `break`, a boolean result; called in `when` clauses, in
# conditions of the flow and in an invariant.
LEADER = """
game leader "Leader"
rulebook "rulebook.txt" source "rulebook.txt"
players 2 to 4
payoff win 1 lose 0
unmodelled "Leader" because "The title."
var score per player: int 0..12 = 0
procedure leader: player {
  let found = none
  for p in players { if found == none or score(p) > score(found) { set found = p } }
  return found
}
procedure behind(p: player): int {
  let gap = 0
  for q in players {
    if score(q) - score(p) > gap { set gap = score(q) - score(p) }
  }
  return gap
}
procedure first_at(n: int): player {
  for p in players { if score(p) >= n { return p } }
  return none
}
procedure trailing(p: player): bool {
  let i = 0
  let below = false
  while i < LIMIT {
    if score(p) < i {
      set below = true
      break
    }
    add 1 to i
  }
  return below
}
flow {
  turns from seat(0) {
    choose by current quote "On your turn, score, catch up, push the next player or lift yourself." {
      action score "Score." { add 1 to score(current) }
      action catch_up when behind(current) >= 2 "Catch up." { add 2 to score(current) }
      action push when leader == current "Push." { add 1 to score(next(current)) }
      action lift when trailing(current) "Lift." { add 1 to score(current) }
    }
    if first_at(6) != none {
      win first_at(6)
      end game
    } quote "The first player with six points wins."
  }
}
"""

CHECKS = """checks leader
invariant leader_leads "The leader has the most points." : forall(p in players: score(leader) >= score(p))
"""


def leader(tmp_path, limit=4, name="leader") -> Spec:
    text = LEADER.replace("LIMIT", str(limit))
    return Spec.find(str(write_spec(tmp_path, text, name=name, rulebook=RULEBOOK, checks=CHECKS)))


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    return leader(tmp_path_factory.mktemp("leader"))


@pytest.mark.parametrize("players", [2, 4])
def test_engine_games_that_call_functions_follow_the_relation(game, players):
    followed, whole = follow_random_games(game, players, range(6), 40)
    assert whole == 6 and followed > 40


@pytest.mark.parametrize("mutation", ["branches copy the locals", "lets ignore the running paths"])
def test_a_relation_that_loses_a_function_s_values_disagrees_with_the_engine(game, monkeypatch, mutation):
    """The follow above can fail: a value set in a branch must outlive it, and a value set after some
    paths left the loop (`break`, `return`) must not reach them."""
    if mutation == "branches copy the locals":
        monkeypatch.setattr(control.ControlBuilder, "branch_env", lambda self, env: dict(env))
    else:
        def unpredicated(self, s, st, env):
            env[s.slot] = self.ev(s.value, st, env)
        monkeypatch.setattr(control.ControlBuilder, "s_Let", unpredicated)
    with pytest.raises(AssertionError, match="decision"):
        follow_random_games(game, 3, range(6), 40)


def test_an_invariant_that_calls_a_function_is_proven_over_the_whole_relation(game):
    report = check_spec(game, PlayBounds(games=4, variant_games=0, max_steps=60, max_states=0, loop_search=0))
    whole = next(f for f in report.findings if f.id == "leader/invariant/leader_leads/z3-bmc")
    assert whole.verdict == "proven" and "over the whole-language relation" in whole.message


def test_a_loop_in_a_function_that_could_go_round_for_too_long_is_refused(tmp_path):
    spec = leader(tmp_path, limit=control.FUNCTION_ROUNDS + 1, name="long")
    with pytest.raises(Unsupported, match="a loop in a function"):
        control.build(spec.config(2))


def test_the_loop_condition_is_decided_on_the_paths_still_running():
    running = terms.compare("<", ("s", 0), terms.const(3))
    counter = terms.ite(running, terms.const(2), terms.const(1))
    cond = terms.compare("<", counter, terms.const(4))
    assert terms.where_holds(cond, terms.and_(running, ("s", 1))) == terms.TRUE
    assert terms.where_holds(cond, terms.TRUE) == cond
