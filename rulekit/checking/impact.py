"""Option impact: what each option of an ambiguity changes against the default options, honestly measured.

For every option set other than the default (each option on its own; with `--all-options` also every
pair of options of two ambiguities), three kinds of evidence, each only as strong as it is:

- the spec itself: an option that no `AMBIGUITY is OPTION` test tells apart from the default folds to
  the same game, so it provably changes nothing;
- the same random games replayed under the option (coupled play, `coupled`): the default games' histories, one
  step at a time in both configurations; the first state where the legal moves, the chance outcomes or
  the end differ is a witness that the option changes which moves are legal;
- two samples of random games (the default options' and the option's): the verdicts of the properties
  (two verdicts are compared only when both are exact; a sampled "not reached" against a "reached" is
  a change only when the two samples' rates differ significantly) and the outcome statistics (each
  seat's win rate, the game length, how games end), each with its Clopper-Pearson or t interval and a
  two-sample test (Fisher's exact test, Mann-Whitney U), per player count, combined over the counts by
  Fisher's method and held to the family-wise error rate 1 - confidence by Holm's method: sampling noise
  is not reported as a change at that confidence.

Each option set is then classed: it changes outcomes, changes only which moves are legal, or changes
nothing observable (usually a slip in the spec, reported as a warning).
"""
from __future__ import annotations

import dataclasses
import math

from .. import model as m
from .. import phrases
from .. import statistics
from ..findings import Finding
from ..report import wording
from .sampling import Tally
from .shared import PlayBounds, options_key
from .variants import changed_options
from .coupled import coupled_replay

CLASSES = ("outcomes", "legal-moves", "nothing", "unknown")
ENDS = ("won", "no winner", "cut off", "deadlock", "rule error")


def option_impact(spec, game: m.Game, variants: list[dict], tallies: dict, verdicts: dict,
                  bounds: PlayBounds) -> list[Finding]:
    """One `option-impact` finding per option set other than the default."""
    default = variants[0]
    base = tallies[options_key(default)]
    out, cache = [], {}  # what every option set shares: the spec's option tests, the default games replayed
    for options in variants[1:]:
        changed = changed_options(options, game)
        out.append(_impact(spec, game, default, options, changed, base, tallies[options_key(options)],
                           verdicts[options_key(default)], verdicts[options_key(options)], bounds, cache))
    return out


