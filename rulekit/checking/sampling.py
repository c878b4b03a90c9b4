"""Seeded random play: one task per option set and player count, merged into one tally per option set."""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from .. import model as m
from .. import statistics
from ..engine import Game
from ..engine.statetests import one_by_one
from ..engine.state import CHANCE_LIMIT
from ..errors import EndlessRun, LongRun, RuleRuntimeError, SpecError
from ..pipeline import Spec
from .shared import PlayBounds, options_key, setup_error, players_phrase
from .watching import watched_game


@dataclass
class Tally:
    """What seeded random play saw under one choice of options, over every player count."""

    broken: dict = field(default_factory=dict)  # invariant name -> (loaded, history)
    reached: dict = field(default_factory=dict)  # target name -> (loaded, history)
    deadlocks: list = field(default_factory=list)  # (loaded, history)
    errors: dict = field(default_factory=dict)  # message -> (loaded, history, span)
    endless: dict = field(default_factory=dict)  # players -> (loaded, history, message): rules that went round for ever
    unfinished: int = 0  # games cut at the step limit
    lengths: list = field(default_factory=list)  # decisions of each game that ended
    played: int = 0
    steps: int = 0
    fired: set = field(default_factory=set)
    games_by_players: dict = field(default_factory=dict)  # players -> games played
    reach_by_players: dict = field(default_factory=dict)  # target name -> {players: games that reached it}
    broken_by_players: dict = field(default_factory=dict)  # invariant name -> {players: games that broke it}
    outcomes: dict = field(default_factory=dict)  # players -> Outcomes of the games played
    traces: dict = field(default_factory=dict)  # players -> the histories of the first TRACES games
    silent: dict = field(default_factory=dict)  # silent-case or branch site key (`lower.branches`) -> (loaded, history)
    causes: dict = field(default_factory=dict)  # trigger name -> {(choice point, action name) it fired after}
    orders: dict = field(default_factory=dict)  # (trigger, trigger) -> (loaded, history, seed): order changes the result
    probed: int = 0  # the engine's silent-case hits already recorded in `silent`
    run_limits: int = 0  # games that the engine's limit on a run without a decision ended (an endless run?)

    def outcome(self, players: int) -> "Outcomes":
        return self.outcomes.setdefault(players, Outcomes(players))

    def sample(self, target: str | None, confidence: float) -> statistics.Sample:
        """The games per player count, and (for a target) in how many it was reached."""
        return statistics.Sample(dict(self.games_by_players), dict(self.reach_by_players.get(target, {})), confidence)


ENDLESS_GAMES = 3  # games that all run the engine's limit, after which a configuration plays no more (1 for
# a configuration of another option set, which plays few games anyway)
TRACES = 3  # games per player count whose histories are kept, for replay under another option
DEEP_TRACES = 10  # the same with --all-options


@dataclass
class Outcomes:
    """How the random games of one player count ended: what option impact compares between option sets."""

    players: int
    ends: Counter = field(default_factory=Counter)  # simulation.ENDS -> games
    broken: int = 0  # games that broke some invariant (and played on to one of their ends)
    wins: list = field(default_factory=list)  # per seat: finished games that seat won
    lengths: list = field(default_factory=list)  # decisions of each finished game

    def __post_init__(self):
        if not self.wins:
            self.wins = [0] * self.players

    @property
    def games(self) -> int:
        return sum(self.ends.values())

    @property
    def finished(self) -> int:
        return self.ends["won"] + self.ends["no winner"]

    def add(self, other: "Outcomes") -> None:
        self.ends.update(other.ends)
        self.broken += other.broken
        self.wins = [a + b for a, b in zip(self.wins, other.wins)]
        self.lengths += other.lengths


