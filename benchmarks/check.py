"""`rulekit check` speed and the model-checking benchmark of issue 5.

    PYTHONPATH=. python3 benchmarks/check.py            # quick: the explorer without symmetry runs 20 s
    PYTHONPATH=. python3 benchmarks/check.py --full     # the explorer without symmetry runs to the end

Prints: time of `rulekit check` per game and per method at the default bounds, with the bounds reached;
then the token model (N = 8, C = 5, T = 30; 1,656,626 states, 1,205 up to renaming the players):
rulekit's explorer with and without symmetry, a plain Python breadth-first search over tuples for
reference, the published TLC and SPIN times on this machine, and the Z3 proofs of both invariants.
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
from rulekit.verify import smt  # noqa: E402
from rulekit.verify.explore import Limits, explore  # noqa: E402

TOKENS = str(Path(__file__).resolve().parent / "tokens" / "tokens.rules")
EXPECTED_STATES, EXPECTED_ORBITS = 1_656_626, 1_205
TLC_SECONDS, SPIN_SECONDS, PLAIN_SECONDS = 27.0, 7.0, 36.0  # issue 5, measured on this machine


def check_times() -> float:
    total = 0.0
    print("rulekit check at the default bounds")
    for name in resources.bundled_games():
        timings = {}
        t = time.perf_counter()
        report = check_spec(Spec.find(name), PlayBounds(), timings=timings)
        took = time.perf_counter() - t
        total += took
        print(f"  {name}: {took:.1f} s, {len(report.findings)} findings")
        for method, seconds in sorted(timings.items(), key=lambda kv: -kv[1]):
            print(f"    {method:16} {seconds:6.2f} s")
        for x in report.stats.get("explored", []):
            how = "complete" if x["complete"] else f"stopped by {x['stopped_by']} at depth {x['depth']}"
            print(f"    explored {x['players']} players {x['options'] or ''}: {x['states']} states, "
                  f"{x['transitions']} transitions, {x['seconds']:.2f} s, {how}")
    print(f"  all bundled specs: {total:.1f} s (target: under 60 s)")
    return total


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


def tokens(full: bool, plain: bool) -> None:
    print("\ntoken model: N = 8, C = 5, T = 30")
    game = load(TOKENS, players=8)
    r = explore(game, Limits(max_states=10_000, time_limit=60))
    print(f"  rulekit explorer, symmetry:    {r.states:>9} states ({'complete' if r.complete else 'incomplete'}; "
          f"expected {EXPECTED_ORBITS}) in {r.seconds:.2f} s")
    limit = 3600 if full else 20
    r = explore(game, Limits(max_states=2_000_000, time_limit=limit, symmetry=False, keep_edges=False))
    rate = r.states_per_second
    line = f"  rulekit explorer, no symmetry: {r.states:>9} states in {r.seconds:.1f} s ({rate:,.0f} states/s, " \
           f"{r.transitions / r.seconds:,.0f} transitions/s)"
    if r.complete:
        line += f", complete (expected {EXPECTED_STATES})"
    else:
        line += f"; stopped by the {limit} s limit: all {EXPECTED_STATES} would take about " \
                f"{EXPECTED_STATES / rate:.0f} s at this rate (run with --full)"
    print(line)
    if plain:
        states, seconds = plain_bfs(8, 5, 30)
        print(f"  plain Python BFS (this run):   {states:>9} states in {seconds:.1f} s")
    print(f"  TLC, two workers (issue 5):    {EXPECTED_STATES:>9} states in about {TLC_SECONDS:.0f} s")
    print(f"  SPIN (issue 5):                {EXPECTED_STATES:>9} states in about {SPIN_SECONDS:.0f} s")
    print(f"  plain Python BFS (issue 5):    {EXPECTED_STATES:>9} states in about {PLAIN_SECONDS:.0f} s")
    model = Spec.find(TOKENS).model
    t = time.perf_counter()
    proofs = smt.abstraction_proofs(model, model.default_options())
    took = time.perf_counter() - t
    for name in ("within_cap", "conserved"):
        verdict = proofs.get(name, ("unknown",))[0]
        print(f"  Z3 ({name}): {verdict} for N = 1..8 over the counts abstraction ({took:.2f} s for both)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="run the explorer without symmetry to the end")
    ap.add_argument("--no-plain", action="store_true", help="skip the plain Python BFS reference")
    ap.add_argument("--no-check", action="store_true", help="skip timing `rulekit check`")
    args = ap.parse_args()
    if not args.no_check:
        check_times()
    tokens(args.full, not args.no_plain)
    return 0


if __name__ == "__main__":
    sys.exit(main())
