"""Termination: one finding per option set, over every player count, with the strongest verdict the
evidence supports (`verify.termination`): proven by a complete exploration with no cycle that avoids
the ends, or by a ranking function that Z3 finds over the exact symbolic relation (or, where that one
does not cover the game, over the whole-language relation of `verify.control`); refuted by a
lasso (a prefix and a loop that play can repeat forever) replayed in the engine, found by the
exploration from the start or deeper, near random games (`verify.endless`), or carried from the
default options to another option set where it replays there too (`KnownLoops`), or where it comes
back once its steps are played by their names, leniently (`verify.carry`; where neither does, a
search near random games looks for another loop under that option set; where the default options
have no loop to carry, one game of players who do as little as the rules allow, `endless.stall_probe`,
at the first such count), or by a play after
which the rules themselves go round for ever (the engine's `EndlessRun`, met by the exploration or
by random play); unknown otherwise,
saying what was tried. The whole-language relation's search, the longest, comes after the loop search,
which settles a game that can go on for ever first. A loop that needs chance to repeat its outcomes, while the players cannot keep
play going whatever chance does, goes on forever with probability zero: it is reported as a note,
not a warning. Random games cut at the step limit are long games, not endless ones: they are
reported as cut, with the lengths of the games that ended."""
from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, field

from .. import model as m
from ..errors import RuleRuntimeError
from ..findings import Finding
from ..statistics import Sample, percent
from .shared import PlayBounds, build_limit, config_of, players_phrase
from .variants import changed_options, options_suffix
from .witnesses import witness
from ..phrases import and_list, counted


@dataclass
class KnownLoops:
    """The lassos found under the default options, per player count: (the lasso, whether the players
    alone keep it going, the game it was found in). Every other option set replays them first: an
    option changes a few rules, and a loop that none of them touches is a loop there too, found for
    the cost of one replay; a loop that an option touches is carried over by the names of its steps."""
    by_players: dict[int, tuple] = field(default_factory=dict)


