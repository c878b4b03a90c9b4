"""What a sample of random games is worth: exact (Clopper-Pearson) binomial bounds.

Statistical model checkers (UPPAAL SMC, PRISM, the Modest toolset) state a sampled verdict with
its guarantee. Here a sample is a number of independent random games; an invariant either held in
every state of a game or it did not, a target was reached in a game or it was not. The bounds are
exact: they hold for every sample size, not only asymptotically.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.special import betaincinv  # the quantile of the beta law; scipy.stats takes a second to import

DEFAULT_CONFIDENCE = 0.95


def _check(successes: int, trials: int, confidence: float) -> None:
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, not {successes} of {trials}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, not {confidence}")


def upper_bound(failures: int, trials: int, confidence: float = DEFAULT_CONFIDENCE) -> float:
    """One-sided: at this confidence the true rate is below the returned value (1.0 with no trials)."""
    _check(failures, trials, confidence)
    if failures == trials:
        return 1.0
    return float(betaincinv(failures + 1, trials - failures, confidence))


def interval(successes: int, trials: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Two-sided Clopper-Pearson interval for a rate seen `successes` times in `trials`."""
    _check(successes, trials, confidence)
    if trials == 0:
        return 0.0, 1.0
    tail = (1 - confidence) / 2
    low = 0.0 if successes == 0 else float(betaincinv(successes, trials - successes + 1, tail))
    high = 1.0 if successes == trials else float(betaincinv(successes + 1, trials - successes, 1 - tail))
    return low, high


def trials_needed(rate: float, confidence: float = DEFAULT_CONFIDENCE) -> int:
    """Trials without a failure after which the one-sided bound is below `rate`."""
    if not 0 < rate < 1:
        raise ValueError(f"the rate must lie strictly between 0 and 1, not {rate}")
    _check(0, 0, confidence)
    # zero failures: the bound is 1 - (1 - confidence) ** (1 / n), below `rate` once n > ln(1-c) / ln(1-rate)
    n = math.log(1 - confidence) / math.log(1 - rate)
    return max(1, math.floor(n) + 1)


@dataclass(frozen=True)
class Sample:
    """Independent random games per player count, and in how many of them something happened."""

    games: dict[int, int]  # players -> games played
    hits: dict[int, int]  # players -> games in which it happened
    confidence: float = DEFAULT_CONFIDENCE

    @property
    def total(self) -> int:
        return sum(self.games.values())

    @property
    def total_hits(self) -> int:
        return sum(self.hits.get(p, 0) for p in self.games)

    def worst_upper_bound(self) -> float:
        """The largest, over the player counts, of the one-sided bound on the rate: it holds for each."""
        played = {p: n for p, n in self.games.items() if n}
        if not played:
            return 1.0
        return max(upper_bound(self.hits.get(p, 0), n, self.confidence) for p, n in played.items())

    def interval(self) -> tuple[float, float]:
        """The rate over the pooled games, with its two-sided interval."""
        return interval(self.total_hits, self.total, self.confidence)


def percent(p: float, up: bool = False) -> str:
    """A probability for people, to two significant figures ("3.0 %", "0.52 %", "25 %"); `up` rounds
    up, so that an upper bound stays an upper bound once printed."""
    value = 100 * p
    if value <= 0:
        return "0 %"
    digits = 1 - math.floor(math.log10(value))  # two significant figures
    scale = 10 ** digits
    value = (math.ceil(value * scale - 1e-9) if up else round(value * scale)) / scale
    if value >= 100:
        return "100 %"
    # rounding up may carry into the next power of ten (0.994 -> 1.00): two significant figures of that
    shown = f"{value:.{max(0, 1 - math.floor(math.log10(value)))}f}"
    return f"{shown} %"
