"""What the engine built with silent-case probes (`Game(config, probes=True)`) runs at each site of
`lower.sites`: `PROBE(i)` records that site i was reached with the default deciding; `the_tie` and
`best_tie` are `the` and `best` that also record a tie that the domain's order broke."""
from __future__ import annotations

from .runtime import best, fail


def the_tie(probe, site: int, values, what, span):
    found = next(values, None)
    if found is None:
        fail(f"the({what}) found nothing", span)
    for other in values:
        if other != found:
            probe(site)
            break
    return found


def best_tie(probe, site: int, pairs, largest: bool, element: bool, what, span):
    pairs = list(pairs)
    chosen = best(iter(pairs), largest, element, what, span)
    top = best(iter(pairs), largest, False, what, span)
    if sum(1 for value, _ in pairs if value == top) > 1:
        probe(site)
    return chosen