def termination(spec, game: m.Game, options: dict, tally, explored: list, bounds: PlayBounds,
                known: KnownLoops | None = None) -> Finding:
    """The termination finding of one option set. Under the default options, the lassos it finds are
    kept in `known`; under the others, those are replayed before a loop is searched for."""
    from ..verify import budget, endless
    from ..verify import termination as term
    from ..verify.explore import state_key

    suffix, changed = options_suffix(options, game), changed_options(options, game)
    counts = list(range(game.min_players, game.max_players + 1))
    by_players = {x.players: x for x in explored}
    verdicts: dict[int, tuple[str, str]] = {}
    lassos: dict[int, tuple] = {}  # players -> (loaded game, lasso, whether the players alone keep it going,
    # the records no rule reads that its loop changes)
    relations: dict[int, str] = {}  # players -> the relation a ranking function was found over
    carried: set[int] = set()  # players whose lasso is the one found under the default options
    default = options == game.default_options()
    pool = _search_pool(default, bounds)
    topped_up = False  # whether a loop found at a count has earned the search its extra budget
    searching = pool > 0
    # Where an option breaks the loop found under the default options, play can often still go round
    # by another one near it: a search looks there too (see `_broken_loop_share`).
    rescue = _broken_loop_share(default, bounds, len(counts))
    runs: dict[int, tuple] = {}  # players -> (loaded game, history, method): a play after which the rules go round for ever
    # The first count where the search for another loop (`rescue`) found nothing: an option that breaks
    # the loop at one count, with no other loop near it, breaks it at the larger counts too, whose
    # rounds are longer.
    missed: int | None = None
    # Under an option set that no search covers, where no loop of the default options carries over:
    # one game of players who do as little as the rules allow, at the first such count (`endless.stall_probe`).
    probe = _stall_probe_share(default, bounds)
    probed_at: int | None = None
    for done, players in enumerate(counts):
        x = by_players.get(players)
        tried = []
        run = _endless_run(x, tally, players)
        if run is not None:
            runs[players] = run
            verdicts[players] = ("refuted", f"after a play of {counted(len(run[1]), 'step')} the rules go round for ever, the same "
                                            "state coming back with no decision or chance event to end it")
            continue
        long_run = x is not None and any(not shown for _, _, shown in x.unending)
        if long_run:
            tried.append("exploration: a run of the rules went past the engine's step limit with no decision or "
                         "chance event, without its state coming back")
        if x is not None and x.edges is not None and not long_run:
            if term.acyclic(x):
                verdicts[players] = ("proven", f"a complete exploration ({x.states:,} states) has no cycle that avoids "
                                               "the ends")
                continue
            key, exact = state_key(x.loaded, x.symmetry), state_key(x.loaded, False, termination_only=True)
            keep = endless.kept_going(x)
            found = term.lasso(x, key, exact, within=keep) if keep else None
            kept = found is not None
            found = found or term.lasso(x, key, exact)
            if found is not None:
                kept = kept or not found.chance
                probability = endless.loop_probability(x.loaded, found)
                verdicts[players] = ("refuted", _keep_lasso(lassos, players, x.loaded, found, kept, probability)
                                     + _trapped_text(x))
                continue
            tried.append("exploration: " + ("complete" if x.complete else f"stopped by the {x.stopped_by} limit at "
                                             f"depth {x.depth}") + ", no cycle among the states it saw")
        if x is None and _ends_at_once(spec, players, options):
            verdicts[players] = ("proven", "the set-up ends the game before any decision or chance event")
            continue
        from_default = known.by_players.get(players) if known is not None and not default else None
        broken = False  # the default options' loop at this count does not replay under these
        lucky = None  # (game, lasso, kept): that loop carried over, one that needs chance to repeat
        rescue_left = rescue  # what the search for another loop may spend here
        if from_default is not None:
            loaded = x.loaded if x is not None else spec.engine(players, options)
            again = _replayed(endless, loaded, from_default, x.symmetry if x is not None else False)
            if again is not None:
                found, kept = again
                verdicts[players] = ("refuted", _keep_lasso(lassos, players, loaded, found, kept,
                                                            endless.loop_probability(loaded, found))
                                     + ", the loop found under the default options: it replays under these too")
                carried.add(players)
                continue
            again, spent = _carried_over(endless, loaded, from_default, x.symmetry if x is not None else False,
                                         min(CARRY_STATES, rescue) if rescue > 0 else CARRY_STATES)
            # The carried play is the first part of the search near this count: the rest of its share is left.
            rescue_left = max(1, rescue - spent)
            if again is not None:
                found, kept = again
                if kept or not found.chance:
                    verdicts[players] = ("refuted", _keep_lasso(lassos, players, loaded, found, kept,
                                                                endless.loop_probability(loaded, found))
                                         + CARRIED_FROM_DEFAULTS)
                    continue
                # A loop that needs luck: a search for another may find one that the players keep going.
                lucky = (loaded, found, kept)
            else:
                tried.append(f"the loop found under the default options does not replay under these, nor does it "
                             f"come back when its steps are played by their names ({spent:,} states)")
            broken = True
        config = config_of(spec, players, options) if explored or default else None
        whole = False  # the exact symbolic relation does not cover the game: the whole-language one is tried
        if config is None:
            tried.append("ranking function: tried under the explored options only (--all-options explores them all)")
        elif bounds.solver_timeout > 0:
            with budget.fresh_context():
                ranked, covered = _ranked_exactly(config, bounds, tried)
            if ranked is not None:
                verdicts[players], relations[players] = ("proven", ranked), "fragment"
                continue
            whole = not covered
        if broken and rescue > 0 and missed is not None:
            tried.append(f"no search for another loop: none was found near random games with {players_phrase([missed])}, where "
                         "the default options' loop does not replay either")
        elif searching or (broken and rescue > 0):
            loaded = x.loaded if x is not None else spec.engine(players, options)
            if searching and lassos and not topped_up:
                pool, topped_up = pool + _extra_after_loop(bounds), True
            share = (max(1, min(pool, max(_count_share(pool, len(counts) - done),
                                          _share_after_loop(bounds) if lassos else 0)))
                     if searching else rescue_left)
            try:
                search = endless.search(loaded, x.symmetry if x is not None else False, share,
                                        seed=bounds.seed, max_steps=bounds.max_steps)
            except RuleRuntimeError:  # the set-up fails: a rule error, which the report gives
                verdicts[players] = ("unknown", "; ".join([*tried, "no loop search: the rules fail where play starts"]))
                continue
            if searching:
                pool = max(0, pool - min(share, search.states))
            if search.found is not None:
                kept = search.kept or not search.found.chance
                verdicts[players] = ("refuted", _keep_lasso(lassos, players, loaded, search.found, kept,
                                                            search.probability)
                                     + f", found near random games ({search.text()})"
                                     + ("" if searching else ", where the loop of the default options does not replay"))
                continue
            tried.append(f"no loop near random games: {search.text()}")
            if not searching:
                missed = players
        elif probe > 0 and from_default is None and probed_at is None:
            probed_at = players
            loaded = spec.engine(players, options)  # an option set with a probe is not explored
            try:
                probed = endless.stall_probe(loaded, False, probe, seed=bounds.seed, max_steps=bounds.max_steps)
            except RuleRuntimeError:  # the set-up fails: a rule error, which the report gives
                verdicts[players] = ("unknown", "; ".join([*tried, "no loop search: the rules fail where play starts"]))
                continue
            if probed.found is not None:
                kept = probed.kept or not probed.found.chance
                verdicts[players] = ("refuted", _keep_lasso(lassos, players, loaded, probed.found, kept,
                                                            probed.probability) + f", found in {probed.text()}")
                continue
            tried.append(f"no loop in {probed.text()}")
        elif bounds.loop_search > 0:
            where_probed = (f"; under these, one game of players who do as little as the rules allow, with "
                            f"{players_phrase([probed_at])}" if probed_at is not None else "")
            tried.append("loop search near random games: under the default options, and under others only where "
                         f"the loop found under the default options does not replay{where_probed} (--all-options "
                         "searches every option set)")
        if lucky is not None:
            loaded, found, kept = lucky
            verdicts[players] = ("refuted", _keep_lasso(lassos, players, loaded, found, kept,
                                                        endless.loop_probability(loaded, found))
                                 + CARRIED_FROM_DEFAULTS)
            continue
        # After the loop search: the larger relation's search is long, and pointless where play loops.
        if whole:
            with budget.fresh_context():
                ranked = _ranked_whole(config, bounds, tried)
            if ranked is not None:
                verdicts[players], relations[players] = ("proven", ranked), "whole language"
                continue
        verdicts[players] = ("unknown", "; ".join(tried) or "no method applies")
    if default and known is not None:
        known.by_players = {p: (found, kept, loaded) for p, (loaded, found, kept, _) in lassos.items()}
    fid = f"{game.name}/termination{suffix}"
    played = _played_text(tally, bounds)
    bound = {"players": counts, "per_players": {p: v for p, (v, _) in verdicts.items()}, **_lengths(tally, bounds)}
    if relations:
        bound["ranking_relations"] = relations
    refuted = sorted(lassos)
    proven = sorted(p for p, (v, _) in verdicts.items() if v == "proven")
    if runs:
        players = min(runs)
        loaded, history, method = runs[players]
        before = loaded.replay(history[:-1]) if history else None  # with no history, the set-up goes round
        last = before.action_to_string(history[-1]) if history else ""
        when = ("from the start" if not history else f"after {last}" if len(history) == 1 else
                f"after the {counted(len(history) - 1, 'step')} of the witness and then {last}")
        bound["endless_run"] = {"players": players, "steps": len(history)}
        return Finding(fid, game.name, "termination", "warning", "refuted", method,
                       f"play can go on forever with {players_phrase(sorted(runs))}, whatever the players do: {when}, "
                       "the rules go round for ever, the same state coming back with no decision or chance event "
                       "to end it" + _others(verdicts, sorted(runs)) + played, bound=bound,
                       witness=witness(before) if before is not None else None, options=changed)
    if refuted:
        stalls = [p for p in refuted if lassos[p][2]]
        players = (stalls or refuted)[0]
        loaded, found, _, drifting = lassos[players]
        steps = witness(loaded.replay(found.prefix + found.loop))
        bound["lasso"] = {"players": players, "prefix": len(found.prefix), "loop": len(found.loop),
                          "players_alone": bool(stalls), "records_drifting": drifting}
        # The counts left undecided keep what was tried there: the message names only their verdict.
        undecided = {p: why for p, (verdict, why) in sorted(verdicts.items()) if verdict == "unknown"}
        if undecided:
            bound["undecided"] = undecided
        if stalls:
            lead = f"play can go on forever with {players_phrase(stalls)}"
        else:
            lead = (f"play can go on forever with {players_phrase(refuted)}, along loops that need chance to "
                    f"repeat its outcomes (such a loop goes on forever with probability zero; no way was found for "
                    f"the players alone to keep play going)")
        # The same lassos as under the default options, at the same player counts: the same finding,
        # which a reader is told once (`same_as`) rather than once per option set.
        same = known is not None and bool(carried) and carried == set(lassos) == set(known.by_players)
        return Finding(fid, game.name, "termination", "warning" if stalls else "info", "refuted", "explicit-state",
                       f"{lead}: {verdicts[players][1]}" + _others(verdicts, [players]) + played, bound=bound,
                       witness=steps, options=changed,
                       details={"same_as": f"{game.name}/termination"} if same else {})
    if len(proven) == len(counts):
        reasons = _grouped(verdicts)
        return Finding(fid, game.name, "termination", "info", "proven",
                       "z3-ranking" if relations else "explicit-state",
                       f"every play ends, with {players_phrase(counts)} ({reasons})" + played,
                       bound=bound, options=changed)
    reasons = _grouped(verdicts)
    settle = [] if bounds.exhaustive else _may_fit(by_players, [p for p, (v, _) in verdicts.items() if v == "unknown"])
    if settle:
        bound["exhaustive_may_settle"] = settle
        reasons += (f"; --exhaustive may settle it with {players_phrase(settle)}: an exploration to the end may fit "
                    "there")
        counters = open_counters(game)
        if counters:
            bound["open_counters"] = counters
            one = len(counters) == 1
            reasons += (f", unless {and_list([f'`{c}`' for c in counters])}, which {'has' if one else 'have'} no "
                        f"range, {'keeps' if one else 'keep'} growing: then the states have no end and it runs out "
                        "its time")
    return Finding(fid, game.name, "termination", "info", "unknown", "explicit-state" if explored else "random-play",
                   f"not decided whether every play ends ({reasons})" + played, bound=bound, options=changed)


