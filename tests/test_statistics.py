"""The binomial bounds behind sampled verdicts, against values computed by hand or tabulated."""
from __future__ import annotations

import math

import pytest

from rulekit.statistics import Sample, interval, percent, trials_needed, upper_bound


def test_zero_failures_has_the_closed_form():
    for n in (1, 10, 100, 289, 5000):
        assert upper_bound(0, n, 0.95) == pytest.approx(1 - 0.05 ** (1 / n), rel=1e-9)
    assert upper_bound(0, 100) == pytest.approx(0.0295130, abs=1e-6)


def test_rule_of_three_is_close_for_large_samples():
    assert upper_bound(0, 3000) == pytest.approx(3 / 3000, rel=0.01)


def test_clopper_pearson_interval_matches_tabulated_values():
    # the exact interval for 5 of 10 at 95 % is (0.1871, 0.8129); for 0 of 20, (0, 0.1684)
    low, high = interval(5, 10)
    assert low == pytest.approx(0.18709, abs=1e-4) and high == pytest.approx(0.81291, abs=1e-4)
    assert interval(0, 20) == (0.0, pytest.approx(0.16843, abs=1e-4))
    assert interval(20, 20) == (pytest.approx(0.83157, abs=1e-4), 1.0)
    assert interval(0, 0) == (0.0, 1.0)


def test_one_failure_bound():
    # one-sided 95 % upper bound for 1 failure in 100 trials: 0.0466
    assert upper_bound(1, 100) == pytest.approx(0.04655, abs=1e-4)
    assert upper_bound(3, 3) == 1.0


def test_trials_needed_is_the_first_sample_size_whose_bound_is_below_the_rate():
    for rate, confidence in ((0.01, 0.95), (0.05, 0.99), (0.001, 0.9)):
        n = trials_needed(rate, confidence)
        assert upper_bound(0, n, confidence) < rate <= upper_bound(0, n - 1, confidence)
    assert trials_needed(0.01) == 299  # the textbook figure for "1 % at 95 %"


def test_sample_takes_the_worst_player_count():
    s = Sample({3: 100, 4: 10}, {}, 0.95)
    assert s.total == 110 and s.worst_upper_bound() == pytest.approx(upper_bound(0, 10))
    assert Sample({}, {}).worst_upper_bound() == 1.0
    low, high = Sample({3: 10, 4: 10}, {3: 5, 4: 5}).interval()
    assert low < 0.5 < high


@pytest.mark.parametrize("bad", [dict(failures=-1, trials=3), dict(failures=4, trials=3)])
def test_bad_counts_are_refused(bad):
    with pytest.raises(ValueError):
        upper_bound(**bad)
    with pytest.raises(ValueError):
        upper_bound(0, 10, confidence=1.0)


def test_percent_reads_well():
    assert percent(0.029513) == "3.0 %" and percent(0.0052) == "0.52 %" and percent(0.25) == "25 %"
    assert percent(0) == "0 %" and percent(1) == "100 %" and percent(0.000031) == "0.0031 %"
    assert percent(0.0101, up=True) == "1.1 %" and percent(0.0101) == "1.0 %"
    assert percent(0.00994, up=True) == "1.0 %" and percent(0.0995) == "10 %"  # rounded into the next power of ten
    assert not math.isnan(upper_bound(0, 1))


def test_long_games_still_play_the_least_number_of_games_per_player_count():
    """The decision budget stops random play early only once `min_games` games were played, so that the
    bound a sampled verdict states rests on that many games even where games are long."""
    from rulekit.checking import PlayBounds, check_spec
    from rulekit.checking.sampling import play_sample
    from rulekit.pipeline import Spec

    spec = Spec.find("chocobo")
    options = spec.options_for(None)
    short = play_sample(spec, 3, options, games=50, budget=10, max_steps=5000, seed=0)
    floor = play_sample(spec, 3, options, games=50, budget=10, max_steps=5000, seed=0, min_games=7)
    assert (short.played, floor.played) == (1, 7)
    assert floor.steps > 10 and floor.games_by_players == {3: 7}
    capped = play_sample(spec, 3, options, games=4, budget=10, max_steps=5000, seed=0, min_games=7)
    assert capped.played == 4  # never past `games`
    report = check_spec(spec, PlayBounds(games=9, variant_games=0, play_budget=1, min_games=6, max_states=0,
                                         symbolic_time_limit=0, loop_search=0, estimate_steps=0, distinct_steps=0,
                                         shrink=False))
    sampled = [f.bound for f in report.findings if f.kind == "invariant" and f.method == "random-play"]
    assert sampled and all(b["games_by_players"] == {3: 6, 4: 6, 5: 6} for b in sampled)
