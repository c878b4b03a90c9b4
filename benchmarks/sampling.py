"""Speed of the sampled checks' random play (`rulekit.checking.sampling.play_sample`), per game and player
count: every game played through the engine's `State`, against the watched whole-game code
(`rulekit.engine.watched`), which plays the same games and gives the same tally.

    python benchmarks/sampling.py [GAME[:PLAYERS] ...] [--seconds S] [--slices K] [--json]

Both ways run in this process, in K interleaved slices of S/K seconds each (processor time), each slice
playing games from a new seed, so a change of machine load touches both alike. The rates are states
tested per second (a state: each decision point and each end, where every invariant and target is
tested); the ratio is watched over `State`. `compile` is the one-off cost of the watched code, which
`check` pays only where a configuration has many states still to play (`sampling.WATCH_WORTH`).
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


def measure(name: str, players: int, seconds: float, slices: int) -> dict:
    spec = Spec.find(name)
    options = dict(spec.model.default_options())
    loaded = spec.engine(players, options, probes=True)
    start = time.process_time()
    watched = loaded.watched_games
    compile_seconds = time.process_time() - start
    if watched is None:
        return {"game": name, "players": players, "watched": None}
    totals = {True: [0, 0.0], False: [0, 0.0]}
    seed = 0
    for _ in range(slices):
        for fast in (False, True):
            until = time.process_time() + seconds / slices / 2
            while time.process_time() < until:
                start = time.process_time()
                tally = sampling.play_sample(spec, players, options, GAMES_PER_CALL, 10**9, MAX_STEPS, seed,
                                             watched=fast)
                totals[fast][0] += tally.steps
                totals[fast][1] += time.process_time() - start
                seed += GAMES_PER_CALL
    state_rate, watched_rate = (totals[f][0] / totals[f][1] for f in (False, True))
    return {"game": name, "players": players, "state": round(state_rate), "watched": round(watched_rate),
            "ratio": round(watched_rate / state_rate, 2), "compile": round(compile_seconds, 3)}


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
    worth, sampling.WATCH_WORTH = sampling.WATCH_WORTH, 0  # the watched code from the first game on
    rows = []
    try:
        for name, players in targets:
            rows.append(measure(name, players, args.seconds, args.slices))
    finally:
        sampling.WATCH_WORTH = worth
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    table = Table(title="sampled checks: states tested per processor second")
    for column in ("game", "players", "State", "watched", "ratio", "compile (s)"):
        table.add_column(column, justify="left" if column == "game" else "right")
    for row in rows:
        if row["watched"] is None:
            table.add_row(row["game"], str(row["players"]), "", "not compiled", "", "")
            continue
        table.add_row(row["game"], str(row["players"]), f"{row['state']:,}", f"{row['watched']:,}",
                      f"{row['ratio']:.2f}", f"{row['compile']:.3f}")
    Console().print(table)


if __name__ == "__main__":
    main()