NO_END_GAMES = 10  # random games, all cut, that a warning that no game ends rests on at the least


def never_ended(game: m.Game, options: dict, tally, explored: list, bounds: PlayBounds,
                ending: Finding) -> Finding | None:
    """A warning where, at some player counts, every random game ran to the step limit and none ended
    (and the explorer met no end there either): an end that cannot fire (a win whose condition never
    holds, an `end game` left out) is the usual cause; a game that is only long needs a larger
    `--max-steps`. Rule errors are said by their own findings, and play that the players alone keep
    going for ever by the termination finding (`ending`) already."""
    if ending.verdict == "refuted" and ending.severity == "warning":
        return None
    outcomes = getattr(tally, "outcomes", {}) or {}
    ends_met = {x.players for x in explored if x.terminal}
    games = {p: o.ends["cut off"] for p, o in sorted(outcomes.items())
             if o.ends["cut off"] and not o.finished and not o.ends["deadlock"] and p not in ends_met}
    if sum(games.values()) < NO_END_GAMES:
        return None
    sample = Sample(games, {}, bounds.confidence)
    counts = sorted(games)
    return Finding(
        f"{game.name}/termination/no-end{options_suffix(options, game)}", game.name, "termination", "warning",
        "unknown", "random-play",
        f"no random game ended with {players_phrase(counts)}: all {sample.total:,} ran to the step limit of "
        f"{bounds.max_steps:,} decisions; at {percent(sample.confidence)} confidence fewer than "
        f"{percent(sample.worst_upper_bound(), up=True)} of games end within it"
        + (" (for each player count)" if len(counts) > 1 else ""),
        bound={"games": sample.total, "games_by_players": dict(games), "max_steps": bounds.max_steps,
               "confidence": sample.confidence, "end_rate_below": sample.worst_upper_bound()},
        options=changed_options(options, game),
        hint="an end that cannot fire is the usual cause: a win whose condition never holds, an `end game` "
             "left out after a win; if the game is only long, a larger --max-steps lets random games finish")


