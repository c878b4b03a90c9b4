"""Decisions listed as plain lists of action ids (see `rulekit.engine.listing`) and quantifiers over a
few constant values unrolled: the whole-game code against the engine's own State, decision by decision."""
from __future__ import annotations

import random

import pytest

import rulekit
from rulekit.engine import Game
from rulekit.engine.direct import DirectCodegen
from rulekit.engine.listing import hoist, id_list_lines, nonempty_ids
from rulekit.engine.state import State
from rulekit.engine.stepping import SteppedState
from tests.helpers import play_in_lockstep, write_spec

# Every way an option's binder is read back from its id: cards by kind (a kind test on them becomes a
# set of kinds), seats in a round from the next player (listed out of id order, then sorted), a range
# that does not start at 0, constant values listed out of order, values that are not constants (the
# listing with values), a second binder whose domain reads the first (not hoisted) and one that does
# not (hoisted); and quantifiers over the seats, an enum and listed numbers, with and without tests.
PICKS_SPEC = """
game picks "Picks"
rulebook "rulebook.txt" source "picks.txt"
players 3 to 3
enum Suit { sun, moon, star }
zone box: set, public, initial
zone hand per player: set, public
zone pile: set, public
card Sun1 x 3 { suit = sun, rank = 1 }
card Sun2 x 2 { suit = sun, rank = 2 }
card Moon1 x 3 { suit = moon, rank = 1 }
card Moon3 x 2 { suit = moon, rank = 3 }
card Star2 x 3 { suit = star, rank = 2 }
attribute rank phrase "rank"
var score per player: int 0..60 = 0
var steps: int 0..500 = 0
define suits(p: player): bool = forall(u in Suit: exists(c in hand(p) where c.suit == u))
define ones(p: player): int = count(n in {1, 2, 3} where count(c in hand(p) where c.rank == n) >= n)
flow {
  turns from seat(0) {
    set steps = min(steps + 1, 500)
    if size(box) > 0 {
      random c in box
      move c from box to hand(current)
    }
    choose by current {
      action give(c in hand(current) where c.suit != star, q in players from next(current) where q != current) {
        move c from hand(current) to hand(q)
      }
      action take(c in hand(current) where c.rank >= 2, d in hand(current) where d.rank <= c.rank) {
        move c from hand(current) to pile
      }
      action push(q in players where size(hand(q)) > 0, c in hand(q) where c.rank == 1) {
        move c from hand(q) to pile
      }
      action gain(n in 2..4, x in {5, 1, 3}) when size(pile) > 0 {
        add min(n * x, 3) to score(current)
      }
      action pass { }
    }
    choose by current {
      action pick(x in {score(current), 1}) { add x to score(current) }
      action rest { }
    }
    if suits(current) or ones(current) >= 2 or exists(p in players where score(p) >= 20)
       or sum(p in players: if p == current then 0 else score(p)) >= 40 or steps >= 200 {
      win current
      end game
    }
  }
}
"""


@pytest.fixture(scope="module")
def picks(tmp_path_factory):
    path = write_spec(tmp_path_factory.mktemp("picks"), PICKS_SPEC, name="picks", rulebook="Picks.\n")
    return Game(rulekit.load(str(path), players=3).config)


def test_the_listing_covers_every_way_of_reading_an_id_back(picks):
    source = picks.whole_games.source
    assert source.count("_od[_a]") == 1  # the action over values that are not constants: listed with its values
    assert "_o.sort()" in source  # seats from the next player: out of id order
    assert " in KS" in source and "_ol0 = [" in source  # a few kinds looked for one by one, a loop listed once
    assert " and True)" in source and " or False)" in source  # unrolled forall and exists


@pytest.mark.parametrize("auto", [True, False])
def test_stepped_decisions_are_the_engine_decisions(picks, auto):
    """Every legal-action list, chance event and end of the stepped state is the engine's own State's."""
    for seed in range(12):
        state = picks.new_initial_state(seed=seed, auto_chance=auto)
        reference = State(picks, seed, auto_chance=auto)
        play_in_lockstep(state, reference, seed,
                         lambda s: (s.legal_actions(), s.current_player(), s.chance_outcomes()))
        assert (state.is_terminal(), state.returns(), state.history) == (True, reference.returns(), reference.history)
        assert type(state) is SteppedState  # played to the end by the whole-game code


