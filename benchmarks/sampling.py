"""Speed of the sampled checks' random play (`rulekit.checking.sampling.play_sample`), per game and player
count: every game played through the engine's `State` with the engine's tests one by one, against the same
with the invariants and targets compiled as one test (`rulekit.engine.statetests`), and against the watched
whole-game code (`rulekit.engine.watched`); all three play the same games and give the same tally.

    python benchmarks/sampling.py [GAME[:PLAYERS] ...] [--seconds S] [--slices K] [--json]

Both ways run in this process, in K interleaved slices of S/K seconds each (processor time), each slice
playing games from a new seed, so a change of machine load touches both alike. The rates are states
tested per second (a state: each decision point and each end, where every invariant and target is
tested); each ratio is over the first column. `compile` is the one-off cost of the watched code and the
compiled tests, which `check` pays only where a configuration has many states still to play
(`sampling.WATCH_WORTH`, `sampling.TESTS_WORTH`).
Without GAME: every bundled game at its smallest and largest player count, default options.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rulekit import resources  # noqa: E402
from rulekit.checking import sampling  # noqa: E402
from rulekit.pipeline import Spec  # noqa: E402

GAMES_PER_CALL = 150  # one long sample: its first games, witnesses and traces, go through State either way
MAX_STEPS = 5000


MODES = {  # name -> (watched, TESTS_WORTH): how `play_sample` plays
    "state": (False, 10**12),  # every game through State, the engine's tests one by one
    "state+tests": (False, 0),  # the same, the tests compiled as one (`Game.state_tests`)
    "watched": (True, 0),  # the watched whole-game code (and the compiled tests)
}


def measure(name: str, players: int, seconds: float, slices: int) -> dict:
    spec = Spec.find(name)
    options = dict(spec.model.default_options())
    loaded = spec.engine(players, options, probes=True)
    start = time.process_time()
    watched = loaded.watched_games
    loaded.state_tests  # noqa: B018 - compiled outside the timing, as the watched code is
    compile_seconds = time.process_time() - start
    if watched is None:
        return {"game": name, "players": players, "watched": None}
    totals = {mode: [0, 0.0] for mode in MODES}
    seed = 0
    for _ in range(slices):
        for mode, (fast, tests_worth) in MODES.items():
            sampling.TESTS_WORTH = tests_worth
            until = time.process_time() + seconds / slices / len(MODES)
            while time.process_time() < until:
                start = time.process_time()
                tally = sampling.play_sample(spec, players, options, GAMES_PER_CALL, 10**9, MAX_STEPS, seed,
                                             watched=fast)
                totals[mode][0] += tally.steps
                totals[mode][1] += time.process_time() - start
                seed += GAMES_PER_CALL
    rates = {mode: states / spent for mode, (states, spent) in totals.items()}
    return {"game": name, "players": players, **{mode: round(rate) for mode, rate in rates.items()},
            "ratio_tests": round(rates["state+tests"] / rates["state"], 2),
            "ratio_watched": round(rates["watched"] / rates["state"], 2), "compile": round(compile_seconds, 3)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", metavar="GAME[:PLAYERS]")
    parser.add_argument("--seconds", type=float, default=4.0, help="processor seconds per game and count (default 4)")
    parser.add_argument("--slices", type=int, default=4, help="interleaved slices (default 4)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    targets = []
    for item in args.games or resources.bundled_games():
        name, _, count = str(item).partition(":")
        model = Spec.find(name).model
        counts = [int(count)] if count else sorted({model.min_players, model.max_players})
        targets += [(name, n) for n in counts]
    worth = sampling.WATCH_WORTH, sampling.TESTS_WORTH
    sampling.WATCH_WORTH = 0  # the watched code from the first game on
    rows = []
    try:
        for name, players in targets:
            rows.append(measure(name, players, args.seconds, args.slices))
    finally:
        sampling.WATCH_WORTH, sampling.TESTS_WORTH = worth
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    table = Table(title="sampled checks: states tested per processor second")
    columns = ("game", "players", "State", "State, tests compiled", "ratio", "watched", "ratio", "compile (s)")
    for column in columns:
        table.add_column(column, justify="left" if column == "game" else "right")
    for row in rows:
        if row["watched"] is None:
            table.add_row(row["game"], str(row["players"]), "", "", "", "not compiled", "", "")
            continue
        table.add_row(row["game"], str(row["players"]), f"{row['state']:,}", f"{row['state+tests']:,}",
                      f"{row['ratio_tests']:.2f}", f"{row['watched']:,}", f"{row['ratio_watched']:.2f}",
                      f"{row['compile']:.3f}")
    Console().print(table)


if __name__ == "__main__":
    main()
