"""Boards in the exact symbolic relation: zones laid out on a board are counts per position, positions
are the engine's integers (so choices over them have the engine's action ids), and `adjacent`,
`orthogonal`, `.row`, `.column` and `the(...)` read as the engine reads them. Engine traces satisfy the
relation step by step, BMC witnesses replay in the engine, and a wrong geometry is caught."""
from __future__ import annotations

import dataclasses
import random

import pytest
import z3

from rulekit import load
from rulekit.errors import RuleRuntimeError
from rulekit.pipeline import Spec
from rulekit.verify import Unsupported, budget, fragment, replay, symbolic, terms, vector
from rulekit.verify.explore import Limits, explore
from tests.helpers import write_spec

# A pawn walks the grid (to an empty place in its row or column), and kicks the rock when it stands
# next to it (diagonals too); where each piece stands is `the` place holding it, a symbolic position.
# A walk counts for the seat of the pawn's row: with one player, walking into the second row is refused.
WALK = """
game walk "Walk"
rulebook "rulebook.txt" source "walk.txt"
players 1 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
board grid: 2 by 3
card Pawn x 1
card Rock x 1
zone box: set, public, initial
zone cell per grid: set, public
var steps: int 0..6 = 0
var last_row: int 0..2 = 0
var moved per player: int 0..9 = 0
define pawn_at: grid = the(x in grid where exists(c in cell(x) where c == Pawn))
define rock_at: grid = the(x in grid where exists(c in cell(x) where c == Rock))
flow {
  for x in grid { if x.row == 1 and x.column == 1 { move Pawn from box to cell(x) } }
  for x in grid { if x.row == 2 and x.column == 2 { move Rock from box to cell(x) } }
  loop {
    choose by current {
      action walk(y in grid where orthogonal(pawn_at, y) and size(cell(y)) == 0) "Walk." {
        move Pawn from cell(pawn_at) to cell(y)
        add 1 to steps
        set last_row = pawn_at.row
        add 1 to moved(seat(last_row - 1))
      }
      action kick(y in grid where adjacent(pawn_at, rock_at) and orthogonal(rock_at, y) and size(cell(y)) == 0)
          "Kick the rock." {
        move all from cell(rock_at) to cell(y)
      }
    }
  }
}
"""

WALK_CHECKS = """
checks walk
invariant cards_kept "Both pieces are on the board." : size(box) == 0 and count(c in every cell) == 2
invariant left_side "The pawn stays out of the last column." : pawn_at.column < 3
invariant rock_alone "The rock has its place to itself." : the(c in cell(rock_at)) == Rock
reachable far_corner "The pawn reaches the far corner." : pawn_at.row == 2 and pawn_at.column == 3
reachable side_by_side "The pawn stands beside the rock, or above or below it." : orthogonal(pawn_at, rock_at)
reachable rock_first "Row by row, the rock comes first." : the(c in every cell) == Rock
reachable first_row_full "The first free place is on the second row." : the(x in grid where size(cell(x)) == 0).row == 2
"""


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    path = write_spec(tmp_path_factory.mktemp("walk"), WALK, name="walk", checks=WALK_CHECKS)
    return Spec.find(str(path))


def _z3_step_holds(system, before, after, command) -> bool:
    """Does the Z3 transition relation relate these two concrete states by this command?"""
    rel = symbolic.Relation(system)
    if any(after[i] != system.init[i] for i in range(len(after)) if i not in rel.changing):
        return False
    solver = z3.Solver(ctx=budget.context())
    solver.add(rel.step({i: z3.IntVal(v, ctx=budget.context()) for i, v in enumerate(before)},
                        {i: z3.IntVal(v, ctx=budget.context()) for i, v in enumerate(after)}, z3.IntVal(command, ctx=budget.context())))
    return solver.check() == z3.sat