def random_play(spec: Spec, game: m.Game, variants: list[dict], bounds: PlayBounds, progress, executor=None) -> dict:
    """Per choice of options, what seeded random play saw: one task per option set and player count,
    run by `executor` (`rulekit.executors`; default: this process) and merged in plan order, so the
    tallies are the same whatever ran the tasks."""
    from .. import executors

    counts = range(game.min_players, game.max_players + 1)
    # With --all-options each single option is played as deeply as the default options (option impact
    # then compares like with like); pairs of options at the variants' depth.
    deep = bounds.all_options
    base = variants[0]

    def depth(i, options):
        single = sum(options[k] != base[k] for k in base) <= 1
        return (bounds.games, bounds.play_budget, min(bounds.min_games, bounds.games)) if i == 0 or (deep and single) \
            else (bounds.variant_games, bounds.variant_budget, 0)
    plan = [(options, players, *depth(i, options)) for i, options in enumerate(variants) for players in counts]
    local = executor is None or isinstance(executor, executors.InProcess)
    where = spec if local else str(spec.path.resolve())  # a worker loads the spec from its path
    traces = DEEP_TRACES if deep else TRACES
    tasks = [(where, players, options, games, budget, bounds.max_steps, bounds.seed, bounds.confidence,
              bounds.max_violation_rate, traces if i < len(counts) else 0, least)
             for i, (options, players, games, budget, least) in enumerate(plan)]
    if hasattr(progress, "describe"):
        progress.describe(f"{game.name}: random play, {len(plan)} configuration(s)")
    results = executors.run(executor or executors.InProcess(), play_sample, tasks, game.name,
                            progress if progress is not None else False)
    tallies = {options_key(o): Tally() for o in variants}
    for (options, players, _, _, _), part in zip(plan, results):
        tally = tallies[options_key(options)]
        loaded = (lambda p=players, o=options: spec.engine(p, o))  # noqa: E731 - the game a witness replays in
        for name, (_, history) in part.broken.items():
            tally.broken.setdefault(name, (loaded(), history))
        for name, (_, history) in part.reached.items():
            tally.reached.setdefault(name, (loaded(), history))
        tally.deadlocks += [(loaded(), history) for _, history in part.deadlocks]
        for message, (had, history, span) in part.errors.items():
            tally.errors.setdefault(message, (loaded() if had else None, history, span))
        for n, (_, history, message) in part.endless.items():
            tally.endless.setdefault(n, (loaded(), history, message))
        for key, (_, history) in part.silent.items():
            tally.silent.setdefault(key, (spec.engine(players, options, probes=True), history))
        for pair, (_, history, seed) in part.orders.items():
            tally.orders.setdefault(pair, (loaded(), history, seed))
        for name, fired in part.causes.items():
            tally.causes.setdefault(name, set()).update(fired)
        tally.unfinished += part.unfinished
        tally.lengths += part.lengths
        tally.played += part.played
        tally.steps += part.steps
        tally.fired |= part.fired
        for n, games in part.games_by_players.items():
            tally.games_by_players[n] = tally.games_by_players.get(n, 0) + games
        for mine, theirs in ((tally.reach_by_players, part.reach_by_players),
                             (tally.broken_by_players, part.broken_by_players)):
            for name, by_players in theirs.items():
                into = mine.setdefault(name, {})
                for n, games in by_players.items():
                    into[n] = into.get(n, 0) + games
        for n, outcome in part.outcomes.items():
            tally.outcome(n).add(outcome)
        for n, histories in part.traces.items():
            tally.traces.setdefault(n, []).extend(histories[:traces - len(tally.traces.get(n, []))])
    return tallies


def play_sample(spec: Spec | str, players: int, options: dict, games: int, budget: int, max_steps: int,
                seed: int, confidence: float = 0.95, max_violation_rate: float | None = None,
                traces: int = TRACES, min_games: int = 0, watched: bool = True) -> Tally:
    """Seeded random games of one configuration, until `games` or `budget` decisions, but at least
    `min_games` (or, with `max_violation_rate`, until the sample is enough: see `_enough_games`), so that
    long games still give a bound worth stating; what they saw, with each
    witness as (True, history) instead of the game it replays in, so the tally travels, and the
    histories of the first `traces` games that end. Where a few thousand states are still to play
    (`TESTS_WORTH`), each state is tested by the game's compiled `state_tests` rather than its tests one
    by one; where many (`WATCH_WORTH`), the games are played by the whole-game code with a watcher
    (`rulekit.engine.watched`), where that covers the rules, and a game that shows something needing its
    history again through `State`; without `watched`, every game through `State`. The tally is the same
    either way."""
    spec = Spec.find(spec) if isinstance(spec, str) else spec
    tally = Tally()
    try:
        loaded = spec.engine(players, options, probes=True)  # the build that records silent cases
    except (RuleRuntimeError, SpecError) as exc:
        message, span = setup_error(exc)
        tally.errors[f"the set-up cannot be built with {players_phrase([players])}: {message}"] = (None, [], span)
        return tally
    loaded.probe_hits.clear()  # what other runs of this build reached is no witness of this one
    bounds = PlayBounds(max_steps=max_steps, confidence=confidence, max_violation_rate=max_violation_rate)
    enough = _enough_games(spec.model, options, bounds)
    fast = None
    tests, compiled_tests = one_by_one(loaded), False
    for g in range(games):
        if g and ((g >= min_games and tally.steps >= budget) or enough(tally, g)):
            break  # the games so far are the bound the verdicts state
        if g >= (ENDLESS_GAMES if min_games else 1) and tally.run_limits == g:
            break  # every game so far ran the engine's limit (each costs a million steps): so will the next
        ahead = _states_ahead(tally, g, games, budget, min_games, bounds) if g else 0
        if not compiled_tests and ahead >= TESTS_WORTH:
            tests, compiled_tests = loaded.state_tests, True
        if watched and fast is None and ahead >= WATCH_WORTH:
            fast = loaded.watched_games or False
        if not fast or not watched_game(loaded, fast, bounds.max_steps, seed + g, tally, traces):
            _play_one(loaded, bounds, seed + g, tally, traces, tests)
    tally.broken = {k: (True, h) for k, (_, h) in tally.broken.items()}
    tally.reached = {k: (True, h) for k, (_, h) in tally.reached.items()}
    tally.deadlocks = [(True, h) for _, h in tally.deadlocks]
    tally.silent = {k: (True, h) for k, (_, h) in tally.silent.items()}
    tally.orders = {k: (True, h, seed) for k, (_, h, seed) in tally.orders.items()}
    tally.errors = {k: (v[0] is not None, v[1], v[2]) for k, v in tally.errors.items()}
    tally.endless = {k: (True, h, message) for k, (_, h, message) in tally.endless.items()}
    return tally


