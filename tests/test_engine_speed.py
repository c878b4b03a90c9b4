"""The engine's optimisations against the plain code they replace: the same games from the same seeds."""
from __future__ import annotations

import random
import re

import pytest

import rulekit
from rulekit.engine import Game
from rulekit.engine import codegen, direct, exprcode, nativecode
from rulekit.engine.codegen import Codegen
from rulekit.engine.state import State, splitmix
from rulekit.engine.stepping import SteppedState
from rulekit.engine.stream import CHUNK, Stream, streams
from rulekit.errors import RuleRuntimeError
from tests.helpers import load_text, play_in_lockstep, write_spec

# A weighted coin, a die, a decision whose options share a test that reads none of their loops, and a
# count of the cards of one kind.
COINS_SPEC = """
game coins "Coins"
rulebook "rulebook.txt" source "coins.txt"
players 2 to 3
zone box: set, public, initial
zone hand per player: set, owner
card Ace x 2
card Two x 4
var score per player: int = 0
flow {
  turns from seat(0) {
    random d in 1..6
    random heads in {true, false} weighted (if heads then 1 else 2)
    if heads { add d to score(current) }
    if size(box) > 0 {
      choose by current {
        action take(c in box where c == Ace or not exists(x in box where x == Ace)) { move c from box to hand(current) }
        action keep { }
      }
    }
    if score(current) >= 12 or count(c in hand(current) where c == Ace) == 2 {
      win current
      end game
    }
    if size(box) == 0 { end game }
  }
}
"""


def coins(tmp_path):
    return rulekit.load(str(write_spec(tmp_path, COINS_SPEC, name="coins", rulebook="Coins.\n")), players=2)


def games(game, seeds, max_steps=400) -> list[tuple]:
    """Each seed's game through the State API: its history, log and end, and every legal-action list met."""
    out = []
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed, auto_chance=True)
        offered = []
        while not state.is_terminal() and len(offered) < max_steps and state.legal_actions():
            offered.append(state.legal_actions())
            state.apply_action(rng.choice(state.legal_actions()))
        out.append((state.history, state.log, state.returns(), offered))
    return out


def batch(game, seeds) -> tuple:
    result = game.playouts(seeds=seeds, max_steps=400)
    return result.returns, result.lengths, result.steps, result.ends


def plain(game, monkeypatch, module: dict | None = None, **methods) -> Game:
    """The game compiled again with some of the code generator's methods (and functions of its modules,
    in each module that has them) replaced: the plain code."""
    with monkeypatch.context() as patch:
        for name, method in methods.items():
            patch.setattr(Codegen, name, method)
        for name, function in (module or {}).items():
            for generator in (codegen, exprcode, nativecode):
                if hasattr(generator, name):
                    patch.setattr(generator, name, function)
        other = Game(game.config)
        assert other.whole_games is not None  # compiled now, with the plain code
    return other


@pytest.mark.parametrize("seed", [0, 1, -7, 2**64 + 5, 123_456_789_012])
def test_the_stream_of_a_seed_is_splitmix_across_chunks(seed):
    stream = Stream(seed)
    assert [stream.at(t) for t in range(3 * CHUNK + 5)] == [splitmix(seed, t) for t in range(3 * CHUNK + 5)]
    first = streams([seed, seed + 1], 10)
    assert first[1][:10] == [splitmix(seed + 1, t) for t in range(10)]
    assert first[0].at(40) == splitmix(seed, 40)  # grows past what was computed up front


def test_constant_chance_weights_are_folded_and_play_as_the_plain_code(tmp_path, monkeypatch):
    game = coins(tmp_path)
    assert "_w = CW" in game.source and "draw_fixed(" in game.whole_games.source
    unfolded = plain(game, monkeypatch, constant_weights=lambda self, st: None)
    assert "_w = CW" not in unfolded.source and "draw_fixed(" not in unfolded.whole_games.source
    seeds = range(12)
    assert games(game, seeds) == games(unfolded, seeds)
    assert batch(game, seeds) == batch(unfolded, seeds)