def test_playouts_are_the_engine_games(picks):
    result = picks.playouts(30, seed=5, max_steps=300)
    assert not result.errors and set(result.ends) <= {"won", "cut"}
    for i, seed in enumerate(result.seeds):
        state = State(picks, seed, auto_chance=True)
        made = state.play_on(random.Random(seed).choice, 300)
        assert (result.lengths[i], result.steps[i], result.returns[i]) == (made, len(state.history), state.returns())


def diverges(game, seeds=range(12)) -> bool:
    """Whether the stepped state's game leaves the engine's somewhere (legal actions, end, returns), or
    the whole-game code gave up on it (it then became the engine's State: these games have no rule error)."""
    for seed in seeds:
        state, reference = game.new_initial_state(seed=seed, auto_chance=True), State(game, seed, auto_chance=True)
        rng = random.Random(seed)
        while not reference.is_terminal() and reference.legal_actions():
            if state.legal_actions() != reference.legal_actions():
                return True
            action = rng.choice(reference.legal_actions())
            state.apply_action(action)
            reference.apply_action(action)
        if (state.is_terminal(), state.returns(), type(state)) != (True, reference.returns(), SteppedState):
            return True
    return False


def test_kinds_more_than_a_few_are_the_zone_s_kinds_in_a_set(picks, monkeypatch):
    from rulekit.engine import direct

    monkeypatch.setattr(direct, "FEW_KINDS", 0)
    game = Game(picks.config)
    assert ".intersection(" in game.whole_games.source and " in KS" not in game.whole_games.source
    assert not diverges(game)


def test_a_few_kinds_whose_test_is_not_found_are_the_zone_s_kinds_in_a_set(picks, monkeypatch):
    """Looking for a few kinds one by one is exact only with the test standing in for the binder's:
    where the binder's test does not show in the listing as it was written, the listing is made again."""
    listed = DirectCodegen.option_lines

    def reworded(self, st, entry):  # the binder's tests, written otherwise while a few kinds may be looked for
        lines = listed(self, st, entry)
        tests = self.kinds_only if self.few_kinds and self.kinds_only else {}
        return [line.replace("if ", "if (", 1)[:-1] + "):" if line.strip() in tests else line for line in lines]

    monkeypatch.setattr(DirectCodegen, "option_lines", reworded)
    game = Game(picks.config)
    assert ".intersection(" in game.whole_games.source and " in KS" not in game.whole_games.source
    assert not diverges(game)


@pytest.mark.parametrize("mutation", ["digit", "sort", "hoist", "unroll", "kinds"])
def test_a_wrong_reading_of_an_id_or_listing_shows(picks, monkeypatch, mutation):
    """The comparison above is sharp: an id read back with a wrong digit, a listing left unsorted, a
    loop that reads an outer one listed once, `forall` unrolled as `exists`, or a few kinds looked for
    without the test that the zone holds each, each makes the game leave the engine's."""
    from rulekit.engine import direct, listing

    assert not diverges(picks)
    if mutation == "digit":  # the modulo of the digits after the first left out
        monkeypatch.setattr(direct, "digit", lambda offset, radix, size, first: listing.digit(offset, radix, size, True))
    elif mutation == "sort":
        monkeypatch.setattr(DirectCodegen, "listed_in_order", lambda self, st: True)
    elif mutation == "hoist":
        monkeypatch.setattr(listing, "free_names", lambda code: frozenset())
    elif mutation == "kinds":  # a few kinds looked for without the test that each is in the zone
        monkeypatch.setattr(direct, "id_list_lines", lambda lines, implied, loops: listing.id_list_lines(
            lines, {test: None for test in implied}, loops))
    else:
        monkeypatch.setitem(direct.UNROLLED, "forall", direct.UNROLLED["exists"])
    assert diverges(Game(picks.config))


