"""Random playouts at scale: chunks of games, each summarized in a few counts, merged exactly.

A run of N games with seed S is the games 0 .. N-1, and game i has a seed of its own, derived from
(S, i), that draws both its chance events and its random decisions. A chunk is a range of game
indices; its `Summary` depends only on the game's configuration and that range, and summaries merge by
adding counts (histograms of integers, never floats). So a run gives exactly the same result whatever
plays its chunks (this process, local processes, a Dask cluster), in whatever order and however many
chunks it is cut into.

What travels to a worker is a `SimulationConfig` (the spec's name or path, the player count, the options, the
statistics' expressions as text) and a range: a worker loads and compiles the game once (`rulekit.load`
caches it) and sends back a `Summary` of a few hundred bytes.
"""
from __future__ import annotations

import hashlib
import math
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import model as m
from . import resources
from .errors import RuleRuntimeError, RulekitError

ENDS = ("won", "no winner", "cut off", "deadlock", "rule error")  # how a game can stop
DEFAULT_MAX_STEPS = 5000  # decisions before a game is cut off


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game `index` of a run: a hash, so nearby runs and games share no random streams."""
    digest = hashlib.blake2b(f"rulekit-simulate:{run_seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


@dataclass(frozen=True)
class SimulationConfig:
    """One game configuration and what to measure in it: all that a worker needs, in a few strings."""

    spec: str  # a bundled game's name, a spec folder or a .rules file, as a worker can load it
    players: int
    options: tuple[tuple[str, str], ...]
    max_steps: int = DEFAULT_MAX_STEPS
    stats: tuple[tuple[str, str], ...] = ()  # (name, expression of the rule language)
    each_round: bool = False  # also measure the statistics at the end of every round


@dataclass
class Summary:
    """What a chunk of games did, in counts that add up exactly."""

    players: int
    games: int = 0
    ends: Counter = field(default_factory=Counter)  # one of ENDS -> games
    wins: list = field(default_factory=list)  # per seat: finished games that seat won
    length: Counter = field(default_factory=Counter)  # steps, chance included -> finished games
    decisions: Counter = field(default_factory=Counter)  # decisions -> finished games
    rounds: Counter = field(default_factory=Counter)  # rounds begun -> finished games (specs with rounds)
    stats: dict = field(default_factory=dict)  # statistic -> Counter of its value at the end of each game
    round_stats: dict = field(default_factory=dict)  # statistic -> Counter of its value at each round's end
    stat_errors: dict = field(default_factory=dict)  # statistic -> (count, first (game, message))
    first_error: tuple | None = None  # (game index, message) of the first rule that could not be carried out

    def __post_init__(self):
        if not self.wins:
            self.wins = [0] * self.players

    @property
    def finished(self) -> int:
        return self.ends["won"] + self.ends["no winner"]

    def add(self, other: Summary) -> Summary:
        """Add `other`'s counts to this summary (in place); the order of additions never matters."""
        self.games += other.games
        self.ends.update(other.ends)
        self.wins = [a + b for a, b in zip(self.wins, other.wins)]
        self.length.update(other.length)
        self.decisions.update(other.decisions)
        self.rounds.update(other.rounds)
        for mine, theirs in ((self.stats, other.stats), (self.round_stats, other.round_stats)):
            for name, counts in theirs.items():
                mine.setdefault(name, Counter()).update(counts)
        for name, (count, first) in other.stat_errors.items():
            had = self.stat_errors.get(name)
            self.stat_errors[name] = (count, first) if had is None else (had[0] + count, min(had[1], first))
        if other.first_error is not None and (self.first_error is None or other.first_error < self.first_error):
            self.first_error = other.first_error
        return self

    def __eq__(self, other) -> bool:
        return isinstance(other, Summary) and _normal(self) == _normal(other)


def _normal(s: Summary) -> tuple:
    """A summary's content without zero counts (a Counter keeps a key it was told about with 0)."""
    def plain(c: Counter) -> tuple:
        return tuple(sorted((k, v) for k, v in c.items() if v))
    return (s.players, s.games, plain(s.ends), tuple(s.wins), plain(s.length), plain(s.decisions), plain(s.rounds),
            tuple(sorted((k, plain(v)) for k, v in s.stats.items())),
            tuple(sorted((k, plain(v)) for k, v in s.round_stats.items())),
            tuple(sorted(s.stat_errors.items())), s.first_error)


def merge(summaries, players: int) -> Summary:
    total = Summary(players)
    for s in summaries:
        total.add(s)
    return total


