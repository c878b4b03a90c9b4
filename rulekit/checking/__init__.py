"""`rulekit check` for one spec: every method, and one finding per question with its strongest honest verdict.

Methods, cheapest first:

- static: quotes verbatim in the rulebook, coverage, declared ambiguities;
- Z3 (`verify.smt`): the facts, counts and claims are consistent for every player count, or a minimal
  unsat core mapped back to its quotes; invariants and dead conditions over the sound abstraction
  "counts per card kind per zone";
- seeded random play (a fast pass over every player count and every option), and, when a run of it
  breaks something, Hypothesis (`verify.strategies`) to shrink the failure to a minimal witness;
- explicit-state exploration (`verify.explore`), breadth first, so its witnesses are shortest; it
  decides invariants, deadlocks, reachability and dead actions exactly when it completes, and gives
  `bounded` verdicts when the state budget, time limit or depth stops it;
- networkx (`verify.graphs`): play that can go on forever (states from which no end is reachable) in
  the explored state graph, and the turn-structure graph.

Verdicts: `proven` only from a complete exploration, a Z3 proof, or a witness (a reachability target
met; a witness is replayed in the engine before it is reported); `refuted` with a witness; `bounded`
when only a bounded search supports the claim; `unknown` otherwise.
"""
from __future__ import annotations

import contextlib
import time

from .. import collector
from ..findings import Finding, GameReport
from ..pipeline import Spec
from ..verify import budget, information
from .shared import PlayBounds, options_key
from .variants import changed_options, option_sets, options_suffix
from .impact import option_impact
from .examples import example_findings
from .static import acknowledge, consistency, locate, static_findings, turn_structure
from .sampling import random_play
from .exploring import explore_all
from .solving import abstraction_proofs, symbolic_findings
from .ending import KnownLoops
from .judging import judge
from .witnesses import resolved
from . import branches, conflicts, modal, numbers, rotation, seats, silence, unused


def check_spec(spec: Spec, bounds: PlayBounds | None = None, progress=None, timings: dict | None = None,
               executor=None) -> GameReport:
    """All findings for one spec; a spec that does not compile raises SpecError. `executor`
    (`rulekit.executors`) runs the random play; by default, this process does."""
    bounds = bounds or PlayBounds()
    with budget.resource_limit(bounds.solver_rlimit), budget.fresh_context():
        return _check_spec(spec, bounds, progress, timings, executor)


def _check_spec(spec: Spec, bounds: PlayBounds, progress, timings: dict | None, executor) -> GameReport:
    game = spec.model
    report = GameReport(game.name, game.title, spec.display_path,
                        list(range(game.min_players, game.max_players + 1)), game.default_options())
    timings = timings if timings is not None else {}
    clock = _Clock(timings, progress, game.name)
    with clock("static"):
        static_findings(spec, game, report)
        for f in numbers.findings(game):
            report.add(f)
    with clock("examples"):
        for f in example_findings(spec, game):
            report.add(f)
    with clock("z3-unsat-core"):
        consistency(spec, game, report, bounds)
    variants = option_sets(game, pairs=bounds.all_options)
    singles = option_sets(game)
    explored_variants = singles if bounds.all_options else variants[:1]
    with clock("z3-abstraction"):
        proofs = {options_key(o): abstraction_proofs(spec, game, o, bounds) for o in singles}
    with clock("random-play"):
        tallies = random_play(spec, game, variants, bounds, progress, executor)
    with clock("explicit-state"):
        explorations = {options_key(o): explore_all(spec, game, o, bounds) for o in explored_variants}
    with clock("z3-symbolic"):
        symbolic = {options_key(o): symbolic_findings(spec, game, o, bounds) for o in explored_variants}
    verdicts = {}
    fired_by: dict = {}
    for options in variants:
        for action in tallies[options_key(options)].fired:
            fired_by.setdefault(action, []).append(changed_options(options, game))
    dead_by_default: set[str] = set()
    by_name = {p.name: p for p in game.properties}
    known = KnownLoops()  # filled under the default options, which come first
    for options in variants:
        k = options_key(options)
        with clock("graph"):
            found = judge(spec, game, options, tallies[k], explorations.get(k), proofs.get(k), bounds, fired_by, known,
                          clock)
        found += symbolic.get(k, [])
        verdicts[k] = found
        default = options == variants[0]
        if default:
            dead_by_default = {f.id for f in found if f.kind == "dead-rule"}
        suffix = options_suffix(options, game)
        for f in found:
            # Under another option, report what breaks; not what a few games merely did not reach, nor
            # an action that is never taken under the default options either (that finding says it once).
            if f.kind == "dead-rule" and not default and f.id.removesuffix(suffix) in dead_by_default:
                continue
            claimed_here = f.subject in by_name and bool(by_name[f.subject].under)
            if default or (f.severity != "info" and f.verdict != "unknown") or f.kind == "termination" or claimed_here:
                report.add(resolved(f))
    with clock("option-impact"):
        for f in option_impact(spec, game, variants, tallies, verdicts, bounds):
            report.add(f)
    with clock("silent-case"):
        for f in silence.findings(spec, game, variants, tallies, options_key):
            report.add(f)
    with clock("dead-branch"):
        for f in branches.findings(spec, game, variants, tallies, options_key, bounds):
            report.add(f)
    with clock("conflict"):
        for f in conflicts.findings(spec, game, variants, tallies, options_key):
            report.add(f)
    with clock("rotation"):
        for f in rotation.findings(spec, game, tallies[options_key(variants[0])]):
            report.add(f)
        for f in seats.findings(game, tallies[options_key(variants[0])], bounds.confidence):
            report.add(f)
    with clock("modal"):
        for f in modal.findings(game):
            report.add(f)
    with clock("information-flow"):
        for f in information.findings(spec, variants, information.Bounds.for_check(bounds.seed, bounds.deep_information), lambda **k: Finding(game=game.name, **k)):
            report.add(f)
    with clock("graph"):
        turn_structure(game, report)
        for f in unused.findings(spec, game, bounds):
            report.add(f)
    acknowledge(game, report, silence.known_ids(spec, game, variants))
    locate(spec, report)
    report.stats = {**report.stats, "timings": dict(timings), "explored": [
        {"players": x.players, "options": changed_options(x.options, game), "states": x.states, "transitions": x.transitions,
         "complete": x.complete, "stopped_by": x.stopped_by, "depth": x.depth, "seconds": round(x.seconds, 3),
         "symmetry": x.symmetry, "method": getattr(x, "method", "engine"),
         "states_per_second": round(x.states_per_second), **_size(x)} for xs in explorations.values() for x in xs]}
    return report