# Dice whose faces a definition and a fact give (folded), and a coin weighted by a score (not folded).
DICE_SPEC = COINS_SPEC.replace("var score per player: int = 0", """var score per player: int = 0
fact sixes = 2
define faces(d: int): int = if d == 6 then sixes else 1""").replace(
    "random d in 1..6", "random d in 1..6 weighted faces(d)").replace(
    "weighted (if heads then 1 else 2)", "weighted (if heads then 1 + score(current) else 2)")


def test_weights_that_call_definitions_of_the_outcome_alone_are_folded_and_play_as_the_plain_code(tmp_path, monkeypatch):
    game = rulekit.load(str(write_spec(tmp_path, DICE_SPEC, name="dice", rulebook="Coins.\n")), players=2)
    assert game.source.count("_w = CW") == 1  # the die; the coin reads the score
    unfolded = plain(game, monkeypatch, constant_weights=lambda self, st: None)
    assert "_w = CW" not in unfolded.source
    seeds = range(12)
    assert games(game, seeds) == games(unfolded, seeds)
    assert batch(game, seeds) == batch(unfolded, seeds)


def test_a_listing_works_out_a_shared_test_once_and_offers_what_the_plain_code_offers(tmp_path, monkeypatch):
    game = coins(tmp_path)
    assert "_m = {}" in game.source and "_m = {}" in game.whole_games.source
    unshared = plain(game, monkeypatch, x_Quant=Codegen.quant_src)
    assert "_m = {}" not in unshared.source
    seeds = range(12)
    assert games(game, seeds) == games(unshared, seeds)
    assert batch(game, seeds) == batch(unshared, seeds)


@pytest.mark.parametrize("name,players", [("chocobo", 4), ("chucky", 3)])
def test_whole_playouts_past_the_first_draws_are_the_state_api_games(name, players):
    """Games played to their end (more draws than computed up front), triggers and procedures included."""
    game = rulekit.load(name, players=players)
    result = game.playouts(3, seed=40)
    for i, seed in enumerate(result.seeds):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed, auto_chance=True)
        made = state.play_on(rng.choice, 100_000)
        assert (result.lengths[i], result.steps[i], result.returns[i]) == (made, len(state.history), state.returns())
    assert max(result.steps) > 128


@pytest.mark.parametrize("name", ["coins", "chocobo"])
def test_tests_of_a_card_by_kind_are_sets_of_kinds_and_play_as_the_plain_code(name, tmp_path, monkeypatch):
    game = coins(tmp_path) if name == "coins" else rulekit.load(name, players=4)
    assert ".isdisjoint(" in game.source or ".count(" in game.source
    by_card = plain(game, monkeypatch, kind_set=lambda self, var, cond: None)
    assert ".isdisjoint(" not in by_card.source
    seeds = range(6)
    assert games(game, seeds) == games(by_card, seeds)
    assert batch(game, seeds) == batch(by_card, seeds)


def test_a_sum_of_the_values_of_cards_reads_a_table_of_kinds_and_plays_as_the_plain_code(monkeypatch):
    game = rulekit.load("chuche", players=3)  # its captures add up card values, its scoring a value per kind
    table_sum = re.compile(r"sum\(map\(SV\d+\.__getitem__, ")
    assert table_sum.search(game.source) and table_sum.search(game.whole_games.source)
    by_card = plain(game, monkeypatch, kind_values=lambda self, var, body: None)
    assert not table_sum.search(by_card.source) and not table_sum.search(by_card.whole_games.source)
    seeds = range(4)
    assert games(game, seeds) == games(by_card, seeds)
    assert batch(game, seeds) == batch(by_card, seeds)


def test_loops_over_positions_read_their_zones_from_a_slice_and_play_as_the_plain_code(monkeypatch):
    game = rulekit.load("chucky", players=2)
    sliced = re.compile(r"in enumerate\((s\.z|_Sz)\[")  # the whole-game code may read s.z through a local
    assert sliced.search(game.source) and sliced.search(game.whole_games.source)
    indexed = plain(game, monkeypatch, module={"by_slices": lambda *args: None})
    assert not sliced.search(indexed.source + indexed.whole_games.source)
    seeds = range(6)
    assert games(game, seeds) == games(indexed, seeds)
    assert batch(game, seeds) == batch(indexed, seeds)


