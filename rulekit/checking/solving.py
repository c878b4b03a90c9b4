"""Z3 over the exact symbolic transition relation (BMC, k-induction, parametric) and over the counts abstraction."""
from __future__ import annotations

import time


from .. import model as m
from ..findings import Finding
from ..pipeline import Spec
from .shared import (build_limit, PlayBounds, config_of, described, location_of, players_phrase, property_test,
                     quote_texts, z3_errors)
from .variants import changed_options, options_suffix
from .witnesses import replayed
from ..errors import WitnessError
from ..phrases import counted


def symbolic_findings(spec: Spec, game: m.Game, options: dict, bounds: PlayBounds) -> list[Finding]:
    """BMC, k-induction and the parametric proof, for each player count, when the configuration lies in
    the symbolic fragment (`verify.fragment`); one `unknown` finding naming the construct otherwise."""
    from ..verify import Unsupported, budget, fragment, parametric, symbolic
    from ..lower import every_count
    from ..verify.replay import history

    suffix, changed = options_suffix(options, game), changed_options(options, game)
    counts = list(range(game.min_players, game.max_players + 1))
    timeout = int(bounds.solver_timeout * 1000)
    results = {}
    whole = False
    try:
        for players in counts:
            config = config_of(spec, players, options)
            if config is None:
                continue
            with budget.fresh_context():
                with budget.time_box(build_limit(bounds), "the symbolic relation"):
                    system = fragment.build(config)
                results[players] = (system, symbolic.verify(system, bounds.bmc_depth, bounds.max_k, timeout,
                                                             bounds.symbolic_time_limit * budget.SAFETY_FACTOR,
                                                             bounds.pdr_units))
    except Unsupported as exc:
        if not game.properties:
            return []
        results, why = whole_language(spec, game, options, bounds, counts)
        whole, exc = True, why or exc
        if not results:
            return [Finding(f"{game.name}/invariant/z3-symbolic{suffix}", game.name, "invariant", "info", "unknown",
                            "z3-bmc", f"Z3 (BMC, k-induction) left out: the exact symbolic transition relation does not "
                            f"cover this game (unsupported: {exc}); its ends and deadlocks are judged by exploration and "
                            "random play, its invariants also by Z3 over the counts abstraction", options=changed),
                    *segment_findings(spec, game, options, bounds)]
    except z3_errors() as exc:
        return [Finding(f"{game.name}/invariant/z3-symbolic{suffix}", game.name, "invariant", "info", "unknown",
                        "z3-bmc", f"Z3 failed on the symbolic transition relation ({exc})", options=changed)]
    if not results:
        return []
    counts = sorted(results) if whole else counts
    where = players_phrase(counts)
    found: list[Finding] = []
    loaded_cache: dict = {}

    def replay(players, answer, holds, what):
        """The witness for people, replayed in the engine; None when it does not replay on a relation
        that over-approximates the game (it forgot an order the engine knows)."""
        if players not in loaded_cache:
            loaded_cache[players] = spec.engine(players, options)
        loaded, system = loaded_cache[players], results[players][0]
        path = history(system, loaded, answer.path, answer.states)
        if not system.inexact:
            return replayed(loaded, path, holds, what)
        try:
            return replayed(loaded, path, holds, what)
        except WitnessError:
            return None

    depth = min(v.depth for _, v in results.values())
    bound = {"players": counts, "bmc_depth": depth, "max_k": bounds.max_k,
             "relation": "whole language" if whole else "fragment"}
    elsewhere: dict = {}
    if whole:  # induction at the first count: tried at every other count too, for what it proved
        everywhere = list(range(game.min_players, game.max_players + 1))
        first = {name for _, v in results.values() for name in v.proven}
        elsewhere = inductive_elsewhere(spec, options, bounds, [p for p in everywhere if p not in results],
                                        sorted(first), all(v.stuck_free_pdr for _, v in results.values()))
    spurious: dict = {}
    tag = "z3-bmc" if whole else "z3"
    for prop in (p for p in game.properties if p.applies(options)):
        key = (prop.kind, prop.name)
        answers = {p: v.answers.get(key) for p, (_, v) in results.items()}
        test = property_test(prop)
        common = dict(quotes=quote_texts(prop), location=location_of(prop.span), options=changed)
        if prop.kind == "invariant":
            fid = f"{game.name}/invariant/{prop.name}/{tag}{suffix}"
            bad = sorted((a.depth, p) for p, a in answers.items() if a is not None and a.status == "refuted")
            ks = {p: v.proven.get(prop.name) for p, (_, v) in results.items()}
            ks.update({p: proofs.get(prop.name) for p, (proofs, _) in elsewhere.items()})
            steps = None
            while bad and steps is None:
                d, p = bad.pop(0)
                steps = replay(p, answers[p], lambda s, t=test: not t(s), f"invariant {prop.name}")
                if steps is None:
                    spurious[prop.name] = p
            if steps is not None:
                method, how = _witness_method(answers[p], d, whole)
                found.append(Finding(fid, game.name, "invariant", "error", "refuted", method,
                                     f"{prop.name} is false after {counted(len(steps), 'step')} with "
                                     f"{players_phrase([p])} ({how}){described(prop)}", bound=bound, witness=steps,
                                     **common))
            elif all(ks.values()):
                method, how, extra = proof_text(ks, whole)
                text = f"{prop.name} holds in every reachable state with {players_phrase(sorted(ks))}: {how}"
                found.append(Finding(fid, game.name, "invariant", "info", "proven", method, text + described(prop),
                                     bound={**bound, "players": sorted(ks), **extra}, **common))
            else:
                proven = sorted(p for p, k in ks.items() if k)
                # a count k-induction proved is settled, whatever BMC could not decide there
                unknown = sorted(p for p, a in answers.items() if a is not None and a.status == "unknown" and not ks.get(p))
                # an undecided question is still settled as deep as every shallower query went, and one
                # whose violation does not replay (its answers are shortest) one step short of it
                here = min((a.depth - 1 if a.status == "refuted" else a.depth for a in answers.values()
                            if a is not None), default=depth)
                if here >= 1:
                    text = f"{prop.name} holds in every state within {_bmc_reach(here, whole)} (Z3 BMC, {where})"
                else:
                    text = f"{prop.name}: Z3 BMC decided nothing within {_bmc_reach(1, whole)} ({where})"
                if proven:
                    text += f"; proven by k-induction with {players_phrase(proven)}"
                if unknown:
                    text += ("; deeper, " if here >= 1 else "; ") + "undecided with " + players_phrase(unknown) + \
                        " (" + answers[unknown[0]].reason + ")"
                if prop.name in spurious:
                    text += (f"; a violation Z3 found with {players_phrase([spurious[prop.name]])} does not replay in the engine "
                             f"(the relation forgets {', '.join(results[spurious[prop.name]][0].inexact)})")
                settled = proven or (prop.name not in spurious and (not unknown or here >= 1))
                found.append(Finding(fid, game.name, "invariant", "info", "bounded" if settled else "unknown",
                                     "z3-bmc", text + described(prop), bound={**bound, "bmc_depth": max(here, 0)},
                                     **common))
        else:
            fid = f"{game.name}/reachability/{prop.name}/{tag}{suffix}"
            hits = sorted((a.depth, p) for p, a in answers.items() if a is not None and a.status == "reached")
            never = [p for p, (_, v) in results.items() if prop.name in v.unreachable]
            steps = None
            while hits and steps is None:
                d, p = hits.pop(0)
                steps = replay(p, answers[p], lambda s, t=test: t(s), f"target {prop.name}")
            if steps is not None:
                method, how = _witness_method(answers[p], d, whole)
                found.append(Finding(fid, game.name, "reachability", "info", "proven", method,
                                     f"{prop.name} is reached in {counted(len(steps), 'step')} with "
                                     f"{players_phrase([p])} ({how})"
                                     f"{described(prop)}", bound=bound, witness=steps, **common))
            elif len(never) == len(counts):
                proofs = {p: results[p][1].unreachable[prop.name] for p in never}
                method, how, extra = proof_text(proofs, whole, "its negation")
                found.append(Finding(fid, game.name, "reachability", "warning", "refuted", method,
                                     f"{prop.name} can never be reached with {where}: {how}{described(prop)}",
                                     bound={**bound, **extra}, **common))
            else:
                here = min((a.depth for a in answers.values() if a is not None), default=depth)
                text = (f"{prop.name} is not reached within {_bmc_reach(here, whole)} (Z3 BMC, {where})" if here >= 1
                        else f"{prop.name}: Z3 BMC decided nothing within {_bmc_reach(1, whole)} ({where})")
                if never:
                    text += f"; it can never be reached with {players_phrase(sorted(never))} (Z3 induction)"
                # Over the whole-language relation BMC looks only a few steps deep: not reaching a target
                # there says little, and random play judges it.
                found.append(Finding(fid, game.name, "reachability", "info" if whole else "warning", "unknown",
                                     "z3-bmc", text + described(prop), bound={**bound, "bmc_depth": max(here, 0)},
                                     **common))
    stuck = sorted((a.depth, p) for p, (_, v) in results.items()
                   if (a := v.answers.get(("deadlock",))) is not None and a.status == "found")
    fid = f"{game.name}/deadlock/{tag}{suffix}"
    stuck_free = {p: symbolic.Proof(v.stuck_free, v.lemmas) if v.stuck_free else v.stuck_free_pdr
                  for p, (_, v) in results.items()}
    stuck_free.update({p: proof for p, (_, proof) in elsewhere.items()})
    steps = None
    while stuck and steps is None:
        d, p = stuck.pop(0)
        steps = replay(p, results[p][1].answers[("deadlock",)], lambda s: s.is_stuck(), "a deadlock")
    if steps is not None:
        method, how = _witness_method(results[p][1].answers[("deadlock",)], d, whole)
        found.append(Finding(fid, game.name, "deadlock", "error", "refuted", method,
                             f"the game is not over, yet no one has a legal move, {counted(len(steps), 'step')} from the "
                             f"start with {players_phrase([p])} ({how})", bound=bound, witness=steps, options=changed))
    elif all(stuck_free.values()):
        method, how, extra = proof_text(stuck_free, whole, '"over, or some action is legal"')
        found.append(Finding(fid, game.name, "deadlock", "info", "proven", method,
                             f"no reachable state is stuck with {players_phrase(sorted(stuck_free))}: {how}",
                             bound={**bound, "players": sorted(stuck_free), **extra}, options=changed))
    else:
        here = min((a.depth for _, v in results.values() if (a := v.answers.get(("deadlock",))) is not None),
                   default=depth)
        found.append(Finding(fid, game.name, "deadlock", "info", "bounded" if here >= 1 else "unknown", "z3-bmc",
                             f"no stuck state within {_bmc_reach(here, whole)} (Z3 BMC, {where})" if here >= 1 else
                             f"Z3 BMC decided nothing about stuck states within {_bmc_reach(1, whole)} ({where})",
                             bound={**bound, "bmc_depth": max(here, 0)}, options=changed))
    try:
        with budget.fresh_context():
            proofs = parametric.prove(every_count(game, options), timeout)
    except (Unsupported, *z3_errors()):
        proofs = {}
    for prop in (p for p in game.properties if p.applies(options)):
        if prop.name in proofs and proofs[prop.name][0]:
            found.append(Finding(f"{game.name}/invariant/{prop.name}/z3-parametric{suffix}", game.name, "invariant",
                                 "info", "proven", "z3-k-induction", f"{prop.name}: {proofs[prop.name][1]}{described(prop)}",
                                 bound={"players": f">= {game.min_players}", "k": 1}, quotes=quote_texts(prop),
                                 location=location_of(prop.span), options=changed))
    if whole:
        found += segment_findings(spec, game, options, bounds)
    return found