def open_counters(game: m.Game) -> list[str]:
    """The whole-number variables that a rule adds to or subtracts from and that have no bound on that
    side: a game that keeps counting (busts, a score) has as many states as the count has values."""
    open_sides = {v.name: {"+": v.high is None, "-": v.low is None} for v in game.vars if v.type.kind == "int"}
    found = {st.var for body in m.bodies(game) for st in m.walk(body)
             if isinstance(st, m.Assign) and open_sides.get(st.var, {}).get(st.op)}
    return sorted(found)


def _may_fit(by_players: dict, undecided: list[int]) -> list[int]:
    """The undecided player counts whose unfinished exploration an exhaustive one may finish: the upper
    estimate of its states is below the limit, or the limit lies between the estimates and random plays
    met the same states again (without a collision the lower estimate is only as high as its few samples
    can go, and says nothing of a fit; see `exploring.fits_limit`)."""
    from .exploring import fits_limit

    def may(x) -> bool:
        fits = fits_limit(x)
        seen = getattr(x, "distinct", None)
        window = seen.best if seen is not None else None
        return fits is True or (fits is None and window is not None and window.colliding_pairs > 0)

    return sorted(p for p in undecided if by_players.get(p) is not None and not by_players[p].complete
                  and may(by_players[p]))


RANKING_RLIMIT = 200_000  # per query: a ranking function is a cheap extra in the default run
# Per query and in all, per configuration, over the whole-language relation: its steps run the rules
# from one decision to the next (a card led, then the trick taken), and one query over a sum of cards
# in every hand takes a few hundred thousand units; the total keeps a game that does not always end
# from being tried at length.
WHOLE_RANKING_RLIMIT = 1_000_000
WHOLE_RANKING_UNITS = 5_000_000


