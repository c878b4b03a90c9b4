"""The engine of another revision against the engine of this checkout, in one process: what a change gains.

    python benchmarks/engine_revisions.py REV [GAME[:PLAYERS] ...] [--seconds S] [--slices K] [--clock cpu|wall] [--json]

From one process to the next, this machine's speed moves by a tenth or more: more than most changes to
the engine gain. So both engines run here, in one process: the package of revision REV (`git archive`,
with the specs, grammar and checks of that revision) is imported beside this checkout's under another
name (its modules import each other relatively), and each of the three loops of `engine.py` (OpenSpiel
loop, auto_chance, batch) runs over both in K interleaved slices of S/K seconds, the two taking turns
to go first. Printed: decisions/s before (REV) and after (this checkout), and after / before.

A speed-up counts only if both play the same games: the lengths, returns and ends of a batch of games
from the same seeds are compared first, and a difference is printed as one (a change of semantics, not
of speed). Without GAME: every bundled game at every player count.
"""
from __future__ import annotations

import argparse
import importlib
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import engine as bench  # noqa: E402 - the loops and the clock of benchmarks/engine.py

import rulekit  # noqa: E402

SAME_GAMES = 40  # games from the same seeds that both engines must play alike
FOLDERS = ("rulekit", "specs", "grammar", "checks")  # what a revision's package reads


class RevisionError(Exception):
    """A revision that cannot be exported (no git, an unknown revision, a folder it lacks)."""


def export(rev: str, into: Path):
    """Revision `rev`'s package, unpacked with the folders it reads into `into` and imported under a
    name of its own."""
    try:
        archive = subprocess.run(["git", "-C", str(HERE.parent), "archive", "--format=tar", rev, *FOLDERS],
                                 capture_output=True, check=True).stdout
    except FileNotFoundError as exc:
        raise RevisionError("git is needed to export a revision") from exc
    except subprocess.CalledProcessError as exc:
        raise RevisionError(f"git archive {rev}: {exc.stderr.decode(errors='replace').strip()}") from exc
    safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # the filter came in Python 3.11.4
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, **safe)
    name = "rulekit_at_" + re.sub(r"\W", "_", rev)
    (into / "rulekit").rename(into / name)
    sys.path.insert(0, str(into))
    return importlib.import_module(name)


def games_of(game) -> tuple:
    result = game.playouts(SAME_GAMES, seed=7)
    return result.lengths, result.returns, result.ends


def measure(old_package, name: str, players: int, seconds: float, slices: int) -> dict:
    old, new = old_package.load(name, players=players), rulekit.load(name, players=players)
    row = {"game": name, "players": players, "same_games": games_of(old) == games_of(new)}
    loops = {"openspiel": bench.openspiel_loop, "auto_chance": bench.auto_chance_loop, "batch": bench.batch_loop}
    for key, make in loops.items():
        pair = [bench.Loop(make(old)), bench.Loop(make(new))]
        for loop in pair:  # each engine's code compiled and its first draws made before any slice counts
            loop.run(min(0.2, seconds / slices / 4))
        for turn in range(slices):
            for loop in pair if turn % 2 == 0 else reversed(pair):
                loop.slice(seconds / slices)
        before, after = pair[0].rate, pair[1].rate
        row[key] = {"before": before, "after": after, "ratio": after / before if before else None}
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rev", metavar="REV", help="the git revision to compare with (a commit, a branch, a tag)")
    parser.add_argument("games", nargs="*", metavar="GAME[:PLAYERS]",
                        help="games to measure, optionally at one player count (default: every bundled game, "
                             "every player count)")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time per loop, engine and configuration (default: 3)")
    parser.add_argument("--slices", type=int, default=6, help="interleaved slices the time is cut into (default: 6)")
    parser.add_argument("--clock", choices=sorted(bench.CLOCKS), default="cpu",
                        help="processor time of this process (default) or time on the wall")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    args = parser.parse_args()
    bench.clock = bench.CLOCKS[args.clock]
    try:
        targets = bench.targets(args)
    except rulekit.RulekitError as exc:
        print(f"engine_revisions.py: {exc}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="rulekit-rev-") as tmp:
        try:
            old_package = export(args.rev, Path(tmp))
        except RevisionError as exc:
            print(f"engine_revisions.py: {exc}", file=sys.stderr)
            return 2
        rows = []
        for name, players in targets:
            try:
                rows.append(measure(old_package, name, players, args.seconds, max(1, args.slices)))
            except Exception as exc:  # noqa: BLE001 - a game the other revision does not have, or cannot load
                print(f"engine_revisions.py: {name} with {players} players not compared: {exc}", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    table = Table(title=f"rulekit engine: decisions/s in uniformly random play, {args.rev} (before) against this "
                        "checkout (after), in one process")
    table.add_column("game")
    table.add_column("players", justify="right")
    for key in ("OpenSpiel loop", "auto chance", "batch"):
        table.add_column(key, justify="right")
    table.add_column("same games")

    def cell(figures: dict) -> str:
        return f"{figures['before']:,.0f} → {figures['after']:,.0f}\n× {figures['ratio']:.2f}"

    for row in rows:
        table.add_row(row["game"], str(row["players"]), *(cell(row[key]) for key in ("openspiel", "auto_chance", "batch")),
                      "yes" if row["same_games"] else "NO: a change of semantics")
    Console(width=max(Console().width, 110)).print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