def _impact(spec, game, default, options, changed, base: Tally, mine: Tally, base_found, my_found,
            bounds: PlayBounds, cache: dict) -> Finding:
    fid = f"{game.name}/option-impact/{'/'.join(f'{k}={v}' for k, v in sorted(changed.items()))}"
    if "tests" not in cache:
        cache["tests"] = tested(game)
    untested = [name for name, option in changed.items() if inert(cache["tests"], name, default[name], option)]
    common = dict(options=changed, quotes=_quotes(game, changed), location=_location(game, changed))
    if untested and len(untested) == len(changed):
        tests = "; ".join(f"no `{name} is ...` test tells {changed[name]} from {default[name]}" for name in untested)
        return Finding(fid, game.name, "option-impact", "warning", "proven", "static",
                       f"this option changes nothing: {tests}, so every configuration folds to the default's game "
                       "(an option that changes nothing is usually a slip in the spec)",
                       bound={"class": "nothing", "static": True}, **common)
    alpha = 1 - bounds.confidence
    exact, rates = verdict_changes(base_found, my_found, base, mine, bounds.confidence)
    stats = outcome_tests(base, mine, bounds.confidence) + rates
    holm([s for s in stats if s["p_value"] is not None])
    for s in stats:
        s["significant"] = s.get("adjusted_p_value") is not None and s["adjusted_p_value"] < alpha
    significant = [s for s in stats if s["significant"]]
    divergence = coupled_replay(spec, base, default, options, cache)
    games = {"default": base.played, "option": mine.played}
    bound = {"class": None, "games": games, "confidence": bounds.confidence, "verdict_changes": exact,
             "statistics": stats, "legal_moves": divergence and {k: v for k, v in divergence.items() if k != "steps"},
             "replayed": sum(len(h) for h in base.traces.values())}
    ends_apart = divergence is not None and ends_differently(divergence)
    if exact or significant or ends_apart:
        bound["class"] = "outcomes"
        parts = [f"{divergence['text']} (the same moves under both options)"] if ends_apart else []
        parts += [f"{c['property']}: {c['default']} -> {c['option']}" for c in exact]
        parts += [describe_change(s) for s in significant[:4]]
        more = len(exact) + len(significant) + ends_apart - len(parts)
        message = ("this option changes outcomes: " + "; ".join(parts) + (f"; and {more} more" if more else "")
                   + f" ({base.played} games under the default options, {mine.played} under this one; "
                   f"every test held at {statistics.percent(bounds.confidence)} confidence together)")
        return Finding(fid, game.name, "option-impact", "info", "proven" if exact or ends_apart else "bounded",
                       "random-play", message, bound=bound, witness=divergence and divergence["steps"],
                       acknowledged_by=next(iter(sorted(changed))), **common)
    if divergence is not None:
        bound["class"] = "legal-moves"
        message = (f"this option changes which moves are legal (or the odds of chance), and no outcome was seen "
                   f"to change: {divergence['text']}; no verdict and no outcome statistic changes significantly "
                   f"({base.played} games under the default options, {mine.played} under this one)")
        # The witness proves that the legal moves differ; "not the outcomes" rests on the samples alone.
        return Finding(fid, game.name, "option-impact", "info", "bounded", "random-play", message, bound=bound,
                       witness=divergence["steps"], acknowledged_by=next(iter(sorted(changed))), **common)
    replayed = bound["replayed"]
    if not replayed:
        bound["class"] = "unknown"
        return Finding(fid, game.name, "option-impact", "info", "unknown", "random-play",
                       f"what this option changes is unknown: no game under the default options ended to be replayed "
                       f"under it (they ended in a rule error or were cut off), and no verdict or outcome statistic "
                       f"changes significantly ({base.played} games under the default options, {mine.played} under "
                       "this one)", bound=bound, **common)
    bound["class"] = "nothing"
    message = (f"this option changed nothing observable in the games played: {replayed} default game(s) replay move "
               f"for move with the same legal moves and chance outcomes, and no verdict or outcome statistic changes "
               f"significantly ({base.played} games under the default options, {mine.played} under this one); "
               "either what the option changes is rare in play (--all-options replays more games, --variant-games "
               "plays more) or the option is a slip in the spec")
    return Finding(fid, game.name, "option-impact", "warning", "bounded", "random-play", message, bound=bound,
                   **common)


def ends_differently(divergence: dict) -> bool:
    """Whether the first difference of a replayed game is in its end: the same moves end the game under
    one option and not under the other, or end it with other winners. That is an outcome, witnessed."""
    return any(isinstance(side, dict) and side.get("over") for side in (divergence["default"], divergence["option"]))


# ---- the spec itself -------------------------------------------------------------------------------

def tested(game: m.Game) -> set[tuple[str, str]]:
    """Every (ambiguity, option) that an `ambiguity is option` test of the rules names (the checks aside)."""
    roots = [getattr(game, f.name) for f in dataclasses.fields(game)
             if f.name not in ("properties", "expected", "examples")]
    return {(x.ambiguity, x.option) for x in _nodes(roots) if isinstance(x, m.OptionIs)}


def inert(tests: set, ambiguity: str, default: str, option: str) -> bool:
    """Whether no test of `tests` (see `tested`) is true under one of the two options and false under
    the other: then both fold to the same game."""
    return not any(name == ambiguity and (o == default) != (o == option) for name, o in tests)


def _nodes(roots):
    stack, seen = list(roots), set()
    while stack:
        x = stack.pop()
        if isinstance(x, (str, int, float, bool)) or x is None or id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif dataclasses.is_dataclass(x):
            yield x
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))


def _quotes(game: m.Game, changed: dict) -> list[str]:
    return [q.text for a in game.ambiguities if a.name in changed for q in getattr(a, "quotes", ())][:2]


