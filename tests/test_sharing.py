"""The parts a generated expression repeats, worked out once (`rulekit.engine.sharing`): the same values
and the same errors as the expression as written, with no more calls."""
from __future__ import annotations

import random
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit.engine.sharing import share
from rulekit.verify import replay
from tests.helpers import load_text, random_game, whole_relations

# ---- random expressions, evaluated both ways ------------------------------------------------

LEAVES = st.sampled_from(["0", "1", "2", "a", "b", "T[a % 4]", "D_f(s, a)", "D_f(s, 1)", "len(s.z[a % 3])",
                          "s.z[b % 3][0]", "D_f(s, b + 1)", "next(iter(s.z[a % 3]), 5)",
                          "len(tuple(iter(s.z[a % 3])))"])


def _compound(inner):
    two = st.tuples(inner, inner)
    return st.one_of(
        two.map(lambda p: f"({p[0]} + {p[1]})"),
        two.map(lambda p: f"({p[0]} == {p[1]})"),
        st.tuples(inner, inner, inner).map(lambda p: f"({p[0]} < {p[1]} <= {p[2]})"),
        two.map(lambda p: f"({p[0]} and {p[1]})"),
        two.map(lambda p: f"({p[0]} or {p[1]})"),
        inner.map(lambda e: f"(not {e})"),
        st.tuples(inner, inner, inner).map(lambda p: f"({p[0]} if {p[1]} else {p[2]})"),
        inner.map(lambda e: f"({e} + {e})"),  # a repeat, always evaluated
        two.map(lambda p: f"(({p[0]} and {p[1]}) or {p[1]})"),  # a repeat that may not have been evaluated
        two.map(lambda p: f"({p[0]} == {p[1]} or ({p[0]} and {p[1]}))"),
        two.map(lambda p: f"({p[0]} if {p[1]} else ({p[0]} + 1))"),
        st.tuples(inner, inner).map(lambda p: f"any(True for x in range({p[0]} % 4) if {p[1]})"),
        inner.map(lambda e: f"sum(D_f(s, x) + {e} for x in range(3))"),
        inner.map(lambda e: f"sum({e} for a in range(2))"),  # `a` bound anew: the outer `a`'s parts do not hold
        inner.map(lambda e: f"len(tuple(filter(lambda x: {e} and D_f(s, x), range(3))))"),
        inner.map(lambda e: f"D_f(s, {e} % 5)"),
    )


EXPRESSIONS = st.recursive(LEAVES, _compound, max_leaves=14)


class _State:
    def __init__(self, zones):
        self.z = zones


def _run(source: str, a: int, b: int, zones) -> tuple:
    """(how it ended: ("value", v) or ("error", type, text); calls of D_f) for `source` inside a function."""
    calls = []

    def D_f(s, x):  # noqa: N802 - named as the engine names a definition's function
        calls.append(x)
        if x == 4:
            raise ValueError("a rule error at 4")
        return len(s.z[x % 3]) + x

    namespace = {"D_f": D_f, "T": (3, 1, 4, 1)}
    exec(f"def test(s, a, b):\n    return {source}\n", namespace)  # noqa: S102 - the expression under test
    try:
        outcome = ("value", namespace["test"](_State(zones), a, b))
    except Exception as exc:  # noqa: BLE001 - an error is an outcome to compare
        outcome = ("error", type(exc).__name__, str(exc))
    return outcome, len(calls)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS, st.integers(0, 5), st.integers(0, 5),
       st.lists(st.lists(st.integers(0, 3), max_size=3), min_size=3, max_size=3))
def test_shared_parts_give_the_same_values_and_errors_with_no_more_calls(source, a, b, zones):
    shared = share(source)
    written, calls = _run(source, a, b, zones)
    rewritten, shared_calls = _run(shared, a, b, zones)
    assert rewritten == written, shared
    assert shared_calls <= calls


def test_a_part_met_on_every_path_is_worked_out_once():
    source = "(D_f(s, a) == 1 and b) or (D_f(s, a) == 2 and b) or D_f(s, a) == 3"
    shared = share(source)
    assert shared.count("D_f(") == 1 and ":=" in shared
    assert _run(source, 1, 0, [[0], [], [1, 2]]) == (_run(shared, 1, 0, [[0], [], [1, 2]])[0], 3)
    assert _run(shared, 1, 0, [[0], [], [1, 2]])[1] == 1


def test_a_part_evaluated_only_on_a_branch_is_not_read_after_it():
    # the second call runs whether or not the first did: it cannot read the first's name
    source = "(b and D_f(s, a)) or D_f(s, a)"
    assert share(source) == source
    source = "(D_f(s, a) if b else 0) + D_f(s, a)"
    assert share(source) == source


