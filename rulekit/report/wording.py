"""The words of a verdict, shared by every reader of findings: the terminal report, SARIF and the
Sphinx verdict pages. Each function reads the finding objects only, never the checks that made them."""
from __future__ import annotations

from ..findings import Finding
from ..statistics import Sample, percent
from ..phrases import counted

# How strongly a verdict settles a property: a refutation settles it against, a proof for.
STRENGTH = {"refuted": 4, "proven": 3, "bounded": 2, "unknown": 1}
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}

# A group of problems is named by what was found, never by a bare count.
PROBLEM_TITLES = {
    "quote": "quotes that are not verbatim in the rulebook",
    "coverage": "rulebook sentences that no rule accounts for",
    "contradiction": "declarations that contradict each other",
    "invariant": "invariants that do not hold",
    "reachability": "targets not reached",
    "deadlock": "deadlocks: the game is not over, yet no one can move",
    "termination": "play that may not end",
    "dead-rule": "rules that never apply",
    "runtime": "rules that could not be carried out",
    "ambiguity": "options that change verdicts",
    "stale-expect": "expectations that match no finding",
    "information-flow": "information a player gets that the rules keep from them",
    "option-impact": "options that change nothing observable",
    "example": "rulebook examples that the rules do not play out",
    "silent-case": "cases the rulebook is silent on, decided by the spec's defaults",
    "conflict": "triggers whose results depend on their order",
    "modal": "modal verbs that the spec's construct contradicts",
    "rotation": "roles that go round the table and skip a seat",
    "seat": "seats that never win",
}

HINTS = {
    "quote": "copy the rulebook's words exactly (white space does not matter)",
    "coverage": 'quote this sentence on the rule that formalizes it, or mark it `unmodelled "..." because "..."`',
    "contradiction": "correct the numbers, or declare an `ambiguity` of kind contradiction that quotes them",
    "invariant": "the witness ends in the first state that breaks it: fix the rule of its last steps, or "
                 "the invariant",
    "reachability": "a target that cannot be reached is a rule that never applies or a wrong condition",
    "deadlock": "give the player a legal move, or end the game, in the state the witness ends in",
    "termination": "an end the rules always reach, or acknowledge it with `expect` if the rulebook allows it",
    "dead-rule": "a rule, action or definition that never applies usually has a condition that can never hold",
    "runtime": "the rule at this line failed in the state the witness ends in",
    "stale-expect": "remove the `expect`, or correct the finding id it names",
    "option-impact": "make the option change the rule it is about, or remove it; acknowledge it with `expect` "
                     "when the rulebook's readings play the same",
    "example": "the example's steps, from its set-up, must be legal and end as it says: fix the rule it "
               "exercises, or declare the ambiguity where the rulebook's example contradicts its rules",
    "information-flow": "make what is offered, who moves or what is shown independent of the cards this seat cannot "
                        "see, or acknowledge a leak the rulebook implies with `expect ... quote`",
    "silent-case": "quote the rulebook sentence that settles the case, declare an `ambiguity` (kind silence), or "
                   "acknowledge it with an `expect`",
    "conflict": "give the triggers the rulebook's order, or declare an ambiguity with both orders",
    "modal": "let the player decline (or not) as the rulebook's verb says, or acknowledge it with an `expect`",
    "rotation": "hand the role on to the next seat, or acknowledge it with an `expect` where the rulebook skips seats",
    "seat": "give the seat what the others get (material, turns, a way to win), or acknowledge it with an `expect`",
}


def sampled_invariant(sample: Sample, states: int) -> str:
    """What `n` random games without a violation are worth, as a statistical model checker says it."""
    bound = percent(sample.worst_upper_bound(), up=True)
    return (f"no violation in {sample.total:,} random games ({states:,} states); at {percent(sample.confidence)} "
            f"confidence the chance that a game violates it is below {bound}" + _per_count(sample))


def sampled_absence(what: str, sample: Sample, states: int) -> str:
    bound = percent(sample.worst_upper_bound(), up=True)
    return (f"no {what} in {sample.total:,} random games ({states:,} states); at {percent(sample.confidence)} "
            f"confidence the chance that a game has one is below {bound}" + _per_count(sample))


def reach_frequency(sample: Sample) -> str:
    """How often random games reach a target, with the exact interval."""
    low, high = sample.interval()
    return (f"random games reach it in {sample.total_hits} of {sample.total} "
            f"({percent(sample.total_hits / sample.total) if sample.total else '0 %'}; "
            f"{percent(sample.confidence)} interval {percent(low)} to {percent(high, up=True)})")


