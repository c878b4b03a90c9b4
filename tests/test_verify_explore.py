"""The explicit-state explorer: exact counts, symmetry, budgets, shortest witnesses replayed in the engine."""
from __future__ import annotations

import json
import random

import pytest

from rulekit import load
from rulekit.checking import PlayBounds, check_spec
from rulekit.cli import main
from rulekit.pipeline import Spec
from rulekit.verify import graphs, strategies
from rulekit.verify.explore import Limits, explore, seat_symmetry
from tests.helpers import TINY_RULEBOOK, write_spec

TOKENS = "benchmarks/tokens/tokens.rules"

COUNTER = """
game counter "Counter"
rulebook "rulebook.txt" source "counter.txt"
players 2 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
zone box: set, public, initial
var n: int 0..3 = 0
flow {
  loop {
    choose by current {
      action up when n < 3 "Count up." { add 1 to n }
      action never when n > 5 "Never legal." { set n = 0 }
    }
  }
}
"""


def test_token_model_state_counts_are_exact():
    for players, plain, symmetric in ((2, 36, 21), (3, 216, 56), (4, 1296, 126)):
        game = load(TOKENS, players=players)
        a = explore(game, Limits(symmetry=False))
        b = explore(game, Limits())
        assert a.complete and a.states == plain and not a.symmetry
        assert b.complete and b.states == symmetric and b.symmetry
        assert not a.violated and not a.deadlocks


def test_symmetry_reaches_the_1205_orbits_of_the_benchmark():
    game = load(TOKENS, players=8)
    r = explore(game, Limits(max_states=5000, time_limit=30))
    assert r.complete and r.states == 1205
    path = r.path(r.reached["supply_empty"])
    assert len(path) == 30  # shortest: thirty takes
    assert game.replay(path).value("Chip") == 0


def test_seat_order_disables_symmetry():
    ok, why = seat_symmetry(Spec.find("chocobo").model)
    assert not ok and "turns" in why


def test_budget_gives_an_honest_incomplete_exploration():
    r = explore(load("chocobo", players=3), Limits(max_states=500))
    assert not r.complete and r.stopped_by == "states" and r.states >= 500


def test_deadlock_dead_action_and_shortest_witness(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, COUNTER, name="counter")))
    report = check_spec(spec, PlayBounds(games=3, variant_games=0, max_steps=50))
    by_kind = {}
    for f in report.findings:
        by_kind.setdefault(f.kind, []).append(f)
    dead = by_kind["deadlock"][0]
    assert dead.verdict == "refuted" and dead.method == "explicit-state" and len(dead.witness) == 3
    never = [f for f in by_kind["dead-rule"] if "never" in f.id]
    assert never and never[0].verdict == "proven"


MODES = """
game modes "Modes"
rulebook "rulebook.txt" source "modes.txt"
players 1 to 1
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
ambiguity mode "Which mode?" {
  quote "Tiny Game."
  question "Which mode?"
  option plain "Plain."
  option fancy "Fancy."
  default plain because "Test."
}
zone box: set, public, initial
var n: int 0..3 = 0
flow {
  while n < 3 {
    choose by current {
      action up "Count up." { add 1 to n }
      action never when n > 5 "Never legal." { }
      action plain_only when mode is plain "Count up, plainly." { add 1 to n }
    }
  }
}
"""


def test_an_action_dead_under_every_option_is_reported_once(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, MODES, name="modes")))
    report = check_spec(spec, PlayBounds(games=3, variant_games=3, max_steps=50))
    dead = sorted(f.id for f in report.findings if f.kind == "dead-rule" and "turn-structure" not in f.id)
    assert dead == ["modes/dead-rule/never"], "not again under mode=fancy; plain_only is an option's rule"


def test_termination_cycle_is_found_and_acknowledged():
    spec = Spec.find(TOKENS)
    report = check_spec(spec, PlayBounds(games=2, variant_games=0, max_steps=20, explore_budget=0))
    cycles = [f for f in report.findings if f.kind == "termination"]
    assert [f.id for f in cycles] == ["tokens/termination"]  # one per option set, over every player count
    assert cycles[0].verdict == "refuted" and cycles[0].acknowledged_by and cycles[0].witness
    assert cycles[0].bound["per_players"] == {p: "refuted" for p in range(1, 9)}
    inv = {f.id: f for f in report.findings if f.kind == "invariant"}
    assert inv["tokens/invariant/within_cap"].verdict == "proven"