def _location(game: m.Game, changed: dict) -> str | None:
    first = next((a for a in game.ambiguities if a.name in changed), None)
    return str(first.span) if first is not None and first.span is not None else None


# ---- verdicts --------------------------------------------------------------------------------------

EXACT = ("proven", "refuted")


def verdict_changes(base_found, my_found, base: Tally, mine: Tally, confidence: float) -> tuple[list, list]:
    """Exact changes (both verdicts exact and different), and for the others one two-sample test of
    the rates behind them (games that reached a target, broke an invariant, got stuck)."""
    mine_by, base_by = _verdicts(my_found), _verdicts(base_found)
    exact, tests = [], []
    for key in sorted(set(mine_by) | set(base_by)):
        a, b = base_by.get(key), mine_by.get(key)
        if a is None or b is None:
            continue  # a property claimed under only one of the two option sets
        if a in EXACT and b in EXACT:
            if a != b:
                exact.append({"property": key[1], "kind": key[0], "default": a, "option": b})
            continue
        hits = _hits(key, base), _hits(key, mine)
        if hits[0] is None:
            continue
        what = {"reachability": f"games that reach {key[1]}", "invariant": f"games that break {key[1]}",
                "deadlock": "games that get stuck"}[key[0]]
        tests.append(rate_test(what, base.games_by_players, hits[0], mine.games_by_players, hits[1], confidence,
                               property=key[1], verdicts={"default": a, "option": b}))
    return exact, tests


def _verdicts(found) -> dict:
    """The strongest verdict per property (and for deadlocks) over the methods."""
    out: dict = {}
    for f in found:
        if f.kind in ("invariant", "reachability") and f.subject is not None:
            key = (f.kind, f.subject)
        elif f.kind == "deadlock":
            key = ("deadlock", "no deadlock")
        else:
            continue
        if key not in out or wording.STRENGTH[f.verdict] > wording.STRENGTH[out[key]]:
            out[key] = f.verdict
    return out


def _hits(key, tally: Tally) -> dict | None:
    kind, name = key
    if kind == "reachability":
        return tally.reach_by_players.get(name, {})
    if kind == "invariant":
        return tally.broken_by_players.get(name, {})
    return {n: o.ends["deadlock"] for n, o in tally.outcomes.items()}


# ---- outcome statistics ----------------------------------------------------------------------------

def outcome_tests(base: Tally, mine: Tally, confidence: float) -> list[dict]:
    """Each seat's win rate (of finished games), the game length (decisions of finished games) and the
    rate of each way a game ends, under both option sets, each with its test."""
    counts = sorted(set(base.outcomes) & set(mine.outcomes))
    out = []
    seats = max((n for n in counts), default=0)
    for seat in range(seats):
        at = [n for n in counts if n > seat]
        out.append(rate_test(f"win rate of {phrases.seat(seat)}",
                             {n: base.outcomes[n].finished for n in at}, {n: base.outcomes[n].wins[seat] for n in at},
                             {n: mine.outcomes[n].finished for n in at}, {n: mine.outcomes[n].wins[seat] for n in at},
                             confidence))
    out.append(length_test(base, mine, counts, confidence))
    for end in ENDS:
        a = {n: base.outcomes[n].ends[end] for n in counts}
        b = {n: mine.outcomes[n].ends[end] for n in counts}
        if any(a.values()) or any(b.values()):
            out.append(rate_test(f"games that end {_end_words(end)}",
                                 {n: base.outcomes[n].games for n in counts}, a,
                                 {n: mine.outcomes[n].games for n in counts}, b, confidence))
    a = {n: base.outcomes[n].broken for n in counts}
    b = {n: mine.outcomes[n].broken for n in counts}
    if any(a.values()) or any(b.values()):
        out.append(rate_test("games that break an invariant", {n: base.outcomes[n].games for n in counts}, a,
                             {n: mine.outcomes[n].games for n in counts}, b, confidence))
    return out


def _end_words(end: str) -> str:
    return {"won": "with a winner", "no winner": "with no winner", "cut off": "cut off at the step limit",
            "deadlock": "stuck", "rule error": "in a rule error"}[end]


