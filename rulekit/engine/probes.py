"""What the engine built with silent-case probes (`Game(config, probes=True)`) runs at each site of
`lower.sites`: the set `HITS` records the sites reached with the default deciding (a statement's test
is compiled inline, and skipped once its site is in `HITS`); `the_tie` and `best_tie` are `the` and
`best` that also record a tie that the domain's order broke, and cost no more than those once their
site is recorded."""
from __future__ import annotations

from .runtime import best, fail


def the_tie(hits: set, site: int, values, what, span):
    found = next(values, None)
    if found is None:
        fail(f"the({what}) found nothing", span)
    if site not in hits:
        for other in values:
            if other != found:
                hits.add(site)
                break
    return found


def best_tie(hits: set, site: int, pairs, largest: bool, element: bool, what, span):
    if site in hits:
        return best(pairs, largest, element, what, span)
    pairs = list(pairs)
    chosen = best(iter(pairs), largest, element, what, span)
    top = best(iter(pairs), largest, False, what, span)
    if sum(1 for value, _ in pairs if value == top) > 1:
        hits.add(site)
    return chosen
