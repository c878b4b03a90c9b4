"""Random-play speed of the reference engine against hand-written engines, per game and player count.

    python benchmarks/engine.py [GAME[:PLAYERS] ...] [--seconds S] [--slices K] [--json]

For each game and player count, player decisions per second, uniformly random play, in three loops:

  * OpenSpiel loop: the caller samples every chance outcome from `chance_outcomes()` and applies it;
  * auto_chance: `new_initial_state(seed=..., auto_chance=True)`, chance drawn inside the engine,
    the caller picks each decision from `legal_actions()`;
  * batch: `game.playouts(n, seed=...)`, the whole loop inside the engine;

each with its ratio to the hand-written engine of the game (benchmarks/baseline_<game>.py) where one
exists. The first two loops also get a ceiling: the same caller loop run against recorded games (each
answer read from a list, `apply_action` a step along it), the rate and ratio of an engine that took no
time at all. The caller's own work (its `random` calls, the lists it builds) bounds what any engine
can show in that loop. Every loop, the baseline included, runs in this process in K interleaved
slices of S/K seconds each, so that a change of machine load touches all of them alike. Without GAME: every bundled game
at every player count. `--profile LOOP` prints instead where one loop spends its time (the top of
a cProfile of S seconds of it, per game). `--clock cpu` counts the processor time of this process instead of the time
on the wall: on a machine that other work keeps busy, the figures then move much less.
"""
from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import pstats
import random
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import rulekit  # noqa: E402
from rulekit import resources  # noqa: E402

LOOPS = ("openspiel", "auto_chance", "batch")
CEILINGS = ("openspiel", "auto_chance")  # the loops whose caller does work of its own at each step
RECORDED = 200  # games recorded for a ceiling
BATCH = 16  # games per playouts() call
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter  # what every loop and slice is timed with (see --clock)


class Loop:
    """One way of playing, run slice by slice: decisions made and time spent, summed over slices."""

    def __init__(self, run):
        self.run = run  # run(seconds) -> decisions made, in whole games, taking at least `seconds`
        self.decisions = 0
        self.elapsed = 0.0

    def slice(self, seconds: float) -> None:
        start = clock()
        self.decisions += self.run(seconds)
        self.elapsed += clock() - start

    @property
    def rate(self) -> float:
        return self.decisions / self.elapsed if self.elapsed else 0.0


def openspiel_loop(game):
    rng = random.Random(0)
    games = 0

    def run(seconds: float) -> int:
        nonlocal games
        decisions = 0
        start = clock()
        while clock() - start < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                    decisions += 1
            games += 1
        return decisions

    return run


def auto_chance_loop(game):
    rng = random.Random(0)
    games = 0

    def run(seconds: float) -> int:
        nonlocal games
        decisions = 0
        start = clock()
        while clock() - start < seconds:
            state = game.new_initial_state(seed=games, auto_chance=True)
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
            games += 1
        return decisions

    return run


def batch_loop(game):
    games = 0

    def run(seconds: float) -> int:
        nonlocal games
        decisions = 0
        start = clock()
        while clock() - start < seconds:
            result = game.playouts(BATCH, seed=games)
            decisions += sum(result.lengths)
            games += BATCH
        return decisions

    return run


class Recorded:
    """A game played before, answering the caller's questions from the recording: an engine that takes
    no time. `steps`: (chance node?, its outcomes with their probabilities or the legal actions)."""

    __slots__ = ("steps", "at")

    def __init__(self, steps: list):
        self.steps = steps
        self.at = 0

    def is_terminal(self) -> bool:
        return self.at == len(self.steps)

    def is_chance_node(self) -> bool:
        return self.steps[self.at][0]

    def chance_outcomes(self) -> list:
        return self.steps[self.at][1]

    def legal_actions(self) -> list:
        return self.steps[self.at][1]

    def apply_action(self, _action) -> None:
        self.at += 1


class Recording:
    """Games of `game` recorded once, handed out in turn as `new_initial_state` hands out games: the
    stand-in game of a loop's ceiling."""

    def __init__(self, game, auto_chance: bool, games: int = RECORDED):
        rng = random.Random(1)
        self.games = []
        for seed in range(games):
            state = game.new_initial_state(seed=seed, auto_chance=auto_chance)
            steps = []
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    steps.append((True, outcomes))
                    state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
                else:
                    legal = state.legal_actions()
                    steps.append((False, legal))
                    state.apply_action(rng.choice(legal))
            self.games.append(steps)
        self.next = 0

    def new_initial_state(self, seed=None, auto_chance: bool = False) -> Recorded:
        steps = self.games[self.next]
        self.next = (self.next + 1) % len(self.games)
        return Recorded(steps)


