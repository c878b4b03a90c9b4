"""Many seeded games played to the end inside the engine, for statistics and sampled checks.

Game `i` of `playouts(game, n, seed=S)` is exactly the game a caller gets by stepping the State API:

    state = game.new_initial_state(seed=S + i, auto_chance=True)
    rng = random.Random(S + i)
    while not state.is_terminal() and decisions < max_steps and state.legal_actions():
        state.apply_action(rng.choice(state.legal_actions()))

but without a call from the caller per decision. Without a policy, games are played by the
whole-game code of `rulekit.engine.direct` where it covers the rules, else (and for every game it
leaves to the engine) by `State.play_on`.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..errors import RuleRuntimeError

DEFAULT_MAX_STEPS = 100_000  # decisions per game before it counts as cut
from .direct import CUT, DEADLOCK, NO_WINNER, WON
from .stream import streams

STREAM_BLOCK = 64  # games whose first draws are computed together (as many as the program's games need lately)

RULE_ERROR = "rule error"


@dataclass
class Playouts:
    """What `n` games ended with, one entry per game in each list, in the order of `seeds`.

    `ends`: how each game ended: "won" (over, with a winner), "no winner" (over, nobody won), "cut"
    (still going after `max_steps` decisions), "deadlock" (not over, yet nobody can move) or
    "rule error" (the rules failed: `errors` has the error). `returns` per seat (all 0.0 for a game that is not over), `winners` the winning seats,
    `lengths` the decisions taken, `steps` the history length (decisions and chance outcomes),
    `rounds` the rounds of a `rounds` loop begun.
    """

    seeds: list[int]
    returns: list[list[float]] = field(default_factory=list)
    winners: list[list[int]] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    ends: list[str] = field(default_factory=list)
    errors: dict[int, RuleRuntimeError] = field(default_factory=dict)  # game index -> its error

    def __len__(self) -> int:
        return len(self.seeds)


def playouts(game, n: int | None = None, seed: int = 0, policy=None, max_steps: int = DEFAULT_MAX_STEPS,
             seeds=None, at_end=None) -> Playouts:
    """Play `n` games with seeds `seed`, `seed + 1`, ... (or the given `seeds`), chance drawn inside
    from each game's seed. `policy`, when given, is called on the state at each decision and returns
    one of its legal actions; by default each decision is uniformly random from `random.Random(seed
    of the game)`, as in the loop of the module docstring. `at_end(index, state)`, when given, is called
    on the last state of each game that ends (won or with no winner): a `State`, or the whole-game code's
    own state, which has the same zones, variables, seat to move and winners (`direct.Playout`)."""
    if seeds is None:
        if n is None:
            raise ValueError("playouts needs a number of games or the seeds to play")
        seeds = range(seed, seed + n)
    if max_steps < 0:
        raise ValueError("max_steps must be at least 0")
    result = Playouts(list(seeds))
    players = game.num_players()
    win, lose = game.model.payoff
    fast = game.whole_games if policy is None else None
    ahead = []
    for index, game_seed in enumerate(result.seeds):
        if fast is not None and not ahead:
            ahead = streams(result.seeds[index:index + STREAM_BLOCK], fast.draws.first)[::-1]
        played = fast.play(game_seed, max_steps, random.Random(game_seed), ahead.pop()) if fast is not None else None
        if played is not None:
            fast.draws.seen(played.t)
        if played is None:
            _engine_playout(game, index, game_seed, policy, max_steps, result, at_end)
            continue
        over = played.over
        if over and at_end is not None:
            at_end(index, played)
        result.returns.append([float(win if p in played.winners else lose) for p in range(players)] if over
                              else [0.0] * players)
        result.winners.append(sorted(played.winners) if over else [])
        result.lengths.append(played.made)
        result.steps.append(played.t)
        result.rounds.append(played.rounds)
        result.ends.append(played.end)
    return result


def _engine_playout(game, index: int, seed: int, policy, max_steps: int, result: Playouts, at_end=None) -> None:
    """Game `index`, played by the engine's State."""
    players = game.num_players()
    rounds = [0]

    def round_begins(_state) -> None:
        rounds[0] += 1

    state = None
    try:
        state = game.new_initial_state(seed=seed, auto_chance=True, on_round=round_begins)
        if policy is None:
            made = state.play_on(random.Random(seed).choice, max_steps)
        else:
            made = state.play_on(lambda _legal: policy(state), max_steps)
    except RuleRuntimeError as exc:
        result.errors[index] = exc
        result.returns.append([0.0] * players)
        result.winners.append([])
        # the decisions completed: each logs itself before the rules run on, the one that failed too
        result.lengths.append(max(0, sum(1 for entry in state.log if entry[0] == "act") - 1) if state is not None else 0)
        result.steps.append(len(state.history) if state is not None else 0)
        result.rounds.append(rounds[0])
        result.ends.append(RULE_ERROR)
        return
    over = state.over
    if over and at_end is not None:
        at_end(index, state)
    result.returns.append(state.returns())
    result.winners.append(sorted(state.winners) if over else [])
    result.lengths.append(made)
    result.steps.append(len(state.history))
    result.rounds.append(rounds[0])
    result.ends.append((WON if state.winners else NO_WINNER) if over else DEADLOCK if not state.legal else CUT)