def test_the_compiled_trigger_test_fires_as_the_loop_over_the_triggers():
    """A state whose triggers are a copy runs the reference loop over them instead of the compiled FIRE."""
    game = rulekit.load("chucky", players=3)
    fired = 0
    for seed in range(8):
        rng, other_rng = random.Random(seed), random.Random(seed)
        state, reference = (game.new_initial_state(seed=seed, auto_chance=True) for _ in range(2))
        reference.triggers = tuple(reference.triggers)
        while not state.is_terminal():
            assert state.legal_actions() == reference.legal_actions()
            state.apply_action(rng.choice(state.legal_actions()))
            reference.apply_action(other_rng.choice(reference.legal_actions()))
        assert state.history == reference.history and state.returns() == reference.returns()
        fired += not state.armed[0]
    assert fired  # the trigger fired in some of these games


# A decision that can take from an empty stack: a rule error in the middle of a game.
DRAW_SPEC = """
game draws "Draws"
rulebook "rulebook.txt" source "draws.txt"
players 2 to 2
zone deck: stack, hidden, initial
zone hand per player: set, owner
card Ace x 2
card Two x 2
flow {
  shuffle deck
  turns from seat(0) {
    choose by current {
      action draw { move top from deck to hand(current) }
      action stop { end game }
    }
  }
}
"""


def stepped_and_engine(game, seed, auto=True):
    """A state of `seed` stepped by the whole-game code (chance drawn inside with `auto`, else given
    by the caller) and the engine's own."""
    state = game.new_initial_state(seed=seed, auto_chance=auto)
    assert type(state) is SteppedState
    return state, State(game, seed, auto_chance=auto)


@pytest.mark.parametrize("auto", [True, False])
@pytest.mark.parametrize("name,players", [("chocobo", 4), ("chucky", 3), ("coins", 2)])
def test_a_stepped_state_plays_the_engine_game_and_becomes_the_engine_state_when_asked(name, players, auto, tmp_path):
    """Decisions, chance (drawn inside, or offered with the same outcomes and probabilities), triggers
    that decide (chucky) and procedures, step by step; then everything else a state holds, read in the
    middle of a game, is the engine's."""
    # a build of its own: once `rulekit check` compiled the probes build, it serves `rulekit.load`, and
    # that build is never stepped (only the engine's code records the probes)
    game = Game((coins(tmp_path) if name == "coins" else rulekit.load(name, players=players)).config)
    for seed in range(6):
        state, reference = stepped_and_engine(game, seed, auto)
        play_in_lockstep(state, reference, seed, lambda s: (s.legal_actions(), s.current_player(),
                                                            s.chance_outcomes(), s.history, s.is_terminal()))
        assert (state.is_terminal(), state.returns(), state.history) == (True, reference.returns(), reference.history)
        assert type(state) is SteppedState  # played to the end without the engine
    state, reference = stepped_and_engine(game, 3, auto)
    for _ in range(4):
        action = state.legal_actions()[0]
        state.apply_action(action)
        reference.apply_action(action)
    copy = state.clone()
    assert type(state) is State and state.digest() == reference.digest() == copy.digest()
    assert state.log == reference.log and state.observation(0) == reference.observation(0)
    action = state.legal_actions()[-1]
    state.apply_action(action)
    reference.apply_action(action)
    assert state.digest() == reference.digest()