# ---- one chunk, on whichever process plays it ------------------------------------------------------------

_STATS: dict = {}  # (game key, statistics) -> the compiled statistics


def _compiled(spec: str, players: int, options: tuple, stats: tuple):
    """The loaded game and its compiled statistics: once per worker process and version of the spec
    (`rulekit.load` compiles a spec again when its file changed)."""
    from . import load
    from .expressions import compile_expression

    game = load(spec, players, dict(options))
    key = (game.key, stats)
    if key not in _STATS:
        if len(_STATS) >= 64:
            _STATS.clear()
        _STATS[key] = tuple((name, compile_expression(game, text, f"--stat {name}")) for name, text in stats)
    return game, _STATS[key]


def has_rounds(model: m.Game) -> bool:
    return any(isinstance(st, m.Rounds) for body in m.bodies(model) for st in m.walk(body))


def play_chunk(config: SimulationConfig, seed: int, start: int, stop: int) -> Summary:
    """Play games `start` .. `stop - 1` of the run with seed `seed`: random legal decisions, chance drawn
    inside the engine from each game's own seed."""
    game, stats = _compiled(config.spec, config.players, config.options, config.stats)
    summary = Summary(game.num_players())
    rounds_in_spec = has_rounds(game.model)
    for name, _ in stats:
        summary.stats[name] = Counter()
        if config.each_round and rounds_in_spec:
            summary.round_stats[name] = Counter()
    seeds = [game_seed(seed, index) for index in range(start, stop)]
    if not stats:  # returns, lengths and ends only: the engine plays the whole chunk itself
        _count_playouts(summary, game.playouts(seeds=seeds, max_steps=config.max_steps), start, rounds_in_spec)
        return summary
    if not (config.each_round and rounds_in_spec):  # statistics at the end only: measured on the last states
        measured = measured_playouts(game, stats, seeds, config.max_steps)
        if measured is not None:
            played, values = measured
            _count_playouts(summary, played, start, rounds_in_spec)
            for i, row in values:
                for name, value, error in row:
                    if error is None:
                        summary.stats[name][value] += 1
                    else:
                        _stat_error(summary, name, start + i, error)
            return summary
    for index in range(start, stop):
        _play_one(game, stats, config, seed, index, summary, rounds_in_spec)
    return summary


class Unmeasurable(Exception):
    """A statistic read what the whole-game code's state does not hold."""


def measured_playouts(game, stats, seeds: list[int], max_steps: int):
    """(`game.playouts` of `seeds`, [(game index, [(statistic, value, error)])] of the games that ended),
    the statistics measured on each game's last state, whichever code played it; None where a statistic
    reads what the whole-game code's state does not hold (then the caller plays the games through State)."""
    values: list = []

    def at_end(index: int, state) -> None:
        row = []
        for name, evaluate in stats:
            try:
                row.append((name, evaluate(state), None))
            except AttributeError as exc:  # not the statistic's fault: the state has no such field
                raise Unmeasurable from exc
            except Exception as exc:  # noqa: BLE001 - a statistic that fails is reported, the game goes on
                row.append((name, None, str(exc)))
        values.append((index, row))

    try:
        return game.playouts(seeds=seeds, max_steps=max_steps, at_end=at_end), values
    except Unmeasurable:
        return None


def _stat_error(summary: Summary, name: str, index: int, error: str) -> None:
    count, first = summary.stat_errors.get(name, (0, (index, error)))
    summary.stat_errors[name] = (count + 1, min(first, (index, error)))


PLAYOUT_ENDS = {"cut": "cut off"}  # the engine's name of an end -> this summary's


def _count_playouts(summary: Summary, played, start: int, rounds_in_spec: bool) -> None:
    """Add games `start`, ... of `played` (`Game.playouts`) to the summary, as `_play_one` counts them."""
    for i, end in enumerate(played.ends):
        summary.games += 1
        summary.ends[PLAYOUT_ENDS.get(end, end)] += 1
        if end == "rule error":
            error = (start + i, str(played.errors[i]))
            if summary.first_error is None or error < summary.first_error:
                summary.first_error = error
        if end not in ("won", "no winner"):
            continue
        for p in played.winners[i]:
            summary.wins[p] += 1
        summary.length[played.steps[i]] += 1
        summary.decisions[played.lengths[i]] += 1
        if rounds_in_spec:
            summary.rounds[played.rounds[i]] += 1


