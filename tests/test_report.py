"""The check report as a rules editor reads it: problems first in a compiler's style, then what holds;
SARIF that code scanning accepts; JSON bounds that state their guarantee; expectations that do not rot."""
from __future__ import annotations

import json

from rulekit.cli import main
from tests.helpers import TINY_SPEC as TINY, write_spec

# the clock plays no part: no explorer time limit reached, no symbolic step
FAST = ["--games", "6", "--variant-games", "1", "--symbolic-time-limit", "0", "--jobs", "1"]


CHECKS = """checks tiny
invariant drawn_small "At most one card a player": drawn <= player_count
reachable ace_drawn "Someone has the Ace": exists(p in players where size(hand(p)) > 0)
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_clean_spec_says_what_was_checked(tmp_path, capsys):
    path = write_spec(tmp_path, TINY, checks=CHECKS)
    code, out, err = run(capsys, "check", str(path), *FAST)
    assert code == 0, out + err
    assert "3 of 3 rulebook sentences accounted for" in out and "4 of 4 quotes verbatim" in out
    assert "1 exhaustive" in out and "1 of 1 targets reached" in out
    assert "what holds" in out and "drawn_small" in out and "ace_drawn" in out
    assert "error[" not in out and "warning[" not in out  # no problem listed
    assert "1 spec(s) checked" in out and ": clean;" in out
    # a bare count of findings of any verdict is never a heading
    assert "deadlock (1)" not in out and "contradiction (1)" not in out


def test_a_bad_quote_on_a_statement_names_the_statement_as_the_spec_writes_it(tmp_path, capsys):
    text = TINY.replace('random c in box quote "Each player draws one card."',
                        'random c in box quote "Each player draw one card."')
    _, out, _ = run(capsys, "check", str(write_spec(tmp_path, text)), *FAST)
    assert "quote on the `random` statement in the flow is not verbatim" in out, out


def test_one_bad_quote_on_the_players_line_is_named_and_located(tmp_path, capsys):
    text = TINY.replace("players 2 to 3\n", 'players 2 to 3\n  quote "Each player draw one card."\n')
    path = write_spec(tmp_path, text)
    code, out, _ = run(capsys, "check", str(path), *FAST)
    assert code == 1
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if "error[quote]" in line)
    assert lines[at].strip().startswith(f"{tmp_path}/tiny/tiny.rules:5:9: error[quote]: quote on players is not")
    assert "quotes that are not verbatim in the rulebook" in out
    assert lines[at + 1].strip() == '5 |   quote "Each player draw one card."'
    assert lines[at + 2].strip() == "|         ^"
    # the misquote is the spec's words, shown on the line above: not again under the label "rulebook"
    assert "rulebook: “Each player draw one card.”" not in out
    assert "hint: the closest rulebook sentence is “Each player draws one card.”" in lines[at + 3]
    assert "4 of 5 quotes verbatim" in out


DEADLOCK = TINY.replace("  end game quote", """  choose by seat(0) {
    action wait when drawn > 5 { }
  }
  end game quote""")


# An ambiguity with two options, so that a finding can repeat under the other one.
COLOUR = ('zone box: set, public, initial\nambiguity colour "Colour?" {\n  quote "Each player draws one card."\n'
          '  question "Red or blue?"\n  option red "Red."\n  option blue "Blue."\n  default red because "Red."\n}')
COLOURED = TINY.replace("zone box: set, public, initial", COLOUR)


def test_a_deadlock_reads_as_a_problem_with_its_witness(tmp_path, capsys):
    path = write_spec(tmp_path, DEADLOCK)
    code, out, _ = run(capsys, "check", str(path), *FAST)
    assert code == 1
    assert "deadlocks: the game is not over, yet no one can move" in out
    line = next(line for line in out.splitlines() if "error[deadlock]" in line)
    assert "no legal move" in line
    assert "hint: give the player a legal move" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("#  who"))
    assert "action" in header and "rule and quote" in header and "what changed" in header
    assert "“Each player draws one card.”" not in header
    assert "drawn 0→2" in out and "hand[0] +" in out  # what changed, step by step


def test_a_witness_shows_players_by_name(tmp_path, capsys):
    text = DEADLOCK.replace("var drawn: int 0..3 = 0", "var drawn: int 0..3 = 0\nvar last: player = none")
    text = text.replace("    add 1 to drawn\n", "    add 1 to drawn\n    set last = p\n")
    _, out, _ = run(capsys, "check", str(write_spec(tmp_path, text)), *FAST, "--format", "json")
    deadlock = next(f for f in json.loads(out)["games"][0]["findings"] if f["kind"] == "deadlock")
    changed = deadlock["witness"][0]["changed"]
    assert "last none→P1" in changed, changed


def test_problems_come_before_what_holds(tmp_path, capsys):
    path = write_spec(tmp_path, DEADLOCK, checks=CHECKS)
    _, out, _ = run(capsys, "check", str(path), *FAST)
    assert out.index("error[deadlock]") < out.index("what holds") < out.index("summary:")


def test_an_endless_loop_names_the_spec_line(tmp_path, capsys):
    text = TINY.replace("  end game quote", "  turns from seat(0) {\n    check triggers\n  }\n  end game quote")
    path = write_spec(tmp_path, text)
    code, out, _ = run(capsys, "check", str(path), *FAST, "--format", "json")
    runtime = [f for f in json.loads(out)["games"][0]["findings"] if f["kind"] == "runtime"]
    assert code == 1 and runtime
    assert len(runtime) == 1 and "instruction" not in runtime[0]["message"]
    assert runtime[0]["location"].rsplit(":", 2)[1] in ("19", "20")  # the turns loop, or the line inside it
    assert "the rules go round for ever" in runtime[0]["message"] and "tiny.rules" not in runtime[0]["message"]


def test_a_stale_expect_is_a_warning(tmp_path, capsys):
    checks = CHECKS + 'expect gone "tiny/termination/random-play" because "no longer produced"\n'
    path = write_spec(tmp_path, TINY, checks=checks)
    code, out, _ = run(capsys, "check", str(path), *FAST, "--format", "json")
    stale = [f for f in json.loads(out)["games"][0]["findings"] if f["kind"] == "stale-expect"]
    assert code == 0 and len(stale) == 1
    assert stale[0]["severity"] == "warning" and "tiny/termination/random-play" in stale[0]["message"]
    assert stale[0]["location"].endswith("tiny.checks:4:1")


def test_the_bundled_checks_files_have_no_stale_expect(capsys):
    code, out, _ = run(capsys, "check", "chocobo", *FAST, "--max-states", "0", "--format", "json")
    assert code == 0
    # notes of what a small run did not meet are fine; a warning would be an expect that names nothing
    assert not [f["id"] for f in json.loads(out)["games"][0]["findings"]
                if f["kind"] == "stale-expect" and f["severity"] != "info"]


def test_every_false_claim_is_reported_once_across_player_counts(tmp_path, capsys):
    text = TINY.replace("var drawn", "claim three_cards: 4 == 3\nclaim one_ace: 2 == 1\nvar drawn")
    path = write_spec(tmp_path, text)
    code, out, _ = run(capsys, "check", str(path), *FAST, "--format", "json")
    found = [f for f in json.loads(out)["games"][0]["findings"] if f["kind"] == "contradiction"
             and f["verdict"] == "refuted"]
    assert code == 1
    assert sorted(f["id"] for f in found) == ["tiny/contradiction/one_ace", "tiny/contradiction/three_cards"]
    assert all(f["bound"]["players"] == [2, 3] for f in found)


def test_json_bounds_state_their_guarantee(tmp_path, capsys):
    path = write_spec(tmp_path, TINY, checks=CHECKS)
    _, out, _ = run(capsys, "check", str(path), *FAST, "--format", "json")
    findings = json.loads(out)["games"][0]["findings"]
    exhaustive = next(f for f in findings if f["id"] == "tiny/invariant/drawn_small")
    assert exhaustive["verdict"] == "proven" and exhaustive["bound"]["complete"] is True
    assert [c["players"] for c in exhaustive["bound"]["configurations"]] == [2, 3]
    _, out, _ = run(capsys, "check", str(path), *FAST, "--max-states", "0", "--format", "json")
    sampled = next(f for f in json.loads(out)["games"][0]["findings"] if f["id"] == "tiny/invariant/drawn_small")
    bound = sampled["bound"]
    assert sampled["verdict"] == "bounded" and bound["games"] == 12 and bound["states"] >= 12
    assert bound["confidence"] == 0.95 and abs(bound["violation_rate_below"] - (1 - 0.05 ** (1 / 6))) < 1e-9
    assert "at 95 % confidence the chance that a game violates it is below 40 %" in sampled["message"]
    reached = next(f for f in json.loads(out)["games"][0]["findings"] if f["id"] == "tiny/reachability/ace_drawn")
    assert reached["bound"]["reached_in"] == 12 and reached["bound"]["reach_rate_interval"][1] == 1.0


def test_confidence_and_sequential_stopping(tmp_path, capsys):
    path = write_spec(tmp_path, TINY, checks=CHECKS)
    argv = ["check", str(path), "--games", "500", "--variant-games", "1", "--symbolic-time-limit", "0",
            "--max-states", "0", "--format", "json", "--jobs", "1"]
    _, out, _ = run(capsys, *argv, "--confidence", "0.99", "--max-violation-rate", "0.05")
    bound = next(f for f in json.loads(out)["games"][0]["findings"] if f["id"] == "tiny/invariant/drawn_small")["bound"]
    # 90 games without a violation put the 99 % bound below 5 %, per player count
    assert bound["games_by_players"] == {"2": 90, "3": 90} and bound["confidence"] == 0.99
    assert bound["violation_rate_below"] < 0.05
    code, _, err = run(capsys, *argv, "--confidence", "1.5")
    assert code == 2 and "--confidence" in err


def test_sarif_has_what_code_scanning_needs(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = TINY.replace("players 2 to 3\n", 'players 2 to 3\n  quote "Each player draw one card."\n')
    write_spec(tmp_path, text)
    code, out, _ = run(capsys, "check", "tiny/tiny.rules", *FAST, "--format", "sarif")
    sarif = json.loads(out)
    assert code == 1 and sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    (run_,) = sarif["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "rulekit" and driver["rules"]
    rule_ids = [r["id"] for r in driver["rules"]]
    assert len(set(rule_ids)) == len(rule_ids)
    for r in driver["rules"]:
        assert r["shortDescription"]["text"] and r["defaultConfiguration"]["level"] in ("error", "warning", "note")
    for result in run_["results"]:
        assert result["ruleId"] in rule_ids and rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note") and result["message"]["text"]
        for loc in result.get("locations", []) + result.get("relatedLocations", []):
            physical = loc["physicalLocation"]
            uri = physical["artifactLocation"]["uri"]
            assert not uri.startswith("/") and "\\" not in uri and ":" not in uri
            region = physical.get("region", {})
            assert all(isinstance(region[k], int) and region[k] >= 1 for k in region)
    quote = next(r for r in run_["results"] if r["ruleId"] == "rulekit/quote")
    assert quote["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": "tiny/tiny.rules"},
                                                         "region": {"startLine": 5, "startColumn": 9}}
    coverage = [r for r in run_["results"] if r["ruleId"] == "rulekit/coverage"]
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "tiny/rulebook.txt"
               for r in coverage)


def test_a_runtime_error_names_its_rule_and_line(tmp_path, capsys):
    rule = '    rule count "Count the cards drawn" {\n      add 5 to drawn\n    }\n'
    text = TINY.replace("    add 1 to drawn\n", rule)
    path = write_spec(tmp_path, text)
    code, out, err = run(capsys, "check", str(path), *FAST)
    assert code == 1 and "Traceback" not in out + err
    line = next(line for line in out.splitlines() if "error[runtime]" in line)
    assert line.strip().startswith(f"{path}:17:7: error[runtime]: rule count could not be carried out with 2 players: 'drawn'")
    assert "17 |       add 5 to drawn" in out


def test_every_finding_kind_has_a_group_title_and_a_hint():
    from rulekit.findings import KINDS
    from rulekit.report import wording

    assert set(KINDS) <= set(wording.PROBLEM_TITLES) and set(KINDS) - {"ambiguity"} <= set(wording.HINTS)


def test_an_undecided_termination_says_how_the_random_games_ended():
    from rulekit.findings import Finding
    from rulekit.report.wording import rests_on

    def undecided(bound):
        return rests_on(Finding("g/termination", "g", "termination", "info", "unknown", "explicit-state",
                                "not decided whether every play ends", bound=bound))

    ended = undecided({"games": 500, "cut": 0, "finished_lengths": {"min": 4, "median": 27, "max": 80}})
    assert "500 of 500 random games ended, after 4 to 80 decisions" in ended and "-v" in ended
    cut = undecided({"games": 30, "cut": 2, "finished_lengths": {"min": 90, "median": 500, "max": 900}})
    assert "28 of 30 random games ended, after 90 to 900 decisions, 2 cut at the step limit" in cut
    assert "no random game played" in undecided({})
    bounded = undecided({"games": 500, "cut": 0, "max_steps": 5000, "finished_lengths": {"min": 4, "median": 27, "max": 80},
                         "long_games": {"games": 500, "cut": 0, "confidence": 0.95, "rate_below": 0.0296}})
    assert "a game runs past 5,000 decisions with a chance below 3.0 % (95 % confidence)" in bounded


def test_a_single_player_count_reads_in_the_singular(tmp_path, capsys):
    from rulekit.findings import Finding
    from rulekit.report.wording import rests_on

    proof = {"players": [1], "k": 1}
    assert rests_on(Finding("g/i", "g", "invariant", "info", "proven", "z3-abstraction", "", bound=proof)) \
        .endswith(", 1 player")
    assert rests_on(Finding("g/i", "g", "invariant", "info", "proven", "z3-abstraction", "",
                            bound={**proof, "players": [1, 2]})).endswith(", 1 to 2 players")
    solo = TINY.replace("players 2 to 3\n", "players 1\n")
    code, out, err = run(capsys, "check", str(write_spec(tmp_path, solo, checks=CHECKS)), *FAST)
    assert "1 player)" in out and "1 players" not in out, out


def test_a_sampled_target_not_reached_says_how_rarely_a_game_reaches_it():
    from rulekit.findings import Finding
    from rulekit.report.wording import rests_on

    bound = {"games": 300, "states": 8096, "confidence": 0.95, "violation_rate_below": 0.0295}
    target = Finding("g/reachability/big", "g", "reachability", "warning", "bounded", "explicit-state", "not reached",
                     bound=bound)
    invariant = Finding("g/invariant/small", "g", "invariant", "info", "bounded", "explicit-state", "holds", bound=bound)
    assert rests_on(target) == "300 random games (8,096 states): a game reaches it with a chance below 3.0 % (95 % confidence)"
    assert "a game breaks it with a chance below 3.0 %" in rests_on(invariant)
    target.bound = {**bound, "explored": {"states": 1_063_525, "complete": False}}
    assert rests_on(target).endswith("(95 % confidence); none of 1,063,525 explored states reaches it")


def test_the_termination_search_is_timed_apart_from_judging_the_verdicts(tmp_path):
    from rulekit.checking import PlayBounds, check_spec
    from rulekit.pipeline import Spec

    timings = {}
    check_spec(Spec.find(str(write_spec(tmp_path, TINY))), PlayBounds(games=4, variant_games=1, symbolic_time_limit=0),
               timings=timings)
    assert {"graph", "termination"} <= timings.keys() and min(timings.values()) >= 0


def test_counts_agree_with_their_nouns():
    from rulekit.findings import Finding
    from rulekit.phrases import counted
    from rulekit.report.wording import rests_on

    assert [counted(n, "step") for n in (0, 1, 2, 1066)] == ["0 steps", "1 step", "2 steps", "1,066 steps"]
    one = Finding("g/invariant/x", "g", "invariant", "error", "refuted", "explicit-state", "false", witness=[{"step": 1}])
    assert rests_on(one) == "a witness of 1 step, replayed in the engine"


def test_a_finding_said_again_under_other_options_with_the_same_witness_is_told_once(tmp_path, capsys):
    text = DEADLOCK.replace("zone box: set, public, initial", COLOUR)
    _, out, _ = run(capsys, "check", str(write_spec(tmp_path, text)), *FAST)
    assert out.count("error[deadlock]") == 1, out
    assert "the same under 1 other option set(s): colour=blue" in out


def test_a_runtime_error_met_in_chance_drawn_inside_a_step_has_a_witness_up_to_that_draw(tmp_path, capsys):
    # random play draws chance inside the decision's step: the witness must list those draws too
    text = TINY.replace("var drawn: int 0..3 = 0", "var drawn: int 0..3 = 0\nvar rolled: int 0..2 = 0")
    text = text.replace("  end game quote", """  choose by seat(0) { action roll {
    for i in 1..3 { random face in 1..6  add 1 to rolled }
  } }
  end game quote""")
    random_play_only = ["--max-states", "0"]
    _, out, _ = run(capsys, "check", str(write_spec(tmp_path, text)), *FAST, *random_play_only, "--format", "json")
    failure = next(f for f in json.loads(out)["games"][0]["findings"] if f["kind"] == "runtime")
    steps = failure["witness"]
    assert [s["player"] for s in steps[-3:]] == ["P0", "chance", "chance"], steps  # roll, then two dice
    assert steps[-3]["text"] == "roll" and "rolled 1→2" in steps[-1]["changed"], steps


def test_a_property_claimed_only_under_other_options_has_its_row_and_is_counted(tmp_path, capsys):
    text = COLOURED
    checks = 'checks tiny\nreachable drew "Someone drew." under colour=blue: drawn >= 1\n'
    _, out, _ = run(capsys, "check", str(write_spec(tmp_path, text, checks=checks)), *FAST)
    assert "drew (under colour=blue)" in out and "1 of 1 targets reached" in out, out


def test_a_configuration_whose_games_all_run_the_engine_limit_stops_after_a_few(tmp_path):
    from rulekit.checking import sampling
    from rulekit.pipeline import Spec
    text = TINY.replace("  shuffle box\n", "  shuffle box\n  loop { random face in 1..6  if face == 7 { end game } }\n")
    tally = sampling.play_sample(Spec(write_spec(tmp_path, text)), 2, {}, games=20, budget=10**6, max_steps=50,
                                 seed=0, min_games=20)
    assert tally.played == sampling.ENDLESS_GAMES == tally.run_limits
    [(message, (_, history, _))] = tally.errors.items()
    assert "without waiting for a decision" in message and len(history) < 1000  # no endless witness


def test_a_property_refuted_by_several_methods_is_one_problem_told_once(tmp_path, capsys):
    checks = 'checks tiny\ninvariant few "At most one card is drawn.": drawn <= 1\n'
    path = write_spec(tmp_path, TINY, checks=checks)
    _, out, _ = run(capsys, "check", str(path), "--games", "6", "--variant-games", "1", "--jobs", "1")
    assert out.count("error[invariant]") == 1 and "also found by" in out, out
    assert "1 error(s)" in out


def test_a_sampled_invariant_witness_ends_at_the_first_state_that_breaks_it(tmp_path):
    # random play tests at decisions and at the end; the deal broke it at its first draw, a step before
    from rulekit.checking import PlayBounds, check_spec
    from rulekit.pipeline import Spec
    three = TINY.replace("card Two x 2", "card Two x 1\ncard Three x 1")
    checks = 'checks tiny\ninvariant none_drawn "No card is drawn.": drawn == 0\n'
    report = check_spec(Spec(write_spec(tmp_path, three, checks=checks)),
                        PlayBounds(games=4, variant_games=0, max_states=0, shrink=False, symbolic_time_limit=0))
    broken = next(f for f in report.findings if f.id == "tiny/invariant/none_drawn")
    assert len(broken.witness) == 1 and "drawn 0→1" in broken.witness[0]["changed"], broken.witness


def test_an_invariant_broken_under_every_option_set_is_told_once(tmp_path, capsys):
    text = COLOURED
    checks = 'checks tiny\ninvariant none_drawn "No card is drawn.": drawn == 0\n'
    _, out, _ = run(capsys, "check", str(write_spec(tmp_path, text, checks=checks)), *FAST)
    assert out.count("error[invariant]") == 1 and "the same under 1 other option set(s): colour=blue" in out, out


def test_a_runtime_error_outside_any_rule_names_the_flow(tmp_path, capsys):
    text = TINY.replace("    add 1 to drawn\n", "    add 5 to drawn\n")
    _, out, _ = run(capsys, "check", str(write_spec(tmp_path, text)), *FAST)
    line = next(line for line in out.splitlines() if "error[runtime]" in line)
    assert "error[runtime]: the flow could not be carried out with 2 players: 'drawn'" in line, line