def _ranked_exactly(config, bounds: PlayBounds, tried: list) -> tuple[str | None, bool]:
    """(the text of a ranking function that Z3 finds over the exact symbolic relation, or None with what
    was tried added to `tried`; whether that relation covers the game)."""
    from ..verify import Unsupported, budget, fragment
    from ..verify import termination as term

    try:
        with budget.time_box(build_limit(bounds), "the symbolic relation"):
            system = fragment.build(config)
        with budget.resource_limit(min(budget.rlimit(), RANKING_RLIMIT)):
            ranking, why = term.ranking(system, int(bounds.solver_timeout * 1000))
    except Unsupported as exc:
        tried.append(f"ranking function: the exact symbolic relation does not cover the game ({_first(exc)})")
        return None, False
    if ranking is not None:
        return f"Z3 finds a ranking function over the exact symbolic relation: {ranking.text()}", True
    tried.append(f"ranking function over the exact symbolic relation: {why}")
    return None, True


def _ranked_whole(config, bounds: PlayBounds, tried: list) -> str | None:
    """The same over the whole-language relation (`verify.control`), for a game the exact relation
    does not cover."""
    from ..verify import Unsupported, budget, control
    from ..verify import termination as term

    try:
        with budget.time_box(build_limit(bounds), "the whole-language relation"):
            system = control.build(config, work_limit=bounds.whole_size)
        with budget.resource_limit(min(budget.rlimit(), WHOLE_RANKING_RLIMIT)), \
                budget.spending(budget.Account(WHOLE_RANKING_UNITS,
                                               bounds.symbolic_time_limit * budget.SAFETY_FACTOR)):
            ranking, why = term.ranking(system, int(bounds.solver_timeout * 1000))
    except budget.TooLarge as exc:
        tried.append(f"ranking function over the whole-language relation: {exc} (--whole-size allows a larger one)")
        return None
    except Unsupported as exc:
        tried.append(f"ranking function over the whole-language relation: {exc}")
        return None
    if ranking is not None:
        return f"Z3 finds a ranking function over the whole-language relation: {ranking.text()}"
    tried.append(f"ranking function over the whole-language relation: {why}")
    return None


def _trapped_text(x) -> str:
    """In a complete exploration, the states from which no end can be reached at all."""
    from ..verify import graphs

    trapped = graphs.trapped(x) if x.complete else None
    if trapped is None:
        return ""
    _, states, components = trapped
    return (f"; {states} reachable states have no way out to an end at all"
            + (f" ({components} strongly connected component(s))" if components >= 0 else ""))