def not_reached(sample: Sample) -> str:
    bound = percent(sample.worst_upper_bound(), up=True)
    return (f"not reached in {sample.total} random games; at {percent(sample.confidence)} confidence fewer than "
            f"{bound} of games reach it" + _per_count(sample))


def _per_count(sample: Sample) -> str:
    return " (for each player count)" if len([n for n in sample.games.values() if n]) > 1 else ""


def sampled_bound(sample: Sample, states: int) -> dict:
    """The JSON form of a sampled verdict's guarantee."""
    return {"games": sample.total, "states": states, "confidence": sample.confidence,
            "violation_rate_below": sample.worst_upper_bound(), "games_by_players": dict(sample.games)}


def reach_bound(sample: Sample) -> dict:
    low, high = sample.interval()
    return {"games": sample.total, "reached_in": sample.total_hits, "confidence": sample.confidence,
            "reach_rate_interval": [low, high]}


def strongest(findings: list[Finding]) -> Finding:
    """The finding that settles a question best: refuted, then proven, bounded, unknown."""
    return max(findings, key=lambda f: (STRENGTH[f.verdict], f.witness is not None))


def verdict_word(f: Finding) -> str:
    """The verdict as a reader takes it: an exhaustive proof and a sample are not the same `proven`."""
    b = f.bound or {}
    if f.kind == "reachability":
        return {"proven": "reached", "refuted": "unreachable", "bounded": "reached?",
                "unknown": "not reached"}[f.verdict]
    if f.verdict == "proven":
        return "exhaustive" if b.get("complete") and f.method == "explicit-state" else "proven"
    if f.verdict == "bounded":
        return "sampled" if "violation_rate_below" in b else "bounded"
    return f.verdict


def state_space(r) -> list[str]:
    """One line per explored configuration: the size of its state space, exact or estimated, and why
    the exploration did not finish."""
    out = []
    for x in (r.stats or {}).get("explored", []):
        where = _with_players([x["players"]]) + (f" ({', '.join(f'{k}={v}' for k, v in x['options'].items())})"
                                             if x.get("options") else "")
        if x.get("complete"):
            text = f"state space, {where}: {x['states']:,} state{'s' if x['states'] != 1 else ''}, explored to the end"
        else:
            text = (f"state space, {where}: {x['states']:,} states explored (stopped by the {x['stopped_by']} limit "
                    f"at depth {x['depth']})")
            d = x.get("distinct_states")
            if d:
                best = d.get("best_window") or {}
                where = f" at depths {best['depths'][0]} to {best['depths'][1]}" if best.get("depths") else ""
                how = (f"a lower estimate: colliding states of {d['plays']:,} random plays{where}, a Poisson "
                       f"approximation")
                if best.get("colliding_pairs") == 0 and best.get("samples", 0) > 1:
                    # Without a collision the figure is the sample's ceiling, not a property of the game.
                    how += (f"; no two of its {best['samples']:,} samples were the same state, so the figure is as "
                            f"high as so few samples can go: --distinct-steps samples more")
                if d["states_at_least"] > x["states"]:
                    text += f"; at least ~{_number(d['states_at_least'])} distinct states at {d['confidence']:.0%} ({how})"
                else:  # random play keeps to too few states to say more than the exploration
                    text += (f"; the lower estimate of distinct states, ~{_number(d['states_at_least'])} at "
                             f"{d['confidence']:.0%} ({how}), is below the states explored")
            e = x.get("estimate")
            if e:
                low, high = e["log10_spread"]
                text += (f"; the tree of plays has about 1e{e['log10_tree_nodes']:.0f} nodes (an upper estimate: "
                         f"Knuth's estimator, {e['probes']} probes, 10-90 % spread 1e{low:.0f} to 1e{high:.0f})")
            limit = x.get("exhaustive_limit")
            if limit and not x.get("exhaustive"):
                text += "; " + _fits_text(limit)
        if x.get("exhaustive"):
            text += f"; exhaustive: {x['exhaustive']}"
        out.append(text)
    return out


STATE_SPACE_HEADER = ("configuration", "states explored", "distinct states (lower)", "tree of plays (upper)",
                      "--exhaustive")