def workload(spec: Spec) -> int:
    """A rough measure of how long the check of a spec takes, so that when several specs are checked at
    once the largest starts first: the size of its rules and checks, read without compiling them (a
    compiled measure would cost the start of every run a second). 0 for a spec that is not on disk."""
    try:
        return sum(path.stat().st_size for path in (spec.path, spec.checks_path) if path is not None)
    except OSError:
        return 0


def _size(x) -> dict:
    """The state space's size: exact when the exploration completed, else between a lower estimate of
    the distinct states (collisions of random plays) and Knuth's upper estimate (the tree of plays),
    and whether an exhaustive exploration could finish it (`exploring.fits_limit`)."""
    from .exploring import EXHAUSTIVE_STATES, fits_limit

    found, lower = getattr(x, "estimate", None), getattr(x, "distinct", None)
    out = {"size": {"exact": x.states} if x.complete else {"at_least": x.states}}
    if found is not None:
        out["estimate"] = found.as_dict()
    if lower is not None:
        out["distinct_states"] = lower.as_dict()
    if not x.complete and (found is not None or lower is not None):
        out["exhaustive_limit"] = {"states": getattr(x, "state_limit", None) or EXHAUSTIVE_STATES, "fits": fits_limit(x)}
    if getattr(x, "exhaustive", ""):
        out["exhaustive"] = x.exhaustive
    if getattr(x, "fingerprint_bits", 0):
        out["fingerprints"] = {"bits": x.fingerprint_bits, "collision_at_most": float(f"{x.collision_bound:.2g}")}
    return out


METHOD_NAMES = {"static": "quotes and coverage", "z3-unsat-core": "Z3: the declared numbers",
                "z3-abstraction": "Z3: the counts abstraction", "random-play": "random play",
                "explicit-state": "exploring the states", "z3-symbolic": "Z3: BMC, k-induction and IC3/PDR",
                "graph": "judging the verdicts", "termination": "whether every play ends (loops, ranking functions)",
                "option-impact": "what each option changes",
                "examples": "replaying the rulebook's examples", "silent-case": "silent cases",
                "conflict": "trigger conflicts", "modal": "modal verbs", "dead-branch": "branches never taken",
                "rotation": "roles that go round the table, seats that never win"}


class _Clock:
    """Times each method; tells the progress display (when there is one) which method is running. Each
    runs with the cycle collector paused (`rulekit.collector`): the methods allocate states by the
    hundred thousand, and none of them makes cycles worth collecting before it ends."""

    def __init__(self, timings: dict, progress=None, game: str = ""):
        self.timings = timings
        self.progress = progress if hasattr(progress, "describe") else None
        self.game = game
        self.running: list[list] = []  # the methods running, outermost first: [name, seconds of methods inside]

    @contextlib.contextmanager
    def __call__(self, name: str):
        """Times a method; one may run inside another (termination inside judging the verdicts), and the
        outer one's time then leaves the inner one's out."""
        self._describe(name)
        self.running.append([name, 0.0])
        with collector.paused():
            start = time.perf_counter()
            try:
                yield
            finally:
                took = time.perf_counter() - start
                _, inside = self.running.pop()
                self.timings[name] = self.timings.get(name, 0.0) + took - inside
                if self.running:
                    self.running[-1][1] += took
                    self._describe(self.running[-1][0])

    def _describe(self, name: str) -> None:
        if self.progress is not None:
            self.progress.describe(f"{self.game}: {METHOD_NAMES.get(name, name)}")


__all__ = ["CheckBounds", "METHOD_NAMES", "PlayBounds", "check_spec", "play_sample", "workload", "replayed", "setup_error", "witness"]
