"""Random-play speed of the reference engine, per game and player count.

    python benchmarks/engine.py [--seconds S] [GAME ...]

Each figure is the best of --repeat runs (timing noise on a shared machine only ever slows a run).
Prints, for each bundled game and player count:
  * decisions/s: player decisions per second, chance drawn inside the engine (auto_chance);
  * steps/s: every applied action per second, chance nodes included, with chance
    outcomes sampled by the caller from chance_outcomes() as an OpenSpiel loop does;
  * games/s in both modes;
  * where a hand-written baseline of the game exists (benchmarks/baseline_*.py), its
    decisions/s, measured in the same process, and the ratio rulekit / baseline.
"""
from __future__ import annotations

import argparse
import importlib
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


def _auto(game, seconds: float) -> tuple[float, float]:
    rng = random.Random(0)
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state(seed=games, auto_chance=True)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed


def _explicit(game, seconds: float) -> tuple[float, float]:
    rng = random.Random(0)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                actions = [a for a, _ in outcomes]
                action = rng.choices(actions, weights=[p for _, p in outcomes])[0]
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def _baseline(name: str, players: int, seconds: float) -> tuple[float] | None:
    try:
        module = importlib.import_module(f"baseline_{name}")
    except ImportError:
        return None
    rng = random.Random(0)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        made, _ = module.play(players, rng)
        decisions += made
    return (decisions / (time.perf_counter() - start),)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*", help="games to measure (default: every bundled game)")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per run (default: 1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept (default: 3)")
    args = parser.parse_args()
    table = Table(title="rulekit engine: random play on this machine")
    for column in ("game", "players", "decisions/s", "games/s", "steps/s (chance nodes)", "games/s (chance nodes)",
                   "baseline decisions/s", "rulekit / baseline"):
        table.add_column(column, justify="right" if column not in ("game",) else "left")
    for name in args.games or resources.bundled_games():
        model = rulekit.Spec.find(name).model
        for players in range(model.min_players, model.max_players + 1):
            game = rulekit.load(name, players=players)
            best = lambda run: max((run() for _ in range(args.repeat)), key=lambda r: r[0] if r else 0)  # noqa: E731
            decisions, games_auto = best(lambda: _auto(game, args.seconds))
            steps, games_explicit = best(lambda: _explicit(game, args.seconds))
            base = best(lambda: _baseline(name, players, args.seconds))
            base = base[0] if base else None
            table.add_row(name, str(players), f"{decisions:,.0f}", f"{games_auto:,.0f}", f"{steps:,.0f}",
                          f"{games_explicit:,.0f}", f"{base:,.0f}" if base else "-",
                          f"{decisions / base:.2f}" if base else "-")
    Console(width=max(Console().width, 150)).print(table)


if __name__ == "__main__":
    main()
