"""What the silent-case probes cost `rulekit check`: for each bundled spec at its default options and
every player count, the time to compile the engine without and with probes, and the time of the same
seeded random games (the check's random play) in each build. Run by hand:

    python benchmarks/probes.py [GAMES]
"""
from __future__ import annotations

import random
import sys
import time

from rich.console import Console
from rich.table import Table

from rulekit import resources
from rulekit.engine import Game
from rulekit.pipeline import Spec


def _play(game: Game, games: int, max_decisions: int = 5000) -> float:
    """Seconds for `games` seeded random games, chance drawn by the engine, as the check plays them."""
    t = time.perf_counter()
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed, auto_chance=True)
        decisions = 0
        while not state.is_terminal() and state.legal and decisions < max_decisions:
            state.apply_action(rng.choice(state.legal))
            decisions += 1
    return time.perf_counter() - t


def main(games: int = 100) -> None:
    table = Table(title=f"silent-case probes: compile and {games} random games per player count (seconds)")
    for column in ("spec", "compile", "compile with probes", "play", "play with probes", "sites", "reached"):
        table.add_column(column, justify="right" if column != "spec" else "left")
    for name in resources.bundled_games():
        spec = Spec.find(name)
        model = spec.model
        compile_plain = compile_probed = play_plain = play_probed = 0.0
        sites = reached = 0
        for players in range(model.min_players, model.max_players + 1):
            config = spec.config(players)
            t = time.perf_counter()
            plain = Game(config, spec)
            compile_plain += time.perf_counter() - t
            t = time.perf_counter()
            probed = Game(config, spec, probes=True)
            compile_probed += time.perf_counter() - t
            sites += len(probed.probe_sites)
            play_plain += _play(plain, games)
            play_probed += _play(probed, games)
            reached += len(probed.probe_hits)
        table.add_row(name, f"{compile_plain:.2f}", f"{compile_probed:.2f}", f"{play_plain:.2f}", f"{play_probed:.2f}",
                      str(sites), str(reached))
    Console().print(table)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
