"""`check` on random small games with random invariants (`claimed_specs`): it runs to the end, and its
methods never contradict each other (an invariant proven by one and refuted by another), nor the
games' own nature (they always end: a count of turns or rounds ends them)."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from rulekit.checking import PlayBounds, check_spec
from rulekit.pipeline import Spec

from helpers import TINY_RULEBOOK, write_spec
from random_specs import claimed_specs

SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]
BOUNDS = dict(games=40, variant_games=0, max_steps=400, loop_search=4000, shrink=False)  # no Hypothesis inside Hypothesis


@pytest.mark.slow
@settings(max_examples=8, suppress_health_check=SUPPRESSED)
@given(claimed=claimed_specs())
def test_the_methods_of_check_agree_on_random_games(claimed, tmp_path_factory):
    text, names = claimed
    spec = Spec.find(str(write_spec(tmp_path_factory.mktemp("fz"), text, name="fz", rulebook=TINY_RULEBOOK)))
    report = check_spec(spec, PlayBounds(**BOUNDS))
    verdicts = defaultdict(set)
    for f in report.findings:
        if f.kind == "invariant":
            verdicts[f.id.split("/")[2]].add(f.verdict)
        if f.kind == "termination":
            assert f.verdict != "refuted", (f.message, text)
    assert set(names) <= set(verdicts), (names, verdicts)
    for name, seen in verdicts.items():
        assert not {"proven", "refuted"} <= seen, (name, report.findings, text)


@pytest.mark.slow
def test_a_random_game_whose_ranking_search_compared_commands_as_trees_is_checked(tmp_path):
    # Found by the test above: the search for a ranking function over the whole-language relation asked
    # whether a command was among those a level decreases, comparing the commands' terms as trees (see
    # `test_limits_hold`), and did not end.
    text = (Path(__file__).parent / "regressions" / "shared_terms.rules").read_text(encoding="utf-8")
    spec = Spec.find(str(write_spec(tmp_path, text, name="fz", rulebook=TINY_RULEBOOK)))
    report = check_spec(spec, PlayBounds(**BOUNDS))
    [ending] = [f for f in report.findings if f.kind == "termination"]
    assert ending.verdict != "refuted"  # a count of turns ends it