def _witness_method(answer, depth: int, whole: bool) -> tuple[str, str]:
    """(method, how the witness was found) of a BMC answer at `depth` steps of its relation: BMC's own,
    shortest in those steps (not in the engine's, which count chance outcomes too), or one at the depth
    where IC3/PDR found the state, past the steps BMC searched."""
    if answer.by == "pdr":
        return "z3-pdr", ("IC3/PDR found such a state past the steps BMC searched; the witness is Z3's run of "
                          "that length")
    return "z3-bmc", f"Z3 BMC, within {_bmc_reach(depth, whole)}: none is shorter in the steps of its relation"


def proof_text(proofs: dict, whole: bool, what: str = "it") -> tuple[str, str, dict]:
    """(method, the proof in words, what `bound` adds) for a condition proven at every player count of
    `proofs` ({players: symbolic.Proof}): by k-induction, by IC3/PDR, or each at some counts."""
    over = " over the whole-language relation" if whole else ""
    inductive = {p: proof for p, proof in proofs.items() if proof.method == "k-induction"}
    found = {p: proof for p, proof in proofs.items() if proof.method == "pdr"}
    parts, extra = [], {}
    if inductive:
        k = max(proof.k for proof in inductive.values())
        alongside = max(proof.lemmas for proof in inductive.values())
        where = f" with {players_phrase(sorted(inductive))}" if found else ""
        parts.append(f"Z3 proves {what} {k}-inductive{over} (with {alongside} lemma(s) proven alongside){where}")
        extra["k"] = k
    if found:
        lemmas = max(proof.lemmas for proof in found.values())
        where = f" with {players_phrase(sorted(found))}" if inductive else ""
        parts.append(f"IC3/PDR (Z3's Spacer engine) finds an inductive invariant{over} of {lemmas} lemma(s) that "
                     f"implies {what}{where}")
        extra.update(pdr_players=sorted(found), pdr_lemmas=lemmas)
    return ("z3-pdr" if found else "z3-k-induction"), "; ".join(parts), extra


