"""Any rulekit game as a PettingZoo AEC environment.

    >>> from rulekit.pettingzoo import env
    >>> e = env("mygame", players=4)   # a bundled game's name, a spec folder or a .rules file
    >>> e.reset(seed=7)
    >>> for agent in e.agent_iter():
    ...     obs, reward, terminated, truncated, info = e.last()
    ...     action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
    ...     e.step(action)

* Agents are `player_0` .. `player_{n-1}`, seat for seat.
* Chance (shuffles, draws, blind picks) is resolved inside the environment from the reset
  seed (the engine's `auto_chance` mode), so agents only ever see their own decisions; the
  same seed and the same actions give the same game. `reset()` without a seed draws one.
* Observations are dicts: "observation", the fixed-size float32 tensor of
  `rulekit.engine.observation.ObservationEncoder` (what that player may see, nothing more), and
  "action_mask", int8 over the game's `num_distinct_actions` (all 0 for an agent that is
  not to move). `infos[agent]` is `{}`.
* Rewards come only at the end: the spec's win/lose payoff per player. A rules deadlock
  (not over, nobody can move) ends the game as a loss for everyone.
* `max_game_length` (default 1000 decisions, None for no cap) truncates a game that has
  not ended, as PettingZoo time limits do: every agent is truncated with reward 0. (The
  OpenSpiel adapter, which has no truncation, ends such a game as a loss for everyone.)
* `render_mode` "human" prints the whole state after every step, "ansi" returns it as text.
"""
from __future__ import annotations

import secrets

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError('rulekit.pettingzoo needs pettingzoo, gymnasium and numpy: '
                      'pip install "rulekit[pettingzoo]"') from exc

from .engine.observation import encoder_for
from .openspiel import DEFAULT_MAX_GAME_LENGTH


def env(game_name: str, players: int | None = None, options: dict[str, str] | None = None,
        render_mode: str | None = None, max_game_length: int | None = DEFAULT_MAX_GAME_LENGTH):
    """The environment, wrapped as PettingZoo recommends (out-of-bounds and order checks)."""
    e = raw_env(game_name, players=players, options=options, render_mode=render_mode,
                max_game_length=max_game_length)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    metadata = {"render_modes": ["human", "ansi"], "name": "rulekit_v0", "is_parallelizable": False}

    def __init__(self, game_name: str, players: int | None = None, options: dict[str, str] | None = None,
                 render_mode: str | None = None, max_game_length: int | None = DEFAULT_MAX_GAME_LENGTH):
        super().__init__()
        from . import load
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, not {render_mode!r}")
        if max_game_length is not None and max_game_length < 1:
            raise ValueError(f"max_game_length must be at least 1 (or None), not {max_game_length}")
        self.game = load(game_name, players=players, options=options)
        self.metadata = {**type(self).metadata, "name": f"rulekit_{self.game.name}_v0"}
        self.render_mode = render_mode
        self.max_game_length = max_game_length
        n = self.game.num_players()
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._encoder = encoder_for(self.game)
        # a decision that picks a set of cards is taken one card at a time (rulekit.engine.stepwise)
        self._stepwise = self._encoder.stepwise
        self._partial: list[int] = []
        self._num_actions = max(self._stepwise.num_actions if self._stepwise else self.game.num_distinct_actions(), 1)
        low, high = self._encoder.bounds()
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low=low, high=high, dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(self._num_actions,), dtype=np.int8),
            }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self._num_actions) for a in self.possible_agents}
        self.state = None
        self.seed_used = None
        self.decisions = 0
        self.moves: list[int] = []
        self.agents = []

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ---- the AEC loop
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.seed_used = int(seed) if seed is not None else secrets.randbits(63)
        self.state = self.game.new_initial_state(seed=self.seed_used, auto_chance=True)
        self.decisions = 0
        self._partial = []
        self.moves = []  # the engine action of each completed decision
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self.agents[0]
        self._after_move()
        self._accumulate_rewards()

    def _after_move(self) -> None:
        """Rewards, terminations and truncations after the state changed; next agent."""
        state = self.state
        if state.is_terminal() or state.is_stuck():
            returns = state.returns() if state.is_terminal() else [float(self.game.model.payoff[1])] * len(
                self.possible_agents)
            self.rewards = {a: float(returns[self.agent_name_mapping[a]]) for a in self.agents}
            self.terminations = {a: True for a in self.agents}
        elif self.max_game_length is not None and self.decisions >= self.max_game_length:
            self.truncations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[state.current_player()]

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        move = int(action)
        if self._stepwise is not None:
            move = self._stepwise.push(self.state, self._partial, move)  # IllegalActionError if not legal
            if move is None:
                self._partial.append(int(action))
        if move is not None:
            self.state.apply_action(move)  # IllegalActionError, naming the legal ones, if not legal
            self._partial = []
            self.moves.append(move)
        self.decisions += 1
        self.rewards = {a: 0.0 for a in self.agents}
        self._after_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def legal_actions(self) -> list[int]:
        """The actions the agent to move may take now: engine action ids, or for a game whose
        decisions pick sets of cards, the steps of `rulekit.engine.stepwise`."""
        if self.state is None or self.state.is_terminal():
            return []
        if self._stepwise is not None:
            return self._stepwise.legal(self.state, self._partial)
        return self.state.legal_actions()

    def observe(self, agent):
        seat = self.agent_name_mapping[agent]
        mask = np.zeros(self._num_actions, np.int8)
        state = self.state
        over = state.is_terminal() or state.is_stuck() or any(self.truncations.values())
        if not over and state.current_player() == seat:
            mask[self.legal_actions()] = 1
        observation = self._encoder.encode(state, seat, over=over, partial=self._partial)
        return {"observation": observation, "action_mask": mask}

    def render(self):
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; "
                                  "create the environment with render_mode='human' or 'ansi'")
            return None
        text = str(self.state) if self.state is not None else "(not reset yet)"
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        self.state = None


__all__ = ["env", "raw_env"]
