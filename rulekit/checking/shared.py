"""The check's bounds, and the small helpers every method of the check uses."""
from __future__ import annotations

from dataclasses import dataclass

from .. import statistics
from ..errors import RuleRuntimeError, SpecError
from ..pipeline import Spec



@dataclass
class PlayBounds:
    games: int = 100  # per player count, under the default options
    variant_games: int = 25  # per player count, under each non-default option
    max_steps: int = 5000  # decisions per game before it counts as not ending
    seed: int = 0
    max_states: int = 20_000  # explorer: states per configuration
    time_limit: float = 10.0  # explorer: seconds per configuration, a safety net (the budget is explore_states)
    depth: int | None = None  # explorer: steps from the start
    all_options: bool = False  # explore (and prove) under every option, and compare the verdicts
    solver_timeout: float = 5.0  # seconds per Z3 query: only a safety net (times budget.SAFETY_FACTOR)
    solver_rlimit: int | None = None  # Z3 resource units per query (None: verify.budget.DEFAULT_RLIMIT)
    config_units: int = 20_000_000  # Z3 resource units per configuration for the counts abstraction
    shrink: bool = True  # shrink random-play failures with Hypothesis
    play_budget: int = 8000  # decisions per player count under the default options: long games play fewer
    min_games: int = 30  # but at least this many per player count (at most `games`): a bound below 10 % at 95 %
    variant_budget: int = 800  # decisions per player count under each non-default option
    explore_states: int = 16_000  # explorer: states per spec and option set, shared by the player counts: a
    # count, not seconds, so that the same spec explores the same states, and gets the same verdicts, on any machine
    explore_budget: float = 30.0  # explorer: seconds per spec and option set, a safety net (0: none)
    bmc_depth: int = 20  # Z3 bounded model checking: steps from the start
    # the same over the whole-language relation (verify.control): the set-up, then 10 decisions
    whole_bmc_depth: int = 11
    # Z3 resource units for that BMC past its first step (the set-up, whose queries each get the solver's
    # rlimit): it does not unroll a step that would cost more than is left (a step costs at least what the
    # one before it did), so a small game is searched through the set-up and ten decisions in a second,
    # and a large one no deeper than it can pay for, the same on any machine
    whole_bmc_units: int = 2_000_000
    whole_size: int = 250_000  # expressions the whole-language relation may translate (verify.control.WORK_LIMIT)
    max_k: int = 3  # Z3 k-induction: the largest k tried
    # Z3 resource units per configuration for IC3/PDR (verify.pdr) over the exact or whole-language relation,
    # for the invariants and targets that induction leaves (0: none)
    pdr_units: int = 3_000_000
    symbolic_time_limit: float = 5.0  # Z3 over the transition relation: seconds per configuration
    confidence: float = statistics.DEFAULT_CONFIDENCE  # of the bounds stated for sampled verdicts
    max_violation_rate: float | None = None  # stop random play once every invariant's bound is below it
    deep_information: bool = False  # information-flow check: ten times the re-deals of hidden cards
    estimate_steps: int = 1000  # Knuth's estimator of an unfinished configuration: engine steps of its probes
    exhaustive: bool = False  # explore to the end every configuration that may fit (checking.exploring.fits_limit)
    distinct_steps: int | None = None  # collision estimate of the distinct states (verify.distinct): engine steps
    # per unfinished configuration; None: a few thousand, a million with `exhaustive`
    exhaustive_time: float = 600.0  # seconds per configuration for --exhaustive
    exhaustive_states: int | None = None  # states per configuration for --exhaustive (None: checking.exploring's)
    loop_search: int = 40000  # termination: states per spec spent looking for endless play near random games
    memory_limit: int | None = None  # explorer: bytes of resident memory at which it stops (None: no limit;
    # `rulekit check` sets a share of the machine's memory, verify.budget.memory_limit)


CheckBounds = PlayBounds


def build_limit(bounds: PlayBounds) -> float:
    """Seconds that building one symbolic encoding may take before it is `too large` (verify.budget):
    a safety net well above what the bundled games need."""
    from ..verify import budget

    return max(bounds.symbolic_time_limit, bounds.solver_timeout, 1.0) * budget.SAFETY_FACTOR


def location_of(span) -> str | None:
    return str(span) if span is not None else None


def setup_error(exc: RuleRuntimeError | SpecError) -> tuple[str, object]:
    """What stops a configuration from being built, in one line, and where."""
    if isinstance(exc, SpecError):
        first = exc.diagnostics[0]
        return f"{first.code} {first.message}", first.span
    return str(exc), exc.span


def config_of(spec: Spec, players: int, options: dict):
    """The core IR of one configuration, or None when it cannot be built (random play reports why)."""
    try:
        return spec.config(players, options)
    except SpecError:
        return None


def quote_texts(node) -> list[str]:
    return [x.text for x in getattr(node, "quotes", ())]


def described(prop) -> str:
    return f": {prop.description}" if getattr(prop, "description", None) else ""


def spec_text(node, source: list[str]) -> str:
    """The spec text of a node, on one line (shortened), or '' when it has no span in the spec."""
    span = getattr(node, "span", None)
    if span is None or not 0 < span.line <= len(source):
        return ""
    if span.end_line == span.line and span.end_column > span.column:
        text = source[span.line - 1][span.column - 1:span.end_column - 1]
    else:
        text = source[span.line - 1][span.column - 1:]
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."


def players_text(counts: list[int]) -> str:
    """Player counts in words: "3", "3 to 5" for a run, "4, 7 and 8" otherwise."""
    if len(counts) == 1:
        return f"{counts[0]}"
    if list(counts) == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]} to {counts[-1]}"
    return ", ".join(map(str, counts[:-1])) + f" and {counts[-1]}"


def players_phrase(counts: list[int]) -> str:
    """Player counts with their noun: "1 player", "3 to 5 players"."""
    return players_text(counts) + (" player" if list(counts) == [1] else " players")


def options_key(options: dict) -> tuple:
    return tuple(sorted(options.items()))


def z3_errors() -> tuple:
    import z3

    return (z3.Z3Exception,)


def property_test(prop):
    """The compiled test of a property, looked up lazily by name in the state's own game."""
    def test(state):
        for p, t in state.game.properties(prop.kind):
            if p.name == prop.name:
                return t(state)
        raise KeyError(prop.name)
    return test