# A deck bigger than the card events a program remembers, drawn card after card (whose kinds left the
# stepped state carries from draw to draw), with a kind that runs out, cards put back under it and
# shuffled in: the outcomes offered must stay the engine's.
DECK_SPEC = """
game decks "Decks"
rulebook "rulebook.txt" source "decks.txt"
players 2 to 2
zone deck: stack, hidden, initial
zone hand per player: set, owner
card Ace x 2
card Two x 3
card Three x 35
flow {
  shuffle deck
  turns from seat(0) {
    if size(deck) < 5 { end game }
    move top from deck to hand(current)
    move top from deck to hand(current)
    choose by current {
      action back(c in hand(current)) { move c from hand(current) to deck at bottom }
      action mix { shuffle deck }
      action keep { }
    }
  }
}
"""


@pytest.mark.parametrize("stack_store", [True, False])
def test_a_big_deck_drawn_card_after_card_offers_the_engine_outcomes(tmp_path, stack_store):
    """With the store of stack events on, and off (as when its games seldom meet an event again): then
    every draw of more than a few cards carries the kinds left."""
    game = Game(rulekit.load(str(write_spec(tmp_path, DECK_SPEC, name="decks", rulebook="Decks.\n")), players=2).config)
    game.stepping_chance.stack_events.on = stack_store
    ran_out = 0
    for seed in range(12):
        state, reference = stepped_and_engine(game, seed, auto=False)
        outcomes = []
        play_in_lockstep(state, reference, seed, lambda s: (outcomes.append(s.chance_outcomes()), s.chance_outcomes(),
                                                            s.legal_actions(), s.history)[1:])
        ran_out += any(len(o) == 2 for o in outcomes if o) and any(len(o) == 3 for o in outcomes if o)
        assert type(state) is SteppedState and state.history == reference.history
    assert ran_out  # some game drew every Ace, or every Two, from a deck of more than 24 cards


def test_a_rule_error_in_a_stepped_state_is_the_engine_error_and_leaves_the_engine_state(tmp_path):
    game = Game(rulekit.load(str(write_spec(tmp_path, DRAW_SPEC, name="draws", rulebook="Draws.\n")), players=2).config)
    state, reference = stepped_and_engine(game, 5)
    draw = state.legal_actions()[0]
    for _ in range(4):
        state.apply_action(draw)
        reference.apply_action(draw)
    assert type(state) is SteppedState
    errors = []
    for s in (state, reference):
        with pytest.raises(RuleRuntimeError) as caught:
            s.apply_action(draw)
        errors.append(str(caught.value))
    assert errors[0] == errors[1] and "empty" in errors[0]
    assert type(state) is State and state.digest() == reference.digest()
    assert state.legal_actions() == reference.legal_actions() and state.history == reference.history


def test_a_method_looked_up_before_the_state_became_the_engine_state_is_the_engine_method():
    """`state.apply_action(pick(state))`, where `pick` reads the zones: the method was looked up first."""
    game = Game(rulekit.load("chocobo", players=4).config)
    state, reference = stepped_and_engine(game, 2)
    act, clone = state.apply_action, state.clone
    assert state.z == reference.z and type(state) is State  # reading the zones: the engine's State
    action = reference.legal_actions()[0]
    act(action)
    reference.apply_action(action)
    assert state.digest() == reference.digest() == clone().digest()


def test_whole_games_turn_the_turns_around_when_the_order_of_play_turns(tmp_path):
    """`reverse order`: the next turn is the seat before, in the whole-game code as in the engine."""
    from tests.test_language_gaps import HEAD, TURNS
    game = Game(load_text(tmp_path, HEAD + TURNS, players=3).config)
    seats = []
    state, reference = stepped_and_engine(game, 0)
    while not reference.is_terminal():
        seats.append((state.current_player(), reference.current_player()))
        state.apply_action(reference.legal_actions()[0])
        reference.apply_action(reference.legal_actions()[0])
    assert seats == [(0, 0), (1, 1), (0, 0), (2, 2), (1, 1)] and type(state) is SteppedState