def _play_one(game, stats, config: SimulationConfig, run_seed: int, index: int, summary: Summary, rounds_in_spec: bool) -> None:
    seed = game_seed(run_seed, index)
    rng = random.Random(seed)
    rounds = 0

    def measure(state, into: dict) -> None:
        for name, evaluate in stats:
            try:
                into[name][evaluate(state)] += 1
            except Exception as exc:  # noqa: BLE001 - a statistic that fails is reported, the game goes on
                _stat_error(summary, name, index, str(exc))

    def round_begins(state) -> None:
        nonlocal rounds
        if rounds and config.each_round:  # the round before this one has just ended
            measure(state, summary.round_stats)
        rounds += 1

    summary.games += 1
    made = 0
    try:
        state = game.new_initial_state(seed=seed, auto_chance=True, on_round=round_begins if rounds_in_spec else None)
        while not state.is_terminal() and made < config.max_steps and state.legal:
            state.apply_action(rng.choice(state.legal))
            made += 1
    except RuleRuntimeError as exc:
        summary.ends["rule error"] += 1
        if summary.first_error is None or (index, str(exc)) < summary.first_error:
            summary.first_error = (index, str(exc))
        return
    if not state.is_terminal():
        summary.ends["cut off" if state.legal else "deadlock"] += 1
        return
    summary.ends["won" if state.winners else "no winner"] += 1
    for p in state.winners:
        summary.wins[p] += 1
    summary.length[len(state.history)] += 1
    summary.decisions[made] += 1
    if rounds_in_spec:
        summary.rounds[rounds] += 1
        if rounds and config.each_round:  # the game's end ends its last round
            measure(state, summary.round_stats)
    measure(state, summary.stats)


# ---- a whole run -------------------------------------------------------------------------------------------

def chunks(games: int, size: int) -> list[tuple[int, int]]:
    return [(start, min(games, start + size)) for start in range(0, games, size)]


def chunk_size(games: int, workers: int) -> int:
    """About eight chunks per worker, for balance and a progress bar that moves; at most 2000 games each,
    so that a lost worker costs little to recompute. The result does not depend on it."""
    return max(1, min(2000, math.ceil(games / (8 * max(1, workers)))))


def spec_reference(game_or_name) -> str:
    """What a worker loads: a bundled game's name as is, a path made absolute, or a loaded game's spec."""
    if isinstance(game_or_name, str):
        return str(Path(game_or_name).resolve()) if Path(game_or_name).exists() else game_or_name
    path = game_or_name.spec.path.resolve()
    bundled = resources.spec_file(game_or_name.name)
    if bundled is not None and bundled.resolve() == path:
        return game_or_name.name
    return str(path)


@dataclass
class Simulation:
    """A finished run: its configuration and the merged summary of its games."""

    game: object  # the loaded Game, on the client
    config: SimulationConfig
    seed: int
    summary: Summary
    chunks: int
    executor: str

    def to_dict(self) -> dict:
        """Everything the run found, for JSON: the same for the same seed whatever executed it."""
        s, game = self.summary, self.game
        finished = s.finished
        out = {
            "game": game.name, "players": s.players, "games": s.games, "seed": self.seed, "options": game.options,
            "max_steps": self.config.max_steps, "finished": finished, "unfinished": s.games - finished,
            "ends": {end: s.ends[end] for end in ENDS},
            "length": describe(s.length), "decisions": describe(s.decisions),
            "wins_per_seat": list(s.wins),
            "win_rate_per_seat": [w / finished if finished else 0.0 for w in s.wins],
        }
        if has_rounds(game.model):
            out["rounds"] = describe(s.rounds)
        if s.first_error is not None:
            out["first_rule_error"] = {"game": s.first_error[0], "message": s.first_error[1]}
        stats = {}
        for name, text in self.config.stats:
            entry = {"expression": text, "per_game": describe(s.stats.get(name, Counter()))}
            if name in s.round_stats:
                entry["per_round"] = describe(s.round_stats[name])
            if name in s.stat_errors:
                count, (index, message) = s.stat_errors[name]
                entry["errors"] = {"count": count, "first_game": index, "first_message": message}
            stats[name] = entry
        out["stats"] = stats
        return out