# States still to play in one configuration from which its watched whole-game code is worth compiling:
# on the bundled games the compilation (0.02 to 0.3 s) pays for itself after 4,000 to 6,500 states
# (`benchmarks/sampling.py`: the watched code tests 1.1 to 2.3 times as many states per second).
WATCH_WORTH = 20_000
# The same for the invariants and targets compiled as one function (`Game.state_tests`): 1 to 30 ms to
# compile, 1.3 to 15 microseconds saved per state on the bundled games.
TESTS_WORTH = 3_000


def _states_ahead(tally: Tally, played: int, games: int, budget: int, min_games: int, bounds: PlayBounds) -> int:
    """About how many more states the random games of one configuration will test, at the mean so far."""
    mean = tally.steps / played
    left = games - played
    if bounds.max_violation_rate:
        left = min(left, max(0, statistics.trials_needed(bounds.max_violation_rate, bounds.confidence) - played))
    # past `min_games`, the budget of states ends the sample
    return int(min(left * mean, max(budget - tally.steps, (min_games - played) * mean)))


def _enough_games(game: m.Game, options: dict, bounds: PlayBounds):
    """Sequential stopping: with `max_violation_rate` set, a player count needs no more games once every
    target has been reached and the bound on every invariant not yet broken is below that rate."""
    if not bounds.max_violation_rate:
        return lambda tally, played: False
    needed = statistics.trials_needed(bounds.max_violation_rate, bounds.confidence)
    targets = [p.name for p in game.properties if p.kind == "reachable" and p.applies(options)]
    return lambda tally, played: played >= needed and all(t in tally.reached for t in targets)


