"""Explicit-state exploration of each configuration, by the vectorized explorer where it applies."""
from __future__ import annotations

from .. import model as m
from ..errors import RuleRuntimeError, SpecError, WitnessError
from ..pipeline import Spec
from .shared import PlayBounds


def explore_all(spec: Spec, game: m.Game, options: dict, bounds: PlayBounds) -> list:
    """Per player count: the vectorized explorer where the configuration lies in the symbolic fragment,
    the engine's explorer otherwise."""
    from ..verify.explore import Limits

    counts = range(game.min_players, game.max_players + 1)
    share = bounds.explore_budget / len(counts) if bounds.explore_budget > 0 else bounds.time_limit
    limits = Limits(max_states=bounds.max_states, time_limit=min(bounds.time_limit, share), depth=bounds.depth)
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
        result.estimate = None
        if not result.complete:
            result = _deeper(loaded, result, limits, bounds)
        out.append(result)
    return out


EXHAUSTIVE_STATES = 10_000_000  # --exhaustive explores a configuration to the end when it fits under this


def _deeper(loaded, result, limits, bounds: PlayBounds):
    """An unfinished exploration gets a size estimate (`verify.estimate`); with `bounds.exhaustive`, a
    configuration whose estimate fits is explored again, to the end."""
    import math

    from ..verify.estimate import estimate
    from ..verify.explore import Limits

    found = estimate(loaded, probes=300, max_steps=bounds.max_steps, step_budget=bounds.estimate_steps,
                     seed=bounds.seed) if bounds.estimate_steps > 0 else None
    result.estimate = found
    result.exhaustive = ""
    if not bounds.exhaustive:
        return result
    if found is not None and found.log_nodes > math.log(EXHAUSTIVE_STATES):
        result.exhaustive = (f"not tried: the estimate ({found.text()}) is above {EXHAUSTIVE_STATES:,} states")
        return result
    deep = Limits(max_states=EXHAUSTIVE_STATES, time_limit=bounds.exhaustive_time, depth=None)
    again = _explored(loaded, deep)
    if again is None:
        return result
    again.loaded, again.estimate = loaded, found
    again.exhaustive = "explored to the end" if again.complete else (
        f"tried, stopped by the {again.stopped_by} limit after {again.states:,} states")
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
    errors = []
    for index, action, _ in x.errors:
        try:
            x.loaded.replay(x.path(index) + [action])
        except RuleRuntimeError as exc:
            errors.append((index, action, str(exc)))
            continue
        raise WitnessError(f"rulekit bug: the symbolic relation refuses action {action}, the engine does not")
    x.errors = errors