def _first_disagreement(system, loaded, seeds: int = 6, steps: int = 30, z3_sample: int = 8):
    """Random engine games against the relation: the first state or step where they differ, or None."""
    ids = replay.action_ids(system, loaded)
    command_of = {a: c for c, a in enumerate(ids)}
    checked = 0
    for seed in range(seeds):
        rng = random.Random(seed)
        state = loaded.new_initial_state(seed=seed)
        if replay.abstract(system, loaded, state) != system.init:
            return "initial state"
        for _ in range(steps):
            values = replay.abstract(system, loaded, state)
            enabled = {ids[c] for c in range(len(system.commands)) if replay.step(system, values, c)[0]}
            if enabled != set(state.legal_actions()):
                return f"enabled actions at {values}"
            for prop, test in loaded.properties("invariant") + loaded.properties("reachable"):
                expr = system.invariants.get(prop.name, system.targets.get(prop.name))
                if replay.holds(system, expr, values) != test(state):
                    return f"{prop.name} at {values}"
            if state.is_terminal() or not state.legal_actions():
                break
            action = rng.choice(state.legal_actions())
            c = command_of[action]
            _, refused, after = replay.step(system, values, c)
            try:
                state.apply_action(action)
            except RuleRuntimeError:
                if not refused:
                    return f"the engine refuses {system.commands[c].label}"
                continue  # the engine leaves the state as it was: play on from it
            if refused:
                return f"the relation refuses {system.commands[c].label}"
            if after != replay.abstract(system, loaded, state):
                return f"the successor by {system.commands[c].label}"
            if checked < z3_sample:
                wrong = list(after)
                wrong[system.over] = 1 - wrong[system.over]
                if not _z3_step_holds(system, values, after, c) or _z3_step_holds(system, values, wrong, c):
                    return f"Z3's step by {system.commands[c].label}"
            checked += 1
    return None if checked > 20 else "too few steps checked"


def test_board_zones_get_a_count_per_position_named_as_the_engine_names_them(walk):
    system = fragment.build(walk.config(2))
    names = [s.name for s in system.slots]
    assert "cell[1,1]:Pawn" in names and "cell[2,3]:Rock" in names and len([n for n in names if n.startswith("cell")]) == 12
    on_board = [s for s in system.slots if s.name.startswith("cell")]
    assert all(s.seat is None for s in on_board)  # positions are not seats: symmetry leaves them alone
    assert system.init[names.index("cell[1,1]:Pawn")] == 1 and system.init[names.index("cell[2,2]:Rock")] == 1
    # a choice over positions: one command per position, numbered as the engine numbers them
    loaded = load(walk.path, players=2)
    ids = replay.action_ids(system, loaded)
    walks = {c.label: ids[i] for i, c in enumerate(system.commands) if c.label.startswith("walk")}
    assert len(walks) == 6
    state = loaded.new_initial_state()
    legal = {state.action_to_string(a) for a in state.legal_actions()}
    assert legal == {"walk(y=grid(1,2))", "walk(y=grid(2,1))", "kick(y=grid(1,2))", "kick(y=grid(2,1))", "kick(y=grid(2,3))"}
    assert {state.action_to_string(walks[f"walk({p})"]) for p in (1, 3)} == {"walk(y=grid(1,2))", "walk(y=grid(2,1))"}


@pytest.mark.parametrize("players", [1, 2])
def test_engine_traces_on_a_board_satisfy_the_symbolic_relation(walk, players):
    loaded = load(walk.path, players=players)
    raw = fragment.build(walk.config(players))
    assert any(c.error != terms.FALSE for c in raw.commands)  # a walk past six steps is refused
    for system in (raw, terms.within_bounds(raw)):
        assert _first_disagreement(system, loaded) is None
    if players == 1:  # walking into the second row counts for seat(1), which a table of one has not
        state = loaded.new_initial_state()
        down = next(a for a in state.legal_actions() if state.action_to_string(a) == "walk(y=grid(2,1))")
        assert replay.step(raw, raw.init, replay.action_ids(raw, loaded).index(down))[1]
        with pytest.raises(RuleRuntimeError, match="seat"):
            state.apply_action(down)


def test_a_wrong_reading_of_the_board_disagrees_with_the_engine(walk):
    """The comparison above can fail: a reading where `orthogonal` takes diagonals too lets the pawn
    walk where the engine does not."""

    class Diagonals(fragment.Builder):
        def neighbours(self, board, p, diagonal):
            return super().neighbours(board, p, True)

    found = _first_disagreement(Diagonals(walk.config(1)).build(), load(walk.path, players=1))
    assert found is not None and found.startswith("enabled actions")