def test_trapped_is_none_when_every_state_can_end(tmp_path):
    r = explore(load("benchmarks/tokens/tokens.rules", players=1), Limits())
    assert graphs.trapped(r) is not None
    r.terminal = list(range(r.states))
    assert graphs.trapped(r) is None


def test_turn_graph_reaches_every_procedure_of_chocobo():
    info = graphs.turn_structure(Spec.find("chocobo").model)
    assert info["unreachable"] == [] and info["nodes"] > 10


def test_hypothesis_shrinks_a_failure():
    game = load(TOKENS, players=3)
    fails = lambda s: s.value("Chip", 2) >= 2  # noqa: E731
    long = []
    state = game.new_initial_state()
    for action in [0, 3, 1, 4, 2, 2, 5, 2]:  # wander, then take twice for seat 2
        if fails(state):
            break
        state.apply_action(action if action in state.legal else state.legal[0])
        long.append(state.history[-1])
    assert fails(game.replay(long))
    short = strategies.shrink(game, long, fails)
    assert short is not None and len(short) == 2 and fails(game.replay(short))


# Taking the first legal action every time (`up`) ends in a rule error on the third step, before `down`
# ever breaks the invariant: that play is no witness.
OVERFLOW = """
game overflow "Overflow"
rulebook "rulebook.txt" source "overflow.txt"
players 1 to 1
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
zone box: set, public, initial
var n: int 0..2 = 0
var m: int 0..9 = 0
flow { loop { choose by current { action up "Up." { add 1 to n } action down "Down." { add 1 to m } } } }
"""


def test_hypothesis_shrinks_to_a_failure_never_to_a_rule_error(tmp_path):
    game = load(str(write_spec(tmp_path, OVERFLOW, name="overflow")), players=1)
    up, down = game.new_initial_state().legal
    fails = lambda s: s.value("m") >= 3  # noqa: E731
    long = [up, down, up, down, down]
    assert fails(game.replay(long))
    short = strategies.shrink(game, long, fails)
    assert short is not None and fails(game.replay(short)) and len(short) < len(long)


