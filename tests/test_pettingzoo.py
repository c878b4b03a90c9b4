"""The PettingZoo adapter: PettingZoo's own api_test and seed_test on every bundled game and
player count, and focused tests of masks, hidden information, rewards and truncation.

Skipped cleanly without the extra: pip install ".[pettingzoo]".
"""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("pettingzoo", reason='needs the pettingzoo extra: pip install ".[pettingzoo]"')
pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import rulekit  # noqa: E402
from rulekit.pettingzoo import env, raw_env  # noqa: E402
from rulekit.pipeline import Spec  # noqa: E402
from rulekit.resources import bundled_games  # noqa: E402

MODELS = {name: Spec.find(name).model for name in bundled_games()}
CONFIGS = [(name, n) for name, model in MODELS.items() for n in range(model.min_players, model.max_players + 1)]
IDS = [f"{name}-{n}p" for name, n in CONFIGS]

# api_test warns about every dict observation (it whitelists only PettingZoo's own games by name);
# dict observations with "observation" and "action_mask" are PettingZoo's documented convention.
DICT_OBSERVATION_WARNINGS = ("Observation is not a NumPy array",
                             "Observation space for each agent probably should be")


def play(e, seed, pick=None, on_step=None):
    """Play one game in environment `e` (random legal actions unless `pick`)."""
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if on_step is not None:
            on_step(agent, obs, reward, terminated, truncated)
        if terminated or truncated:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(rng.choice(legal)) if pick is None else pick(agent, legal)
        e.step(action)


@pytest.mark.parametrize("name,players", CONFIGS, ids=IDS)
def test_pettingzoo_api_test(name, players):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(name, players=players), num_cycles=1000)
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION_WARNINGS)]
    assert unexpected == []


@pytest.mark.parametrize("name,players", CONFIGS, ids=IDS)
def test_pettingzoo_seed_test(name, players):
    seed_test(lambda: env(name, players=players), num_cycles=500)


@pytest.mark.parametrize("name,players", CONFIGS, ids=IDS)
def test_action_mask_matches_legal_actions_and_hidden_cards_stay_hidden(name, players):
    e = raw_env(name, players=players)
    encoder = e._encoder
    seen = []

    def check(agent, obs, reward, terminated, truncated):
        seat = e.agent_name_mapping[agent]
        state = e.state
        assert obs["observation"].shape == e.observation_space(agent)["observation"].shape
        assert e.observation_space(agent).contains(obs)
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        if terminated or truncated:
            assert legal == []
        else:
            assert state.current_player() == seat and legal == e.legal_actions()
            if e._stepwise is None:
                assert legal == state.legal_actions()
        for other in e.agents:
            o = e.observe(other)
            if e.agent_name_mapping[other] != seat:
                assert not o["action_mask"].any()  # only the agent to move has legal actions
            views = encoder.views(o["observation"])
            for i, (zone, owner) in enumerate(encoder.zones):
                if zone.visibility == "hidden" or (zone.visibility == "owner" and owner != e.agent_name_mapping[other]):
                    assert not views["zones"][i].any()
        seen.append(agent)

    play(e, seed=players, on_step=check)
    assert len(seen) > players


@pytest.mark.parametrize("name,players", CONFIGS, ids=IDS)
def test_same_seed_same_game_and_final_rewards_are_the_engines_returns(name, players):
    def trace(seed):
        e = raw_env(name, players=players)
        rewards, steps, actions = {}, [], []

        def record(agent, obs, reward, terminated, truncated):
            steps.append((agent, obs["observation"].tobytes()))
            if terminated or truncated:
                rewards[agent] = reward

        def pick(agent, legal):
            actions.append(int(legal[len(legal) // 2]))
            return actions[-1]

        play(e, seed=seed, pick=pick, on_step=record)
        return e, rewards, steps, actions

    one, rewards, steps, actions = trace(seed=21)
    _, _, again, _ = trace(seed=21)
    assert steps == again
    state = one.state
    assert state.is_terminal() or state.is_stuck() or one.decisions >= one.max_game_length
    if state.is_terminal():
        assert [rewards[f"player_{p}"] for p in range(players)] == state.returns()
    # chance comes from the seed exactly as in the engine's auto_chance mode
    replay = rulekit.load(name, players=players).new_initial_state(seed=21, auto_chance=True)
    assert one.moves == actions or one._stepwise is not None  # with set choices, steps make up the moves
    for action in one.moves:
        replay.apply_action(action)
    assert replay == state


def test_a_capped_game_is_truncated_with_zero_reward():
    name, players = CONFIGS[0]
    e = raw_env(name, players=players, max_game_length=3)
    ends = {}

    def record(agent, obs, reward, terminated, truncated):
        if terminated or truncated:
            ends[agent] = (terminated, truncated, reward)

    play(e, seed=5, on_step=record)
    assert e.decisions <= 3
    if not e.state.is_terminal():
        assert set(ends) == set(e.possible_agents)
        assert all(v == (False, True, 0.0) for v in ends.values())


def test_illegal_action_is_refused():
    name, players = CONFIGS[0]
    e = raw_env(name, players=players)
    e.reset(seed=3)
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(rulekit.IllegalActionError):
        e.step(illegal)


def test_render_modes():
    name, players = CONFIGS[0]
    e = raw_env(name, players=players, render_mode="ansi")
    e.reset(seed=1)
    assert e.render() == str(e.state)
    with pytest.raises(ValueError):
        raw_env(name, players=players, render_mode="rgb_array")
