"""The engine's contract, OpenSpiel's State API, tested on the bundled Chocobo spec."""
from __future__ import annotations

import json

import pytest

import rulekit
from rulekit import CHANCE_PLAYER, TERMINAL_PLAYER
from tests.helpers import TINY_SPEC, load_text, play_random, write_spec


@pytest.fixture(scope="module")
def game():
    return rulekit.load("chocobo", players=4)


def test_chance_outcomes_sum_to_one_and_legal_actions_are_sorted(game):
    state = game.new_initial_state(seed=3)
    checked = 0
    import random
    rng = random.Random(3)
    while not state.is_terminal():
        if state.is_chance_node():
            assert state.current_player() == CHANCE_PLAYER
            outcomes = state.chance_outcomes()
            assert len(outcomes) >= 2
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            assert all(p > 0 for _, p in outcomes)
            assert [a for a, _ in outcomes] == state.legal_actions()
            action = state.sample_chance()
        else:
            legal = state.legal_actions()
            assert legal == sorted(set(legal)) and legal
            assert all(0 <= a < game.num_distinct_actions() for a in legal)
            assert state.legal_actions(state.current_player() + 1) == [] or game.num_players() == 1
            action = rng.choice(legal)
        state.apply_action(action)
        checked += 1
    assert checked > 50
    assert state.current_player() == TERMINAL_PLAYER
    assert state.legal_actions() == []


def test_same_seed_same_actions_same_game(game):
    a = play_random(game, seed=11)
    b = play_random(game, seed=11)
    assert a == b and a.history == b.history
    c = play_random(game, seed=12)
    assert c.history != a.history


def test_explicit_chance_with_seed_is_reproducible(game):
    a = play_random(game, seed=5, auto_chance=False)
    b = play_random(game, seed=5, auto_chance=False)
    assert a.history == b.history and a.is_terminal()


def test_illegal_action_raises_names_it_and_leaves_the_state_unchanged(game):
    state = game.new_initial_state(seed=1, auto_chance=True)
    before = state.to_json()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(rulekit.IllegalActionError) as info:
        state.apply_action(illegal)
    message = str(info.value)
    assert str(illegal) in message
    assert state.action_to_string(state.legal_actions()[0]) in message
    assert state.to_json() == before
    with pytest.raises(rulekit.IllegalActionError):
        state.apply_action("hunt")


@pytest.mark.parametrize("auto", [True, False])
def test_numpy_integer_actions_are_ints_and_floats_are_illegal(game, auto):
    """An agent's actions often come out of numpy arrays: the history keeps them as plain ints, so the
    state still serializes; a float is no action id, even one that equals one."""
    np = pytest.importorskip("numpy")
    state = game.new_initial_state(seed=1, auto_chance=auto)
    plain = state.clone()
    before = state.to_json()
    with pytest.raises(rulekit.IllegalActionError):
        state.apply_action(float(state.legal_actions()[0]))
    assert state.to_json() == before
    for _ in range(20):
        action = state.legal_actions()[-1]
        state.apply_action(np.int64(action))
        plain.apply_action(action)
    assert all(type(a) is int for a in state.history) and state.history == plain.history
    assert game.state_from_json(state.to_json()).history == plain.history


def test_observations_of_a_seat_that_does_not_exist_are_an_error(game):
    state = game.new_initial_state(seed=1, auto_chance=True)
    for bad in (4, -1, 1.0, "P1"):
        for ask in (state.observation_string, state.information_state_string, state.observation, state.events):
            with pytest.raises(rulekit.SeatError, match="seats are 0 to 3"):
                ask(bad)
    assert state.observation_string(3) and state.events(0) is not None


def test_terminal_state_rejects_actions_and_pays_out(game):
    state = play_random(game, seed=2)
    assert state.is_terminal()
    assert state.observation_string(0).startswith("you are P0; the game is over")  # no one's turn any more
    returns = state.returns()
    assert sorted(returns) == [-1.0, -1.0, -1.0, 1.0]
    with pytest.raises(rulekit.IllegalActionError):
        state.apply_action(0)


def test_clone_is_independent(game):
    state = game.new_initial_state(seed=4, auto_chance=True)
    copy = state.clone()
    assert copy == state
    copy.apply_action(copy.legal_actions()[-1])
    assert copy != state
    assert state.history != copy.history


def test_a_fork_is_where_play_stands_without_its_past(game):
    # a search's copy: the same cards, values and offers, no history or move log to copy at every step
    state = game.new_initial_state(seed=4)
    while not state.legal_actions() or state.is_chance_node() or len(state.history) < 30:
        state.apply_action(state.legal_actions()[0])
    fork, clone = state.fork(), state.clone()
    assert fork.history == [] and fork.log == [] and len(clone.history) == len(state.history) >= 30
    assert (fork.z, fork.v, fork.legal_actions()) == (state.z, state.v, state.legal_actions())
    for copy in (fork, clone):
        copy.apply_action(copy.legal_actions()[-1])
    assert fork.history == clone.history[-1:]
    assert (fork.z, fork.v, fork.legal_actions()) == (clone.z, clone.v, clone.legal_actions())
    assert not any(a is b for a, b in zip(fork.z, state.z)), "a fork's zones are its own"


@pytest.mark.parametrize("auto", [True, False])
def test_json_round_trip_gives_an_equal_state(game, auto):
    import random
    rng = random.Random(0)
    state = game.new_initial_state(seed=9, auto_chance=auto)
    for _ in range(60):
        if state.is_terminal():
            break
        state.apply_action(state.sample_chance() if state.is_chance_node() else rng.choice(state.legal_actions()))
        again = game.state_from_json(state.to_json())
        assert again == state
        assert again.legal_actions() == state.legal_actions()


