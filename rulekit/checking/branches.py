"""Branches that never run: `dead-rule` findings for an `if` whose condition the facts and the player
count make false before play, at every player count (`proven`), or that never held (or, for an else,
always held) in the random games that reached it (`bounded`, or `proven` where Z3 finds no state of the
counts abstraction that meets it).

A branch that is never taken is usually a slip in the spec: a number or a comparison that can never be
met (`size(deck) > 43` where 0 was meant, `>` where `>=` was), or an earlier branch that always takes its
case first.

Before play, lowering folds what the facts, the options and the player count decide (`lower.branches`
keeps the branches it rules out): a branch ruled out under every option set played and at every player
count is `proven` dead. One whose `if` tests an option is left out (two options together may take it).

In play, the engine built with probes records the branch sites taken. A branch is reported when its
`if` was reached under the default options and no game under any option set, at any player count, took
it; a branch that only another option takes is that option's rule. The `if` that was never reached at
all is left to the finding of what encloses it (a branch, an action never taken). The verdict is a
sample's, `bounded`, with the bound of the default options' games, unless Z3 finds that no state of the
counts abstraction (`verify.segments.never_hold`) meets the branch's test, under every option set played
and at every player count: then it is `proven`.
"""
from __future__ import annotations

from .. import model as m
from .. import statistics
from ..findings import Finding
from ..lower import branches as branch_index
from ..pipeline import Spec
from ..report import wording
from .shared import PlayBounds, build_limit, config_of, location_of, players_phrase, spec_text


def findings(spec: Spec, game: m.Game, variants: list[dict], tallies: dict, key_of,
             bounds: PlayBounds) -> list[Finding]:
    """One warning per branch of a reached `if` that no random game took, or that the player count rules
    out before play."""
    confidence = bounds.confidence
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
    source = spec.text.splitlines()
    dead = {key: (site, at) for key, (site, at) in _folded(spec, game, variants).items()
            if spec_text(branch_index.condition_of(site), source) != "false"}  # `if false`: left out on purpose
    if not sites and not dead:
        return []
    ids = _ids(game, [*sites.values(), *(site for site, _ in dead.values())])
    out = [_folded_finding(game, site, at, ids[site.key], source) for site, at in dead.values()]
    proven = _held_in_no_state(spec, game, variants, list(sites), bounds) if sites else set()
    for key, site in sites.items():
        sample = statistics.Sample({n: tally.games_by_players.get(n, 0) for n in counts[key]}, {}, confidence)
        cond = branch_index.condition_of(site)
        written = spec_text(cond, source) if cond is not None else None
        message = (_proven_message(game, site, written, sample, counts[key], len(variants) > 1) if key in proven
                   else _sampled_message(site, written, sample, counts[key]))
        out.append(Finding(
            ids[key], game.name, "dead-rule", "warning", "proven" if key in proven else "bounded",
            "z3-abstraction" if key in proven else "random-play", message,
            quotes=list(dict.fromkeys(site.quotes)), location=location_of(site.span),
            bound=wording.sampled_bound(sample, tally.steps),
            hint="a condition that can never hold is usually a slip: a wrong number or comparison, or an earlier "
                 "branch that always takes the case first; " + (
                     "if the rulebook does mean it, acknowledge it with an `expect`" if key in proven else
                     "if the case is only rare, more games (--games) may reach it, or acknowledge it with an `expect`"),
            details={"condition": written, "rule": site.owner,
                     "branch": "else" if cond is None else "if"}))
    return out


def _proven_message(game: m.Game, site, written: str | None, sample, counts: list[int], options: bool) -> str:
    what = (f"the condition `{written or 'of this branch'}` holds in no state play can reach" if site.case
            else "an earlier condition holds in every state play can reach, so the `else` never runs")
    return (f"a branch that never runs: {what} (Z3 over the counts abstraction: {ABSTRACTION}), with "
            f"{players_phrase(list(range(game.min_players, game.max_players + 1)))}, under the default options"
            f"{' and each option alone' if options else ''}; nor did any of {sample.total:,} random games "
            f"({players_phrase(counts)}) take it, though play reached the `if` (in {site.owner})")