def _bmc_reach(depth: int, whole: bool) -> str:
    """How far from the start BMC looked, in the steps of its relation: over the exact fragment a step is
    one decision (its initial state is the first decision); over the whole-language relation the set-up
    is the first step, and each decision (or a round of a loop that waits at no decision) one more."""
    if not whole:
        return f"{depth} decision{'' if depth == 1 else 's'} of the start"
    if depth <= 1:
        return "the set-up, before any decision"
    return (f"{depth} steps of the start: the set-up, then up to {depth - 1} decision{'' if depth == 2 else 's'} "
            "(a loop that goes round without one also takes a step)")


# Z3 resource units per player count for induction over the whole-language relation: a game small
# enough is proven in a few queries, and a large one stops here and is left to the counts abstraction.
WHOLE_INDUCTION_UNITS = 3_000_000


def whole_language(spec: Spec, game: m.Game, options: dict, bounds: PlayBounds, counts: list) -> tuple[dict, str]:
    """BMC over the whole-language relation (`verify.control`) to `whole_bmc_depth` steps, at the
    smallest player count (the cheapest to unroll); ({players: (system, verdicts)}, why not) where it
    does not cover the game. The invariants proven there (1-inductive with those proven alongside, or by
    IC3/PDR) are `verdicts.proven`; each is then tried at the other player counts (`inductive_elsewhere`).
    IC3/PDR also proves targets unreachable (at the smallest count) and "no deadlock", and gives a witness
    at its depth for what it finds broken, reached or stuck past BMC's depth."""
    from ..verify import Unsupported, budget, control, pdr, symbolic, terms

    timeout = int(bounds.solver_timeout * 1000)
    results = {}
    for players in counts[:1]:
        config = config_of(spec, players, options)
        if config is None:
            continue
        try:
            with budget.time_box(build_limit(bounds), "the whole-language relation"):
                system = control.build(config, work_limit=bounds.whole_size)
        except budget.TooLarge as exc:
            return {}, f"{exc}; --whole-size and --symbolic-time-limit allow a larger one"
        except Unsupported as exc:
            return {}, str(exc)
        deadline = time.perf_counter() + bounds.symbolic_time_limit * budget.SAFETY_FACTOR
        verdicts = symbolic.Verdicts()
        with budget.fresh_context():
            verdicts.answers = symbolic.bmc(system, bounds.whole_bmc_depth, timeout, deadline,
                                            deepen=budget.Account(bounds.whole_bmc_units))
        verdicts.depth = min((a.depth for a in verdicts.answers.values()), default=bounds.whole_bmc_depth)
        refuted = {key[1] for key, a in verdicts.answers.items() if key[0] == "invariant" and a.status == "refuted"}
        units = budget.Account(bounds.pdr_units)  # shared by the invariants, the targets and "no deadlock"
        tried: dict = {}
        verdicts.proven = inductive(system, [name for name in system.invariants if name not in refuted], timeout,
                                    units, tried)
        facts = [system.invariants[name] for name in verdicts.proven]
        unreached = {name: terms.not_(e) for name, e in system.targets.items()
                     if (a := verdicts.answers.get(("reachable", name))) is None or a.status != "reached"}
        reached = pdr.prove_each(system, unreached, facts, timeout, None, units)
        verdicts.unreachable = symbolic.proofs(reached)
        with budget.fresh_context():
            symbolic.past_bmc(system, {**{("invariant", name): o for name, o in tried.items()},
                                       **{("reachable", name): o for name, o in reached.items()}},
                              verdicts.answers, facts, timeout)
            stuck = verdicts.answers.get(("deadlock",))
            if stuck is None or stuck.status != "found":
                verdicts.stuck_free_pdr = symbolic.stuck_free_by_pdr(system, facts, timeout, None, units,
                                                                     verdicts.answers)
        results[players] = (system, verdicts)
    return results, ""