def _first(exc) -> str:
    """The construct an encoder stopped at, without the explanation that follows it."""
    return str(exc).split(" (", 1)[0]


def _grouped(verdicts: dict) -> str:
    """The player counts that share a verdict and its reason, said once."""
    groups: dict = {}
    for p, (verdict, why) in sorted(verdicts.items()):
        groups.setdefault((verdict, why), []).append(p)
    return "; ".join(f"{players_phrase(ps)}: "
                     f"{'' if verdict == 'proven' else verdict + ', '}{why}" for (verdict, why), ps in groups.items())


def _keep_lasso(lassos: dict, players: int, loaded, found, kept: bool, probability: float) -> str:
    """Keeps a replayed lasso found with `players` in `lassos`; returns what it shows, for the message."""
    drifting = _records_drifting(loaded, found)
    lassos[players] = (loaded, found, kept, drifting)
    return _lasso_text(found, kept, probability, drifting, _decides(loaded, found))


def _decides(loaded, found) -> bool:
    """Whether a player decides anywhere along the loop of a lasso."""
    state = loaded.replay(found.prefix)
    for action in found.loop:
        if not state.is_chance_node():
            return True
        state.apply_action(action)
    return False


def _lasso_text(found, kept: bool, probability: float, drifting: list[str], decides: bool = True) -> str:
    if not found.chance:
        chance = " (every step of it is a player's decision)"
    elif kept and not decides:
        chance = " (no player decides on it, and from there no chance outcome leads to an end: play goes on whatever happens)"
    elif kept:
        chance = (" (its chance outcomes must repeat too, but from there the players' decisions alone can keep play "
                  "going forever, whatever chance does)")
    else:
        # A loop through whole shuffles comes round with a probability below the smallest float.
        odds = f"{probability:.3g}" if probability > 0 else f"below {sys.float_info.min:.3g}"
        chance = f" (its chance outcomes must repeat too: the loop comes round again with probability {odds})"
    aside = (f" (all but {', '.join(drifting)}, which no rule reads: a record that changes does not keep play "
             "from going round)") if drifting else ""
    return (f"after {_steps(len(found.prefix))} from the start, a loop of {_steps(len(found.loop))} returns to the "
            f"same state{aside}{chance}, replayed in the engine")


def _steps(n: int) -> str:
    return f"{n} step" + ("" if n == 1 else "s")


def _records_drifting(loaded, found) -> list[str]:
    """The variables that no rule reads (`verify.inert`) and that the loop of `found` changes: the
    loop comes back to the same state but for these."""
    from ..verify.endless import lasso_run
    from ..verify.inert import inert_vars, var_slots

    names = inert_vars(loaded.config.game)
    if not names:
        return []
    run = lasso_run(loaded, found.prefix, found.loop)
    if run.failed is not None:  # a lasso that was replayed before it came here: a rulekit bug
        raise run.failed
    before, after = run.start, run.end
    return [v.name for v in loaded.model.vars if v.name in names
            and any(before.v[i] != after.v[i] for i in var_slots(loaded, {v.name}))]


def _replayed(endless, loaded, carried: tuple, symmetric: bool) -> tuple | None:
    """(the lasso, whether the players alone keep it going) when the lasso `carried` from the default
    options replays in `loaded`; None when it does not. That the players keep it going is worked out
    again here, where the rules differ, and only if they did under the default options."""
    found, kept = carried[:2]
    again = endless.replayed(loaded, found)
    if again is None:
        return None
    if not again.chance or not kept:
        return again, not again.chance
    keeps, _ = endless.players_keep(loaded, again, symmetric, endless.KEEP_STATES)
    return (keeps, True) if keeps is not None else (again, False)


# States a loop carried over by the names of its steps may spend (`_carried_over`): within the count's
# share of the search for another loop, which gets what it leaves. On the bundled games the carried
# loops that come back do within 300 to 1,400 states.
CARRY_STATES = 2_000
CARRIED_FROM_DEFAULTS = (", the loop found under the default options carried over to these: its steps played by their "
                         "names, those these rules do not have left out or replaced")