def baseline_loop(name: str, players: int):
    try:
        module = importlib.import_module(f"baseline_{name}")
    except ImportError:
        return None
    rng = random.Random(0)

    def run(seconds: float) -> int:
        decisions = 0
        start = clock()
        while clock() - start < seconds:
            decisions += module.play(players, rng)[0]
        return decisions

    return run


def measure(name: str, players: int, seconds: float, slices: int) -> dict:
    game = rulekit.load(name, players=players)
    loops = {"openspiel": Loop(openspiel_loop(game)), "auto_chance": Loop(auto_chance_loop(game)),
             "batch": Loop(batch_loop(game))}
    loops["openspiel_ceiling"] = Loop(openspiel_loop(Recording(game, auto_chance=False)))
    loops["auto_chance_ceiling"] = Loop(auto_chance_loop(Recording(game, auto_chance=True)))
    base = baseline_loop(name, players)
    if base is not None:
        loops["baseline"] = Loop(base)
    for _ in range(slices):
        for loop in loops.values():
            loop.slice(seconds / slices)
    row = {"game": name, "players": players}
    baseline = loops["baseline"].rate if "baseline" in loops else None
    row["baseline"] = baseline
    for key in (*LOOPS, *(f"{loop}_ceiling" for loop in CEILINGS)):
        rate = loops[key].rate
        row[key] = rate
        row[f"{key}_ratio"] = rate / baseline if baseline else None
    return row


def profile(name: str, players: int, loop: str, seconds: float, top: int = 25) -> None:
    """The functions one loop spends most time in, itself (cProfile's tottime), after a warm-up."""
    game = rulekit.load(name, players=players)
    run = {"openspiel": openspiel_loop, "auto_chance": auto_chance_loop, "batch": batch_loop}[loop](game)
    run(min(0.5, seconds / 4))  # compiled code and first draws out of the way
    profiler = cProfile.Profile()
    profiler.enable()
    decisions = run(seconds)
    profiler.disable()
    print(f"{name}, {players} players, {loop}: {decisions:,} decisions")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(top)


def targets(args) -> list[tuple[str, int]]:
    out = []
    for given in args.games or resources.bundled_games():
        name, _, count = given.partition(":")
        model = rulekit.Spec.find(name).model
        counts = [int(count)] if count else range(model.min_players, model.max_players + 1)
        out += [(name, players) for players in counts]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*", metavar="GAME[:PLAYERS]",
                        help="games to measure, optionally at one player count (default: every bundled game, "
                             "every player count)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per loop and configuration (default: 3)")
    parser.add_argument("--slices", type=int, default=6, help="interleaved slices the time is cut into (default: 6)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="time on the wall (default) or processor time of this process (cpu)")
    parser.add_argument("--profile", choices=LOOPS, metavar="LOOP",
                        help=f"profile one loop ({', '.join(LOOPS)}) instead of measuring: the top of a cProfile")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    if args.profile:
        for name, players in targets(args):
            profile(name, players, args.profile, args.seconds)
        return
    rows = [measure(name, players, args.seconds, max(1, args.slices)) for name, players in targets(args)]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    table = Table(title="rulekit engine: decisions/s in uniformly random play on this machine "
                        "(ratio to the hand-written engine; ceiling: the ratio of the same loop over recorded "
                        "games, an engine that takes no time)")
    table.add_column("game")
    table.add_column("players", justify="right")
    table.add_column("hand-written", justify="right")
    for key in LOOPS:
        table.add_column(key.replace("_", " ") if key != "openspiel" else "OpenSpiel loop", justify="right")

    def cell(row, key) -> str:
        rate, ratio = row[key], row.get(f"{key}_ratio")
        if rate is None:
            return "-"
        text = f"{rate:,.0f}" + (f" ({ratio:.2f})" if ratio is not None else "")
        if key in CEILINGS and row[f"{key}_ceiling_ratio"] is not None:
            text += f"\nceiling {row[f'{key}_ceiling_ratio']:.2f}"
        return text

    for row in rows:
        table.add_row(row["game"], str(row["players"]), cell(row, "baseline"), *(cell(row, key) for key in LOOPS))
    Console(width=max(Console().width, 120)).print(table)


if __name__ == "__main__":
    main()