# A grid of cards: each turn, a player picks a place and its row and column are gathered, shuffled and
# dealt back (a test of the place and the loop's value alone); then the cards of the row of a counter
# the turns move on (a test that reads a variable) are turned face up.
GRID_SPEC = """
game grid "Grid"
rulebook "rulebook.txt" source "grid.txt"
players 2 to 3
unmodelled "Tiny Game." because "Title."
unmodelled "Each player draws one card." because "Test."
unmodelled "The player with the Ace wins." because "Test."
zone box: set, public, initial
zone pile: stack, hidden
board grid: 3 by 3
zone down per grid: set, hidden
zone up per grid: set, public
card Ace x 1
card Two x 8
var row: int 0..3 = 0
define in_cross(x: grid, y: grid): bool = x.row == y.row or x.column == y.column
procedure regather(x: grid) {
  for y in grid {
    if in_cross(x, y) {
      move all from up(y) to pile
      move all from down(y) to pile
    }
  }
  shuffle pile
  for y in grid {
    if in_cross(x, y) { move top from pile to down(y) }
  }
}
flow {
  move all from box to pile
  shuffle pile
  for y in grid { move top from pile to down(y) }
  turns from seat(0) {
    choose by current {
      action pick(x in grid) "Regather a row and a column." { do regather(x) }
    }
    set row = row % 3 + 1
    for y in grid {
      if y.row == row { move all from down(y) to up(y) }
    }
    if exists(y in grid where size(up(y)) > 0 and exists(c in up(y) where c == Ace)) {
      win current
      end game
    }
  }
}
"""


GRID_RULEBOOK = "Tiny Game.\nEach player draws one card.\nThe player with the Ace wins.\n"


def remembered_against_plain(tmp_path, monkeypatch, spec: str, mark: str, rewrite: str, loops: int, seeds) -> Game:
    """A grid game's code with `loops` remembered domains (`mark` in each of its three programs), and
    the same games from `seeds` played by the code compiled without them (`rewrite` of `direct` off)."""
    game = rulekit.load(str(write_spec(tmp_path, spec, name="grid", rulebook=GRID_RULEBOOK)), players=2)
    for source in (game.whole_games.source, game.stepping.source, game.stepping_chance.source):
        assert source.count(mark) == loops
    monkeypatch.setattr(direct, rewrite, lambda *args: None)
    unfiltered = Game(game.config)
    assert mark not in unfiltered.whole_games.source + unfiltered.stepping.source
    assert games(game, seeds) == games(unfiltered, seeds)
    assert batch(game, seeds) == batch(unfiltered, seeds)
    assert chance_by_caller(game, seeds) == chance_by_caller(unfiltered, seeds)
    return game


def test_a_loop_whose_test_reads_no_state_runs_over_the_values_that_pass_and_plays_as_the_plain_code(
        tmp_path, monkeypatch):
    # the two loops of `regather`, not the one that reads `row`
    remembered_against_plain(tmp_path, monkeypatch, GRID_SPEC, "remember(FL", "fixed_filter_lines", 2, range(12))


def chance_by_caller(game, seeds) -> list[list[int]]:
    """Each seed's history, every chance outcome picked by the caller among those offered."""
    out = []
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal() and len(state.history) < 400:
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, weights)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        out.append(state.history)
    return out


# A grid of cards turned face up: a place with a face-down card, then, maybe, another of its row or
# column; the tests of places join a part that reads only the places (next to, in the cross of) and a
# part that reads the cards.
NEAR_SPEC = GRID_SPEC.split("var row")[0] + """define in_cross(x: grid, y: grid): bool = x.row == y.row or x.column == y.column
flow {
  move all from box to pile
  shuffle pile
  for y in grid { move top from pile to down(y) }
  turns from seat(0) {
    choose by current {
      action pick(x in grid where size(down(x)) > 0) "Turn a card face up." {
        move all from down(x) to up(x)
        if exists(y in grid where adjacent(x, y) and size(down(y)) > 0) {
          choose by current {
            action more(y in grid where size(down(y)) > 0 and in_cross(x, y) and y != x) "Turn another." {
              move all from down(y) to up(y)
            }
            action stop "Stop." { }
          }
        }
      }
    }
    if exists(y in grid where exists(c in up(y) where c == Ace)) {
      win current
      end game
    }
  }
}
"""


