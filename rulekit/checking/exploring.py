"""Explicit-state exploration of each configuration, by the vectorized explorer where it applies."""
from __future__ import annotations

from .. import model as m
from ..errors import RuleRuntimeError, SpecError, WitnessError
from ..pipeline import Spec
from .shared import PlayBounds


def explore_all(spec: Spec, game: m.Game, options: dict, bounds: PlayBounds) -> list:
    """Per player count: the vectorized explorer where the configuration lies in the symbolic fragment,
    the engine's explorer otherwise; each to its share of `explore_states` (the time limits are only a
    safety net, and the report says when one fired)."""
    from ..verify.explore import Limits

    counts = range(game.min_players, game.max_players + 1)
    share = bounds.explore_budget / len(counts) if bounds.explore_budget > 0 else bounds.time_limit
    each = -(-bounds.explore_states // len(counts))  # rounded up
    states = bounds.max_states if bounds.explore_states <= 0 else min(bounds.max_states, each)
    limits = Limits(max_states=states, time_limit=min(bounds.time_limit, share), depth=bounds.depth,
                    memory=bounds.memory_limit)
    out = []
    if bounds.max_states <= 0:
        return out
    for players in counts:
        try:
            loaded = spec.engine(players, options)
        except (RuleRuntimeError, SpecError):
            continue
        result = _explored(loaded, limits)
        if result is None:
            continue
        result.loaded = loaded
        result.estimate = result.distinct = None
        result.state_limit = state_limit(bounds)
        if not result.complete:
            result = _deeper(loaded, result, limits, bounds)
        out.append(result)
    return out


EXHAUSTIVE_STATES = 10_000_000  # --exhaustive explores a configuration to the end when it fits under this
DISTINCT_STEPS = 3_000  # engine steps of the collision estimate of an unfinished configuration, by default
EXHAUSTIVE_DISTINCT_STEPS = 1_000_000  # with --exhaustive, which decides on it whether to try a configuration


def state_limit(bounds: PlayBounds) -> int:
    """The states an exhaustive exploration may hold per configuration: `--exhaustive-states`, or
    EXHAUSTIVE_STATES."""
    return bounds.exhaustive_states or EXHAUSTIVE_STATES


def fits_limit(x) -> bool | None:
    """Can an exhaustive exploration finish this unfinished configuration within its state limit
    (`x.state_limit`, else EXHAUSTIVE_STATES)? False when the lower estimate of its distinct states is
    above the limit, True when Knuth's upper estimate is below it, None when the limit lies between the
    two (or neither is known)."""
    import math

    limit = getattr(x, "state_limit", None) or EXHAUSTIVE_STATES
    lower, upper = getattr(x, "distinct", None), getattr(x, "estimate", None)
    if lower is not None and lower.at_least > limit:
        return False
    if upper is not None and upper.log_nodes <= math.log(limit):
        return True
    return None


def _deeper(loaded, result, limits, bounds: PlayBounds):
    """An unfinished exploration gets two size estimates: Knuth's upper one (`verify.estimate`) and a
    lower one of its distinct states (`verify.distinct`). With `bounds.exhaustive`, a configuration is
    explored again, to the end, unless the lower estimate shows it cannot fit."""
    from ..verify.distinct import distinct
    from ..verify.estimate import estimate
    from ..verify.explore import Limits

    found = estimate(loaded, probes=300, max_steps=bounds.max_steps, step_budget=bounds.estimate_steps,
                     seed=bounds.seed) if bounds.estimate_steps > 0 else None
    steps = bounds.distinct_steps if bounds.distinct_steps is not None else (
        EXHAUSTIVE_DISTINCT_STEPS if bounds.exhaustive else DISTINCT_STEPS)
    lower = distinct(loaded, result.symmetry, step_budget=steps, seed=bounds.seed,
                     confidence=bounds.confidence) if steps > 0 else None
    result.estimate, result.distinct = found, lower
    result.exhaustive = ""
    if not bounds.exhaustive:
        return result
    if fits_limit(result) is False:
        result.exhaustive = (f"not tried: {lower.text()}, above the {result.state_limit:,}-state limit, so an "
                             f"exhaustive exploration cannot finish it within the limit")
        return result
    deep = Limits(max_states=result.state_limit, time_limit=bounds.exhaustive_time, depth=None,
                  memory=bounds.memory_limit)
    again = _explored(loaded, deep)
    if again is None:
        return result
    again.loaded, again.estimate, again.distinct, again.state_limit = loaded, found, lower, result.state_limit
    if again.complete:
        again.exhaustive = "explored to the end"
    elif again.stopped_by == "states":  # every state counted is a distinct one: a size shown, not estimated
        again.exhaustive = (f"tried: {again.states:,} distinct states found to depth {again.depth} reach the "
                            f"{again.state_limit:,}-state limit, so the configuration cannot be finished within it")
    else:
        again.exhaustive = f"tried, stopped by the {again.stopped_by} limit after {again.states:,} states"
    return again


def _explored(loaded, limits):
    """The vectorized explorer's result where the configuration lies in its fragment, the engine
    explorer's otherwise; None when the rules fail where play starts."""
    from ..verify import Unsupported, vector
    from ..verify.explore import explore

    try:
        result = vector.explore(loaded, limits)
        _engine_errors(result)
        return result
    except Unsupported:
        try:
            return explore(loaded, limits)
        except RuleRuntimeError:
            return None
    except RuleRuntimeError:
        return None


def _engine_errors(x) -> None:
    """The engine's own message for each rule the vectorized explorer found refused; it must refuse it."""
    refused, x.errors = x.errors, []
    for index, action, _ in refused:
        try:
            x.loaded.replay(x.path(index) + [action])
        except RuleRuntimeError as exc:
            x.failed(index, action, exc)
            continue
        raise WitnessError(f"rulekit bug: the symbolic relation refuses action {action}, the engine does not")