def inductive(system, names: list, timeout: int, units=None, tried: dict | None = None) -> dict:
    """{invariant: symbolic.Proof} for each of `names` that Z3 proves over a relation: 1-inductive
    together with the others (Houdini) or relative to them, within WHOLE_INDUCTION_UNITS; then, for those
    left, by IC3/PDR within what the account `units` has left (None: no IC3/PDR), relative to the ones
    proven. `tried` receives IC3/PDR's outcome for each invariant it tried."""
    from ..verify import budget, pdr, symbolic

    with budget.fresh_context(), budget.spending(budget.Account(WHOLE_INDUCTION_UNITS)):
        kept = symbolic.houdini(system, {name: system.invariants[name] for name in names}, timeout)
        out = {name: symbolic.Proof(1, len(kept) - 1) for name in kept}
        for name in names:
            if name in kept or budget.spent():
                continue
            status, k, _ = symbolic.k_induction(system, system.invariants[name], 1, timeout,
                                                assume=list(kept.values()))
            if status == "proven":
                out[name] = symbolic.Proof(k, len(kept))
    if units is not None:
        facts = [system.invariants[name] for name in out]
        outcomes = pdr.prove_each(system, {name: system.invariants[name] for name in names if name not in out},
                                  facts, timeout, None, units)
        out.update(symbolic.proofs(outcomes))
        if tried is not None:
            tried.update(outcomes)
    return out


