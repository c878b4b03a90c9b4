"""How large is a configuration's game tree? Knuth's random-probe estimator over the explorer's
successor function (every legal action, every chance outcome).

A probe walks from the start to an end, choosing each decision uniformly and each chance outcome by
its probability; the product of 1/p over the choices made, summed over the probe's depths, is an
unbiased estimate of the number of nodes of the tree of plays (Knuth 1975, with importance
sampling for chance). The reachable states are at most the nodes of that tree (a state reached by
several plays is one state), so the estimate bounds the work of an exhaustive exploration from
above. The spread is given as the 10th and 90th percentiles of the probes' estimates (they are
heavy-tailed: the mean is dominated by rare long plays), and a probe cut at the step limit makes the
estimate a lower one for that probe (said as `cut`).
"""
from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import dataclass


def _add(a: float, b: float) -> float:
    """log(e^a + e^b), for estimates too large for a float."""
    if a < b:
        a, b = b, a
    return a + math.log1p(math.exp(b - a)) if b > -math.inf else a


@dataclass
class Estimate:
    log_nodes: float  # natural log of the mean of the probes' estimates: nodes of the tree of plays
    probes: int
    log_low: float  # natural log of the 10th percentile of the probes' estimates
    log_high: float  # of the 90th percentile
    cut: int  # probes cut at the step limit (their estimates count only the part they walked)
    steps: int  # engine steps the probes took
    seconds: float
    method: str = "knuth"

    @property
    def nodes(self) -> float:
        return math.exp(min(self.log_nodes, 700.0))

    def as_dict(self) -> dict:
        return {"method": self.method, "log10_tree_nodes": round(self.log_nodes / math.log(10), 2),
                "probes": self.probes, "log10_spread": [round(self.log_low / math.log(10), 2),
                                                        round(self.log_high / math.log(10), 2)],
                "cut": self.cut, "meaning": "nodes of the tree of plays (an upper estimate of the reachable states)"}

    def text(self) -> str:
        spread = f"{_sci(self.log_low)} to {_sci(self.log_high)}"
        cut = f", {self.cut} probe(s) cut at the step limit" if self.cut else ""
        return (f"about {_sci(self.log_nodes)} tree nodes (Knuth's estimator, {self.probes} probes, "
                f"10-90 % spread {spread}{cut})")


def _sci(log_x: float) -> str:
    if log_x < math.log(1e6):
        return f"{math.exp(log_x):,.0f}"
    exponent = log_x / math.log(10)
    return f"{10 ** (exponent % 1):.1f}e{int(exponent)}"


def estimate(loaded, probes: int = 200, max_steps: int = 5000, step_budget: int = 5000, seed: int = 0,
             time_limit: float | None = None) -> Estimate | None:
    """Up to `probes` probes, stopping once they have taken `step_budget` engine steps (at least one
    probe), or after `time_limit` seconds; None when not a single probe could be made."""
    rng = random.Random(seed)
    values: list[float] = []
    cut = steps = 0
    start = time.perf_counter()
    for _ in range(probes):
        if values and (steps >= step_budget or (time_limit is not None and time.perf_counter() - start > time_limit)):
            break
        try:
            state = loaded.new_initial_state(seed=seed)
        except Exception:  # noqa: BLE001 - a set-up that cannot be built is reported by the other checks
            return None
        total, weight, depth = 0.0, 0.0, 0  # logs: the tree of a long game overflows a float
        try:
            while not state.is_terminal():
                if depth >= max_steps:
                    cut += 1
                    break
                if state.chance is not None:
                    outcomes, weights = zip(*state.chance)
                    whole = float(sum(weights))
                    pick = rng.choices(range(len(outcomes)), weights)[0]
                    weight += math.log(whole / weights[pick])
                    action = outcomes[pick]
                else:
                    legal = state.legal
                    if not legal:
                        break
                    weight += math.log(len(legal))
                    action = rng.choice(legal)
                state.apply_action(action)
                total = _add(total, weight)
                depth += 1
        except Exception:  # noqa: BLE001 - a rule that fails ends the probe; the other checks report it
            pass
        steps += depth
        values.append(total)
    if not values:
        return None
    ordered = sorted(values)
    q = statistics.quantiles(ordered, n=10, method="inclusive") if len(ordered) > 1 else [ordered[0]] * 9
    mean = values[0]
    for v in values[1:]:
        mean = _add(mean, v)
    mean -= math.log(len(values))
    return Estimate(mean, len(values), q[0], q[-1], cut, steps, time.perf_counter() - start)


__all__ = ["Estimate", "estimate"]
