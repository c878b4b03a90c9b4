"""Branches that random play reached and never took: `dead-rule` findings for an `if` whose condition
never held (or, for an else, always held) in the games that reached it.

A branch that is never taken is usually a slip in the spec: a number or a comparison that can never be
met (`size(deck) > 43` where 0 was meant, `>` where `>=` was), or an earlier branch that always takes its
case first. The engine built with probes records the branch sites taken (`lower.branches`). A branch is
reported when its `if` was reached under the default options and no game under any option set, at any
player count, took it; a branch that only another option takes is that option's rule. The `if` that was
never reached at all is left to the finding of what encloses it (a branch, an action never taken). The
verdict is a sample's, `bounded`, with the bound of the default options' games.
"""
from __future__ import annotations

from .. import model as m
from .. import statistics
from ..findings import Finding
from ..lower import branches as branch_index
from ..pipeline import Spec
from ..report import wording
from .shared import config_of, location_of, players_phrase, spec_text


def findings(spec: Spec, game: m.Game, variants: list[dict], tallies: dict, key_of, confidence: float) -> list[Finding]:
    """One warning per branch of a reached `if` that no random game took."""
    default = variants[0]
    taken = set().union(*(tallies[key_of(o)].silent for o in variants))
    tally = tallies[key_of(default)]
    sites: dict[str, object] = {}
    counts: dict[str, list[int]] = {}
    for players in range(game.min_players, game.max_players + 1):
        config = config_of(spec, players, default)
        if config is None:
            continue
        for site in branch_index.of(config):
            if branch_index.is_reached_site(site) or site.key in taken:
                continue
            if branch_index.reached_key(site) in tally.silent:
                sites.setdefault(site.key, site)
                counts.setdefault(site.key, []).append(players)
    if not sites:
        return []
    source = spec.text.splitlines()
    ids = _ids(game, list(sites.values()))
    out = []
    for key, site in sites.items():
        sample = statistics.Sample({n: tally.games_by_players.get(n, 0) for n in counts[key]}, {}, confidence)
        cond = branch_index.condition_of(site)
        what = (f"the condition `{spec_text(cond, source) or 'of this branch'}` never held" if cond is not None
                else "an earlier condition always held, so the `else` never ran")
        out.append(Finding(
            ids[key], game.name, "dead-rule", "warning", "bounded", "random-play",
            f"a branch that is never taken: {what} in {sample.total:,} random games "
            f"({players_phrase(counts[key])}), though play reached the `if` (in {site.owner}); at "
            f"{statistics.percent(confidence)} confidence fewer than "
            f"{statistics.percent(sample.worst_upper_bound(), up=True)} of games take it",
            quotes=list(dict.fromkeys(site.quotes)), location=location_of(site.span),
            bound=wording.sampled_bound(sample, tally.steps),
            hint="a condition that can never hold is usually a slip: a wrong number or comparison, or an earlier "
                 "branch that always takes the case first; if the case is only rare, more games (--games) may "
                 "reach it, or acknowledge it with an `expect`",
            details={"condition": spec_text(cond, source) if cond is not None else None, "rule": site.owner,
                     "branch": "else" if cond is None else "if"}))
    return out


def _ids(game: m.Game, sites: list) -> dict[str, str]:
    """GAME/dead-rule/branch/RULE/LINE (LINE-else for an else), with .2, .3 for more on one line."""
    out, seen = {}, {}
    for site in sites:
        line = site.span.line if site.span is not None else 0
        base = f"{game.name}/dead-rule/branch/{site.owner.replace(' ', '-')}/{line}" + (
            "-else" if branch_index.condition_of(site) is None else "")
        seen[base] = seen.get(base, 0) + 1
        out[site.key] = base if seen[base] == 1 else f"{base}.{seen[base]}"
    return out


__all__ = ["findings"]