def test_a_name_bound_anew_in_a_comprehension_is_a_different_value():
    source = "D_f(s, a) + sum(D_f(s, a) for a in range(3))"
    assert share(source) == source
    assert _run(source, 1, 0, [[], [1], [2]]) == _run(share(source), 1, 0, [[], [1], [2]])


def test_no_name_is_bound_in_an_iterable_of_a_comprehension():
    # Python refuses `:=` there; the part is worked out where it is first met outside
    source = "sum(1 for x in range(D_f(s, a) + D_f(s, a)))"
    shared = share(source)
    compile(f"def f(s, a):\n    return {shared}\n", "<test>", "exec")
    assert _run(shared, 1, 0, [[], [], []]) == _run(source, 1, 0, [[], [], []])


def test_an_iterator_is_not_shared_since_reading_it_uses_it_up():
    source = "next(iter(s.z[a % 3]), 9) + len(tuple(iter(s.z[a % 3])))"
    assert share(source).count("iter(") == 2  # the zone is read once, an iterator made over it twice
    zones = [[1, 2], [3], []]
    assert _run(share(source), 0, 0, zones) == _run(source, 0, 0, zones) == (("value", 3), 0)


def test_an_expression_with_a_call_not_known_to_be_pure_is_left_as_it_is():
    source = "draw(s) + D_f(s, a) + D_f(s, a)"
    assert share(source) == source


# ---- in the engine ---------------------------------------------------------------------------

COLOURS_SPEC = """
game t "T"
rulebook "rulebook.txt" source "t.txt"
players 2 to 3
zone box: set, public, initial
zone role per player: set, owner
enum Colour { red, blue }
card A x 3 { colour = red }
card B x 3 { colour = blue }
var dealt: bool = false
var rounds: int 0..9 = 0
define colour_of(p: player): Colour = the(c in role(p)).colour
trigger one_colour "Every player has the same colour"
  when dealt and exists(p in players where (colour_of(p) == red and forall(q in players: colour_of(q) == red))
                                        or (colour_of(p) == blue and forall(q in players: colour_of(q) == blue)))
{
  end game
}
flow {
  for p in players {
    random c in box
    move c from box to role(p)
  }
  set dealt = true
  loop {
    add 1 to rounds
    if rounds == 6 { end game }
    choose by seat(0) {
      action swap "The first player draws a new role." {
        move all from role(seat(0)) to box
        random c in box
        move c from box to role(seat(0))
      }
      action wait "Nothing changes." { }
    }
    check triggers
  }
}
"""


def test_a_trigger_that_reads_a_players_colour_in_each_branch_reads_it_once(tmp_path):
    game = load_text(tmp_path, COLOURS_SPEC, players=3)
    # the test is in FIRE, or in the function that remembers it between states (`triggermemo`)
    fire = "".join(re.findall(r"^def (?:FIRE|TH\d+)\(s\):\n(.*?)\n(?=def )", game.program.source, re.M | re.S))
    test = next(line for line in fire.splitlines() if "A_colour[" in line)
    # p's colour read in the first branch and named in the second; q's in each `forall`
    assert ":=" in test and test.count("A_colour[") == 3, test
    ended_early = 0
    for seed in range(30):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed, auto_chance=True)
        while not state.is_terminal():
            cards = {card for p in range(3) for card in state.zone("role", p)}
            assert not (state.value("dealt") and len(cards) == 1), "the trigger ends a game of one colour"
            state.apply_action(rng.choice(state.legal_actions()))
        cards = {card for p in range(3) for card in state.zone("role", p)}
        if state.value("rounds") < 6:
            ended_early += 1
            assert len(cards) == 1
    assert ended_early > 0


def test_an_expression_nested_deeper_than_python_allows_is_left_for_the_compiler_to_refuse():
    source = "D_f(s, a) + " * 3 + "(" * 300 + "D_f(s, a)" + ")" * 300
    assert share(source) == source


def test_a_shared_trigger_test_is_negated_whole_when_the_trigger_re_arms(tmp_path):
    # Found by the relation fuzz test: the re-arming test `elif not COND` read `not A or B` once the
    # shared condition lost its outer brackets, and the trigger fired again while its condition held.
    text = (Path(__file__).parent / "regressions" / "shared_trigger_test.rules").read_text(encoding="utf-8")
    followed = 0
    for players, system, spec in whole_relations(text, tmp_path):
        loaded = spec.engine(players)
        # the whole test negated, inline or as the answer of the function that remembers it (`triggermemo`)
        source = loaded.program.source
        assert "elif not (((_E0 :=" in source or (re.search(r"_h = bool\(\(+_E0 :=", source)
                                                    and re.search(r"elif not TH\d+\(s\):", source))
        for seed in range(3):
            problems, n = replay.follow(system, loaded, random_game(loaded, seed, 40, stop_at_rule_error=True)[0])
            assert not problems, (players, seed, problems)
            followed += n
    assert followed > 0