def _carried_over(endless, loaded, carried: tuple, symmetric: bool, states: int) -> tuple:
    """((the lasso, whether the players alone keep it going) or None, the states spent): the lasso
    `carried` from the default options, played in `loaded` by the names of its steps
    (`verify.carry`), when a state comes back within `states` states and the lasso replays."""
    from ..verify import carry

    found, kept, source_game = carried
    out = carry.carry(loaded, carry.step_labels(source_game, found), len(found.prefix), states)
    if out.found is None:
        return None, out.states
    return _replayed(endless, loaded, (out.found, kept), symmetric), out.states


def _ends_at_once(spec, players: int, options: dict) -> bool:
    """Whether the set-up of this configuration ends the game before any decision or chance event (an
    option that allows no game of this many players, say): then every play is that one and ends. Said
    without an exploration, which runs under the explored option sets only."""
    try:
        return spec.engine(players, options).new_initial_state().is_terminal()
    except RuleRuntimeError:  # the set-up fails: a rule error, which the report gives
        return False


def _search_pool(defaults: bool, bounds: PlayBounds) -> int:
    """States to spend looking for endless play near random games, shared by the player counts in
    turn: each count may spend its share of what is left (`_count_share`), so what a count decided early
    (or by other means) did not spend goes to the counts after it. The spec's budget under the default options (and,
    with --all-options, under each other option set as well); 0 where no search runs."""
    return bounds.loop_search if bounds.loop_search > 0 and (defaults or bounds.all_options) else 0


