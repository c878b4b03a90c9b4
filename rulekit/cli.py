"""The `rulekit` command line: check, play, simulate, games."""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import __version__, load, resources
from .checking import PlayBounds, check_spec
from .errors import RulekitError, SpecError
from .pipeline import Spec
from .report import render_text, to_json, to_sarif

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

DESCRIPTION = """\
rulekit makes tabletop rulebooks formal, executable and checked.

A game is a spec in the rulekit rule language (a .rules file beside the rulebook
it quotes). GAME is a bundled game's name (see `rulekit games`), a spec folder,
or a .rules file.
"""

EPILOG = """\
exit codes: 0 clean; 1 findings of error severity that no ambiguity or `expect`
acknowledges; 2 bad usage, or a spec that does not compile.

examples:
  rulekit check                         check every bundled spec
  rulekit check GAME --format json      findings as JSON, for CI
  rulekit simulate GAME --games 1000 --players 4 --seed 1
  rulekit play GAME --players 3         play in the terminal against random players
"""


class _Progress:
    """A progress bar on the terminal's stderr, silent otherwise."""

    def __init__(self, enabled: bool):
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=Console(stderr=True), transient=True,
                            disable=not enabled)
        self.task = None

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        self.bar.__exit__(*exc)

    def start(self, label: str, total: int) -> None:
        self.task = self.bar.add_task(label, total=total)

    def advance(self, steps: int = 1) -> None:
        self.bar.advance(self.task, steps)


