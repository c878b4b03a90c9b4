"""The capture generator of `subsets(zone)` binders against listing every subset and filtering.

    python benchmarks/subsets.py [--tables N]

For tables of 6 to 18 cards dealt from Chuche's deck (values 1 to 6) and a hand of three cards,
one "decision" lists every capture: for each hand card, the sets of table cards that make the
target (6 to 10) with it. Prints, per table size, the subsets a filter would visit, the captures
found, and the time per decision of the pruned search (`rulekit.engine.subsets.summing`) and of
listing every subset (`every`) and filtering, with their ratio. Both must find the same captures.
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

import rulekit  # noqa: E402
from rulekit.engine import subsets  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200, help="random positions per table size (default: 200)")
    args = parser.parse_args()
    game = rulekit.load("chuche", players=6)
    value = game.program.ns["A_wert"].__getitem__
    deck = [k for k, n in enumerate(game.component_count_list) for _ in range(n) if value(k) > 0]
    rng = random.Random(0)
    table = Table("table cards", "subsets (mean)", "captures (mean)", "pruned µs/decision", "filter µs/decision",
                  "filter / pruned", title="capture generation, one decision = three hand cards")
    for size in (6, 9, 12, 15, 18):
        positions = []
        for _ in range(args.tables):
            cards = rng.sample(deck, size + 3)
            positions.append((sorted(cards[:size]), cards[size:], rng.randint(6, 10)))
        visited = sum(len(list(subsets.every(t))) for t, _, _ in positions) / len(positions)

        def pruned():
            return [[list(subsets.summing(t, value, target - value(h))) for h in hand] for t, hand, target in positions]

        def filtered():
            return [[[s for s in subsets.every(t) if sum(map(value, s)) == target - value(h)] for h in hand]
                    for t, hand, target in positions]

        times = {}
        for name, run in (("pruned", pruned), ("filter", filtered)):
            start = time.perf_counter()
            found = run()
            times[name] = (time.perf_counter() - start) / len(positions) * 1e6
            times[name + "_found"] = found
        assert [[set(x) for x in d] for d in times["pruned_found"]] == [[set(x) for x in d] for d in times["filter_found"]]
        captures = sum(len(x) for d in times["pruned_found"] for x in d) / len(positions)
        table.add_row(str(size), f"{visited:,.0f}", f"{captures:.1f}", f"{times['pruned']:,.0f}",
                      f"{times['filter']:,.0f}", f"{times['filter'] / times['pruned']:.1f}")
    Console().print(table)


if __name__ == "__main__":
    main()