def _count_share(pool: int, counts_left: int) -> int:
    """What the next player count may spend of the `pool` left: half of it, all of it for the last
    count. One loop at any count refutes termination, and the smaller counts, searched first, have the
    shorter rounds: their loops are the nearest, and the longest watched games find them."""
    return max(1, pool if counts_left <= 1 else pool // 2)


AFTER_LOOP_PART = 0.75  # see `_share_after_loop`
AFTER_LOOP_EXTRA = 1.5  # see `_extra_after_loop`


def _share_after_loop(bounds: PlayBounds) -> int:
    """What a player count may spend, within what is left of the pool, once a loop was found at a count
    before it: three quarters of the spec's budget. Rules that loop at one count usually loop at the
    others too, where a round has more seats to go round, so the watched games need more states before
    one comes back; a game where no loop was found keeps the halving shares. On the bundled games a
    loop at each of 5 to 8 players took 12,000 to 30,000 states (a share of 14,000 found one at one of
    those counts, 30,000 at all four)."""
    return int(bounds.loop_search * AFTER_LOOP_PART)


def _extra_after_loop(bounds: PlayBounds) -> int:
    """The states added to the pool, once, when the first loop is found: the search spends at most two
    and a half times its budget on a spec, however many player counts it has, and a spec where no loop
    is found spends no more than before."""
    return int(bounds.loop_search * AFTER_LOOP_EXTRA)


STALL_PROBE_PART = 8  # see `_stall_probe_share`


def _stall_probe_share(defaults: bool, bounds: PlayBounds) -> int:
    """States for the one lazy game (`endless.stall_probe`) played under an option set that `_search_pool`
    gives none, at the first player count where no loop of the default options carries over: an option
    that lets the players stall (a move allowed where the default rules force another) makes a loop
    where the default rules have none, and no carried loop or rescue search looks there. An eighth of
    the spec's budget: on the bundled games a lazy game ends within 1,700 states where the rules force
    play on, and one that goes round comes back within 2,800."""
    if _search_pool(defaults, bounds) or bounds.loop_search <= 0:
        return 0
    return max(1, bounds.loop_search // STALL_PROBE_PART)


RESCUE_PART = 3  # see `_broken_loop_share`


def _broken_loop_share(defaults: bool, bounds: PlayBounds, counts: int) -> int:
    """States to spend, under an option set that `_search_pool` gives none, looking for endless play at
    each player count where the loop found under the default options does not replay: a game that goes
    round under the defaults usually still can once an option changes a rule on that loop. Each such
    count gets a third of what the default search gives a count on average: the loops of the bundled
    games under their options are found within 1,000 to 2,100 states, and a fifth of that share cut the
    watched games too short to meet them."""
    if _search_pool(defaults, bounds) or bounds.loop_search <= 0:
        return 0
    return max(1, bounds.loop_search // (RESCUE_PART * max(1, counts)))


def _endless_run(x, tally, players: int) -> tuple | None:
    """A play after which the rules went round for ever (the engine saw their state come back), as
    (the game it was met in, the play up to and including its last step, the method that met it): from
    the exploration, else from the random games."""
    if x is not None:
        for index, action, shown in x.unending:
            if shown:
                return x.loaded, x.path(index) + [action], "explicit-state"
    found = getattr(tally, "endless", {}).get(players)
    return (found[0], found[1], "random-play") if found is not None else None


def _others(verdicts: dict, refuted: list) -> str:
    """The other player counts' verdicts, grouped: "(with 2 to 4 players too, along other loops; with 5
    players, undecided)"."""
    words = {"refuted": "play can go on forever too", "proven": "every play ends", "unknown": "undecided"}
    groups: dict = {}
    for p, (v, _) in sorted(verdicts.items()):
        if p not in refuted:
            groups.setdefault(v, []).append(p)
    rest = [f"with {players_phrase(ps)}, {words.get(v, v)}" for v, ps in groups.items()]
    return f" ({'; '.join(rest)})" if rest else ""


def _lengths(tally, bounds: PlayBounds) -> dict:
    lengths = sorted(getattr(tally, "lengths", []) or [])
    out = {"games": tally.played, "cut": tally.unfinished, "max_steps": bounds.max_steps}
    failed = _failed(tally)
    if failed:
        out["rule_errors"] = failed
    if lengths:
        out["finished_lengths"] = {"min": lengths[0], "median": statistics.median(lengths), "max": lengths[-1]}
    long = _long_games(tally, bounds)
    if long is not None:
        out["long_games"] = {"games": long.total, "cut": long.total_hits, "confidence": long.confidence,
                             "rate_below": long.worst_upper_bound(), "games_by_players": dict(long.games)}
    return out


def _long_games(tally, bounds: PlayBounds):
    """The random games played to an end, a deadlock or the step limit, per player count, and those cut
    at the limit (a game stopped sooner by a rule error says nothing of its length): what bounds the
    chance that a game runs past the limit, as a statistical model checker bounds the chance of not
    reaching a target within a number of steps. None without such games."""
    outcomes = getattr(tally, "outcomes", {}) or {}
    games = {p: o.finished + o.ends.get("deadlock", 0) + o.ends.get("cut off", 0) for p, o in outcomes.items()}
    games = {p: n for p, n in games.items() if n}
    if not games:
        return None
    return Sample(games, {p: outcomes[p].ends.get("cut off", 0) for p in games}, bounds.confidence)


INFORMATIVE_BOUND = 0.5  # a bound on the chance of a long game worth stating: below it, not "below 100 %"


def _played_text(tally, bounds: PlayBounds) -> str:
    lengths = sorted(getattr(tally, "lengths", []) or [])
    if not tally.played:
        return ""
    text = f". Random play: {len(lengths)} of {tally.played} games ended"
    if lengths:
        text += f", after {lengths[0]} to {lengths[-1]} decisions (median {statistics.median(lengths):g})"
    if tally.unfinished:
        text += (f"; {tally.unfinished} {'was' if tally.unfinished == 1 else 'were'} cut at the step limit of "
                 f"{bounds.max_steps:,} decisions (a long game, not evidence of an endless one)")
    failed = _failed(tally)
    if failed:
        text += f"; {failed} stopped on a rule error"
    long = _long_games(tally, bounds)
    if long is not None and long.worst_upper_bound() < INFORMATIVE_BOUND:  # "below 100 %" says nothing
        text += (f"; at {percent(long.confidence)} confidence the chance that a game runs past {bounds.max_steps:,} "
                 f"decisions is below {percent(long.worst_upper_bound(), up=True)}"
                 + (" (for each player count)" if len(long.games) > 1 else ""))
    return text


def _failed(tally) -> int:
    """The random games that stopped on a rule error: neither ended nor cut."""
    return sum(o.ends.get("rule error", 0) for o in getattr(tally, "outcomes", {}).values())


__all__ = ["KnownLoops", "never_ended", "termination"]
