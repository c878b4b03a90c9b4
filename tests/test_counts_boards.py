"""Boards in the counts abstraction (`verify.segments`): a family of zones laid out on a board is one
pool of counts per kind, so conservation across the board is proven, a claim that more cards are on
the board than can be is not, and what one position holds stays unknown, saying why."""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from rulekit import load
from rulekit.pipeline import Spec
from rulekit.verify import budget, replay, segments
from tests.helpers import write_spec

# Tiles go from a shuffled deck onto a 2 by 2 grid, slide from place to place, or are swept away.
TILES = """
game tiles "Tiles"
rulebook "rulebook.txt" source "tiles.txt"
players 1 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
board grid: 2 by 2
card Red x 3
card Blue x 3
zone box: set, public, initial
zone deck: stack, hidden
zone discard: set, public
zone cell per grid: set, public
var sweeps: int 0..3 = 0
flow {
  move all from box to deck
  shuffle deck
  loop {
    choose by current {
      action place(y in grid where size(cell(y)) == 0) when size(deck) > 0 "Place the top tile." {
        move top from deck to cell(y)
      }
      action slide(x in grid where size(cell(x)) > 0, y in grid where size(cell(y)) == 0) "Slide a tile." {
        move all from cell(x) to cell(y)
      }
      action sweep(y in grid where size(cell(y)) > 0) when sweeps < 3 "Sweep a tile away." {
        move all from cell(y) to discard
        add 1 to sweeps
      }
    }
    if count(c in every cell) == 4 { end game }
  }
}
"""

TILES_CHECKS = """
checks tiles
invariant tiles_kept "Every tile is in the box, the deck, on the grid or swept away."
  : size(box) + size(deck) + count(c in every cell) + size(discard) == 6
invariant few_reds "At most two red tiles are on the grid." : count(c in every cell where c == Red) <= 2
invariant one_per_cell "No cell holds two tiles." : forall(x in grid: size(cell(x)) <= 1)
"""


@pytest.fixture(scope="module")
def tiles(tmp_path_factory):
    path = write_spec(tmp_path_factory.mktemp("tiles"), TILES, name="tiles", checks=TILES_CHECKS)
    return Spec.find(str(path))


def _decide(config, name: str):
    system = segments.build(config)
    with budget.spending(budget.Account(2_000_000)), budget.fresh_context():
        return segments.decide(system, name, 4, 2, 5000, time.perf_counter() + 60)


def test_the_cards_on_a_board_are_one_pool_per_kind(tiles):
    system = segments.build(tiles.config(2))
    on_board = [s.name for s in system.slots if s.key[0] == "zone" and s.key[1] == "cell"]
    assert sorted(on_board) == ["cell:Blue", "cell:Red"]


@pytest.mark.parametrize("players", [1, 2])
def test_conservation_across_a_board_is_proven(tiles, players):
    status, _, note = _decide(tiles.config(players), "tiles_kept")
    assert status == "proven", note


def test_more_cards_on_the_board_than_can_be_there_is_not_proven(tiles):
    # Three red tiles can all be placed: a pool that moves did not change would "prove" this.
    status, _, _ = _decide(tiles.config(1), "few_reds")
    assert status != "proven"


def test_what_one_position_holds_stays_unknown_and_says_why(tiles):
    status, _, why = _decide(tiles.config(1), "one_per_cell")
    assert status == "unknown"
    assert "of a board only the cards on all of it are counted" in why


def test_engine_states_meet_the_pooled_state_facts(tiles):
    loaded = load(tiles.path, players=2)
    system = segments.state_system(loaded.config)
    labels, facts = zip(*system.invariants.items())
    test = replay.evaluator(list(facts))
    red = next(i for i, s in enumerate(system.slots) if s.name == "cell:Red")
    rng = random.Random(3)
    state = loaded.new_initial_state(seed=3, auto_chance=True)
    seen_on_board = 0
    for _ in range(60):
        values = replay.abstract(system, loaded, state)
        on_board = sum(state.z[loaded.zone_index("cell", p)].count(system.slots[red].key[3]) for p in range(4))
        assert values[red] == on_board
        seen_on_board = max(seen_on_board, values[red])
        broken = [label for label, ok in zip(labels, test([np.array([v]) for v in values])) if not np.all(ok)]
        assert not broken
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    assert seen_on_board > 0
