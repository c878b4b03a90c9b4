"""Trigger conditions remembered between tests with the same inputs (`rulekit.engine.triggermemo`): the
games are the games the engine plays without it, whatever the condition reads."""
from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit.engine import Game, triggermemo
from rulekit.engine.state import State
from rulekit.pipeline import Spec

from helpers import TINY_RULEBOOK, write_spec
from random_specs import random_specs

SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]
MAX_STEPS = 80

# Conditions with quantifiers over what play changes in place: hands (cards come and go), the board's
# spots, tokens, the turned order of play, the player to move.
EXTRA_TRIGGERS = ["""
trigger crowd when exists(p in players where size(hand(p)) >= 2 and Coin(next(p)) > 0) {
  if level > 0 { subtract 1 from level }
}
""", """
trigger spread when count(x in grid where size(spot(x)) > 0) >= 1 and not flag {
  set flag = true
}
""", """
trigger blues when exists(c in hand(current) where c.colour == blue) and score(current) < 9 {
  add 1 to score(current)
}
""", """
trigger lead once when forall(q in players: q == current or score(q) < score(current)) {
  take 1 Coin by current
}
""", """
trigger behind when exists(p in players where p == previous(current) and Coin(p) > Coin(current)) {
  set flag = not flag
}
"""]


def without_memo(monkeypatch, spec: Spec, players: int) -> Game:
    """A build of the configuration whose conditions are all tested afresh (none remembered)."""
    with monkeypatch.context() as patch:
        patch.setattr(triggermemo, "inputs", lambda *args: None)
        return Game(spec.config(players), spec)


def engine_game(game: Game, seed: int) -> tuple:
    """Game `seed` through the engine's own State (not the whole-game code): its history and returns."""
    state = State(game, seed, auto_chance=True)
    state.play_on(random.Random(seed).choice, MAX_STEPS)
    return state.history, state.returns(), state.over


def batch_games(game: Game, seeds: range) -> list[tuple]:
    result = game.playouts(seeds=seeds, max_steps=MAX_STEPS)
    return [(result.returns[i], result.lengths[i], result.steps[i], result.ends[i]) for i in range(len(seeds))]


def same_games(spec: Spec, players: int, seeds: range, monkeypatch) -> bool:
    """Whether the build with remembered conditions plays every seed as the build without; asserts it.
    True when some condition was remembered."""
    remembered = Game(spec.config(players), spec)
    plain = without_memo(monkeypatch, spec, players)
    for seed in seeds:
        assert engine_game(remembered, seed) == engine_game(plain, seed), seed
    assert batch_games(remembered, seeds) == batch_games(plain, seeds)
    return "_c[0] == _k" in remembered.program.source


@st.composite
def specs_with_remembered_triggers(draw) -> str:
    text = draw(random_specs())
    extra = draw(st.lists(st.sampled_from(EXTRA_TRIGGERS), min_size=1, max_size=2, unique=True))
    at = text.index("\nflow {")
    return text[:at] + "".join(extra) + text[at:]


@settings(max_examples=12, suppress_health_check=SUPPRESSED, deadline=None)
@given(text=specs_with_remembered_triggers())
def test_remembered_conditions_play_the_games_of_fresh_tests(text, tmp_path_factory, monkeypatch):
    path = write_spec(tmp_path_factory.mktemp("fz"), text, name="fz", rulebook=TINY_RULEBOOK)
    spec = Spec.find(str(path))
    players = spec.model.max_players  # with three, the order of play, which `reverse order` turns, matters
    assert same_games(spec, players, range(6), monkeypatch)


@pytest.mark.slow
@settings(max_examples=120, suppress_health_check=SUPPRESSED, deadline=None)
@given(text=specs_with_remembered_triggers())
def test_remembered_conditions_play_the_games_of_fresh_tests_on_many_games(text, tmp_path_factory, monkeypatch):
    path = write_spec(tmp_path_factory.mktemp("fz"), text, name="fz", rulebook=TINY_RULEBOOK)
    spec = Spec.find(str(path))
    for players in range(spec.model.min_players, spec.model.max_players + 1):
        assert same_games(spec, players, range(10), monkeypatch)


@pytest.mark.parametrize("players", [4, 8])
def test_a_bundled_objective_trigger_is_remembered_and_plays_the_same_games(players, monkeypatch):
    assert same_games(Spec.find("cranky"), players, range(4), monkeypatch)


TIE = """
game tie "Tie"
rulebook "rulebook.txt" source "tie.txt"
players 2 to 3
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
zone box: set, public, initial
zone hand per player: set, owner
card Ace x 1
card Two x 3
token Coin x 6
var score per player: int 0..9 = 0
procedure leader: player { return argmax(p in players: score(p)) }
trigger never when score(the(p in players where score(p) >= 0)) > 8 { set score(current) = 0 }
trigger quick when score(current) > 8 { set score(current) = 0 }
trigger called when score(leader) > 8 and exists(p in players where score(p) > 8) { set score(current) = 0 }
trigger rich when exists(p in players where Coin(p) > 3 and size(hand(next(p))) > 0) { return 1 Coin by current }
flow {
  turns from seat(0) {
    choose by current {
      action up "Up." { if score(current) < 9 { add 1 to score(current) } }
      action draw when size(box) > 0 "Draw." { random c in box  move c from box to hand(current) }
      action coin "Coin." { take 1 Coin by current }
      action turn "Turn." { reverse order }
      action stop "Stop." { end game }
    }
  }
}
"""


