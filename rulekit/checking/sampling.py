"""Seeded random play: one task per option set and player count, merged into one tally per option set."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from .. import model as m
from .. import statistics
from ..engine import Game
from ..errors import RuleRuntimeError, SpecError
from ..pipeline import Spec
from .shared import PlayBounds, options_key, setup_error


@dataclass
class Tally:
    """What seeded random play saw under one choice of options, over every player count."""

    broken: dict = field(default_factory=dict)  # invariant name -> (loaded, history)
    reached: dict = field(default_factory=dict)  # target name -> (loaded, history)
    deadlocks: list = field(default_factory=list)  # (loaded, history)
    errors: dict = field(default_factory=dict)  # message -> (loaded, history, span)
    unfinished: int = 0  # games cut at the step limit
    lengths: list = field(default_factory=list)  # decisions of each game that ended
    played: int = 0
    steps: int = 0
    fired: set = field(default_factory=set)
    games_by_players: dict = field(default_factory=dict)  # players -> games played
    reach_by_players: dict = field(default_factory=dict)  # target name -> {players: games that reached it}

    def sample(self, target: str | None, confidence: float) -> statistics.Sample:
        """The games per player count, and (for a target) in how many it was reached."""
        return statistics.Sample(dict(self.games_by_players), dict(self.reach_by_players.get(target, {})), confidence)


def random_play(spec: Spec, game: m.Game, variants: list[dict], bounds: PlayBounds, progress, executor=None) -> dict:
    """Per choice of options, what seeded random play saw: one task per option set and player count,
    run by `executor` (`rulekit.executors`; default: this process) and merged in plan order, so the
    tallies are the same whatever ran the tasks."""
    from .. import executors

    counts = range(game.min_players, game.max_players + 1)
    plan = [(options, players, bounds.games if i == 0 else bounds.variant_games,
             bounds.play_budget if i == 0 else bounds.variant_budget)
            for i, options in enumerate(variants) for players in counts]
    local = executor is None or isinstance(executor, executors.InProcess)
    where = spec if local else str(spec.path.resolve())  # a worker loads the spec from its path
    tasks = [(where, players, options, games, budget, bounds.max_steps, bounds.seed, bounds.confidence,
              bounds.max_violation_rate) for options, players, games, budget in plan]
    if hasattr(progress, "describe"):
        progress.describe(f"{game.name}: random play, {len(plan)} configuration(s)")
    results = executors.run(executor or executors.InProcess(), play_sample, tasks, game.name,
                            progress if progress is not None else False)
    tallies = {options_key(o): Tally() for o in variants}
    for (options, players, _, _), part in zip(plan, results):
        tally = tallies[options_key(options)]
        loaded = (lambda p=players, o=options: spec.engine(p, o))  # noqa: E731 - the game a witness replays in
        for name, (_, history) in part.broken.items():
            tally.broken.setdefault(name, (loaded(), history))
        for name, (_, history) in part.reached.items():
            tally.reached.setdefault(name, (loaded(), history))
        tally.deadlocks += [(loaded(), history) for _, history in part.deadlocks]
        for message, (had, history, span) in part.errors.items():
            tally.errors.setdefault(message, (loaded() if had else None, history, span))
        tally.unfinished += part.unfinished
        tally.lengths += part.lengths
        tally.played += part.played
        tally.steps += part.steps
        tally.fired |= part.fired
        for n, games in part.games_by_players.items():
            tally.games_by_players[n] = tally.games_by_players.get(n, 0) + games
        for target, by_players in part.reach_by_players.items():
            into = tally.reach_by_players.setdefault(target, {})
            for n, games in by_players.items():
                into[n] = into.get(n, 0) + games
    return tallies


def play_sample(spec: Spec | str, players: int, options: dict, games: int, budget: int, max_steps: int,
                seed: int, confidence: float = 0.95, max_violation_rate: float | None = None) -> Tally:
    """Seeded random games of one configuration, until `games` or `budget` decisions (or, with
    `max_violation_rate`, until the sample is enough: see `_enough_games`); what they saw, with each
    witness as (True, history) instead of the game it replays in, so the tally travels."""
    spec = Spec.find(spec) if isinstance(spec, str) else spec
    tally = Tally()
    try:
        loaded = spec.engine(players, options)
    except (RuleRuntimeError, SpecError) as exc:
        message, span = setup_error(exc)
        tally.errors[f"the set-up cannot be built with {players} players: {message}"] = (None, [], span)
        return tally
    bounds = PlayBounds(max_steps=max_steps, confidence=confidence, max_violation_rate=max_violation_rate)
    enough = _enough_games(spec.model, bounds)
    for g in range(games):
        if g and (tally.steps >= budget or enough(tally, g)):  # the games so far are the bound the verdicts state
            break
        _play_one(loaded, bounds, seed + g, tally)
    tally.broken = {k: (True, h) for k, (_, h) in tally.broken.items()}
    tally.reached = {k: (True, h) for k, (_, h) in tally.reached.items()}
    tally.deadlocks = [(True, h) for _, h in tally.deadlocks]
    tally.errors = {k: (v[0] is not None, v[1], v[2]) for k, v in tally.errors.items()}
    return tally


def _enough_games(game: m.Game, bounds: PlayBounds):
    """Sequential stopping: with `max_violation_rate` set, a player count needs no more games once every
    target has been reached and the bound on every invariant not yet broken is below that rate."""
    if not bounds.max_violation_rate:
        return lambda tally, played: False
    needed = statistics.trials_needed(bounds.max_violation_rate, bounds.confidence)
    targets = [p.name for p in game.properties if p.kind == "reachable"]
    return lambda tally, played: played >= needed and all(t in tally.reached for t in targets)


def _play_one(loaded: Game, bounds: PlayBounds, seed: int, tally: Tally) -> None:
    rng = random.Random(seed)
    tally.played += 1
    players = loaded.num_players()
    tally.games_by_players[players] = tally.games_by_players.get(players, 0) + 1
    reached_here: set = set()
    table = loaded.action_table
    invariants, targets = loaded.properties("invariant"), loaded.properties("reachable")
    decisions = 0
    state = None
    try:
        state = loaded.new_initial_state(seed=seed, auto_chance=True)
        while True:
            tally.steps += 1
            for prop, test in invariants:
                if not test(state):
                    tally.broken.setdefault(prop.name, (loaded, list(state.history)))
                    return
            for prop, test in targets:
                if prop.name not in reached_here and test(state):
                    reached_here.add(prop.name)
                    counts = tally.reach_by_players.setdefault(prop.name, {})
                    counts[players] = counts.get(players, 0) + 1
                    tally.reached.setdefault(prop.name, (loaded, list(state.history)))
            if state.is_terminal():
                tally.lengths.append(decisions)
                return
            if state.is_stuck():
                tally.deadlocks.append((loaded, list(state.history)))
                return
            if decisions >= bounds.max_steps:
                tally.unfinished += 1
                return
            action = rng.choice(state.legal)
            tally.fired.add(table[action][:2])
            state.apply_action(action)
            decisions += 1
    except RuleRuntimeError as exc:  # the set-up itself may fail: then the history is empty
        tally.errors.setdefault(str(exc), (loaded, list(state.history) if state is not None else [], exc.span))