def _play_one(loaded: Game, bounds: PlayBounds, seed: int, tally: Tally, traces: int = TRACES, tests=None) -> None:
    """Game `seed` through the State API, added to `tally`; `tests`: a function of a state that tests every
    invariant and target (see `rulekit.engine.statetests`)."""
    rng = random.Random(seed)
    tally.played += 1
    players = loaded.num_players()
    tally.games_by_players[players] = tally.games_by_players.get(players, 0) + 1
    outcome = tally.outcome(players)
    reached_here: set = set()
    broken_here: set = set()  # the invariants this game has broken (each counts once per game)
    table = loaded.action_table
    tests = tests or one_by_one(loaded)
    decisions = 0
    state = failing = None
    mark = 0

    def keep_trace():
        kept = tally.traces.setdefault(players, [])
        if len(kept) < traces and state is not None:
            kept.append(list(state.history))

    hits, sites, decision_sites = loaded.probe_hits, loaded.probe_sites, loaded.probe_decisions
    triggers = [t.name for t in loaded.config.game.triggers]
    try:
        state = loaded.new_initial_state(seed=seed, auto_chance=True)
        if len(hits) > tally.probed:
            _record_sites(sites, hits, tally, state)
        while True:
            tally.steps += 1
            broken, reached = tests(state, reached_here)
            # Play goes on past a broken invariant: the state is one the rules reach all the same, and
            # the other verdicts (targets, ends, lengths) rest on whole games.
            for name in broken:
                if name in broken_here:
                    continue
                if not broken_here:
                    outcome.broken += 1
                broken_here.add(name)
                counts = tally.broken_by_players.setdefault(name, {})
                counts[players] = counts.get(players, 0) + 1
                if name not in tally.broken:
                    tally.broken[name] = (loaded, list(state.history))
            for name in reached:
                reached_here.add(name)
                counts = tally.reach_by_players.setdefault(name, {})
                counts[players] = counts.get(players, 0) + 1
                tally.reached.setdefault(name, (loaded, list(state.history)))
            if state.is_terminal():
                outcome.ends["won" if state.winners else "no winner"] += 1
                for p in state.winners:
                    outcome.wins[p] += 1
                outcome.lengths.append(decisions)
                keep_trace()
                tally.lengths.append(decisions)
                return
            if state.is_stuck():
                tally.deadlocks.append((loaded, list(state.history)))
                outcome.ends["deadlock"] += 1
                keep_trace()
                return
            if decisions >= bounds.max_steps:
                tally.unfinished += 1
                outcome.ends["cut off"] += 1
                return
            if len(state.legal) == 1 and decision_sites:  # a decision with nothing to decide
                site = decision_sites.get(table.owner(state.legal[0])[0])
                if site is not None and sites[site].key not in tally.silent:
                    tally.silent[sites[site].key] = (loaded, list(state.history))
            action = rng.choice(state.legal)
            failing, mark = action, len(state.history)  # until it is carried out: where an error is met
            tally.fired.add(table.owner(action))
            if triggers:
                armed, before = list(state.armed), (state.clone() if len(triggers) > 1 else None)
                state.apply_action(action)
                _triggers_fired(triggers, armed, state, before, action, table, tally)
            else:
                state.apply_action(action)
            failing = None
            if len(hits) > tally.probed:
                _record_sites(sites, hits, tally, state)
            decisions += 1
    except RuleRuntimeError as exc:
        outcome.ends["rule error"] += 1
        if isinstance(exc, LongRun):  # no one draw fails (chance may be what keeps it going): the run's length does
            history = [] if state is None else [*state.history[:mark], *([failing] if failing is not None else [])]
        elif state is None:
            history = _failing_history(loaded, seed, [])
        elif failing is None:
            history = list(state.history)
        else:  # the chance drawn inside the failed step is not in the state's history: it is drawn again
            history = _failing_history(loaded, seed, [*state.history[:mark], failing])
        tally.errors.setdefault(str(exc), (loaded, history, exc.span))
        tally.run_limits += isinstance(exc, (EndlessRun, LongRun))
        if isinstance(exc, EndlessRun):
            tally.endless.setdefault(players, (loaded, history, str(exc)))


def _failing_history(loaded: Game, seed: int, actions: list[int]) -> list[int]:
    """The whole history of a seeded game that failed in its set-up or in the step after `actions`
    (the actions and chance outcomes before it, then the failing decision): the chance outcomes that
    were drawn inside that step, and never returned, drawn again one at a time from the same seed (a
    draw depends on the seed and its place in the history alone), up to and including the one that
    fails."""
    try:
        state = loaded.new_initial_state(seed=seed)
    except RuleRuntimeError:  # before any chance event
        return []
    done: list[int] = []
    try:
        for action in actions:
            done.append(action)
            state.apply_action(action)
        for _ in range(CHANCE_LIMIT):  # the same draws meet the same failure, well before the limit
            if not state.is_chance_node():
                break
            outcome = state.sample_chance()
            done.append(outcome)
            state.apply_action(outcome)
    except RuleRuntimeError:
        pass  # the failure, met again: `done` ends with the step that meets it
    return done


def _record_sites(sites: list, hits: set, tally: Tally, state) -> None:
    """The silent-case sites reached for the first time: each with the game so far as its witness."""
    for i in hits:
        tally.silent.setdefault(sites[i].key, (state.game, list(state.history)))
    tally.probed = len(hits)


def _triggers_fired(names: list, armed: list, state, before, action: int, table, tally: Tally) -> None:
    """After a decision: which triggers fired (their causes), and, when two fired, whether the other
    order of the two gives another result (a `conflict`)."""
    fired = [i for i, was in enumerate(armed) if was and not state.armed[i]]
    for i in fired:
        tally.causes.setdefault(names[i], set()).add(table.owner(action))
    if len(fired) < 2 or before is None:
        return
    from . import conflicts

    for a, b in zip(fired, fired[1:]):
        pair = (names[a], names[b])
        if pair not in tally.orders and conflicts.order_matters(before, action, a, b):
            tally.orders[pair] = (state.game, [*before.history, action], state.seed)