def test_what_a_condition_reads_is_named_or_it_is_not_remembered(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, TIE, name="tie")))
    config = spec.config(3)
    lay, game = config.layout, config.game
    never, quick, called, rich = (triggermemo.inputs(t.cond, game, lay) for t in game.triggers)
    base = lay.var_base["score"]
    assert never == triggermemo.Inputs((), ((base, base + 3),), False)  # every seat's score
    assert quick is None  # no quantifier: testing it costs what its key would
    assert called is None  # a function's body may read anything
    hand, held = lay.zone_base["hand"], lay.held_base["Coin"]
    assert rich.zones == ((hand, hand + 3),) and not rich.current
    # every seat's coins, and the order of play (`next(p)`), which `reverse order` turns
    assert indices(rich.values) == {held, held + 1, held + 2, lay.order_slot}


def indices(ranges) -> set[int]:
    return {i for a, b in ranges for i in range(a, b)}


def test_clearing_the_probe_hits_makes_a_remembered_condition_record_its_tie_again(tmp_path):
    """The silent-case check clears the sites reached and replays a witness, asking when its site is
    reached: a remembered answer must not skip the tie that the test records."""
    spec = Spec.find(str(write_spec(tmp_path, TIE, name="tie")))
    loaded = spec.engine(2, probes=True)
    tie = next(i for i, site in enumerate(loaded.probe_sites) if site.kind == "tie" and site.owner == "trigger never")
    state = loaded.new_initial_state(seed=1, auto_chance=True)
    assert tie in loaded.probe_hits  # every seat scores at least 0: `the` had to pick one
    loaded.probe_hits.clear()
    assert not loaded.probe_hits
    state.redo()  # the same decision, its triggers tested again on the same state
    assert tie in loaded.probe_hits


def test_hits_count_their_clears():
    hits = triggermemo.Hits({1, 2})
    assert hits.epoch == 0 and hits == {1, 2}
    hits.clear()
    hits.add(3)
    assert hits.epoch == 1 and hits == {3}


def remembered(cond: str):
    """A test made by `memo_function` whose key is the state's first item, with its memo."""
    memo = triggermemo.new_memo()
    namespace = {"MEMO": memo}
    exec("\n".join(triggermemo.memo_function("TEST", "MEMO", "(s[0],)", [f"_h = {cond}"])), namespace)  # noqa: S102
    return namespace["TEST"], memo


def test_a_remembered_test_whose_inputs_always_change_is_switched_off_and_still_answers():
    test, memo = remembered("s[0] % 3 == 0")
    answers = [test([i]) for i in range(triggermemo.TRIAL + 10)]
    assert answers == [i % 3 == 0 for i in range(triggermemo.TRIAL + 10)]
    assert memo[2] is None  # switched off: no test found its inputs unchanged
    assert test([3]) and not test([4])


def test_a_remembered_test_whose_inputs_seldom_change_stays_on():
    test, memo = remembered("s[0] % 3 == 0")
    answers = [test([i // 4]) for i in range(4 * triggermemo.TRIAL)]
    assert answers == [(i // 4) % 3 == 0 for i in range(4 * triggermemo.TRIAL)]
    assert memo[2] == 3 * triggermemo.TRIAL and memo[3] == triggermemo.TRIAL  # three tests in four took the answer


def test_a_zone_changed_in_place_is_a_new_input():
    """The key reads the zones in place and the snapshot copies them: a card put into a zone the
    condition reads, in the very list the last test saw, makes the next test work the answer out."""
    key, snapshot = triggermemo.key_source(triggermemo.Inputs(zones=((0, 2), (3, 4)), values=((0, 1),),
                                                              current=True), probes=False)
    memo = triggermemo.new_memo()
    namespace = {"MEMO": memo}
    cond = "sum(len(z) for z in s.z[0:2]) + len(s.z[3]) + s.v[0] + s.cur"
    exec("\n".join(triggermemo.memo_function("TEST", "MEMO", key, [f"_h = {cond}"], snapshot)), namespace)  # noqa: S102
    test = namespace["TEST"]
    s = SimpleNamespace(z=[[1], [2], [9], [4]], v=[0], cur=0)
    assert test(s) == 3 and test(s) == 3 and memo[2] == 1  # the second test took the remembered answer
    for change in (lambda: s.z[1].append(5), lambda: s.z[3].append(6), lambda: s.z[0].clear(),
                   lambda: s.v.__setitem__(0, 10), lambda: setattr(s, "cur", 1)):
        change()
        assert test(s) == eval(cond, {"s": s})  # noqa: S307
    s.z[2].append(7)  # a zone the condition does not read
    assert test(s) == eval(cond, {"s": s}) and memo[2] == 2  # noqa: S307
