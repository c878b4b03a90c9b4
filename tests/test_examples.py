"""Rulebook examples (`example` in a checks file, kind example), properties claimed `under` an option
set, and the states at which properties are judged (docs/language.rst, "What a state is")."""
from __future__ import annotations

import json

import pytest

from rulekit.checking import PlayBounds, check_spec
from rulekit.errors import SpecError
from rulekit.pipeline import Spec

from helpers import write_spec

# Each turn's `then` block counts a card out (a), draws it at random and only then counts it in (b):
# between the two, during the chance event, a != b; at every state (each decision, the end) a == b.
SPEC = """
game moment "Moment"
rulebook "rulebook.txt" source "moment.txt"
players 2 to 2
unmodelled "Tiny Game." because "Title."
unmodelled "Each player draws one card." because "Not modelled."
zone box: set, public, initial
zone pile: set, public
card Ace x 1
card Two x 1
var a: int 0..9 = 0
var b: int 0..9 = 0
ambiguity pace "How fast?" {
  quote "The player with the Ace wins."
  question "Does the game end at once?"
  option slow "It ends when the box is empty."
  option fast "It ends after the first draw."
  default slow because "The box empties."
}
flow {
  turns from seat(0) {
    choose by current {
      action go "Go." { if size(box) == 0 or (pace is fast and size(pile) > 0) { end game } }
    }
  } then {
    add 1 to a
    random c in box
    move c from box to pile
    add 1 to b
  }
}
"""


def _check(tmp_path, checks, bounds=None):
    path = write_spec(tmp_path, SPEC, name="moment", checks="checks moment\n" + checks)
    return check_spec(Spec(path), bounds)


def _one(report, fid):
    return next(f for f in report.findings if f.id == fid)


def test_an_invariant_false_only_inside_a_then_block_holds_for_every_method(tmp_path):
    report = _check(tmp_path, 'invariant in_step "a and b move together": a == b\n')
    judged = [f for f in report.findings if f.subject == "in_step"]
    assert judged and not [f for f in judged if f.verdict == "refuted"]
    assert _one(report, "moment/invariant/in_step").verdict == "proven"  # the explorer, complete
    (tmp_path / "sampled").mkdir()
    sampled = _check(tmp_path / "sampled", 'invariant in_step: a == b\n', PlayBounds(max_states=0))
    assert _one(sampled, "moment/invariant/in_step").verdict == "bounded"


def test_an_invariant_false_at_a_decision_is_refuted(tmp_path):
    report = _check(tmp_path, "invariant never_two: a < 2\n")
    assert _one(report, "moment/invariant/never_two").verdict == "refuted"


def test_a_property_under_an_option_is_checked_only_there(tmp_path):
    report = _check(tmp_path, "invariant short under pace=fast: a <= 1\nreachable long under pace=slow: a == 2\n")
    ids = {f.id: f for f in report.findings if f.subject in ("short", "long")}
    assert ids["moment/invariant/short/pace=fast"].verdict in ("proven", "bounded")
    assert ids["moment/reachability/long"].verdict == "proven"
    assert "moment/invariant/short" not in ids and "moment/reachability/long/pace=fast" not in ids
    # false under the default options, where it is not claimed: no refutation anywhere
    assert not [f for f in ids.values() if f.verdict == "refuted"]


def test_an_example_that_plays_out(tmp_path):
    report = _check(tmp_path, 'example two_draws "Both cards drawn." players 2\n'
                              '  do "go", "chance: Ace", "go", "go"\n  expect size(pile) == 2 and a == 2 and b == 2\n'
                              '  quote "Each player draws one card."\n')
    f = _one(report, "moment/example/two_draws")
    assert (f.severity, f.verdict, f.method) == ("info", "proven", "replay")
    assert f.quotes == ["Each player draws one card."] and f.witness[-1]["text"] == "go"


@pytest.mark.parametrize("steps, expect, words", [
    ('"go", "go", "go", "go"', "true", 'step 2 "go" cannot occur here; what chance can do: "chance: Ace", "chance: Two"'),
    ('"go", "chance: Three"', "true", 'step 2 "chance: Three" cannot occur here'),
    ('"go", "chance: Ace", "go", "go", "go"', "true", "the game is already over"),
    ('"go", "chance: Two", "go", "go"', "a == 3", "does not end as the rulebook says"),
])
def test_an_example_that_cannot_occur_or_ends_otherwise_is_an_error(tmp_path, steps, expect, words):
    report = _check(tmp_path, f"example ex players 2\n  do {steps}\n  expect {expect}\n")
    f = _one(report, "moment/example/ex")
    assert (f.severity, f.verdict, f.kind) == ("error", "refuted", "example") and f.fails
    assert words in f.message, f.message
    assert f.location.endswith("moment.checks:" + f.location.split("moment.checks:")[1])  # file:line:col


def test_an_example_under_an_option(tmp_path):
    report = _check(tmp_path, 'example fast_end players 2 under pace=fast\n  do "go", "chance: Ace" x 1, "go"\n'
                              '  expect size(pile) == 1\n')
    f = _one(report, "moment/example/fast_end")
    assert f.verdict == "proven" and f.options == {"pace": "fast"}


@pytest.mark.parametrize("checks, code, where", [
    ("example ex players 3\n  expect true\n", "E207", "moment.checks:2:1"),
    ("example ex players 2 under pace=quick\n  expect true\n", "E201", "moment.checks:2:33"),
    ("reachable r under tempo=fast: true\n", "E201", "moment.checks:2:19"),
    ("example ex players 2\n  expect true\nexample ex players 2\n  expect true\n", "E200", "moment.checks:4:9"),
])
def test_mistakes_in_examples_and_options_are_located(tmp_path, checks, code, where):
    path = write_spec(tmp_path, SPEC, name="moment", checks="checks moment\n" + checks)
    with pytest.raises(SpecError) as caught:
        Spec(path).model
    first = caught.value.diagnostics[0]
    assert first.code == code and str(first.span).endswith(where), (first.code, str(first.span))


def test_the_report_names_a_failing_example_and_an_option_without_effect(tmp_path, capsys):
    from rulekit.cli import main

    path = write_spec(tmp_path, SPEC.replace("pace is fast and ", "pace is fast and false and "), name="moment",
                      checks='checks moment\nexample ex players 2\n  do "go", "go"\n  expect true\n')
    code = main(["check", str(path), "--games", "4", "--variant-games", "4"])
    out = capsys.readouterr().out
    assert code == 1
    assert "rulebook examples that the rules do not play out" in out
    assert 'error[example]: example ex: step 2 "go" cannot occur here' in out
    assert "options that change nothing observable" in out and "[under pace=fast]" in out
    assert "0 of 1 rulebook examples play out" in out
    code = main(["check", str(path), "--games", "4", "--variant-games", "4", "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["games"][0]["findings"]
    impact = next(f for f in findings if f["kind"] == "option-impact")
    assert impact["bound"]["class"] == "nothing" and impact["options"] == {"pace": "fast"}
    assert {"statistics", "verdict_changes", "games", "legal_moves", "replayed"} <= set(impact["bound"])