def state_space_table(r) -> tuple[list[tuple[str, ...]], list[str]]:
    """The state spaces as a table (one row per explored configuration, `STATE_SPACE_HEADER`) and the
    notes that say once what its estimates are, where `state_space` says it on every line."""
    rows, notes = [], []
    ceiling, plays = None, []
    for x in (r.stats or {}).get("explored", []):
        where = _with_players([x["players"]]) + (f" ({', '.join(f'{k}={v}' for k, v in x['options'].items())})"
                                                 if x.get("options") else "")
        if x.get("complete"):
            rows.append((where, f"{x['states']:,} (complete)", "", "", "explored"))
            continue
        explored = f"{x['states']:,} to depth {x['depth']} (the {x['stopped_by']} limit)"
        d, e = x.get("distinct_states"), x.get("estimate")
        lower = upper = ""
        if d:
            best = d.get("best_window") or {}
            lower = f"~{_number(d['states_at_least'])}"
            if d["states_at_least"] <= x["states"]:
                lower = "below explored"
            elif best.get("colliding_pairs") == 0 and best.get("samples", 0) > 1:
                lower += " *"
                ceiling = max(ceiling or 0, best["samples"])
            plays.append(d["plays"])
            notes.append(DISTINCT_NOTE.format(confidence=percent(d["confidence"])))
        if e:
            low, high = e["log10_spread"]
            upper = f"~1e{e['log10_tree_nodes']:.0f} (1e{low:.0f}-1e{high:.0f})"
            notes.append("tree of plays: an upper estimate of the reachable states, by Knuth's estimator (the mean "
                         "of its probes; in brackets their 10-90 % spread: a few long plays can put the mean above it)")
        limit, fits = x.get("exhaustive_limit") or {}, "?"
        if limit:
            fits = {False: "cannot fit", True: "fits"}.get(limit["fits"], "between")
            notes.append({"cannot fit": f"cannot fit: the lower estimate is above the {limit['states']:,}-state limit "
                                        "of --exhaustive, which skips it",
                          "fits": "fits: the upper estimate is below the limit; --exhaustive explores it to the end",
                          "between": "between: the limit lies between the two estimates; --exhaustive samples more "
                                     "states and tries it unless they show it cannot fit"}[fits])
        if x.get("exhaustive"):
            fits = f"exhaustive: {x['exhaustive']}"
        rows.append((where, explored, lower, upper, fits))
    if ceiling:
        notes.append(f"*: no two of the {ceiling:,} samples were the same state, so the figure is as high as so "
                     "few samples can go: --distinct-steps samples more")
    if plays:  # one note for every configuration: how many random plays each estimate rests on
        many = f"{min(plays):,}" if min(plays) == max(plays) else f"{min(plays):,} to {max(plays):,}"
        notes = [n.replace("{plays}", many) for n in notes]
    return rows, list(dict.fromkeys(notes))


DISTINCT_NOTE = ("distinct states: a lower estimate at {confidence} confidence, from colliding states of {{plays}} "
                 "random plays (a Poisson approximation)")


def _random_endings(b: dict) -> str:
    """How the random games of a termination verdict ended: the evidence that stays when nothing decided it."""
    games, cut, lengths = b.get("games", 0), b.get("cut", 0), b.get("finished_lengths") or {}
    if not games:
        return "no random game played"
    failed = b.get("rule_errors", 0)
    ended = f"{games - cut - failed:,} of {games:,} random games ended"
    if lengths:
        ended += f", after {lengths['min']:,} to {lengths['max']:,} decisions"
    ended += (f", {cut:,} cut at the step limit" if cut else "") + (
        f", {failed:,} stopped on a rule error" if failed else "")
    long = b.get("long_games")
    if long and long["rate_below"] < 0.5:  # "below 100 %" says nothing
        ended += (f": a game runs past {b.get('max_steps', 0):,} decisions with a chance below "
                  f"{percent(long['rate_below'], up=True)} ({percent(long['confidence'])} confidence)")
    return ended


def _count(x) -> str:
    return f"{x:,}" if isinstance(x, int) else str(x)


def _number(x: int) -> str:
    return f"{x:,}" if x < 10 ** 6 else f"{x:.1e}".replace("e+0", "e").replace("e+", "e")


def _fits_text(limit: dict) -> str:
    """Whether `--exhaustive` can finish a configuration, from its two estimates."""
    states = f"{limit['states']:,}"
    if limit["fits"] is False:
        return (f"exhaustive exploration cannot finish it within the {states}-state limit (the lower estimate is "
                f"above it; --exhaustive skips it)")
    if limit["fits"] is True:
        return f"it fits under {states} states (the upper estimate is below): --exhaustive explores it to the end"
    return (f"the {states}-state limit lies between the two estimates: --exhaustive samples more states and "
            f"tries it unless they show it cannot fit")


