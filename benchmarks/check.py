"""`rulekit check` speed and the model-checking benchmark of issue 5.

    PYTHONPATH=. python3 benchmarks/check.py            # quick: the engine explorer without symmetry runs 20 s
    PYTHONPATH=. python3 benchmarks/check.py --full     # the engine explorer without symmetry runs to the end
    PYTHONPATH=. python3 benchmarks/check.py --no-plain --distinct-steps 1000000   # the deep distinct-states estimate

Prints: time of `rulekit check` per game and per method at the default bounds, the Z3 resource units its
queries used; per configuration the states explored, states/s, the depth reached and the size of the state
space (exact, or between the lower estimate of its distinct states, by collisions of random plays, and Knuth's
upper estimate of its tree of plays); per invariant, target and termination the strongest verdict and what it
rests on; the whole-language relation of each game at its smallest player count (its commands, whether it
builds, BMC depth by depth with the Z3 resource units used and the questions decided);
then the token model (N = 8, C = 5, T = 30; 1,656,626 states, 1,205 up to renaming the players) in a
table: rulekit's vectorized explorer (the symbolic fragment, numpy) and its engine explorer, each with
and without symmetry, a plain Python breadth-first search over tuples, and beside them the TLC, SPIN and
plain-Python figures that issue 5 measured on this machine; then the Z3 proofs (parametric induction
for every N, k-induction and BMC for N = 8, the counts abstraction) with their times.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rulekit import load, resources  # noqa: E402
from rulekit.checking import PlayBounds, check_spec  # noqa: E402
from rulekit.pipeline import Spec  # noqa: E402
from rulekit.report import wording  # noqa: E402
from rulekit.lower import every_count  # noqa: E402
from rulekit.verify import Unsupported, budget, control, fragment, parametric, segments, symbolic, vector  # noqa: E402
from rulekit.verify.explore import Limits, explore  # noqa: E402

TOKENS = str(Path(__file__).resolve().parent / "tokens" / "tokens.rules")
EXPECTED_STATES, EXPECTED_ORBITS = 1_656_626, 1_205
TLC_SECONDS, SPIN_SECONDS, PLAIN_SECONDS = 27.0, 7.0, 36.0  # issue 5, measured on this machine


def check_times(distinct_steps: int | None = None) -> float:
    total = 0.0
    print("rulekit check at the default bounds" + (f", {distinct_steps:,} steps of the distinct-states estimate"
                                                     if distinct_steps is not None else ""))
    for name in resources.bundled_games():
        timings = {}
        t = time.perf_counter()
        with budget.recording() as usage:
            report = check_spec(Spec.find(name), PlayBounds(distinct_steps=distinct_steps), timings=timings)
        took = time.perf_counter() - t
        total += took
        print(f"  {name}: {took:.1f} s, {len(report.findings)} findings")
        for method, seconds in sorted(timings.items(), key=lambda kv: -kv[1]):
            print(f"    {method:16} {seconds:6.2f} s")
        units = sorted(u for u, _, _ in usage)
        if units:
            print(f"    Z3: {len(units)} queries, resource units per query: median {units[len(units) // 2]:,}, "
                  f"max {units[-1]:,} (limit {budget.DEFAULT_RLIMIT:,}); "
                  f"{sum(r == 'unknown' for _, _, r in usage)} unknown")
        print(f"    {'configuration':28} {'states':>9} {'states/s':>9} {'depth':>5} {'distinct >=':>11}  "
              f"size of the state space")
        for x in report.stats.get("explored", []):
            where = f"{x['players']} players" + (f" {x['options']}" if x["options"] else "")
            size = "exact: explored to the end" if x["complete"] else f"stopped by {x['stopped_by']}"
            d = x.get("distinct_states")
            lower = f"~{_short(d['states_at_least'])}" if d else "-"
            if x.get("estimate"):
                e = x["estimate"]
                low, high = e["log10_spread"]
                size += (f"; Knuth: ~1e{e['log10_tree_nodes']:.0f} tree nodes ({e['probes']} probes, "
                         f"10-90 % 1e{low:.0f}..1e{high:.0f})")
            fits = (x.get("exhaustive_limit") or {}).get("fits", "")
            if fits is not None and fits != "":
                size += "; fits the exhaustive limit" if fits else "; cannot fit the exhaustive limit"
            print(f"    {where:28} {x['states']:>9,} {x.get('states_per_second', 0):>9,} {x['depth']:>5} {lower:>11}  {size}")
        for question, found in _questions(report):
            best = wording.strongest(found)
            print(f"    {question:40} {wording.verdict_word(best):11} {wording.rests_on(best)}")
    print(f"  all bundled specs, one after the other: {total:.1f} s" + (
        " (the 60 s target is the wall time of `rulekit check`, which checks them one process per core)"
        if distinct_steps is None else ""))
    return total


def whole_language(depth: int, size: int) -> None:
    """Issue 20, item 2: how far the whole-language relation (`verify.control`) goes on each game, at its
    smallest player count: the commands it would have, whether it builds within the limits `check` uses
    (and, past the command limit, how far the translation gets before its size limit), and BMC depth by
    depth, each with the Z3 resource units it used and how many questions it decided."""
    print(f"the whole-language relation, smallest player count, at most {size:,} expressions, BMC to depth "
          f"{depth} ({budget.DEFAULT_RLIMIT:,} Z3 resource units per query)")
    for name in resources.bundled_games():
        spec = Spec.find(name)
        players = spec.model.min_players
        config = spec.config(players)
        estimate = control.commands_estimate(config)
        line = f"  {name} ({players} player{'' if players == 1 else 's'}): {_short(estimate)} commands value by value"
        builder = control.ControlBuilder(config, size)
        t = time.perf_counter()
        try:
            system = builder.build()
        except Unsupported as exc:
            allowed = control.commands_allowed(size)
            refused = f"; `check` refuses it before building (over {allowed} commands)" if estimate > allowed else ""
            print(f"{line}; not built in {time.perf_counter() - t:.1f} s after {builder.work:,} expressions "
                  f"({exc}){refused}")
            continue
        print(f"{line}; built in {time.perf_counter() - t:.1f} s: {len(system.commands)} commands, "
              f"{len(system.slots)} slots, {builder.work:,} expressions")
        for d in range(1, depth + 1):
            t = time.perf_counter()
            with budget.recording() as usage:
                answers = symbolic.bmc(system, d, 60_000)
            unknown = sum(a.status == "unknown" for a in answers.values())
            print(f"    depth {d}: {time.perf_counter() - t:.1f} s, {sum(u for u, _, _ in usage):,} Z3 units, "
                  f"{len(answers) - unknown} of {len(answers)} questions decided")
            if unknown == len(answers):
                break


def _short(n: int) -> str:
    return f"{n:,}" if n < 10 ** 6 else f"{n:.1e}".replace("e+0", "e").replace("e+", "e")


def _questions(report) -> list:
    """The findings under the default options, grouped by the question they answer: each invariant
    and reachability target, and termination."""
    groups: dict = {}
    for f in report.findings:
        if f.options or f.kind not in ("invariant", "reachability", "termination"):
            continue
        parts = f.id.split("/")
        key = f"{f.kind} {parts[2]}" if f.kind != "termination" and len(parts) > 2 else f.kind
        if key.endswith("z3-symbolic") or key.endswith("z3-counts"):
            continue
        groups.setdefault(key, []).append(f)
    return sorted(groups.items())


def plain_bfs(n: int, cap: int, total: int) -> tuple[int, float]:
    """The reference: a hand-written breadth-first search over tuples of holdings."""
    t = time.perf_counter()
    start = (0,) * n
    seen = {start}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        supply = total - sum(h)
        for p in range(n):
            if h[p] < cap and supply > 0:
                k = h[:p] + (h[p] + 1,) + h[p + 1:]
                if k not in seen:
                    seen.add(k)
                    queue.append(k)
            if h[p] > 0:
                k = h[:p] + (h[p] - 1,) + h[p + 1:]
                if k not in seen:
                    seen.add(k)
                    queue.append(k)
    return len(seen), time.perf_counter() - t


def _row(what: str, states, seconds: float, note: str = "") -> str:
    rate = f"{states / seconds:,.0f}" if seconds and isinstance(states, int) else "-"
    shown = f"{states:,}" if isinstance(states, int) else states
    return f"  {what:38} {shown:>11} {seconds:9.2f} {rate:>12}  {note}"


def tokens(full: bool, plain: bool) -> None:
    print("\ntoken model: N = 8, C = 5, T = 30")
    print(f"  {'method':38} {'states':>11} {'seconds':>9} {'states/s':>12}  note")
    game = load(TOKENS, players=8)
    big = Limits(max_states=2_000_000, time_limit=3600, symmetry=False, keep_edges=False)
    r = vector.explore(game, big)
    print(_row("rulekit vectorized, no symmetry", r.states, r.seconds,
                f"{'complete' if r.complete else 'INCOMPLETE'}; expected {EXPECTED_STATES:,}"))
    r = vector.explore(game, Limits(max_states=10_000, time_limit=60, keep_edges=False))
    print(_row("rulekit vectorized, symmetry", r.states, r.seconds,
                f"{'complete' if r.complete else 'INCOMPLETE'}; expected {EXPECTED_ORBITS:,}"))
    r = explore(game, Limits(max_states=10_000, time_limit=60))
    print(_row("rulekit engine explorer, symmetry", r.states, r.seconds,
                f"{'complete' if r.complete else 'INCOMPLETE'}; expected {EXPECTED_ORBITS:,}"))
    limit = 3600 if full else 20
    r = explore(game, Limits(max_states=2_000_000, time_limit=limit, symmetry=False, keep_edges=False))
    note = "complete" if r.complete else f"stopped at the {limit} s limit (--full runs it to the end)"
    print(_row("rulekit engine explorer, no symmetry", r.states, r.seconds, note))
    if plain:
        states, seconds = plain_bfs(8, 5, 30)
        print(_row("plain Python BFS (this run)", states, seconds, "hand-written, tuples"))
    print(_row("TLC, two workers (issue 5)", EXPECTED_STATES, TLC_SECONDS, "reference, not run here"))
    print(_row("SPIN (issue 5)", EXPECTED_STATES, SPIN_SECONDS, "reference, not run here"))
    print(_row("plain Python BFS (issue 5)", EXPECTED_STATES, PLAIN_SECONDS, "reference, not run here"))
    spec = Spec.find(TOKENS)
    model = spec.model
    options = model.default_options()
    print("\n  Z3 over the token model")
    t = time.perf_counter()
    proofs = parametric.prove(every_count(model, options))
    took = time.perf_counter() - t
    for name in ("within_cap", "conserved"):
        ok, _ = proofs.get(name, (False, ""))
        print(f"    parametric induction, {name}: {'proven' if ok else 'NOT proven'} for every N >= "
              f"{model.min_players} ({took:.3f} s for both)")
    system = fragment.build(spec.config(8, options))
    v = symbolic.verify(system, depth=30, budget=60)
    reach = v.answers.get(("reachable", "supply_empty"))
    print(f"    N = 8: k-induction proves {sorted(v.proven)} and deadlock freedom (k = {v.stuck_free}); BMC reaches "
          f"supply_empty in {reach.depth if reach else '-'} steps ({reach.status if reach else '-'}); "
          f"{v.seconds:.2f} s in all")
    t = time.perf_counter()
    proofs = segments.state_proofs([spec.config(n, options) for n in range(model.min_players, model.max_players + 1)])
    took = time.perf_counter() - t
    for name in ("within_cap", "conserved"):
        verdict = proofs.get(name, ("unknown",))[0]
        print(f"    counts abstraction, {name}: {verdict} for N = 1..8 ({took:.2f} s for both)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="run the engine explorer without symmetry to the end")
    ap.add_argument("--no-plain", action="store_true", help="skip the plain Python BFS reference")
    ap.add_argument("--no-check", action="store_true", help="skip timing `rulekit check`")
    ap.add_argument("--distinct-steps", type=int, default=None, metavar="N",
                    help="engine steps of the lower estimate of distinct states per unfinished configuration "
                    "(`rulekit check --distinct-steps`; 1000000 shows which configurations cannot fit 10 million)")
    ap.add_argument("--whole-depth", type=int, default=3, metavar="N",
                    help="BMC depth over the whole-language relation of each game (0: skip that table)")
    ap.add_argument("--whole-size", type=int, default=control.WORK_LIMIT, metavar="N",
                    help="work the whole-language relation may take: expressions translated, slots written per "
                         "command (`rulekit check --whole-size`)")
    args = ap.parse_args()
    if not args.no_check:
        check_times(args.distinct_steps)
    if args.whole_depth > 0:
        whole_language(args.whole_depth, args.whole_size)
    tokens(args.full, not args.no_plain)
    return 0


if __name__ == "__main__":
    sys.exit(main())
