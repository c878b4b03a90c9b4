"""The OpenSpiel adapter: OpenSpiel's own checks on every bundled game and player count, and
focused tests of the game type, the caps, observations and serialization.

Skipped cleanly without the extra: pip install ".[openspiel]".
"""
from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason='needs the openspiel extra: pip install ".[openspiel]"')
np = pytest.importorskip("numpy")

import rulekit  # noqa: E402
from rulekit import openspiel  # noqa: E402
from rulekit.engine.stepwise import Stepwise  # noqa: E402
from rulekit.pipeline import Spec  # noqa: E402
from rulekit.resources import bundled_games  # noqa: E402

MODELS = {name: Spec.find(name).model for name in bundled_games()}
CONFIGS = [(name, n) for name, model in MODELS.items() for n in range(model.min_players, model.max_players + 1)]
IDS = [f"{name}-{n}p" for name, n in CONFIGS]


def random_states(game, seed: int, limit: int = 400):
    """Every state of one random playout (chance sampled by its probabilities)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    yield state
    for _ in range(limit):
        if state.is_terminal():
            return
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        yield state


# Full games, serialized at every step: the smallest and largest table of each game here, every
# player count in the slow suite.
ENDS = [(name, n) for name, n in CONFIGS if n in (MODELS[name].min_players, MODELS[name].max_players)]
MIDDLE = [config for config in CONFIGS if config not in ENDS]


@pytest.mark.parametrize("name,players", ENDS, ids=[f"{name}-{n}p" for name, n in ENDS])
def test_random_sim_test_with_serialization(name, players):
    game = openspiel.load_game(name, players=players)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("name,players", MIDDLE, ids=[f"{name}-{n}p" for name, n in MIDDLE])
def test_random_sim_test_with_serialization_at_every_table_size(name, players):
    game = openspiel.load_game(name, players=players)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name,players", CONFIGS, ids=IDS)
def test_random_sim_test_on_a_capped_game(name, players):
    game = openspiel.load_game(name, players=players, max_game_length=6)
    pyspiel.random_sim_test(game, num_sims=6, serialize=True, verbose=False)


@pytest.mark.parametrize("name", bundled_games())
def test_registered_and_loadable_by_game_string(name):
    short = openspiel.register(name)
    assert short == f"python_rulekit_{name}" and short in pyspiel.registered_names()
    model = MODELS[name]
    game = pyspiel.load_game(f"{short}(players={model.max_players})")
    assert game.num_players() == model.max_players
    same = pyspiel.load_game(str(game))
    assert str(same) == str(game)


@pytest.mark.parametrize("name", bundled_games())
def test_game_type_is_derived_from_the_model(name):
    model = MODELS[name]
    game = openspiel.load_game(name)
    kind, rk = game.get_type(), rulekit.load(name)
    assert kind.min_num_players == model.min_players and kind.max_num_players == model.max_players
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    hidden = any(z.visibility != "public" for z in model.zones)
    assert (kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION) == hidden
    assert kind.provides_information_state_string == hidden
    assert kind.provides_observation_string and kind.provides_observation_tensor
    win, lose = model.payoff
    if (win, lose) != (0, 0):  # some ends do not sum to zero: k winners out of n, k = 0..n
        assert kind.utility != pyspiel.GameType.Utility.ZERO_SUM
    params = kind.parameter_specification
    assert params["players"] == model.min_players and params["max_game_length"] == 1000
    for amb in model.ambiguities:
        assert params[amb.name] == amb.default
    assert game.min_utility() == rk.min_utility() and game.max_utility() == rk.max_utility()
    flat = rk.num_distinct_actions() if not Stepwise.needed(rk) else Stepwise(rk).num_actions
    assert game.num_distinct_actions() == flat
    assert game.max_game_length() == 1000


def test_options_and_caps_reach_the_engine():
    name = bundled_games()[0]
    model = MODELS[name]
    amb = next((a for a in model.ambiguities if len(a.options) > 1), None)
    if amb is None:
        pytest.skip("no ambiguity with two options")
    other = next(o.name for o in amb.options if o.name != amb.default)
    game = openspiel.load_game(name, options={amb.name: other}, max_game_length=77)
    state = game.new_initial_state()
    assert state.rulekit_state.game.options[amb.name] == other
    assert game.max_game_length() == 77 and game.max_chance_nodes_in_history() == 4 * 77 + 100
    with pytest.raises(rulekit.OptionError):
        openspiel.load_game(name, options={amb.name: "no_such_option"})


@pytest.mark.parametrize("name,players", CONFIGS, ids=IDS)
def test_a_cut_game_is_a_loss_for_everyone_within_the_utility_range(name, players):
    cap = 5
    game = openspiel.load_game(name, players=players, max_game_length=cap)
    lose = float(MODELS[name].payoff[1])
    for seed in range(3):
        *_, state = random_states(game, seed)
        decisions = sum(1 for pa in state.full_history() if pa.player >= 0)
        assert state.is_terminal() and decisions <= cap
        if not state.rulekit_state.is_terminal():  # cut, not ended by the rules
            assert state.cut and decisions == cap
            assert state.returns() == [lose] * players
            assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.legal_actions() == []
            assert "nobody wins" in str(state)
        assert all(game.min_utility() <= r <= game.max_utility() for r in state.returns())


@pytest.mark.parametrize("name,players", CONFIGS, ids=IDS)
def test_observation_tensor_has_a_fixed_size_and_legal_mask_matches(name, players):
    game = openspiel.load_game(name, players=players)
    size = game.observation_tensor_size()
    assert size == openspiel.encoder_for(rulekit.load(name, players=players)).size
    for state in random_states(game, seed=players):
        for p in range(players):
            tensor = state.observation_tensor(p)
            assert len(tensor) == size and all(np.isfinite(tensor))
        if state.is_terminal():
            continue
        mask = state.legal_actions_mask()
        width = game.max_chance_outcomes() if state.is_chance_node() else game.num_distinct_actions()
        assert len(mask) == width
        assert [a for a, bit in enumerate(mask) if bit] == state.legal_actions()


@pytest.mark.parametrize("name,players", CONFIGS, ids=IDS)
def test_hidden_cards_never_reach_another_players_observation(name, players):
    """Zones a player may not see are all zeros in their tensor; and two states that differ
    only in what a player may not see give that player identical tensors and strings."""
    game = openspiel.load_game(name, players=players)
    rk = rulekit.load(name, players=players)
    encoder = openspiel.encoder_for(rk)
    twins_with_secrets = 0
    for state in random_states(game, seed=100 + players, limit=250):
        for q in range(players):
            views = encoder.views(np.array(state.observation_tensor(q), np.float32))
            for i, (zone, owner) in enumerate(encoder.zones):
                if zone.visibility == "hidden" or (zone.visibility == "owner" and owner != q):
                    assert not views["zones"][i].any(), f"{encoder.zone_names[i]} leaks into player {q}'s tensor"
        if not state.is_chance_node() or len(state.chance_outcomes()) < 2:
            continue
        (a, _), (b, _) = state.chance_outcomes()[:2]
        one, two = state.child(a), state.child(b)
        for q in range(players):
            # the engine decides what q may know; the adapter must add nothing to it
            if (game.get_type().provides_information_state_string
                    and one.rulekit_state.information_state_string(q) == two.rulekit_state.information_state_string(q)):
                assert one.information_state_string(q) == two.information_state_string(q)
            if one.rulekit_state.observation(q) != two.rulekit_state.observation(q):
                continue  # q can tell them apart
            assert one.observation_tensor(q) == two.observation_tensor(q)
            assert one.observation_string(q) == two.observation_string(q)
            twins_with_secrets += str(one) != str(two)
    if game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION:
        assert twins_with_secrets > 0, "no pair of states differing only in hidden cards was found"


def test_information_state_string_remembers_the_players_own_moves():
    name = next(n for n in bundled_games()
                if openspiel.load_game(n).get_type().provides_information_state_string)
    game = openspiel.load_game(name)
    for state in random_states(game, seed=3):
        if not state.is_chance_node() and not state.is_terminal():
            player, action = state.current_player(), state.legal_actions()[0]
            text = state.action_to_string(player, action)
            state.apply_action(action)
            assert state.information_state_string(player).endswith(text)
            break


@pytest.mark.parametrize("name,players", CONFIGS[:1] + CONFIGS[-1:], ids=IDS[:1] + IDS[-1:])
def test_serialization_round_trip_and_clone(name, players):
    game = openspiel.load_game(name, players=players)
    for i, state in enumerate(random_states(game, seed=7, limit=120)):
        if i % 17:
            continue
        text = pyspiel.serialize_game_and_state(game, state)
        game2, state2 = pyspiel.deserialize_game_and_state(text)
        assert str(game2) == str(game)
        assert state2.history() == state.history() and str(state2) == str(state)
        assert state2.observation_tensor(0) == state.observation_tensor(0)
        clone = state.clone()
        assert str(clone) == str(state) and clone.history() == state.history()
        if not clone.is_terminal():
            clone.apply_action(clone.legal_actions()[0])
            assert clone.history() != state.history()  # the clone is independent


def test_observer_types():
    name = bundled_games()[0]
    game = openspiel.load_game(name)
    from open_spiel.python.observation import make_observation
    *_, state = random_states(game, seed=1, limit=60)
    default = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    public = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))
    full = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
    for obs in (default, public, full):
        obs.set_from(state, 0)
        assert obs.tensor.shape == (game.observation_tensor_size(),)
        assert set(obs.dict) >= {"observer", "zones", "sizes", "vars"}
    default.set_from(state, 0)
    assert list(default.tensor) == state.observation_tensor(0)
    assert default.string_from(state, 0) == state.observation_string(0)
    public.set_from(state, 0)
    full.set_from(state, 0)
    # the public view sees no more than the player, who sees no more than everything
    assert public.dict["zones"].sum() <= default.dict["zones"].sum() <= full.dict["zones"].sum()
    info = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    assert info.tensor is None and info.string_from(state, 0)


PERFECT = """
game rkos_duel "Duel"
rulebook "rulebook.txt" source "duel.txt"
players 2 to 2
payoff win 1 lose -1
zone box: set, public, initial
zone won per player: set, public
card Token x 1
flow {
  choose by current {
    action claim { move Token from box to won(current)  win current }
    action give { move Token from box to won(next(current))  win next(current) }
  }
  end game
}
"""


def test_a_deterministic_perfect_information_spec(tmp_path):
    folder = tmp_path / "rkos_duel"
    folder.mkdir()
    (folder / "rulebook.txt").write_text("Duel.\n", encoding="utf-8")
    (folder / "rkos_duel.rules").write_text(PERFECT, encoding="utf-8")
    path = str(folder / "rkos_duel.rules")
    game = openspiel.load_game(path)
    kind = game.get_type()
    assert kind.short_name == "python_rulekit_rkos_duel"
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM  # no winner or two would not sum to 0
    assert game.max_chance_outcomes() == 0
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and sorted(state.returns()) == [-1.0, 1.0]


def test_the_mcts_example_runs(monkeypatch, capsys):
    import runpy
    from pathlib import Path
    example = Path(__file__).resolve().parent.parent / "examples" / "openspiel_mcts.py"
    if not example.is_file():
        pytest.skip("examples/ is not part of this tree")
    pytest.importorskip("open_spiel.python.algorithms.mcts")
    monkeypatch.setattr("sys.argv", [str(example), "--games", "1", "--simulations", "4"])
    runpy.run_path(str(example), run_name="__main__")
    out = capsys.readouterr().out
    assert "MCTS" in out and "seat 0" in out and "mean return" in out