def test_a_loop_whose_test_partly_reads_no_state_runs_over_the_values_that_pass_that_part(tmp_path, monkeypatch):
    # `adjacent` in the quantifier, `in_cross` in the listing
    seeds = range(16)
    game = remembered_against_plain(tmp_path, monkeypatch, NEAR_SPEC, "remember(FD", "narrowed_domain", 2, seeds)
    assert {end for *_, end in zip(*batch(game, seeds))} == {"won"}


# The same grid, its tests of places made of definitions nested deeper than the engine inlines: the
# innermost (`same_row`) is called, and passed the state, though it reads nothing of it; the outermost
# joins a part that reads only the places and a part that reads the cards.
NESTED_DEFINES = """define same_row(x: grid, y: grid): bool = x.row == y.row
define in_line(x: grid, y: grid): bool = same_row(x, y) or x.column == y.column
define in_cross(x: grid, y: grid): bool = in_line(x, y) and x != y
define open_in_cross(x: grid, y: grid): bool = in_cross(x, y) and size(down(y)) > 0"""
NESTED_SPEC = (NEAR_SPEC
               .replace("define in_cross(x: grid, y: grid): bool = x.row == y.row or x.column == y.column", NESTED_DEFINES)
               .replace("where adjacent(x, y) and size(down(y)) > 0", "where open_in_cross(x, y)")
               .replace("where size(down(y)) > 0 and in_cross(x, y) and y != x", "where open_in_cross(x, y)"))
assert NESTED_SPEC.count("where open_in_cross(x, y)") == 2  # the quantifier and the listing


def test_a_test_made_of_definitions_runs_over_the_values_that_pass_the_part_that_reads_no_state(tmp_path, monkeypatch):
    # the quantifier and the listing, each split inside the definitions it calls; `same_row` reads nothing
    seeds = range(16)
    game = remembered_against_plain(tmp_path, monkeypatch, NESTED_SPEC, "remember(FD", "narrowed_domain", 2, seeds)
    assert len(re.findall(r"remember\(FD\d+, fv\d+, tuple\(filter\(lambda _L\d+: \(D_same_row\(s, ",
                          game.whole_games.source)) == 2


def test_a_definition_reads_no_state_when_neither_it_nor_what_it_calls_reads_a_zone_or_a_variable(tmp_path):
    game = rulekit.load(str(write_spec(tmp_path, NESTED_SPEC, name="grid", rulebook=GRID_RULEBOOK)), players=2)
    pure = Codegen(game.config).state_free_defines
    assert {"D_same_row", "D_in_line", "D_in_cross"} <= pure and "D_open_in_cross" not in pure
    assert Codegen(game.config, probes=[]).state_free_defines == frozenset()  # a probe may record each call


def test_state_lists_read_often_are_read_through_locals_and_only_those_never_bound_anew():
    from rulekit.engine.statelists import localized

    lines = ["def f(s):", "    s.z[1] = s.z[2]", "    x = s.v[1]", "    s.h = []", "    s.h.append(1)", "    w = 's.z[3]'"]
    assert localized(lines) == ["def f(s):", "    _Sz = s.z", "    _Sz[1] = _Sz[2]", "    x = s.v[1]", "    s.h = []",
                                "    s.h.append(1)", "    w = 's.z[3]'"]


def test_a_test_that_is_one_exists_is_a_loop_that_stops_at_the_first_value_found():
    from rulekit.engine.existsloops import looped

    assert looped(["if (not any(True for y in f(a if b else c) if y > 2)):", "    g()"]) == [
        "_ex = False", "for y in f(a if b else c):", "    if y > 2:", "        _ex = True", "        break",
        "if not _ex:", "    g()"]
    assert looped(["  if any(True for x in xs):"]) == ["  _ex = False", "  for x in xs:", "      _ex = True", "      break",
                                                       "  if _ex:"]
    # a test with more than the one `exists`, or an `exists` over two loops, stays as it is
    kept = ["if any(True for x in xs) or z:", "if any(True for x in a for y in b):", "elif any(True for x in xs):"]
    assert looped(kept) == kept
