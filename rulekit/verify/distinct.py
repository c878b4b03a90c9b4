"""How many distinct states does a configuration reach, at least? A collision (birthday) estimate.

Knuth's estimator (`verify.estimate`) counts the nodes of the tree of plays: an upper estimate of
the reachable states, since a state reached by many plays is one state. This module gives the lower
side. Random plays (decisions uniform, chance outcomes by their odds, as Knuth's probes) are keyed
with the explorer's own state key (`explore.state_key`, with the exploration's symmetry), and the
samples that fall on the same state are counted.

If N states are drawn independently from a distribution p over K states, the colliding pairs C
satisfy E[C] = C(N, 2) q with q = sum of p_i^2, and q >= 1/K (Cauchy-Schwarz): so K >= 1/q, and
C / C(N, 2) estimates q without bias. With few collisions, a one-sided upper confidence bound on q
(the exact Poisson bound on the mean of C: C is approximately Poisson for rare collisions, which is
an approximation, not an exact law) turns into a lower bound on K at that confidence.

The samples are drawn per window of depths (steps from the start, decisions and chance outcomes
alike): windows 1, 2-3, 4-7, ... doubling, each play giving one sample per window, at a depth drawn
uniformly inside it, so the samples of a window are independent and identically distributed. The
figure is the largest window's bound; the confidence of each window is raised (Bonferroni) so the
largest of them still holds at the stated confidence. Every sampled state is a reachable state, so
the number of distinct keys seen is a certain lower bound as well.

Deterministic: a fixed seed and a budget of engine steps, never a time limit, so the same spec gives
the same figure on every machine.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from scipy.special import gammaincinv

from ..errors import RuleRuntimeError
from .explore import state_key


@dataclass
class Window:
    first: int  # depths first..last, steps from the start
    last: int
    samples: int  # plays that reached a depth of this window and gave a state
    colliding_pairs: int
    at_least: float  # lower confidence bound on the distinct states (0 with fewer than two samples)
    point: float | None  # C(N, 2) / C: the point estimate of 1/q (None without a collision)

    def as_dict(self) -> dict:
        return {"depths": [self.first, self.last], "samples": self.samples, "colliding_pairs": self.colliding_pairs,
                "log10_at_least": _log10(self.at_least),
                "log10_point": _log10(self.point) if self.point is not None else None}


@dataclass
class Distinct:
    at_least: float  # at `confidence` (approximately): the reachable states are at least this many
    confidence: float
    distinct_seen: int  # distinct keys among the samples: certainly reachable
    samples: int
    plays: int
    steps: int  # engine steps the plays took
    symmetric: bool  # keys up to renaming the seats, as the exploration
    windows: list[Window] = field(default_factory=list)
    seconds: float = 0.0
    method: str = "collisions"

    @property
    def best(self) -> Window | None:
        return max(self.windows, key=lambda w: w.at_least, default=None)

    @property
    def log_at_least(self) -> float:
        return math.log(self.at_least) if self.at_least > 0 else -math.inf

    def as_dict(self) -> dict:
        best = self.best
        return {"method": self.method, "states_at_least": round(self.at_least),
                "log10_states_at_least": _log10(self.at_least), "confidence": self.confidence,
                "distinct_seen": self.distinct_seen, "samples": self.samples, "plays": self.plays,
                "steps": self.steps, "symmetry": self.symmetric,
                "best_window": best.as_dict() if best is not None else None,
                "windows": [w.as_dict() for w in self.windows],
                "meaning": "distinct reachable states, a lower estimate: colliding pairs among random plays' "
                           "states (Poisson approximation), or the distinct states they met"}

    def text(self) -> str:
        best = self.best
        where = (f", depths {best.first}-{best.last}: {best.colliding_pairs} colliding pair(s) among "
                 f"{best.samples:,} samples" if best is not None and best.at_least >= self.distinct_seen else
                 f", {self.distinct_seen:,} distinct among {self.samples:,} samples")
        return (f"at least ~{_number(self.at_least)} distinct states at {self.confidence:.0%} (collisions of "
                f"{self.plays:,} random plays{where}; a Poisson approximation)")


def _log10(x: float) -> float:
    return round(math.log10(x), 2) if x > 0 else 0.0


def _number(x: float) -> str:
    if x < 1e6:
        return f"{x:,.0f}"
    exponent = math.floor(math.log10(x))
    return f"{x / 10 ** exponent:.1f}e{exponent}"


def poisson_upper(count: int, confidence: float) -> float:
    """One-sided upper confidence bound on the mean of a Poisson variable seen to be `count`."""
    return float(gammaincinv(count + 1, confidence))  # half the chi-square quantile with 2(count+1) degrees


def windows_for(step_budget: int, plays: int) -> list[tuple[int, int]]:
    """Doubling windows of depths, as deep as the budget allows `plays` plays through all of them."""
    reach = max(1, step_budget // max(1, plays))
    out, first = [], 1
    while 2 * first - 1 <= reach:
        out.append((first, 2 * first - 1))
        first *= 2
    return out or [(1, 1)]


def distinct(loaded, symmetric: bool = False, step_budget: int = 3000, plays: int | None = None, seed: int = 0,
             confidence: float = 0.95) -> Distinct | None:
    """Random plays until they have taken `step_budget` engine steps (at least one play); windows of
    depths as deep as `plays` plays fit in the budget (by default one play per 64 steps, at least
    200: a bound above K needs about 3 K^(1/2) samples). None when play cannot start."""
    if plays is None:
        plays = max(200, step_budget // 64)
    key = state_key(loaded, symmetric)
    try:
        root = loaded.new_initial_state(seed=0).fork()
    except RuleRuntimeError:
        return None
    spans = windows_for(step_budget, plays)
    deepest = spans[-1][1]
    rng = random.Random(seed)
    counts: list[dict[bytes, int]] = [{} for _ in spans]
    seen: set[bytes] = set()
    made = steps = 0
    start = time.perf_counter()
    while made == 0 or steps < step_budget:
        made += 1
        targets = [rng.randint(a, b) for a, b in spans]  # drawn before the play, so independent of it
        state, depth, w = root.clone(), 0, 0
        try:
            while depth < deepest and not state.is_terminal():
                if state.chance is not None:
                    outcomes, weights = zip(*state.chance)
                    action = rng.choices(outcomes, weights)[0]
                elif state.legal:
                    action = rng.choice(state.legal)
                else:
                    break  # a deadlock: the other checks report it
                state.apply_action(action)
                depth += 1
                while w < len(spans) and targets[w] == depth:
                    k = key(state)
                    counts[w][k] = counts[w].get(k, 0) + 1
                    seen.add(k)
                    w += 1
        except RuleRuntimeError:
            pass  # a rule that fails ends the play; the other checks report it
        steps += max(depth, 1)  # a play that cannot start still counts, so the budget always runs out
    per_window = 1 - (1 - confidence) / len(spans)
    windows = []
    for (a, b), c in zip(spans, counts):
        n = sum(c.values())
        pairs = sum(x * (x - 1) // 2 for x in c.values())
        total = n * (n - 1) / 2
        bound = total / poisson_upper(pairs, per_window) if n > 1 else 0.0
        windows.append(Window(a, b, n, pairs, bound, total / pairs if pairs else None))
    best = max((w.at_least for w in windows), default=0.0)
    return Distinct(max(best, float(len(seen))), confidence, len(seen), sum(w.samples for w in windows), made, steps,
                    symmetric, windows, time.perf_counter() - start)


__all__ = ["Distinct", "Window", "distinct", "poisson_upper", "windows_for"]