def rate_test(what: str, base_games: dict, base_hits: dict, my_games: dict, my_hits: dict, confidence: float,
              **extra) -> dict:
    """Two rates, pooled with their Clopper-Pearson intervals, and Fisher's exact test per player count
    (combined over the counts by Fisher's method)."""
    from scipy.stats import fisher_exact

    pvalues = []
    for n in sorted(set(base_games) & set(my_games)):
        a, b = base_games[n], my_games[n]
        x, y = base_hits.get(n, 0), my_hits.get(n, 0)
        if a and b and (x or y) and (x < a or y < b):
            pvalues.append(float(fisher_exact([[x, a - x], [y, b - y]]).pvalue))
    sides = []
    for games, hits in ((base_games, base_hits), (my_games, my_hits)):
        n, k = sum(games.values()), sum(hits.get(p, 0) for p in games)
        low, high = statistics.interval(k, n, confidence)
        sides.append({"value": k / n if n else None, "interval": [low, high], "hits": k, "games": n})
    return {"statistic": what, "test": "Fisher's exact test", "default": sides[0], "option": sides[1],
            "p_value": _combined(pvalues), **extra}


def length_test(base: Tally, mine: Tally, counts: list[int], confidence: float) -> dict:
    """The decisions of finished games: means with t intervals, Mann-Whitney U per player count."""
    from scipy.stats import mannwhitneyu

    pvalues = []
    for n in counts:
        a, b = base.outcomes[n].lengths, mine.outcomes[n].lengths
        if a and b and len(set(a) | set(b)) > 1:
            pvalues.append(float(mannwhitneyu(a, b, alternative="two-sided").pvalue))
    sides = []
    for tally in (base, mine):
        xs = [x for n in counts for x in tally.outcomes[n].lengths]
        sides.append({"value": sum(xs) / len(xs) if xs else None, "interval": mean_interval(xs, confidence),
                      "games": len(xs)})
    return {"statistic": "game length (decisions)", "test": "Mann-Whitney U", "default": sides[0],
            "option": sides[1], "p_value": _combined(pvalues)}


def mean_interval(xs: list, confidence: float) -> list | None:
    """Student's t interval of a mean (None below two values)."""
    from scipy.stats import t

    if len(xs) < 2:
        return None
    mean = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1))
    if sd == 0:
        return [mean, mean]
    low, high = t.interval(confidence, len(xs) - 1, loc=mean, scale=sd / math.sqrt(len(xs)))
    return [float(low), float(high)]


def _combined(pvalues: list[float]) -> float | None:
    from scipy.stats import combine_pvalues

    if not pvalues:
        return None
    if len(pvalues) == 1:
        return pvalues[0]
    if min(pvalues) == 0:
        return 0.0
    return float(combine_pvalues(pvalues, method="fisher").pvalue)


def holm(stats: list[dict]) -> None:
    """Holm's step-down adjustment over one family of tests: `adjusted_p_value` on each."""
    order = sorted(range(len(stats)), key=lambda i: stats[i]["p_value"])
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(stats) - rank) * stats[i]["p_value"]))
        stats[i]["adjusted_p_value"] = running


def describe_change(s: dict) -> str:
    a, b = s["default"], s["option"]
    if s["test"] == "Mann-Whitney U":
        return (f"{s['statistic']} {_mean(a)} -> {_mean(b)} (Mann-Whitney U, adjusted p = {_p(s['adjusted_p_value'])})")
    return (f"{s['statistic']} {_rate(a)} -> {_rate(b)} (Fisher, adjusted p = {_p(s['adjusted_p_value'])})")


def _rate(side: dict) -> str:
    if side["value"] is None:
        return "(no games)"
    low, high = side["interval"]
    return f"{statistics.percent(side['value'])} [{statistics.percent(low)}, {statistics.percent(high)}]"


def _mean(side: dict) -> str:
    if side["value"] is None:
        return "(no games)"
    span = side["interval"]
    return f"{side['value']:.1f}" + (f" [{span[0]:.1f}, {span[1]:.1f}]" if span else "")


def _p(p: float) -> str:
    return f"{p:.2g}"