def describe(counts: Counter) -> dict:
    """Count, mean, standard deviation (of the population), min, median, max and the histogram of a
    Counter of integers; computed from exact integer sums, so equal counts give equal floats."""
    items = sorted((k, v) for k, v in counts.items() if v)
    n = sum(v for _, v in items)
    if not n:
        return {"count": 0, "mean": None, "std": None, "min": None, "median": None, "max": None, "histogram": {}}
    s1 = sum(k * v for k, v in items)
    s2 = sum(k * k * v for k, v in items)
    return {"count": n, "mean": s1 / n, "std": math.sqrt(max(0, n * s2 - s1 * s1)) / n, "min": items[0][0],
            "median": _median(items, n), "max": items[-1][0], "histogram": {str(k): v for k, v in items}}


def _median(items: list[tuple[int, int]], n: int):
    def nth(i):  # the i-th smallest value, from 0
        seen = 0
        for k, v in items:
            seen += v
            if i < seen:
                return k
        raise IndexError(i)
    lo, hi = nth((n - 1) // 2), nth(n // 2)
    return lo if lo == hi else (lo + hi) / 2


def simulate(game_or_name, games: int = 1000, seed: int = 0, players: int | None = None,
             options: dict[str, str] | None = None, *, max_steps: int = DEFAULT_MAX_STEPS,
             stats: dict[str, str] | None = None, each_round: bool = False, client=None, dask=None,
             jobs: int | None = None, progress=None, chunk_games: int | None = None) -> Simulation:
    """Play `games` random games and summarize them; the same `seed` gives the same summary on every executor.

    `game_or_name` is a loaded game (its players and options are used) or what `rulekit.load` takes.
    `stats` maps names to expressions of the rule language, measured at the end of every game (and at
    the end of every round with `each_round`, for a spec with `rounds`). Where the games are played:
    a Dask `client`, or `dask=True` (a LocalCluster on this machine) or `dask="tcp://HOST:PORT"` (a
    running scheduler); otherwise `jobs` local processes, 1 meaning this process only; by default
    (None), the first games are played here and tell whether one process per core pays for the rest.
    `progress`: a bar over the chunks on stderr (default: when stderr is a terminal).
    """
    from . import executors, load

    if games < 1:
        raise RulekitError("the number of games must be at least 1")
    if max_steps < 1:
        raise RulekitError("max_steps must be at least 1")
    if isinstance(game_or_name, str):
        game = load(game_or_name, players, options)
    else:
        game = game_or_name
        if players is not None or options:
            game = load(spec_reference(game), players or game.num_players(), {**game.options, **(options or {})})
    config = SimulationConfig(spec_reference(game_or_name if isinstance(game_or_name, str) else game), game.num_players(),
                    tuple(sorted(game.options.items())), max_steps, tuple((stats or {}).items()), each_round)
    _compiled(config.spec, config.players, config.options, config.stats)  # bad expressions fail here, not remotely
    done, first = [], 0
    if jobs is None and not dask and client is None and (os.cpu_count() or 1) > 1:
        # Whether more processes pay depends on how long the games take: the first games, played here,
        # tell. Any split gives the same result, since every game has its own seed.
        pilot, first, seconds = _pilot(config, seed, games)
        done.append(pilot)
        if first == games:
            return Simulation(game, config, seed, merge(done, game.num_players()), 1, "in-process")
        rest, cores = seconds / first * (games - first), os.cpu_count() or 1
        jobs = None if PROCESS_START_UP + rest / cores < rest else 1  # processes when they finish sooner
    with executors.make(jobs=jobs, dask=dask, client=client) as executor:
        size = chunk_games or chunk_size(games - first, executor.workers)
        tasks = [(config, seed, first + start, first + stop) for start, stop in chunks(games - first, size)]
        done += executors.run(executor, play_chunk, tasks, f"simulating {game.name}", progress)
        name = executor.describe() if not first else f"in-process, then {executor.describe()}"
    return Simulation(game, config, seed, merge(done, game.num_players()), len(done), name)


PILOT_SECONDS = 0.5  # games played in this process before choosing where the rest are played
PROCESS_START_UP = 3.0  # seconds to spawn local processes that load and compile a game (benchmarks/simulate.py)


def _pilot(config: SimulationConfig, seed: int, games: int) -> tuple[Summary, int, float]:
    """The first games of a run, played here for about PILOT_SECONDS: their summary, how many they were
    and the seconds they took."""
    started = time.perf_counter()
    summary = play_chunk(config, seed, 0, 1)
    played = 1
    while played < games and time.perf_counter() - started < PILOT_SECONDS:
        summary.add(play_chunk(config, seed, played, played + 1))
        played += 1
    return summary, played, time.perf_counter() - started
