"""Speed of the loop search that `rulekit check` runs for termination, against the engine alone.

    python benchmarks/search.py [GAME:PLAYERS ...] [--states N] [--slices K] [--clock cpu|wall]

Per game and player count, states per second of two loops, in K interleaved slices in this process:

  * search: `verify.endless.search` under the default options, `--states` states per call, seeds
    counting up: random games watched for a repeated state, steered walks and small explorations, each
    state forked, played, keyed and (in the walks) measured against a target;
  * engine: the bare cost of a state to any search, a walk that forks every option of each decision
    (every outcome of a chance event), plays each and goes on with one at random; no key, no distance.

The ratio is the search's rate over the engine's: the share of the engine's speed that the search keeps.
The work of one search call is fixed by its seed (the same states every run), so a change of the
search's own code shows as a change of its rate and ratio; a change of the engine moves both loops.
Without GAME: chicken:4 chocobo:3 cranky:5 chucky:3 chuche:3.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rulekit import load  # noqa: E402
from rulekit.verify import endless  # noqa: E402

DEFAULT = ("chicken:4", "chocobo:3", "cranky:5", "chucky:3", "chuche:3")
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


class Loop:
    """One loop, run slice by slice: states made and time spent, summed over the slices."""

    def __init__(self, run, clock):
        self.run, self.clock = run, clock
        self.states = 0
        self.elapsed = 0.0

    def slice(self) -> None:
        start = self.clock()
        self.states += self.run()
        self.elapsed += self.clock() - start

    @property
    def rate(self) -> float:
        return self.states / self.elapsed if self.elapsed else 0.0


def search_loop(game, states: int):
    seed = 0

    def run() -> int:
        nonlocal seed
        found = endless.search(game, False, states, seed=seed)
        seed += 1
        return found.states

    return run


def engine_loop(game, states: int):
    """Forks and plays every option of each state of a random walk, until `states` states were made."""
    rng = random.Random(0)

    def run() -> int:
        made = 0
        while made < states:
            state = game.new_initial_state(seed=rng.randrange(1 << 30)).fork()
            for _ in range(2000):
                if state.over or not state.legal or made >= states:
                    break
                children = []
                for action in state.legal:
                    child = state.fork()
                    try:
                        child.apply_action(action)
                    except Exception:  # noqa: BLE001 - a refused move is skipped, as the search skips it
                        continue
                    made += 1
                    if not child.over:
                        children.append(child)
                if not children:
                    break
                state = rng.choice(children)
        return made

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="*", metavar="GAME:PLAYERS", help="games and player counts")
    parser.add_argument("--states", type=int, default=10_000, help="states per search call and engine slice")
    parser.add_argument("--slices", type=int, default=3, help="interleaved slices of each loop")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="processor time of this process (default: steadier on a busy machine) or wall time")
    args = parser.parse_args(argv)
    clock = CLOCKS[args.clock]
    table = Table("game", "players", "engine states/s", "search states/s", "ratio",
                  title=f"loop search against the engine alone ({args.clock} time, {args.slices} slices)")
    for config in args.configs or DEFAULT:
        name, _, players = config.partition(":")
        game = load(name, players=int(players) if players else None)
        loops = [Loop(engine_loop(game, args.states), clock), Loop(search_loop(game, args.states), clock)]
        for _ in range(args.slices):
            for loop in loops:
                loop.slice()
        engine, search = loops
        table.add_row(name, str(game.num_players()), f"{engine.rate:,.0f}", f"{search.rate:,.0f}",
                      f"{search.rate / engine.rate:.2f}" if engine.rate else "-")
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