def inductive_elsewhere(spec: Spec, options: dict, bounds: PlayBounds, counts: list, names: list,
                        deadlock: bool = False) -> dict:
    """{players: ({invariant: symbolic.Proof}, the proof that no state is stuck or None)} over the
    whole-language relation at each of `counts`, for the invariants `names` (proven at another count)
    and, with `deadlock`, "no deadlock" (proven there too); a count where one is not proven drops it from
    the counts after it, and a relation that cannot be built proves nothing."""
    from ..verify import Unsupported, budget, control, symbolic

    out: dict = {}
    timeout = int(bounds.solver_timeout * 1000)
    for players in counts:
        config = config_of(spec, players, options)
        if config is None or not (names or deadlock):
            out[players] = ({}, None)
            continue
        try:
            with budget.time_box(build_limit(bounds), "the whole-language relation"):
                system = control.build(config, work_limit=bounds.whole_size)
        except (budget.TooLarge, Unsupported):
            out[players] = ({}, None)
            names, deadlock = [], False
            continue
        units = budget.Account(bounds.pdr_units)
        proofs = inductive(system, names, timeout, units)
        stuck_free = (symbolic.stuck_free_by_pdr(system, [system.invariants[name] for name in proofs], timeout,
                                                 None, units) if deadlock else None)
        out[players] = (proofs, stuck_free)
        names = [name for name in names if name in proofs]
        deadlock = stuck_free is not None
    return out


