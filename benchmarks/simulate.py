"""When does a cluster pay? `rulekit.simulate` on each executor, on this machine.

    python benchmarks/simulate.py [--game GAME] [--players P] [--games N] [--tasks T]

Each figure is the best of --repeat runs. Prints two tables:
  * games/s of one run of N games (the same seed: every executor must give the same summary, which is
    checked) for the in-process loop, 2 local processes, and a Dask LocalCluster of 1 and 2 worker
    processes; the start-up (spawning processes, starting the cluster, each worker loading and compiling
    the game once) is shown apart and is included in "games/s, with start-up";
  * the overhead per task: T empty chunks (no games, the game already compiled on every worker), so
    what is left is submitting a task, running it and sending its summary back.

A run pays on a cluster when its games take much longer than the start-up and its chunks much longer
than the overhead per task.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rulekit  # noqa: E402
from rulekit import executors  # noqa: E402
from rulekit.simulation import SimulationConfig, chunk_size, chunks, merge, play_chunk  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="chocobo")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--tasks", type=int, default=200, help="empty chunks, for the overhead per task")
    ap.add_argument("--repeat", type=int, default=3, help="runs per executor; the best is shown")
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    from rulekit.dask_executor import DaskExecutor

    game = rulekit.load(args.game, args.players)
    config = SimulationConfig(args.game, game.num_players(), tuple(sorted(game.options.items())))
    rows, overhead, reference = [], [], None

    def measure(label: str, workers: int, make, start_up: float):
        nonlocal reference
        with make() as executor:
            t = time.perf_counter()
            executors.run(executor, play_chunk, [(config, 0, 0, 0)] * max(1, executor.workers) * 2, "warm-up", False)
            warm = time.perf_counter() - t
            seconds = per_task = float("inf")
            for _ in range(args.repeat):  # the best run: noise on a shared machine only ever slows one
                t = time.perf_counter()
                sim = _simulate_on(executor, game, args.games)
                seconds = min(seconds, time.perf_counter() - t)
                t = time.perf_counter()
                executors.run(executor, play_chunk, [(config, 0, 0, 0)] * args.tasks, "empty", False)
                per_task = min(per_task, (time.perf_counter() - t) / args.tasks)
        if reference is None:
            reference = sim
        assert sim == reference, f"{label}: another summary than the in-process loop's"
        rows.append((label, workers, start_up + warm, seconds, args.games / seconds,
                     args.games / (seconds + start_up + warm)))
        overhead.append((label, workers, per_task))

    measure("in-process loop", 1, executors.InProcess, 0.0)
    measure("local processes", 2, lambda: executors.LocalProcesses(2), 0.0)
    for n in (1, 2):
        t = time.perf_counter()
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        start_up = time.perf_counter() - t
        measure("Dask LocalCluster", n, lambda c=client: DaskExecutor(client=c), start_up)
        client.close()
        cluster.close()

    out = Console(width=120)
    title = f"{game.model.title}, {game.num_players()} players, {args.games} random games (same seed, same summary)"
    table = Table("executor", "workers", "start-up s", "run s", "games/s", "games/s, with start-up", "speed-up",
                  title=title)
    base = rows[0][4]
    for label, workers, start_up, seconds, rate, with_start in rows:
        table.add_row(label, str(workers), f"{start_up:.2f}", f"{seconds:.2f}", f"{rate:,.0f}", f"{with_start:,.0f}",
                      f"{rate / base:.2f}x")
    out.print(table)
    tasks = Table("executor", "workers", "per task (ms)", title=f"overhead per task: {args.tasks} empty chunks")
    for label, workers, per_task in overhead:
        tasks.add_row(label, str(workers), f"{per_task * 1000:.2f}")
    out.print(tasks)
    return 0


def _simulate_on(executor, game, games: int):
    """The summary of one run on an executor that is already started (its start-up is measured apart)."""
    config = SimulationConfig(game.name, game.num_players(), tuple(sorted(game.options.items())))
    tasks = [(config, 0, a, b) for a, b in chunks(games, chunk_size(games, executor.workers))]
    return merge(executors.run(executor, play_chunk, tasks, "games", False), game.num_players())


if __name__ == "__main__":
    sys.exit(main())
