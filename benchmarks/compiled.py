"""Would a compiled backend pay? The engine's generated code compiled by Cython, against the same code run by Python.

    pip install cython          # and a C compiler (gcc) on the machine
    python benchmarks/compiled.py [GAME[:PLAYERS] ...] [--seconds S] [--slices K]

Issue 14 allows a compiled backend only where it beats the pure-Python engine by a wide margin. This
measures the cheapest such backend: the whole-game code (`game.whole_games`, the batch API) and the
stepping code (`game.stepping`, the `auto_chance` loop), exactly as rulekit generates them, compiled to C
by Cython with no type annotations added. For each game it first checks that the compiled code plays the
same games as the Python code from the same seeds (returns, lengths, end kinds, histories), then times
both in this process, in K interleaved slices, and prints the compile time and the speed-up. Without GAME:
Chocobo with 4 players and Chucky with 3, the configurations of issue 14's table.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import rulekit  # noqa: E402
from engine import Loop, auto_chance_loop, batch_loop  # noqa: E402

DEFAULT_TARGETS = ("chocobo:4", "chucky:3")
SAME_GAMES = 200  # games each backend plays from the same seeds before any timing


def compile_flow(program, name: str, workdir: Path) -> tuple[object, float]:
    """`program`'s generated module compiled by Cython: its FLOW, reading the same namespace as the Python
    one, and the build's seconds. Every name of that namespace the module does not define itself is
    declared at the module's top (Cython refuses an undeclared global) and then set to the object the
    Python module holds."""
    namespace = program.flow.__globals__
    defined = {node.name for node in ast.parse(program.source).body if isinstance(node, ast.FunctionDef)}
    names = [key for key in namespace if key.isidentifier() and not key.startswith("__") and key not in defined]
    path = workdir / f"{name}.py"
    path.write_text("".join(f"{key} = None\n" for key in names) + program.source)
    start = time.perf_counter()
    built = subprocess.run([sys.executable, "-m", "Cython.Build.Cythonize", "-3", "-i", "-q", str(path)],
                           cwd=workdir, capture_output=True, text=True)
    took = time.perf_counter() - start
    if built.returncode:
        raise SystemExit(f"Cython could not build {name}:\n{built.stderr[-2000:]}")
    library = next(workdir.glob(f"{name}.*.so"))
    spec = importlib.util.spec_from_file_location(name, library)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    vars(module).update({key: namespace[key] for key in names})
    return module.FLOW, took


def same_batch(game, program, flows) -> bool:
    """The batch games of both flows from the same seeds agree in every field."""
    results = []
    for flow in flows:
        program.flow = flow
        played = game.playouts(SAME_GAMES, seed=1)
        results.append((played.returns, played.lengths, played.steps, played.ends, played.winners))
    return results[0] == results[1]


def same_steps(game, program, flows) -> bool:
    """The auto-chance games of both flows, the caller's choices from one seeded rng, give the same histories."""
    histories = []
    for flow in flows:
        program.flow = flow
        rng, played = random.Random(1), []
        for seed in range(SAME_GAMES // 4):
            state = game.new_initial_state(seed=seed, auto_chance=True)
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
            played.append((list(state.history), state.returns()))
        histories.append(played)
    return histories[0] == histories[1]


def measure(name: str, players: int, seconds: float, slices: int, workdir: Path) -> list[dict]:
    game = rulekit.load(name, players=players)
    rows = []
    for loop_name, program, make_loop, same in (("batch", game.whole_games, batch_loop, same_batch),
                                                ("auto_chance", game.stepping, auto_chance_loop, same_steps)):
        if program is None:
            continue
        python_flow = program.flow
        compiled_flow, build = compile_flow(program, f"{name}{players}_{loop_name}", workdir)
        identical = same(game, program, (python_flow, compiled_flow))
        loops = {"python": Loop(make_loop(game)), "cython": Loop(make_loop(game))}
        for _ in range(slices):
            for backend, flow in (("python", python_flow), ("cython", compiled_flow)):
                program.flow = flow
                loops[backend].slice(seconds / slices)
        program.flow = python_flow
        rows.append({"game": name, "players": players, "loop": loop_name, "build": build, "identical": identical,
                     "python": loops["python"].rate, "cython": loops["cython"].rate})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*", metavar="GAME[:PLAYERS]", default=list(DEFAULT_TARGETS),
                        help="games to measure at one player count each (default: chocobo:4 chucky:3)")
    parser.add_argument("--seconds", type=float, default=6.0, help="time per backend and loop (default: 6)")
    parser.add_argument("--slices", type=int, default=6, help="interleaved slices the time is cut into (default: 6)")
    args = parser.parse_args()
    if importlib.util.find_spec("Cython") is None:
        raise SystemExit("this benchmark needs Cython: pip install cython (and a C compiler such as gcc)")
    rows = []
    with tempfile.TemporaryDirectory(prefix="rulekit-cython-") as tmp:
        for given in args.games:
            name, _, count = given.partition(":")
            players = int(count) if count else rulekit.Spec.find(name).model.min_players
            rows += measure(name, players, args.seconds, max(1, args.slices), Path(tmp))
    table = Table(title="the engine's generated code compiled by Cython (no annotations) against Python: "
                        "decisions/s in uniformly random play, same process, interleaved")
    for column, justify in (("game", "left"), ("players", "right"), ("loop", "left"), ("same games", "left"),
                            ("Cython build", "right"), ("Python", "right"), ("Cython", "right"), ("speed-up", "right")):
        table.add_column(column, justify=justify)
    for row in rows:
        table.add_row(row["game"], str(row["players"]), row["loop"].replace("_", " "),
                      "yes" if row["identical"] else "NO", f"{row['build']:.1f} s", f"{row['python']:,.0f}",
                      f"{row['cython']:,.0f}", f"{row['cython'] / row['python']:.2f}")
    Console(width=max(Console().width, 120)).print(table)


if __name__ == "__main__":
    main()
