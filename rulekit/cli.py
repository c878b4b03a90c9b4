"""The `rulekit` command line: check, play, simulate, games."""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import re
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from rich.console import Console
from rich.table import Table

from . import __version__, load, resources
from .checking import PlayBounds, check_spec, workload
from .verify import budget
from .errors import RulekitError, SpecError
from .executors import ProgressBar
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
  rulekit new mygame --rulebook rules.txt   start a spec of your own game
"""


SIMULATE_EPILOG = """\
examples:
  rulekit simulate GAME --games 10000 --players 4 --seed 1
  rulekit simulate GAME --stat deck="size(deck)" --stat score="sum(p in players: score(p))"
  rulekit simulate GAME --stat NAME=EXPR --stat-each-round --plot stats.png --json
  rulekit simulate GAME --games 1000000 --dask                   a LocalCluster, one worker per core
  rulekit simulate GAME --games 1000000 --dask tcp://HOST:8786   a running Dask scheduler
"""


PLAIN_QUIET = 10.0  # seconds a plain progress line stays the last one before a phase seen already is said again


class _Progress(ProgressBar):
    """The executors' progress bar, with a line per spec checked in another process and the method
    that is running. Where stderr is no terminal (a log, CI), the same news as plain lines: one per
    change of what is running, so that a long run is seen to be alive."""

    def __init__(self, enabled: bool, plain: bool = False):
        super().__init__(enabled)
        self.lines: dict = {}
        self.enabled = enabled
        self.plain = plain and not enabled
        self.said: dict = {}  # per spec: what it last said, when it said each label, when it last said anything
        self.began = time.perf_counter()

    @property
    def relays(self) -> bool:
        """Whether news from other processes is worth sending here."""
        return self.enabled or self.plain

    def _say(self, who: str, label: str) -> None:
        """A line when what runs changes; one that comes back (phases take turns per option set) only
        after a while, so that a log stays short."""
        now = time.perf_counter()
        last, before = self.said.get(who), self.said.get((who, label))
        if last == label or (before is not None and now - self.said.get((who, ""), 0.0) < PLAIN_QUIET):
            return
        self.said[who], self.said[(who, label)], self.said[(who, "")] = label, now, now
        print(f"[{now - self.began:6.0f} s] {label}", file=sys.stderr, flush=True)

    def describe(self, label: str) -> None:
        """What is running now: the spec, the configuration, the method."""
        if self.plain:
            self._say("", label)
        if self.task is None:
            self.start(label, None)
        else:
            self.bar.update(self.task, description=label)

    def relayed(self, name: str, kind: str, *args) -> None:
        """A message from a spec checked in another process: one line of the display per spec."""
        if self.plain and kind in ("start", "describe") and args[0] != name:  # a bare name says nothing new
            self._say(name, args[0])
        if not self.enabled:
            return
        task = self.lines.get(name)
        if task is None:
            task = self.lines[name] = self.bar.add_task(name, total=None)
        if kind == "start":
            self.bar.update(task, description=args[0], total=args[1], completed=0)
        elif kind == "advance":
            self.bar.advance(task, args[0])
        elif kind == "describe":
            self.bar.update(task, description=args[0])
        elif kind == "done":
            self.bar.remove_task(task)
            del self.lines[name]


class _Relay:
    """The progress of a spec checked in a worker process, sent to the display of the main one."""

    def __init__(self, queue, name: str):
        self.queue, self.name = queue, name

    def start(self, label: str, total: int) -> None:
        self.queue.put((self.name, "start", label, total))

    def advance(self, steps: int = 1) -> None:
        self.queue.put((self.name, "advance", steps))

    def describe(self, label: str) -> None:
        self.queue.put((self.name, "describe", label))


def _options(pairs: list[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name or not value:
            raise RulekitError(f"--option takes NAME=VALUE, not {pair!r}")
        out[name.strip()] = value.strip()
    return out


def help_texts() -> tuple[str, dict[str, str]]:
    """`rulekit --help`, and each command's `--help` by command name: what the docs print."""
    parser = _parser()
    return parser.format_help(), {name: sub.format_help() for name, sub in parser.commands.items()}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rulekit", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"rulekit {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    p.commands = sub.choices  # each command's parser, by name (for help_texts)

    c = sub.add_parser("check", help="validate specs: compile, quotes, coverage, claims, random play",
                       description="Validate specs against their rulebooks and their claimed properties.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("specs", nargs="*", metavar="SPEC|GAME", help="what to check (default: every bundled spec)")
    c.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="output format (default: text)")
    c.add_argument("--games", type=int, default=PlayBounds.games, metavar="N",
                   help=f"random games per player count under the default options (default: {PlayBounds.games}); "
                   "a sampled verdict states what they are worth")
    c.add_argument("--confidence", type=float, default=PlayBounds.confidence, metavar="C",
                   help="confidence of the bounds that sampled verdicts state: at this confidence the chance that "
                   f"a random game breaks an invariant is below the bound (default: {PlayBounds.confidence:g})")
    c.add_argument("--max-violation-rate", type=float, default=None, metavar="P",
                   help="stop random play for a player count early, once every target has been reached and the "
                   "bound on every invariant is below P (for example 0.01; default: play --games games)")
    c.add_argument("--variant-games", type=int, default=PlayBounds.variant_games, metavar="N",
                   help=f"random games per player count under each other option (default: {PlayBounds.variant_games})")
    c.add_argument("--play-budget", type=int, default=PlayBounds.play_budget, metavar="N",
                   help="stop starting random games for a player count once they made N decisions "
                        f"(default: {PlayBounds.play_budget}; under other options {PlayBounds.variant_budget}, "
                        "see --variant-budget)")
    c.add_argument("--min-games", type=int, default=PlayBounds.min_games, metavar="N",
                   help="random games per player count under the default options even past --play-budget, so that "
                        "the bound a sampled verdict states rests on at least N games of each count (at most "
                        f"--games; default: {PlayBounds.min_games})")
    c.add_argument("--variant-budget", type=int, default=PlayBounds.variant_budget, metavar="N",
                   help=f"the same budget under each non-default option (default: {PlayBounds.variant_budget})")
    c.add_argument("--explore-states", type=int, default=PlayBounds.explore_states, metavar="N",
                   help="explorer: states per game (and option set) shared by its player counts, each also held to "
                        f"--max-states; a count, so the verdicts do not depend on the machine's speed (default: "
                        f"{PlayBounds.explore_states:,}; 0: --max-states for each player count)")
    c.add_argument("--explore-budget", type=float, default=PlayBounds.explore_budget, metavar="SECONDS",
                   help="explorer: a safety net of seconds per game shared by its player counts, each also held "
                        f"to --time-limit (default: {PlayBounds.explore_budget:g}; 0: no shared limit); the report "
                        "says when a time limit stopped an exploration")
    c.add_argument("--jobs", type=int, default=0, metavar="N",
                   help="check N specs at once, one process each (default: one per CPU core); with --dask, "
                   "the workers of the LocalCluster")
    c.add_argument("--dask", nargs="?", const=True, default=None, metavar="ADDRESS",
                   help="play the random games (under every option) on Dask: a LocalCluster on this machine, or "
                   "the scheduler at ADDRESS (tcp://HOST:PORT); the specs are then checked one after the other")
    c.add_argument("--max-steps", type=int, default=PlayBounds.max_steps, metavar="N",
                   help=f"decisions before a game counts as not ending (default: {PlayBounds.max_steps})")
    c.add_argument("--seed", type=int, default=0, help="seed of the random games (default: 0)")
    c.add_argument("--max-states", type=int, default=PlayBounds.max_states, metavar="N",
                   help=f"explorer: states per configuration before its verdicts are only bounded "
                   f"(default: {PlayBounds.max_states}; 0 turns the explorer off)")
    c.add_argument("--time-limit", type=float, default=PlayBounds.time_limit, metavar="SECONDS",
                   help=f"explorer: a safety net of seconds per configuration (default: {PlayBounds.time_limit:g})")
    c.add_argument("--depth", type=int, default=None, metavar="N",
                   help="explorer: steps from the start (default: no limit)")
    c.add_argument("--solver-timeout", type=float, default=PlayBounds.solver_timeout, metavar="SECONDS",
                   help=f"Z3: a wall-clock safety net per query, {budget.SAFETY_FACTOR} times these seconds; when it "
                   f"fires, the verdict is unknown and says the machine was too slow (default: {PlayBounds.solver_timeout:g})")
    c.add_argument("--solver-rlimit", type=int, default=None, metavar="N",
                   help=f"Z3: resource units per query (Z3's rlimit, the same on every machine and under any load, "
                   f"so the same spec gives the same verdicts); running out is an unknown verdict that says so "
                   f"(default: {budget.DEFAULT_RLIMIT:,})")
    c.add_argument("--bmc-depth", type=int, default=PlayBounds.bmc_depth, metavar="N",
                   help=f"Z3 bounded model checking over the symbolic transition relation: steps from the start "
                   f"(default: {PlayBounds.bmc_depth})")
    c.add_argument("--whole-bmc-depth", type=int, default=PlayBounds.whole_bmc_depth, metavar="N",
                   help=f"Z3 bounded model checking over the whole-language relation (games with turns, rounds, "
                   f"triggers or chance, whose states are their decision points): steps from the start, the set-up "
                   f"being the first and each decision one more; past the set-up, BMC goes deeper only while a "
                   f"fixed budget of {PlayBounds.whole_bmc_units:,} Z3 resource units pays for the next step, so a "
                   f"large game stops early and the report says where (default: {PlayBounds.whole_bmc_depth}: the "
                   f"set-up and 10 decisions)")
    c.add_argument("--pdr-units", type=int, default=PlayBounds.pdr_units, metavar="N",
                   help=f"IC3/PDR (Z3's Spacer engine) over the exact or whole-language relation: Z3 resource units "
                   f"per player count for the invariants and unreachable targets that induction does not prove; it "
                   f"finds the strengthening that such a proof needs by itself (default: {PlayBounds.pdr_units:,}; "
                   f"0: no IC3/PDR)")
    c.add_argument("--whole-size", type=int, default=PlayBounds.whole_size, metavar="N",
                   help=f"work the whole-language relation may take (expressions translated, and slots written "
                   f"by each command) before the game counts as too large for it; a game whose relation needs "
                   f"more is left to the other checks, and the report "
                   f"says so. Raise it with --whole-bmc-depth (and --symbolic-time-limit) for deeper runs "
                   f"(default: {PlayBounds.whole_size:,})")
    c.add_argument("--max-k", type=int, default=PlayBounds.max_k, metavar="K",
                   help=f"Z3 k-induction: the largest k tried (default: {PlayBounds.max_k})")
    c.add_argument("--symbolic-time-limit", type=float, default=PlayBounds.symbolic_time_limit, metavar="SECONDS",
                   help=f"Z3 over the symbolic transition relation: seconds per configuration; what is left "
                   f"undecided is unknown or bounded (default: {PlayBounds.symbolic_time_limit:g})")
    c.add_argument("--all-options", action="store_true",
                   help="explore and prove under every option of every ambiguity, play each option as deeply as the "
                   "default options and every two options together, and measure what each changes (option-impact)")
    c.add_argument("--exhaustive", action="store_true",
                   help="explore to the end (up to --exhaustive-states and --exhaustive-time each) every configuration "
                   "whose state space may fit: all but those whose lower estimate of distinct states (--distinct-steps) "
                   "is above the state limit; for exact verdicts there")
    c.add_argument("--exhaustive-states", type=int, default=None, metavar="N",
                   help="with --exhaustive: states per configuration (default: 10,000,000; about 200 bytes each, "
                   "so mind --memory-limit)")
    c.add_argument("--exhaustive-time", type=float, default=PlayBounds.exhaustive_time, metavar="SECONDS",
                   help=f"with --exhaustive: seconds per configuration (default: {PlayBounds.exhaustive_time:g}; the "
                   "engine's explorer visits 5,000 to 15,000 states a second on the bundled games)")
    c.add_argument("--memory-limit", type=float, default=None, metavar="GB",
                   help="resident memory at which an exploration stops and says so, per process (default: "
                   "60%% of this machine's memory, shared by the --jobs processes)")
    c.add_argument("--distinct-steps", type=int, default=None, metavar="N",
                   help="engine steps of the random plays whose colliding states give a lower estimate of the "
                   "distinct states of each configuration not explored to the end (default: 3,000; 1,000,000 with "
                   "--exhaustive, which skips a configuration that estimate puts above 10 million states)")
    c.add_argument("--loop-search", type=int, default=PlayBounds.loop_search, metavar="STATES",
                   help="termination: states per game spent looking for endless play deep in the game, near "
                   "random games, shared by its player counts, under the default options (with --all-options, "
                   "under every option set; under the others, at each player count where the default options' loop "
                   "does not replay, that count's share of it, and where they have no loop, one game of players "
                   "who do as little as the rules allow, within an eighth of it); once a loop is found at one "
                   "player count, the search gets one and a half times as much again, each later count at least "
                   "three quarters of it "
                   f"(default: {PlayBounds.loop_search}; 0 turns the search off)")
    c.add_argument("--deep-information", action="store_true",
                   help="information-flow check: ten times the games and re-deals of hidden cards, followed "
                   "three times longer (slower, finds rarer leaks)")
    c.add_argument("-v", "--verbose", action="store_true", help="also list notes (ambiguities) in full")
    c.add_argument("-q", "--quiet", action="store_true",
                   help="no progress on stderr where it is not a terminal (where it is, a bar shows it and goes)")

    s = sub.add_parser("simulate", help="random playouts with statistics",
                       description="Play random games (random legal decisions, seeded chance) and report game "
                       "length, rounds, how games ended, wins per seat and your own statistics. The same seed gives "
                       "the same numbers in this process, on local processes and on a Dask cluster.",
                       epilog=SIMULATE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("game", metavar="GAME")
    s.add_argument("--games", type=int, default=1000, metavar="N", help="number of games (default: 1000)")
    s.add_argument("--players", type=int, default=None, metavar="P", help="players (default: the fewest allowed)")
    s.add_argument("--seed", type=int, default=0, help="seed (default: 0)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE", help="an ambiguity option (repeatable)")
    s.add_argument("--max-steps", type=int, default=PlayBounds.max_steps, metavar="N",
                   help=f"decisions before a game is cut off (default: {PlayBounds.max_steps})")
    s.add_argument("--stat", action="append", metavar="NAME=EXPR", default=[],
                   help="a statistic: an expression of the rule language (as in an invariant), measured at the "
                   "end of every game (repeatable)")
    s.add_argument("--stat-each-round", action="store_true",
                   help="also measure every --stat at the end of every round (specs with `rounds`)")
    s.add_argument("--plot", metavar="FILE.png", help="draw histograms of the statistics (needs matplotlib)")
    s.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="local processes, or Dask workers with --dask (default: the first games are played in "
                   "this process and tell whether one process per CPU core pays for the rest; 1: this process only)")
    s.add_argument("--dask", nargs="?", const=True, default=None, metavar="ADDRESS",
                   help="play on Dask: a LocalCluster on this machine, or the scheduler at ADDRESS (tcp://HOST:PORT)")
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

    n = sub.add_parser("new", help="start a spec from a rulebook: every sentence listed as still to be formalized",
                       description="Create NAME/ with the rulebook (copied, never edited), NAME/NAME.rules (the "
                       "header, every rulebook sentence listed as still to be formalized, an empty flow) and "
                       "NAME/NAME.checks (no properties yet). `rulekit check NAME` then reports each sentence "
                       "not yet quoted as a coverage finding: the work left.")
    n.add_argument("name", metavar="NAME", help="the folder to create; its last part names the game (letters, digits, _)")
    n.add_argument("--rulebook", required=True, metavar="FILE", help="the rulebook as UTF-8 text")
    n.add_argument("--players", default="2-4", metavar="N|LOW-HIGH", help="player counts allowed (default: 2-4)")
    n.add_argument("--title", default=None, help="the game's title (default: from NAME)")

    d = sub.add_parser("docs", help="build the documentation site (Sphinx) from the specs",
                       description="Build a rules site: one page per spec named (overview, rules beside the "
                       "quotes, ambiguities, verdicts, turn diagram, statistics), from a Sphinx project made "
                       "on the fly; needs only `pip install \"rulekit[docs]\"`. With no SPEC, in a rulekit "
                       "checkout: the whole project site (every bundled game, the language reference, the API).")
    d.add_argument("specs", nargs="*", metavar="SPEC|GAME", help="what to document: bundled games, spec folders, "
                   ".rules files (default: the project site of the checkout)")
    d.add_argument("--out", default=None, metavar="DIR",
                   help="output folder (default: docs/_build/html for the project site, else site)")
    d.add_argument("--title", default=None, help="the site's title (default: the game's title, or Rules)")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    out = Console(soft_wrap=True, highlight=False, emoji=False)  # "file:100:1" is no ":100:" emoji
    err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
    try:
        if args.command == "check":
            return _check(args, out)
        if args.command == "simulate":
            return _simulate(args, out)
        if args.command == "play":
            return _play(args, out)
        if args.command == "games":
            return _games(out)
        if args.command == "new":
            return _new(args, out)
        if args.command == "docs":
            from .docsite import build_site, build_specs
            if args.specs:
                return build_specs(args.specs, args.out or "site", out, args.title)
            return build_site(args.out or "docs/_build/html", out)
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
    except BrokenPipeError:
        # The reader went away (`| head`): what it did not read is not wanted, and there is no one to tell.
        _silence_stdout()
        return 141


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit raises no second BrokenPipeError."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _check_one(spec: Spec | str, bounds: PlayBounds, progress=None, executor=None):
    """(report, None), or (None, (the rendered errors, the errors for machines)) for a spec that does
    not compile."""
    try:
        spec = Spec.find(spec) if isinstance(spec, str) else spec
        return check_spec(spec, bounds, progress, executor=executor), None
    except SpecError as exc:
        return None, (exc.render(), [d.to_json() for d in exc.diagnostics])
    except RulekitError as exc:  # anything else a spec can cause, said without a traceback
        return None, _failed(spec.display_path if isinstance(spec, Spec) else spec, exc.code, str(exc))


def _failed(where, code: str, message: str) -> tuple[str, list[dict]]:
    """A spec's failure that no diagnostic places: the text for people and the error for machines."""
    return f"{where}: error: {message}", [{"code": code, "message": message, "hint": None, "file": str(where)}]


def _result(future):
    """A spec's (report, error) from the pool, or None when the pool's process died under it."""
    try:
        return future.result()
    except BrokenProcessPool:
        return None


def _check_alone(target, spec: Spec, bounds: PlayBounds, context):
    """`_check_one` in a process of its own: a process that dies (killed, for lack of memory say) is an
    error for this spec, not a traceback that loses the reports of the others."""
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        try:
            return pool.submit(_check_one, target, bounds, None).result()
        except BrokenProcessPool:
            return None, _failed(spec.display_path, "E000", "the process checking this spec stopped abruptly (killed, "
                                 "perhaps for lack of memory), so it has no report; check it alone with smaller "
                                 "bounds (--memory-limit, --max-states, or without --exhaustive)")


def _check(args, out: Console) -> int:
    for name in ("games", "variant_games", "play_budget", "min_games", "variant_budget", "explore_states",
                 "explore_budget", "jobs", "max_steps", "max_states", "time_limit", "solver_timeout", "bmc_depth",
                 "whole_bmc_depth", "whole_size", "max_k", "pdr_units", "symbolic_time_limit", "loop_search"):
        if getattr(args, name) < 0:
            raise RulekitError(f"--{name.replace('_', '-')} must not be negative")
    if args.solver_rlimit is not None and args.solver_rlimit <= 0:
        raise RulekitError("--solver-rlimit must be a positive number of Z3 resource units")
    if args.distinct_steps is not None and args.distinct_steps < 0:
        raise RulekitError("--distinct-steps must not be negative")
    if args.memory_limit is not None and args.memory_limit <= 0:
        raise RulekitError("--memory-limit must be a positive number of gigabytes")
    if args.exhaustive_states is not None and args.exhaustive_states < 1:
        raise RulekitError("--exhaustive-states must be at least 1")
    if args.exhaustive_time <= 0:
        raise RulekitError("--exhaustive-time must be a positive number of seconds")
    if args.depth is not None and args.depth < 0:
        raise RulekitError("--depth must not be negative")
    if not 0 < args.confidence < 1:
        raise RulekitError("--confidence must lie strictly between 0 and 1, for example 0.95")
    if args.max_violation_rate is not None and not 0 < args.max_violation_rate < 1:
        raise RulekitError("--max-violation-rate must lie strictly between 0 and 1, for example 0.01")
    started = time.perf_counter()
    targets = args.specs or resources.bundled_games()
    bounds = PlayBounds(args.games, args.variant_games, args.max_steps, args.seed, max_states=args.max_states,
                        time_limit=args.time_limit, depth=args.depth, all_options=args.all_options,
                        solver_timeout=args.solver_timeout, play_budget=args.play_budget, min_games=args.min_games,
                        variant_budget=args.variant_budget, explore_states=args.explore_states,
                        explore_budget=args.explore_budget,
                        bmc_depth=args.bmc_depth, whole_bmc_depth=args.whole_bmc_depth, whole_size=args.whole_size,
                        max_k=args.max_k, pdr_units=args.pdr_units, symbolic_time_limit=args.symbolic_time_limit,
                        confidence=args.confidence, max_violation_rate=args.max_violation_rate,
                        deep_information=args.deep_information, solver_rlimit=args.solver_rlimit,
                        exhaustive=args.exhaustive, distinct_steps=args.distinct_steps,
                        exhaustive_states=args.exhaustive_states, exhaustive_time=args.exhaustive_time,
                        loop_search=args.loop_search)
    specs = [Spec.find(target) for target in targets]
    jobs = min(args.jobs or os.cpu_count() or 1, len(specs))
    bounds.memory_limit = (int(args.memory_limit * 2**30) if args.memory_limit is not None
                           else budget.memory_limit(1 if args.dask else jobs))
    reports, broken = [], []
    with _Progress(sys.stderr.isatty(), plain=not args.quiet) as progress:
        if args.dask:  # the specs one after the other, the random games of each on the cluster
            from .executors import make
            with make(jobs=args.jobs or None, dask=args.dask) as executor:
                results = [_check_one(spec, bounds, progress, executor) for spec in specs]
        elif jobs > 1:  # one spec per process: the games are independent, the cores are not shared
            progress.start(f"checking {len(specs)} specs on {jobs} cores", len(specs))
            # spawned, not forked: a forked child would inherit Z3's state from this process
            context = multiprocessing.get_context("spawn")
            manager = context.Manager() if progress.relays else None
            queue = manager.Queue() if manager is not None else None
            with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
                largest_first = sorted(range(len(specs)), key=lambda i: -workload(specs[i]))
                submitted = {i: pool.submit(_check_one, targets[i], bounds, _Relay(queue, specs[i].path.stem)
                                            if queue is not None else None) for i in largest_first}
                futures = {submitted[i]: specs[i].path.stem for i in largest_first}
                pending, done = set(futures), []
                while pending:
                    finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                    while queue is not None and not queue.empty():
                        progress.relayed(*queue.get())
                    for future in finished:
                        done.append(futures[future])
                        progress.relayed(futures[future], "done")
                        progress.advance()
                        progress.describe(f"checking {len(specs)} specs on {jobs} cores (done: {', '.join(done)})")
                results = [_result(submitted[i]) for i in range(len(specs))]
            if manager is not None:
                manager.shutdown()
            # A pool whose process died fails every spec it still held: each is checked again in a process of
            # its own, so that only the one that kills its process goes without a report.
            for i, result in enumerate(results):
                if result is None:
                    progress.describe(f"checking {specs[i].path.stem} again, alone (a process of the pool died)")
                    results[i] = _check_alone(targets[i], specs[i], bounds, context)
        else:
            results = [_check_one(spec, bounds, progress) for spec in specs]
    errors = []
    for report, error in results:
        if error is None:
            reports.append(report)
        else:
            broken.append(error[0])
            errors += error[1]
    for text in broken:
        print(text, file=sys.stderr)
    if args.format == "json":
        print(to_json(reports, __version__, errors))
    elif args.format == "sarif":
        print(to_sarif(reports, __version__, errors))
    else:
        render_text(reports, out, args.verbose, seconds=time.perf_counter() - started, broken=len(broken))
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


def _new(args, out: Console) -> int:
    from .newspec import create, parse_players

    made = create(args.name, args.rulebook, parse_players(args.players), args.title)
    out.print(f"created {made.folder}/ with {made.spec.name}, {made.checks.name} and {made.rulebook.name}: "
              f"{made.sentences} rulebook sentences to formalize")
    out.print(f"next: rulekit check {made.spec}")
    return EXIT_OK


def _simulate(args, out: Console) -> int:
    from .simulation import simulate
    from .simulation_report import render_text

    if args.games < 1:
        raise RulekitError("--games must be at least 1")
    if args.max_steps < 1:
        raise RulekitError("--max-steps must be at least 1")
    if args.jobs is not None and args.jobs < 1:
        raise RulekitError("--jobs must be at least 1")
    stats = _stats(args.stat)
    sim = simulate(args.game, games=args.games, seed=args.seed, players=args.players, options=_options(args.option),
                   max_steps=args.max_steps, stats=stats, each_round=args.stat_each_round, dask=args.dask,
                   jobs=args.jobs)
    if args.stat_each_round and stats and not sim.summary.round_stats:
        print(f"rulekit: note: {sim.game.name} has no `rounds`: the statistics are measured at the end of each game "
              "only", file=sys.stderr)
    if args.plot:
        from .simulation_report import plot
        plot(sim, args.plot)
    if args.json:
        print(json.dumps(sim.to_dict(), indent=2))
    else:
        render_text(sim, out)
    return EXIT_OK


def _stats(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        name, sep, expr = pair.partition("=")
        name, expr = name.strip(), expr.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name) or not expr:
            raise RulekitError(f"--stat takes NAME=EXPR (a name, then an expression of the rule language), "
                               f"not {pair!r}")
        if name in out:
            raise RulekitError(f"--stat {name} is given twice")
        out[name] = expr
    return out


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