def _tampered(game):
    state = play_random(game, seed=6, max_decisions=20)
    data = json.loads(state.to_json())
    yield "truncated", state.to_json()[:-7]
    yield "not json", "hello"
    yield "not a dict", "[1, 2]"
    yield "wrong format", json.dumps({**data, "format": "other"})
    yield "wrong version", json.dumps({**data, "version": 99})
    yield "wrong game", json.dumps({**data, "game": "other"})
    yield "wrong players", json.dumps({**data, "players": 3})
    yield "wrong options", json.dumps({**data, "options": {**data["options"], "win_timing": "immediately"}})
    yield "history not ints", json.dumps({**data, "history": ["x"]})
    yield "illegal history", json.dumps({**data, "history": data["history"][:5] + [10**6]})
    yield "digest", json.dumps({**data, "digest": "0" * 64})
    yield "shortened history", json.dumps({**data, "history": data["history"][:-1]})
    yield "seed", json.dumps({**data, "seed": "x"})


@pytest.mark.parametrize("label", ["truncated", "not json", "not a dict", "wrong format", "wrong version",
                                   "wrong game", "wrong players", "wrong options", "history not ints",
                                   "illegal history", "digest", "shortened history", "seed"])
def test_tampered_state_is_refused_clearly(game, label):
    text = dict(_tampered(game))[label]
    with pytest.raises(rulekit.StateFormatError) as info:
        game.state_from_json(text)
    assert str(info.value)
    if label == "wrong players":
        assert "of a game for 3 players" in str(info.value)


def test_observation_shows_only_what_the_player_may_see(game):
    state = play_random(game, seed=8, max_decisions=10)
    for player in range(game.num_players()):
        obs = state.observation(player)
        for p in range(game.num_players()):
            hand = obs["zones"][f"hand[{p}]"]
            if p == player:
                assert isinstance(hand, list)
            else:
                assert isinstance(hand, int)
        assert isinstance(obs["zones"]["deck"], int)
        assert isinstance(obs["zones"]["discard"], list)
        text = state.observation_string(player)
        other = (player + 1) % game.num_players()
        shown = next(line for line in text.splitlines() if line.startswith(f"  hand[{other}]: "))
        assert shown.endswith("hidden card(s)")  # what the player knows of it is listed apart


def test_a_rule_that_cannot_be_carried_out_leaves_the_state_unchanged(tmp_path):
    game = load_text(tmp_path, """
game tiny "Tiny"
rulebook "rulebook.txt" source "tiny.txt"
players 2 to 2
zone box: set, public, initial
zone hand per player: set, owner
card Ace x 1
card Two x 1
flow {
  choose by current {
    action good { move Ace from box to hand(current) }
    action bad { move Two from box to hand(current) move Two from box to hand(next(current)) }
  }
  end game
}
""")
    state = game.new_initial_state()
    before = state.to_json()
    bad = next(a for a in state.legal_actions() if state.action_to_string(a) == "bad")
    with pytest.raises(rulekit.RuleRuntimeError) as info:
        state.apply_action(bad)
    assert "tiny.rules:" in str(info.value) and "no Two" in str(info.value)
    assert state.to_json() == before
    good = next(a for a in state.legal_actions() if state.action_to_string(a) == "good")
    state.apply_action(good)
    assert state.is_terminal()


def test_load_errors_are_clear():
    with pytest.raises(rulekit.GameNotFoundError, match="no spec called 'nope'"):
        rulekit.load("nope")
    with pytest.raises(rulekit.OptionError, match="3 to 5 players"):
        rulekit.load("chocobo", players=7)
    with pytest.raises(rulekit.OptionError, match="did you mean 'win_timing'"):
        rulekit.load("chocobo", options={"win_timin": "immediately"})
    with pytest.raises(rulekit.OptionError, match="its options are"):
        rulekit.load("chocobo", options={"win_timing": "never"})


def test_game_describes_itself(game):
    assert game.num_players() == 4
    assert game.max_chance_outcomes() >= len(game.model.components)
    assert game.min_utility() == -1 and game.max_utility() == 1
    assert "def i0(s, fr):" in game.source
    assert "chocobo" in repr(game)


def test_a_random_position_is_numbered_within_max_chance_outcomes(tmp_path):
    game = load_text(tmp_path, """
game grid "Grid"
rulebook "rulebook.txt" source "x.txt"
players 1 to 1
board plate: 3 by 4
zone box: set, public, initial
var last: int = 0
flow { random x in plate  set last = 10 * x.row + x.column }
""")
    state = game.new_initial_state()
    outcomes = [a for a, _ in state.chance_outcomes()]
    assert len(outcomes) == 12 and max(outcomes) < game.max_chance_outcomes()
    state.apply_action(outcomes[-1])
    assert state.is_terminal() and state.value("last") == 34


def test_a_boards_zone_is_read_by_its_listed_name_or_its_row_and_column():
    chucky = rulekit.load("chucky", players=2)
    state = chucky.new_initial_state(seed=1, auto_chance=True)
    assert "down[1,1]" in chucky.layout.zone_names
    assert state.zone("down[1,1]") == state.zone("down", (1, 1)) == state.zone("down", 0)
    assert state.zone("down", (4, 5)) == state.zone("down", 19)
    with pytest.raises(KeyError, match="row, column"):
        state.zone("down", (9, 9))


def test_play_chance_stops_a_game_that_chance_alone_keeps_going(tmp_path):
    text = TINY_SPEC.replace("  for p in players { if exists", "  loop { random face in 1..6  if face == 7 { end game } }\n"
                             "  for p in players { if exists")
    game = rulekit.load(str(write_spec(tmp_path, text)), players=2)
    state = game.new_initial_state(seed=1)
    with pytest.raises(rulekit.RuleRuntimeError, match="without a decision"):
        state.play_chance()