def test_a_listing_keeps_the_order_of_the_loops_and_lists_only_loops_that_read_no_outer_one():
    lines = ["if a:", "    for _L1 in xs:", "        if f(_L1):", "            for _L2 in g(_L1):",
             "                for _L3, _L3_z0 in enumerate(s.z[0:3]):", "                    if _L3_z0:",
             "                        if _L3 > _L1:", "                            _o[7 + _L1] = @ID@"]
    # the list made once keeps only the names read after it: the zone itself is not
    assert id_list_lines(lines, loops=False) == [
        "if a:", "    _ol0 = [_L3 for _L3, _L3_z0 in enumerate(s.z[0:3]) if _L3_z0]",
        "    _o += [7 + _L1 for _L1 in xs if f(_L1) for _L2 in g(_L1) for _L3 in _ol0 if _L3 > _L1]"]
    # the same as statements
    assert id_list_lines(lines) == ["if a:", "    _ol0 = []", "    for _L3, _L3_z0 in enumerate(s.z[0:3]):",
                   "        if (_L3_z0):", "            _ol0.append(_L3)", "    for _L1 in xs:", "        if f(_L1):", "            for _L2 in g(_L1):",
                   "                for _L3 in _ol0:", "                    if _L3 > _L1:",
                   "                        _o.append(7 + _L1)"]
    # the ids of the zones of a family that hold cards stay one comprehension, for `nonempty_ids`
    nonempty = ["for _L1, _L1_z0 in enumerate(s.z[4:24]):", "    if ((not not _L1_z0)):", "        _o[126 + _L1] = @ID@"]
    assert [nonempty_ids(line) for line in id_list_lines(nonempty)] == ["_o += compress(range(126, 146), s.z[4:24])"]
    # a name that a later test or the entry reads is kept
    kept = hoist(["for x in a", "for y, yz in enumerate(b)", "if yz", "if x > yz"], "", iter(range(9)), "x + y")
    assert kept == (["_ol0 = [(y, yz) for y, yz in enumerate(b) if yz]"], ["for x in a", "for y, yz in _ol0", "if x > yz"])
    # nothing to gain from listing a constant range once; a loop that reads an outer one stays put
    assert hoist(["for x in a", "for y in range(3)", "for z in h(x)"], "", iter(range(9))) == (
        [], ["for x in a", "for y in range(3)", "for z in h(x)"])


# Two triggers that decide and one that does not, re-armed when their conditions turn false, checked at
# decisions and by `check triggers`: a check that fires nothing runs no generator (see `SteppingCodegen`).
TRIGGERS_SPEC = """
game bells "Bells"
rulebook "rulebook.txt" source "bells.txt"
players 2 to 2
zone box: set, public, initial
card Bell x 1
var rings: int 0..100 = 0
var chimes: int 0..100 = 0
trigger third "Every third ring" when rings % 3 == 2 {
  choose by current {
    action chime { add 1 to chimes }
    action hush { }
  }
}
trigger fifth "Every fifth ring" when rings % 5 == 4 { add 2 to chimes }
trigger once_many "Many chimes" once when chimes >= 4 {
  choose by current {
    action ring { add 1 to rings }
    action rest { }
  }
}
flow {
  turns from seat(0) {
    random d in 1..3
    add d to rings
    check triggers
    choose by current {
      action ring { add 1 to rings }
      action stop when rings > 10 { end game }
    }
    if rings >= 60 { end game }
  }
}
"""


@pytest.mark.parametrize("auto", [True, False])
def test_triggers_that_decide_fire_in_stepped_states_as_in_the_engine(tmp_path, auto):
    path = write_spec(tmp_path, TRIGGERS_SPEC, name="bells", rulebook="Bells.\n")
    game = Game(rulekit.load(str(path), players=2).config)
    source = (game.stepping if auto else game.stepping_chance).source
    assert "_tf = which(s)" in source and "while _tf:" in source
    for seed in range(10):
        state, reference = game.new_initial_state(seed=seed, auto_chance=auto), State(game, seed, auto_chance=auto)
        rng = random.Random(seed)
        while not reference.is_terminal() and reference.legal_actions():
            assert (state.legal_actions(), state.current_player(), state.chance_outcomes()) == (
                reference.legal_actions(), reference.current_player(), reference.chance_outcomes())
            action = rng.choice(reference.legal_actions())
            state.apply_action(action)
            reference.apply_action(action)
        assert (state.is_terminal(), state.returns(), state.history) == (True, reference.returns(), reference.history)
        assert type(state) is SteppedState


def test_a_source_that_python_refuses_is_made_again_with_the_listings_as_comprehensions():
    """Loops nest blocks, of which Python allows 20: a source refused with them is made without them."""
    from rulekit.engine.direct import Unsupported, compiled

    class Refused:
        loop_listings = True

        def __init__(self, fails_without: bool = False):
            self.fails_without = fails_without

        def source(self) -> str:
            return "def f(:\n" if self.loop_listings or self.fails_without else "x = 1\n"

    codegen, source, _code = compiled(Refused, "<test>")
    assert not codegen.loop_listings and source == "x = 1\n"
    with pytest.raises(Unsupported):
        compiled(lambda: Refused(fails_without=True), "<test>")