def segment_findings(spec: Spec, game: m.Game, options: dict, bounds: PlayBounds) -> list[Finding]:
    """Each invariant over the counts abstraction (`verify.segments`): proven by k-induction, bounded
    by BMC (in segments), or unknown with the reason; never refuted, as its traces are not the engine's."""


    from ..verify import Unsupported, budget, segments

    suffix, changed = options_suffix(options, game), changed_options(options, game)
    invariants = [p for p in game.properties if p.kind == "invariant" and p.applies(options)]
    counts = list(range(game.min_players, game.max_players + 1))
    timeout = max(1, int(min(bounds.solver_timeout, 1.0) * 1000))
    results: dict = {}
    undecided_somewhere: set = set()
    try:
        for players in counts:
            if invariants and all(p.name in undecided_somewhere for p in invariants):
                break  # each is unknown already: another player count cannot change that
            config = config_of(spec, players, options)
            if config is None:
                continue
            with budget.time_box(build_limit(bounds), "the counts abstraction"):
                system = segments.build(config)
                zero = segments.never_held(system, config)
            # Each configuration gets a fixed number of Z3 resource units (not seconds: the same spec
            # gives the same verdicts on any machine), small cones first, so that what one invariant
            # leaves unused goes to the harder ones after it; the wall clock is only a safety net.
            deadline = time.perf_counter() + bounds.symbolic_time_limit * budget.SAFETY_FACTOR
            with budget.spending(budget.Account(bounds.config_units)), budget.fresh_context():
                for name in segments.by_cost(system):
                    if name in undecided_somewhere:  # one undecided player count leaves it unknown anyway
                        continue
                    answer = results.setdefault(name, {})[players] = segments.decide(
                        system, name, min(bounds.bmc_depth, 8), bounds.max_k, timeout, deadline, zero)
                    if answer[0] == "unknown":
                        undecided_somewhere.add(name)
    except Unsupported as exc:
        return [Finding(f"{game.name}/invariant/z3-counts{suffix}", game.name, "invariant", "info", "unknown",
                        "z3-bmc", f"Z3 over the counts abstraction left out (unsupported: {exc})", options=changed)]
    except z3_errors() as exc:
        return [Finding(f"{game.name}/invariant/z3-counts{suffix}", game.name, "invariant", "info", "unknown",
                        "z3-bmc", f"Z3 failed on the counts abstraction ({exc})", options=changed)]
    where = players_phrase(counts)
    how = ("over the counts abstraction (cards as counts per kind per zone, the control flow forgotten, what the "
           "state does not record left unknown, cut to the invariant's cone of influence)")
    found = []
    for prop in invariants:
        per = results[prop.name]
        fid = f"{game.name}/invariant/{prop.name}/z3{suffix}"
        common = dict(quotes=quote_texts(prop), location=location_of(prop.span), options=changed)
        if all(v[0] == "proven" and v[2] == segments.CONSERVED for v in per.values()):
            found.append(Finding(fid, game.name, "invariant", "info", "proven", "static",
                                 f"{prop.name} holds in every reachable state with {where}: it holds at the start, "
                                 "and every rule segment only moves what the sum counts from one counted place to "
                                 "another, so the sum never changes (each segment's change of the sum is zero, "
                                 f"checked term by term without Z3, {how}){described(prop)}",
                                 bound={"players": counts, "k": 1, "abstraction": "counts", "conserved": True},
                                 **common))
            continue
        if all(v[0] == "proven" for v in per.values()):
            k = max(v[1] for v in per.values())
            found.append(Finding(fid, game.name, "invariant", "info", "proven", "z3-k-induction",
                                 f"{prop.name} holds in every reachable state with {where}: Z3 proves it "
                                 f"{k}-inductive {how}{described(prop)}",
                                 bound={"players": counts, "k": k, "abstraction": "counts"}, **common))
            continue
        undecided = sorted(p for p, v in per.items() if v[0] == "unknown")
        if not undecided:
            depth = min(v[1] for v in per.values())
            proven = sorted(p for p, v in per.items() if v[0] == "proven")
            text = (f"{prop.name} holds in every state reached through at most {depth} rule segments (Z3 BMC {how}, "
                    f"{where})")
            if proven:
                text += f"; proven by k-induction with {players_phrase(proven)}"
            found.append(Finding(fid, game.name, "invariant", "info", "bounded", "z3-bmc", text + described(prop),
                                 bound={"players": counts, "bmc_depth": depth, "abstraction": "counts"}, **common))
            continue
        reason = per[undecided[0]][2]
        found.append(Finding(fid, game.name, "invariant", "info", "unknown", "z3-bmc",
                             f"{prop.name}: Z3 {how} could not decide it with {players_phrase(undecided)}: "
                             f"{reason}" + ("; the other player counts were not tried, since an undecided one leaves it "
                                            "unknown" if len(per) < len(counts) else "") + described(prop), bound={"players": counts, "abstraction": "counts"}, **common))
    return found