def _sampled_message(site, written: str | None, sample, counts: list[int]) -> str:
    what = (f"the condition `{written or 'of this branch'}` never held" if site.case
            else "an earlier condition always held, so the `else` never ran")
    return (f"a branch that is never taken: {what} in {sample.total:,} random games ({players_phrase(counts)}), "
            f"though play reached the `if` (in {site.owner}); at {statistics.percent(sample.confidence)} "
            f"confidence fewer than {statistics.percent(sample.worst_upper_bound(), up=True)} of games take it")


ABSTRACTION = ("cards and tokens conserved, each card kind only in the zones the moves of the rules can carry it "
               "to, the variables in their declared ranges and in those their writes keep them in")


def _held_in_no_state(spec: Spec, game: m.Game, variants: list[dict], keys: list[str], bounds: PlayBounds) -> set:
    """The branches of `keys` whose test (their condition, after the earlier ones failed) holds in no
    state of the counts abstraction (`verify.segments.never_hold`), under every option set played and
    at every player count that has their `if`. A test the abstraction cannot read, Z3 leaves
    undecided, or whose encoding passes its limits, keeps its branch out."""
    from ..verify import budget, segments

    left = set(keys)
    try:
        with budget.fresh_context(), budget.time_box(build_limit(bounds), "the counts abstraction"):
            for options in variants:
                for players in range(game.min_players, game.max_players + 1):
                    config = config_of(spec, players, options)
                    tests = {} if config is None else {site.key: site.test for site in branch_index.of(config)
                                                       if site.key in left}
                    if tests:
                        left -= set(tests) - segments.never_hold(config, tests, int(bounds.solver_timeout * 1000))
                    if not left:
                        return set()
    except budget.TooLarge:
        return set()
    return left


def _folded(spec: Spec, game: m.Game, variants: list[dict]) -> dict[str, tuple]:
    """The branches that the facts and the player count rule out before play in every configuration that
    has their `if`: key -> (site, player counts). A branch whose `if` tests an option is left out: the
    option sets played are the default and each option alone, and two options together may take it."""
    live: set[str] = set()
    dead: dict[str, tuple] = {}
    for options in variants:
        for players in range(game.min_players, game.max_players + 1):
            config = config_of(spec, players, options)
            if config is None:
                continue
            live.update(site.key for site in (*branch_index.of(config), *branch_index.certain(config)))
            for site in branch_index.folded(config):
                dead.setdefault(site.key, (site, set()))[1].add(players)
    chosen = _ifs_with_options(game)
    return {key: (site, sorted(counts)) for key, (site, counts) in dead.items()
            if key not in live and key.rpartition("/")[0] not in chosen}


def _ifs_with_options(game: m.Game) -> set[str]:
    """The keys (without the branch) of the `if`s of the spec one of whose conditions tests an option."""
    out = set()
    for body in m.bodies(game):
        for st in m.walk(body):
            if isinstance(st, m.If) and st.span is not None and any(
                    isinstance(node, m.OptionIs) for cond, _ in st.branches for node in m.nodes(cond)):
                out.add(f"branch@{st.span.file}:{st.span.line}:{st.span.column}")
    return out


def _folded_finding(game: m.Game, site, counts: list[int], fid: str, source: list[str]) -> Finding:
    cond = branch_index.condition_of(site)
    written = spec_text(cond, source) if cond is not None else ""
    if cond is not None and branch_index.never(cond):
        why = f"its condition `{written or 'of this branch'}` is false"
    else:
        why = "an earlier condition of the `if` always holds"
    return Finding(
        fid, game.name, "dead-rule", "warning", "proven", "static",
        f"a branch that never runs: {why} with {players_phrase(counts)}, under every option set, before play "
        f"(the facts and the player count decide it; in {site.owner})",
        quotes=list(dict.fromkeys(site.quotes)), location=location_of(site.span),
        hint="a condition on the player count or a fact that no configuration meets is usually a slip: a wrong "
             "number or comparison (`player_count < 3` where `< 4` was meant)",
        details={"condition": written or None, "rule": site.owner, "branch": "else" if cond is None else "if",
                 "players": counts})


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