def test_cli_all_options_and_sarif(tmp_path, capsys):
    path = write_spec(tmp_path, COUNTER, name="counter", rulebook=TINY_RULEBOOK)
    code = main(["check", str(path), "--games", "2", "--variant-games", "1", "--format", "sarif"])
    out = capsys.readouterr().out
    data = json.loads(out)
    assert code == 1 and data["version"] == "2.1.0"
    assert any(r["ruleId"] == "rulekit/deadlock" for r in data["runs"][0]["results"])
    code = main(["check", "chocobo", "--games", "2", "--variant-games", "0", "--max-states", "100",
                 "--symbolic-time-limit", "0", "--all-options", "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["games"][0]["findings"]
    impacts = [f for f in findings if f["kind"] == "option-impact"]
    assert code == 0 and len([f for f in impacts if len(f["options"]) == 1]) == 9  # one per non-default option of its nine ambiguities
    assert [f for f in impacts if len(f["options"]) == 2]  # --all-options: pairs of options too
    assert all(f["bound"]["class"] in ("outcomes", "legal-moves", "nothing", "unknown") for f in impacts)


def test_the_explorer_is_bounded_by_states_shared_by_the_player_counts():
    """A count of states, not seconds: two checks explore the same states, whatever the machine's load,
    and the player counts share the budget (each also held to --max-states)."""
    spec = Spec.find(TOKENS)
    bounds = PlayBounds(games=1, variant_games=0, max_steps=20, explore_states=800, max_states=20_000,
                        loop_search=0, symbolic_time_limit=0, estimate_steps=0, distinct_steps=0)
    clock = ("seconds", "states_per_second")
    runs = [[{k: v for k, v in x.items() if k not in clock} for x in check_spec(spec, bounds).stats["explored"]]
            for _ in range(2)]
    assert runs[0] == runs[1]
    assert [x["players"] for x in runs[0]] == list(range(1, 9))
    assert [x["complete"] for x in runs[0]] == [True] * 3 + [False] * 5  # 800 states, 100 for each count
    assert all(x["stopped_by"] == "states" and 100 <= x["states"] <= 100 + 64 for x in runs[0][3:])
    capped = check_spec(spec, PlayBounds(games=1, variant_games=0, max_steps=20, explore_states=800, max_states=50,
                                         loop_search=0, symbolic_time_limit=0, estimate_steps=0, distinct_steps=0))
    assert all(x["complete"] or x["states"] <= 50 + 64 for x in capped.stats["explored"])


def _reference_distance(a, b) -> int:
    """`Distance`'s definition, spelled out: per zone that differs, one, the cards one holds and the other
    does not, and the places where the orders differ; per variable, how far apart; each other field one."""
    d = 0
    for x, y in zip(a.z, b.z):
        if x != y:
            unshared = sum(abs(x.count(k) - y.count(k)) for k in set(x) | set(y))
            d += 1 + unshared + sum(p != q for p, q in zip(x, y))
    d += sum(abs(x - y) for x, y in zip(a.v, b.v))
    d += sum(x != y for x, y in zip(a.lo, b.lo)) + sum(x != y for x, y in zip(a.hi, b.hi))
    return d + (a.cur != b.cur) + (a.winners != b.winners) + 2 * (a.fr != b.fr)


@pytest.mark.parametrize("name,players", [("chucky", 3), ("chuche", 3), ("cranky", 4)])
def test_the_distance_between_states_is_its_definition(name, players):
    from rulekit.engine.state import State
    from rulekit.verify.explore import Distance

    spec = Spec.find(name)
    game = spec.engine(players, dict(spec.model.default_options()))
    states, rng = [], random.Random(5)
    for seed in range(3):
        state = State(game, seed, auto_chance=True)
        while not state.is_terminal() and state.legal and len(states) < 60 * (seed + 1):
            states.append(state.clone())
            state.apply_action(rng.choice(state.legal))
    for target in states[::15]:
        distance = Distance(target)
        assert [distance(s) for s in states] == [_reference_distance(s, target) for s in states]
        assert distance(target) == 0


@pytest.mark.parametrize("name, players", [("chicken", 4), ("cranky", 5), ("chuche", 3)])
def test_the_distance_of_a_child_measured_on_its_changed_zones_is_its_whole_distance(name, players):
    """`Distance.around` measures again only what a step changed; it must agree with measuring it all."""
    from rulekit.verify.explore import Distance

    game = load(name, players=players)
    rng = random.Random(1)
    state = game.new_initial_state(seed=3).fork()
    target, measured = None, 0
    for step in range(300):
        if state.over:
            break
        if step == 30:
            target = Distance(state.fork())
        if target is not None:
            around = target.around(state)
            for action in state.legal[:20]:
                child = state.fork()
                child.apply_action(action)
                assert around(child) == target(child)
                measured += 1
        state.apply_action(rng.choice(state.legal))
    assert measured > 100


NO_DRAW_RULEBOOK = """Three in a Row

Two players take turns placing a piece of their own colour on an empty cell of a 3 by 3 board.
A line of three of your own pieces in a row, a column or a diagonal wins at once.
"""

NO_DRAW = """game nodraw "Three in a Row"
rulebook "rulebook.txt" source "rulebook.txt"
players 2 quote "Two players"
order clockwise quote "take turns"
unmodelled "Three in a Row" because "The title."
piece White x 5
piece Black x 4
board grid: 3 by 3 quote "a 3 by 3 board"
zone box: set, public, initial
zone cell per grid: set, public
define mark(p: player): card = if p == seat(0) then White else Black
define at(x: grid, p: player): bool = exists(c in cell(x) where c == mark(p))
define line(p: player): bool =
  exists(a in grid where at(a, p) and
    exists(b in grid where at(b, p) and adjacent(a, b) and (b.row > a.row or (b.row == a.row and b.column > a.column)) and
      exists(c in grid where at(c, p) and c.row - b.row == b.row - a.row and c.column - b.column == b.column - a.column)))
  quote "A line of three of your own pieces in a row, a column or a diagonal wins at once."
flow {
  turns from seat(0) {
    choose x in grid where size(cell(x)) == 0 by current
      quote "placing a piece of their own colour on an empty cell"
    move mark(current) from box to cell(x)
  } then {
    if line(current) { win current end game }
  }
}
"""


def test_stuck_states_reached_by_other_orders_are_one_state(tmp_path):
    """Noughts and crosses without its draw rule: 5,478 positions, 16 of them full boards where nobody
    can move. A stuck state still held the cell chosen last, which nothing reads again, so each full
    board counted once per last move (5,542 states)."""
    game = load(str(write_spec(tmp_path, NO_DRAW, name="nodraw", rulebook=NO_DRAW_RULEBOOK)))
    x = explore(game, Limits(max_states=100_000))
    assert x.complete and x.states == 5478 and len(x.deadlocks) == 16
