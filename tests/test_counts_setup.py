"""The set-up in the counts abstraction (`verify.segments`): the segments the flow opens with run once,
before anything else, so where they are known before play their result is the abstraction's start
and no step repeats them; a set-up that draws by chance stays a step of its own."""
from __future__ import annotations

import time

import pytest

from rulekit import load
from rulekit.pipeline import Spec
from rulekit.verify import budget, replay, segments
from tests.helpers import write_spec

# Every player gets two chips at the start; later a chip only ever goes back to the supply.
CHIPS = """
game chips "Chips"
rulebook "rulebook.txt" source "chips.txt"
players 2 to 3
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
zone box: set, public, initial
zone table: set, public
card Ace x 1
token Chip x 9
var rounds_left: int 0..5 = 5
flow {
  rule setup {
    for p in players { take 2 Chip by p }
  }
  loop {
    choose by current {
      action pay when Chip(current) > 0 "Pay a chip." { return 1 Chip by current }
      action wait "Wait." { }
    }
    add -1 to rounds_left
    if rounds_left == 0 { end game }
  }
}
"""

CHIPS_CHECKS = """
checks chips
invariant two_at_most "No player holds more than two chips." : forall(p in players: Chip(p) <= 2)
invariant none_yet "Nobody holds a chip." : forall(p in players: Chip(p) == 0)
"""

# The same, but the set-up also deals the Ace from a shuffled box: a chance event.
DEALT = CHIPS.replace("    for p in players { take 2 Chip by p }\n",
                      "    for p in players { take 2 Chip by p }\n    shuffle box\n    move top from box to table\n")


def _spec(tmp_path_factory, text, name):
    path = write_spec(tmp_path_factory.mktemp(name), text.replace("chips", name), name=name, checks=CHIPS_CHECKS.replace("chips", name))
    return Spec.find(str(path))


@pytest.fixture(scope="module")
def chips(tmp_path_factory):
    return _spec(tmp_path_factory, CHIPS, "chips")


@pytest.fixture(scope="module")
def dealt(tmp_path_factory):
    return _spec(tmp_path_factory, DEALT, "dealt")


def _decide(system, name: str):
    with budget.spending(budget.Account(2_000_000)), budget.fresh_context():
        return segments.decide(system, name, 4, 2, 5000, time.perf_counter() + 60)


@pytest.mark.parametrize("players", [2, 3])
def test_a_set_up_known_before_play_is_the_start_and_runs_no_more(chips, players):
    system = segments.build(chips.config(players))
    held = [i for i, s in enumerate(system.slots) if s.key[0] == "held"]
    assert [system.init[i] for i in held] == [2] * players
    status, _, note = _decide(system, "two_at_most")
    assert status == "proven", note


def test_what_the_set_up_changes_is_not_proven_to_stay_as_it_was(chips):
    # Before the set-up nobody holds a chip; the engine never shows that state, and the claim is false after it.
    status, _, _ = _decide(segments.build(chips.config(2)), "none_yet")
    assert status != "proven"


def test_a_set_up_that_draws_by_chance_stays_a_step(dealt):
    system = segments.build(dealt.config(2))
    held = [i for i, s in enumerate(system.slots) if s.key[0] == "held"]
    assert [system.init[i] for i in held] == [0, 0]  # the start is before the set-up, as before
    status, _, _ = _decide(system, "none_yet")
    assert status != "proven"


@pytest.mark.parametrize("game, players", [("chucky", 2), ("chips", 2)])
def test_the_start_is_the_engine_state_after_the_set_up(chips, game, players):
    # In both games the first place the engine stops comes right after the set-up (the first draw of
    # the deal, the first decision): the engine's first state is the abstraction's start.
    loaded = load(game if game != "chips" else chips.path, players=players)
    system = segments.build(loaded.config)
    state = loaded.new_initial_state(seed=1)
    seen = replay.abstract(system, loaded, state)
    assert [v for v in seen if v is not None] == [x for v, x in zip(seen, system.init) if v is not None]