_ABSTRACTION_CACHE: dict = {}


def abstraction_proofs(spec: Spec, game: m.Game, options: dict, bounds: PlayBounds) -> dict:
    """Z3 over the counts abstraction; the answer depends only on the options that the declarations,
    definitions and properties read and on the facts read off the rules (`segments.rule_facts`), so
    variants that differ elsewhere share one computation."""
    from ..verify import budget, segments

    read = set()
    stack = [*game.facts, *game.components, *game.tokens, *game.vars, *game.defines, *game.properties]
    while stack:
        node = stack.pop()
        if isinstance(node, m.OptionIs):
            read.add(node.ambiguity)
        stack.extend(m.children(node))
    configs = [config_of(spec, players, options) for players in range(game.min_players, game.max_players + 1)]
    if None in configs:
        return {}
    try:
        with budget.time_box(build_limit(bounds), "the counts abstraction"):
            # The facts read off the rules (where each kind can be, the ranges of the variables) depend on
            # the whole configuration: options that change a move or a write share no proof.
            rules = tuple(segments.rule_facts(c) for c in configs)
            key = (id(game), bounds.solver_timeout, budget.rlimit(),
                   tuple(sorted((k, v) for k, v in options.items() if k in read)), rules)
            cached = _ABSTRACTION_CACHE.get(key)
            if cached is None or cached[0] is not game:
                if len(_ABSTRACTION_CACHE) > 256:
                    _ABSTRACTION_CACHE.clear()
                with budget.fresh_context():
                    proofs = segments.state_proofs(configs, int(bounds.solver_timeout * 1000))
                cached = _ABSTRACTION_CACHE[key] = (game, proofs)
    except budget.TooLarge:
        return {}  # the invariants are then judged by the other methods, each saying what it rests on
    return cached[1]