def _options(pairs: list[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name or not value:
            raise RulekitError(f"--option takes NAME=VALUE, not {pair!r}")
        out[name.strip()] = value.strip()
    return out


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rulekit", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"rulekit {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser("check", help="validate specs: compile, quotes, coverage, claims, random play",
                       description="Validate specs against their rulebooks and their claimed properties.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("specs", nargs="*", metavar="SPEC|GAME", help="what to check (default: every bundled spec)")
    c.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="output format (default: text)")
    c.add_argument("--games", type=int, default=PlayBounds.games, metavar="N",
                   help=f"random games per player count under the default options (default: {PlayBounds.games})")
    c.add_argument("--variant-games", type=int, default=PlayBounds.variant_games, metavar="N",
                   help=f"random games per player count under each other option (default: {PlayBounds.variant_games})")
    c.add_argument("--play-budget", type=int, default=PlayBounds.play_budget, metavar="N",
                   help="stop starting random games for a player count once they made N decisions "
                        f"(default: {PlayBounds.play_budget}; under other options {PlayBounds.variant_budget}, "
                        "see --variant-budget)")
    c.add_argument("--variant-budget", type=int, default=PlayBounds.variant_budget, metavar="N",
                   help=f"the same budget under each non-default option (default: {PlayBounds.variant_budget})")
    c.add_argument("--explore-budget", type=float, default=PlayBounds.explore_budget, metavar="SECONDS",
                   help="explorer: seconds per game shared by its player counts, each also held to "
                        f"--time-limit (default: {PlayBounds.explore_budget}; 0: no shared limit)")
    c.add_argument("--jobs", type=int, default=0, metavar="N",
                   help="check N specs at once, one process each (default: one per CPU core)")
    c.add_argument("--max-steps", type=int, default=PlayBounds.max_steps, metavar="N",
                   help=f"decisions before a game counts as not ending (default: {PlayBounds.max_steps})")
    c.add_argument("--seed", type=int, default=0, help="seed of the random games (default: 0)")
    c.add_argument("--max-states", type=int, default=PlayBounds.max_states, metavar="N",
                   help=f"explorer: states per configuration before its verdicts are only bounded "
                   f"(default: {PlayBounds.max_states}; 0 turns the explorer off)")
    c.add_argument("--time-limit", type=float, default=PlayBounds.time_limit, metavar="SECONDS",
                   help=f"explorer: seconds per configuration (default: {PlayBounds.time_limit:g})")
    c.add_argument("--depth", type=int, default=None, metavar="N",
                   help="explorer: steps from the start (default: no limit)")
    c.add_argument("--solver-timeout", type=float, default=PlayBounds.solver_timeout, metavar="SECONDS",
                   help=f"Z3: seconds per query; a timeout is an unknown verdict (default: {PlayBounds.solver_timeout:g})")
    c.add_argument("--bmc-depth", type=int, default=PlayBounds.bmc_depth, metavar="N",
                   help=f"Z3 bounded model checking over the symbolic transition relation: steps from the start "
                   f"(default: {PlayBounds.bmc_depth})")
    c.add_argument("--max-k", type=int, default=PlayBounds.max_k, metavar="K",
                   help=f"Z3 k-induction: the largest k tried (default: {PlayBounds.max_k})")
    c.add_argument("--symbolic-time-limit", type=float, default=PlayBounds.symbolic_time_limit, metavar="SECONDS",
                   help=f"Z3 over the symbolic transition relation: seconds per configuration; what is left "
                   f"undecided is unknown or bounded (default: {PlayBounds.symbolic_time_limit:g})")
    c.add_argument("--all-options", action="store_true",
                   help="explore under every option of every ambiguity and report which options change which verdicts")
    c.add_argument("--deep-information", action="store_true",
                   help="information-flow check: ten times the games and re-deals of hidden cards, followed "
                   "three times longer (slower, finds rarer leaks)")
    c.add_argument("-v", "--verbose", action="store_true", help="also list notes (ambiguities) in full")

    s = sub.add_parser("simulate", help="random playouts with statistics",
                       description="Play random games and report game length and outcome per seat.")
    s.add_argument("game", metavar="GAME")
    s.add_argument("--games", type=int, default=1000, metavar="N", help="number of games (default: 1000)")
    s.add_argument("--players", type=int, default=None, metavar="P", help="players (default: the fewest allowed)")
    s.add_argument("--seed", type=int, default=0, help="seed (default: 0)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE", help="an ambiguity option (repeatable)")
    s.add_argument("--max-steps", type=int, default=PlayBounds.max_steps, metavar="N",
                   help=f"decisions before a game is cut off (default: {PlayBounds.max_steps})")
    s.add_argument("--json", action="store_true", help="print the statistics as JSON")

    g = sub.add_parser("play", help="play in the terminal against random players",
                       description="Play a game in the terminal. You see only what your seat may see; "
                       "the other seats and chance are played at random.")
    g.add_argument("game", metavar="GAME")
    g.add_argument("--players", type=int, default=None, metavar="N", help="players (default: the fewest allowed)")
    g.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default: 0)")
    g.add_argument("--seed", type=int, default=None, help="seed for chance and the random players")
    g.add_argument("--option", action="append", metavar="NAME=VALUE", help="an ambiguity option (repeatable)")

    sub.add_parser("games", help="list the bundled games")

    d = sub.add_parser("docs", help="build the documentation site (Sphinx) from the specs",
                       description="Build the rule docs: one page per game, the language reference, the API.")
    d.add_argument("--out", default="docs/_build/html", metavar="DIR", help="output folder (default: docs/_build/html)")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    out = Console(soft_wrap=True, highlight=False)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        if args.command == "check":
            return _check(args, out)
        if args.command == "simulate":
            return _simulate(args, out)
        if args.command == "play":
            return _play(args, out)
        if args.command == "games":
            return _games(out)
        if args.command == "docs":
            from .docsite import build_site
            return build_site(args.out, out)
        parser.print_help()
        return EXIT_USAGE
    except SpecError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    except RulekitError as exc:
        err.print(f"rulekit: error: {exc}", markup=False)
        return EXIT_USAGE
    except KeyboardInterrupt:
        err.print("interrupted")
        return 130


def _check_one(spec: Spec | str, bounds: PlayBounds, progress=None):
    """(report, None), or (None, the rendered errors) for a spec that does not compile."""
    try:
        spec = Spec.find(spec) if isinstance(spec, str) else spec
        return check_spec(spec, bounds, progress), None
    except SpecError as exc:
        return None, exc.render()


def _check(args, out: Console) -> int:
    for name in ("games", "variant_games", "play_budget", "variant_budget", "explore_budget", "jobs", "max_steps",
                 "max_states", "time_limit", "solver_timeout", "bmc_depth", "max_k", "symbolic_time_limit"):
        if getattr(args, name) < 0:
            raise RulekitError(f"--{name.replace('_', '-')} must not be negative")
    if args.depth is not None and args.depth < 0:
        raise RulekitError("--depth must not be negative")
    targets = args.specs or resources.bundled_games()
    bounds = PlayBounds(args.games, args.variant_games, args.max_steps, args.seed, max_states=args.max_states,
                        time_limit=args.time_limit, depth=args.depth, all_options=args.all_options,
                        solver_timeout=args.solver_timeout, play_budget=args.play_budget,
                        variant_budget=args.variant_budget, explore_budget=args.explore_budget,
                        bmc_depth=args.bmc_depth, max_k=args.max_k, symbolic_time_limit=args.symbolic_time_limit)
    bounds.deep_information = args.deep_information
    specs = [Spec.find(target) for target in targets]
    jobs = min(args.jobs or os.cpu_count() or 1, len(specs))
    reports, broken = [], []
    with _Progress(sys.stderr.isatty()) as progress:
        if jobs > 1:  # one spec per process: the games are independent, the cores are not shared
            progress.start(f"checking {len(specs)} specs on {jobs} cores", len(specs))
            # spawned, not forked: a forked child would inherit Z3's state from this process
            with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
                futures = [pool.submit(_check_one, target, bounds) for target in targets]
                for future in as_completed(futures):
                    progress.advance()
                results = [f.result() for f in futures]
        else:
            results = [_check_one(spec, bounds, progress) for spec in specs]
    for report, error in results:
        if error is None:
            reports.append(report)
        else:
            broken.append(error)
    for text in broken:
        print(text, file=sys.stderr)
    if args.format == "json":
        print(to_json(reports, __version__))
    elif args.format == "sarif":
        print(to_sarif(reports, __version__))
    else:
        render_text(reports, out, args.verbose)
    if broken:
        return EXIT_USAGE
    return EXIT_FINDINGS if any(f.fails for r in reports for f in r.findings) else EXIT_OK


def _games(out: Console) -> int:
    table = Table("game", "title", "players", "ambiguities")
    for name in resources.bundled_games():
        model = Spec.find(name).model
        table.add_row(name, model.title, f"{model.min_players}-{model.max_players}", str(len(model.ambiguities)))
    out.print(table)
    return EXIT_OK


def _simulate(args, out: Console) -> int:
    if args.games < 1:
        raise RulekitError("--games must be at least 1")
    game = load(args.game, players=args.players, options=_options(args.option))
    n = game.num_players()
    rng = random.Random(args.seed)
    lengths, decisions, wins, unfinished = [], [], [0] * n, 0
    with _Progress(sys.stderr.isatty()) as progress:
        progress.start(f"simulating {game.name}", args.games)
        for i in range(args.games):
            state = game.new_initial_state(seed=args.seed * 1_000_003 + i, auto_chance=True)
            made = 0
            while not state.is_terminal() and made < args.max_steps and state.legal:
                state.apply_action(rng.choice(state.legal))
                made += 1
            if state.is_terminal():
                lengths.append(len(state.history))
                decisions.append(made)
                for p in state.winners:
                    wins[p] += 1
            else:
                unfinished += 1
            progress.advance()
    finished = len(lengths)
    stats = {
        "game": game.name, "players": n, "games": args.games, "seed": args.seed, "options": game.options,
        "finished": finished, "unfinished": unfinished,
        "length": _summary(lengths), "decisions": _summary(decisions),
        "wins_per_seat": wins, "win_rate_per_seat": [w / finished if finished else 0.0 for w in wins],
    }
    if args.json:
        print(json.dumps(stats, indent=2))
        return EXIT_OK
    out.print(f"[bold]{game.model.title}[/], {n} players, {args.games} games, seed {args.seed}")
    table = Table("measure", "mean", "min", "median", "max")
    for label, key in (("steps (with chance)", "length"), ("decisions", "decisions")):
        s = stats[key]
        table.add_row(label, *(f"{s[k]:.1f}" if k == "mean" else str(s[k]) for k in ("mean", "min", "median", "max")))
    out.print(table)
    seats = Table("seat", "wins", "win rate")
    for p in range(n):
        seats.add_row(game.player_name(p), str(wins[p]), f"{stats['win_rate_per_seat'][p]:.1%}")
    out.print(seats)
    if unfinished:
        out.print(f"[yellow]{unfinished} game(s) had not ended after {args.max_steps} decisions[/]")
    return EXIT_OK


def _summary(xs: list[int]) -> dict:
    if not xs:
        return {"mean": 0.0, "min": 0, "median": 0, "max": 0}
    ordered = sorted(xs)
    return {"mean": sum(xs) / len(xs), "min": ordered[0], "median": ordered[len(ordered) // 2], "max": ordered[-1]}


def _play(args, out: Console) -> int:
    game = load(args.game, players=args.players, options=_options(args.option))
    if not 0 <= args.seat < game.num_players():
        raise RulekitError(f"--seat must be from 0 to {game.num_players() - 1}")
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed, auto_chance=True)
    out.print(f"[bold]{game.model.title}[/]: you are {game.player_name(args.seat)} of {game.num_players()} "
              f"(seed {seed}). Type a number to choose, q to quit.")
    seen = 0  # the move log up to here was shown: what happened since, as this seat sees it, comes next
    while not state.is_terminal():
        if not state.legal:
            out.print("[red]No one can move: the rules have reached a deadlock.[/]")
            return EXIT_FINDINGS
        player = state.current_player()
        if player != args.seat:
            state.apply_action(rng.choice(state.legal))
            continue
        for line in game.seat_events(state, args.seat, seen):
            out.print(line, style="dim" if not line.startswith("you saw") else "bold", markup=False)
        seen = state.log_size
        obs = game.observation_text(state, args.seat).splitlines()
        out.print("\n".join(line for line in obs if not line.startswith("  > ")), markup=False)
        legal = state.legal_actions()
        for i, action in enumerate(legal, start=1):
            label = game.action_label(action)
            out.print(f"  [bold]{i}[/]. {state.action_to_string(action, args.seat)}"
                      + (f" [dim]- {label}[/]" if label else ""))
        choice = _ask(len(legal))
        if choice is None:
            out.print("bye")
            return EXIT_OK
        state.apply_action(legal[choice - 1])
    for line in game.seat_events(state, args.seat, seen):
        out.print(line, style="dim" if not line.startswith("you saw") else "bold", markup=False)
    returns = state.returns()
    out.print("[bold]Game over.[/] " + ", ".join(f"{game.player_name(p)}: {r:+g}" for p, r in enumerate(returns)))
    return EXIT_OK


def _ask(n: int) -> int | None:
    while True:
        try:
            text = input(f"your choice (1-{n}): ").strip()
        except EOFError:
            return None
        if text.lower() in ("q", "quit", "exit"):
            return None
        if text.isdigit() and 1 <= int(text) <= n:
            return int(text)
        print(f"please type a number from 1 to {n}, or q to quit")


if __name__ == "__main__":
    sys.exit(main())