def test_bmc_on_a_board_finds_what_the_engine_replays_and_induction_proves_the_conservation(walk):
    loaded = load(walk.path, players=2)
    system = fragment.build(walk.config(2))
    verdicts = symbolic.verify(system, depth=6, budget=60)
    ids = replay.action_ids(system, loaded)
    assert "cards_kept" in verdicts.proven
    broken = verdicts.answers[("invariant", "left_side")]
    assert broken.status == "refuted" and broken.depth == 2  # two steps right along the first row
    state = loaded.replay([ids[c] for c in broken.path])
    assert [state.action_to_string(a) for a in state.history] == ["walk(y=grid(1,2))", "walk(y=grid(1,3))"]
    assert state.zone("cell", 2) == ["Pawn"]
    corner = verdicts.answers[("reachable", "far_corner")]
    assert corner.status == "reached" and corner.depth == 3
    state = loaded.replay([ids[c] for c in corner.path])
    assert state.zone("cell", 5) == ["Pawn"]
    assert verdicts.answers.get(("invariant", "rock_alone"), symbolic.Answer("proven", 0)).status != "refuted"


def test_vectorized_explorer_on_a_board_matches_the_engine_explorer(walk):
    loaded = load(walk.path, players=2)
    limits = Limits(max_states=50_000, time_limit=60, symmetry=False)
    a, b = explore(loaded, limits), vector.explore(loaded, limits)
    assert a.complete and b.complete and a.states == b.states > 10
    assert set(a.violated) == set(b.violated) == {"left_side"} and set(a.reached) == set(b.reached) == {"far_corner", "rock_first", "side_by_side"}
    assert len(b.path(b.violated["left_side"])) == 2


def test_what_the_fragment_does_not_model_on_a_board_is_unsupported_with_its_place(tmp_path):
    text = WALK.replace("zone box: set, public, initial", "zone box: set, public, initial\nzone pile: stack, public")
    checks = WALK_CHECKS + 'invariant first_piled "The first card piled is the pawn." : size(pile) == 0 or the(c in pile) == Pawn\n'
    spec = Spec.find(str(write_spec(tmp_path, text, name="walk", checks=checks)))
    with pytest.raises(Unsupported, match=r"the first card of a stack at .*walk\.checks:\d+:\d+"):
        fragment.build(spec.config(1))


@pytest.mark.parametrize("name", ["chicken", "chucky"])
def test_the_bundled_board_games_get_past_their_boards(name):
    """Their boards get a count per position and kind, each named as the engine names that zone; what
    stops the relation now is their control flow (turns), not the board."""
    spec = Spec.find(name)
    config = spec.config(2)
    bare = dataclasses.replace(config, game=dataclasses.replace(config.game, triggers=()))  # a trigger stops it first
    with pytest.raises(Unsupported, match=rf"`turns` statement at .*{name}\.rules:\d+:\d+"):
        fragment.build(bare)
    builder = fragment.Builder(bare)
    loaded = load(spec.path, players=2)
    names = loaded.layout.zone_names
    on_board = [s for s in builder.slots if s.key[0] == "zone" and builder.zones[s.key[1]].per_board is not None]
    boards = {z.per_board for z in config.game.zones if z.per_board is not None}
    positions = sum(config.board_sizes[z.per_board][0] * config.board_sizes[z.per_board][1]
                    for z in config.game.zones if z.per_board is not None)
    assert boards and len(on_board) == positions * len(config.game.components)
    assert all(s.name.startswith(names[loaded.zone_index(s.key[1], s.key[2])] + ":") for s in on_board)


def test_check_gives_a_board_game_z3_verdicts_with_a_replayed_witness(walk):
    from rulekit.checking import PlayBounds, check_spec

    report = check_spec(walk, PlayBounds(games=2, variant_games=0, max_steps=20, bmc_depth=4, max_k=1,
                                            solver_rlimit=300_000, max_states=0))
    by_id = {f.id: f for f in report.findings}
    left = by_id["walk/invariant/left_side/z3"]
    assert left.verdict == "refuted" and left.method == "z3-bmc" and len(left.witness) == 2 and left.fails
    assert by_id["walk/invariant/cards_kept/z3"].verdict == "proven"
    assert by_id["walk/reachability/far_corner/z3"].verdict == "proven"