def rests_on(f: Finding) -> str:
    """What a verdict rests on, in a few words: a proof, an exhaustive search, a sample and its worth."""
    b = f.bound or {}
    players = _with_players(b.get("players")) if _players(b.get("players")) else ""
    if f.kind == "reachability" and f.verdict == "proven":
        steps = len(f.witness or [])
        text = f"a witness of {counted(steps, 'step')}, replayed in the engine"
        if b.get("games"):
            low, high = b.get("reach_rate_interval", (0, 1))
            text += f"; reached in {b.get('reached_in', 0)} of {b['games']} random games ({percent(low)} to " \
                    f"{percent(high, up=True)})"
        return text
    if f.kind == "invariant" and f.verdict == "proven" and b.get("conserved"):
        return "a sum no rule segment changes, each change zero term by term" + (f", {players}" if players else "")
    if f.method == "z3-pdr" and f.witness:
        return f"IC3/PDR, past BMC's depth: a witness of {counted(len(f.witness), 'step')}, replayed in the engine"
    if f.method in ("z3-k-induction", "z3-pdr") and f.verdict in ("proven", "refuted"):
        how = ("over the counts abstraction" if b.get("abstraction") else "over the whole-language relation"
               if b.get("relation") == "whole language" else "over the exact transition relation")
        if f.method == "z3-k-induction":
            return f"Z3 proof: {b.get('k', 1)}-inductive {how}" + (f", {players}" if players else "")
        found = b.get("pdr_players") or []
        if "k" not in b:
            return f"Z3 proof: an inductive invariant found by IC3/PDR {how}" + (f", {players}" if players else "")
        inductive = [p for p in b.get("players") or [] if p not in found]
        return (f"Z3 proof {how}: {b['k']}-inductive {_with_players(inductive)}, an inductive invariant found by "
                f"IC3/PDR {_with_players(found)}")
    if f.method == "z3-ranking":
        whole = "whole language" in (b.get("ranking_relations") or {}).values()
        how = "the whole-language relation" if whole else "the exact transition relation"
        return f"Z3: a ranking function over {how}" + (f", {players}" if players else "")
    if f.kind == "termination" and "lasso" in b:
        lasso = b["lasso"]
        luck = "" if lasso.get("players_alone", True) else ", only while chance repeats its outcomes (probability zero)"
        drifting = lasso.get("records_drifting") or []
        records = f" but for {', '.join(drifting)}, which no rule reads" if drifting else ""
        prefix = f"{lasso['prefix']} step" + ("" if lasso["prefix"] == 1 else "s")
        return (f"a lasso replayed in the engine ({prefix}, then a loop of {lasso['loop']} steps back to the same "
                f"state{records}){luck}, {lasso['players']} player{'' if lasso['players'] == 1 else 's'}")
    if f.kind == "termination" and f.verdict == "unknown":
        settle = b.get("exhaustive_may_settle")
        return ("not decided by exploration, a ranking function or a loop search; " + _random_endings(b)
                + " (-v: what was tried" + (f"; --exhaustive may settle {_with_players(settle)}" if settle else "")
                + ")")
    if f.kind == "termination" and f.verdict == "proven":
        return f"exhaustive: complete explorations with no cycle that avoids the ends, {players}"
    if f.method == "z3-abstraction":
        return "Z3 proof over counts per card kind per zone" + (f", {players}" if players else "")
    if f.method == "z3-unsat-core":
        return f"Z3{', ' + players if players else ''}"
    if b.get("complete") and f.method in ("explicit-state", "graph"):
        return f"exhaustive: every reachable state ({_count(b.get('states', '?'))} states)"
    if "violation_rate_below" in b:
        happens = "reaches it" if f.kind == "reachability" else "breaks it"
        explored = (b.get("explored") or {}).get("states") or 0
        searched = f"; none of {_count(explored)} explored states {happens}" if explored else ""
        return (f"{b['games']} random games ({_count(b['states'])} states): a game {happens} with a chance below "
                f"{percent(b['violation_rate_below'], up=True)} ({percent(b['confidence'])} confidence){searched}")
    if "bmc_depth" in b:
        return f"Z3 BMC to depth {b['bmc_depth']}" + (f", {players}" if players else "")
    if f.witness:
        return f"a witness of {counted(len(f.witness), 'step')}, replayed in the engine"
    if b.get("games"):
        return f"{b['games']} random games"
    return f.method


def _with_players(value) -> str:
    """Player counts with their noun: "1 player", "1 to 5 players"."""
    return _players(value) + (" player" if value in (1, [1]) else " players")


def _players(value) -> str:
    if isinstance(value, list) and value:
        return str(value[0]) if len(value) == 1 else f"{value[0]} to {value[-1]}"
    return str(value) if value else ""


def problem_sort_key(f: Finding) -> tuple:
    return (f.acknowledged_by is not None, SEVERITY_ORDER[f.severity], f.kind, f.location or "", f.id)


def is_problem(f: Finding) -> bool:
    return f.severity in ("error", "warning")


def options_text(options: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(options.items()))
