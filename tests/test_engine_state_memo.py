"""Quantifiers worked out once per evaluation of one state (`Codegen.on_one_state`): in a definition, a
whole-state test (an invariant, a target, a trigger's condition) and the trigger checks, a quantifier
that sits inside another and reads none of its variables is remembered for the rest of that evaluation.
The engine built so must agree, state by state, with the same engine built without it."""
from __future__ import annotations

import random

import pytest

import rulekit
from rulekit.engine import Game
from rulekit.engine.codegen import Codegen
from tests.helpers import play_in_lockstep, write_spec

# `nobody_at(n)` reads no variable of `leader`'s quantifier (remembered); `top(p)` reads `p` (never
# remembered: a wrong memo would give every player the first player's answer). The trigger's condition
# holds the same shapes, and its body changes what they read, so a memo kept across a change shows.
MEMO_SPEC = """
game memo "Memo"
rulebook "rulebook.txt" source "memo.txt"
players 3 to 3
zone box: set, public, initial
card Chip x 1
var score per player: int 0..9 = 0
var bumps: int 0..99 = 0
define nobody_at(n: int): bool = forall(q in players: score(q) != n)
define top(p: player): bool = forall(q in players: score(q) <= score(p))
define leader: bool = exists(p in players where score(p) >= 2 and nobody_at(4) and top(p))
trigger bump when exists(p in players where score(p) == 3 and nobody_at(5) and forall(q in players: score(q) <= 3)) {
  add 1 to bumps
  for p in players { if score(p) == 3 { add 2 to score(p) } }
}
flow {
  turns from seat(0) {
    choose by current {
      action gain(n in {1, 2}) { set score(current) = min(score(current) + n, 9) }
      action drop { set score(current) = max(score(current) - 1, 0) }
    }
    if bumps >= 3 or exists(p in players where score(p) >= 9) { end game }
  }
}
"""

MEMO_CHECKS = """checks memo

invariant tops_agree "A player on top is on top of each other player."
  : forall(p in players: not top(p) or forall(q in players: score(q) <= score(p)))
invariant lead_means_no_four "A leader means nobody has four."
  : not leader or forall(p in players: nobody_at(4) or score(p) == 4)
reachable someone_leads "Some player leads." : leader
reachable a_sole_top "Exactly one player is on top." : count(p in players where top(p)) == 1
"""


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    path = write_spec(tmp_path_factory.mktemp("memo"), MEMO_SPEC, name="memo", rulebook="Memo.\n", checks=MEMO_CHECKS)
    config = rulekit.load(str(path), players=3).config
    remembering = Game(config)
    patch = pytest.MonkeyPatch()
    patch.setattr(Codegen, "on_one_state", lambda self, compile_lines: compile_lines())
    try:
        plain = Game(config)
    finally:
        patch.undo()
    return remembering, plain


def test_the_memo_is_used_where_it_may_be_and_only_there(builds):
    remembering, plain = builds
    assert "_m = {}" in remembering.program.source and "_m = {}" not in plain.program.source
    source = remembering.program.source
    top = source[source.index("def D_top("):].split("\ndef ", 1)[0]
    assert "_m[" not in top  # its inner quantifier reads `p`


@pytest.mark.parametrize("seed", range(12))
def test_tests_and_triggers_agree_with_the_engine_built_without_the_memo(builds, seed):
    remembering, plain = builds
    tests = {id(game): [test for _, test in game.properties("invariant") + game.properties("reachable")]
             for game in builds}

    def seen(state):
        return (list(state.history), [state.value("score", p) for p in range(3)], state.value("bumps"),
                [test(state) for test in tests[id(state.game)]])

    state, reference = remembering.new_initial_state(seed=seed), plain.new_initial_state(seed=seed)
    play_in_lockstep(state, reference, seed, seen)
    assert seen(state) == seen(reference)


def test_whole_games_agree_with_the_engine_built_without_the_memo(builds):
    remembering, plain = builds
    fast, slow = remembering.playouts(200, seed=3), plain.playouts(200, seed=3)
    assert (fast.returns, fast.lengths, fast.ends) == (slow.returns, slow.lengths, slow.ends)
    assert any(length > 10 for length in fast.lengths)


def test_the_trigger_fires_and_the_tests_change_in_play(builds):
    """The games above are worth comparing: the trigger fires, and each test is both true and false."""
    remembering, _ = builds
    tests = [test for _, test in remembering.properties("reachable")]
    values, bumps = set(), 0
    for seed in range(12):
        state, rng = remembering.new_initial_state(seed=seed), random.Random(seed)
        while not state.is_terminal():
            values |= {(i, test(state)) for i, test in enumerate(tests)}
            state.apply_action(rng.choice(state.legal_actions()))
        bumps += state.value("bumps")
    assert bumps > 0
    assert values == {(i, v) for i in range(len(tests)) for v in (True, False)}
