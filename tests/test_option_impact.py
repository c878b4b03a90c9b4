"""Option impact (`rulekit check`, kind option-impact): each option classed by what it changes, with
sampling noise never reported as a change."""
from __future__ import annotations

import pytest

from rulekit.checking import PlayBounds, check_spec
from rulekit.checking import impact
from rulekit.pipeline import Spec

from helpers import write_spec

SPEC = """
game coin "Coin"
rulebook "rulebook.txt" source "coin.txt"
players 2 to 2
unmodelled "Tiny Game." because "Title."
unmodelled "Each player draws one card." because "Not modelled."
zone box: set, public, initial
card Ace x 1
var rare: int 0..1 = 0
ambiguity rigged "Who wins?" {
  quote "The player with the Ace wins."
  question "Does a random player win, or the first?"
  option fair "A random player wins."
  option first "The first player wins."
  default fair because "Nobody holds the Ace more often."
}
ambiguity manners "How to pass?" {
  quote "The player with the Ace wins."
  question "May a player also shout?"
  option plain "Pass only."
  option loud "Pass or shout."
  default plain because "The rulebook names no shout."
}
ambiguity idle "Busy?" {
  quote "The player with the Ace wins."
  question "Is there a bonus?"
  option calm "No bonus."
  option busy "A bonus that never applies."
  default calm because "No bonus is named."
}
ambiguity unused "Unused?" {
  quote "The player with the Ace wins."
  question "Nothing tests this."
  option one "One reading."
  option two "Another reading."
  default one because "The first."
}
ambiguity ending "Early end?" {
  quote "The player with the Ace wins."
  question "Does the game stop at once after the pass?"
  option later "It goes on."
  option abrupt "It stops, with no winner."
  default later because "The rulebook names a winner."
}
flow {
  choose by seat(0) {
    action pass "Pass." { }
    action shout when manners is loud "Shout." { }
  }
  if ending is abrupt { end game }
  if idle is busy and size(box) > 5 { set rare = 1 }
  random hit in {true, false} weighted (if hit then 1 else 30)
  if hit { set rare = 1 }
  if rigged is first { win seat(0) } else {
    random w in players
    win w
  }
  end game quote "The player with the Ace wins."
}
"""

CHECKS = """checks coin
reachable rare_event "A rare event happens.": rare == 1
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = write_spec(tmp_path_factory.mktemp("impact"), SPEC, name="coin", checks=CHECKS)
    return check_spec(Spec(path), PlayBounds(max_states=0))  # random play only: the sampled case


def _impact(report, option):
    return next(f for f in report.findings if f.id == f"coin/option-impact/{option}")


def test_an_option_that_changes_who_wins_changes_outcomes(report):
    f = _impact(report, "rigged=first")
    assert f.bound["class"] == "outcomes" and f.severity == "info"
    assert "win rate of P0" in f.message and "Fisher" in f.message
    seat = next(s for s in f.bound["statistics"] if s["statistic"] == "win rate of P0")
    assert seat["option"]["value"] == 1.0 and seat["significant"]
    low, high = seat["default"]["interval"]
    assert low < 0.5 < high


def test_the_same_moves_ending_otherwise_is_a_witnessed_change_of_outcome(report):
    f = _impact(report, "ending=abrupt")
    assert f.bound["class"] == "outcomes" and f.verdict == "proven", f.message
    assert "the game is over where under the default options it goes on" in f.message
    assert "(the same moves under both options)" in f.message and f.witness is not None


def test_an_extra_action_changes_only_the_legal_moves(report):
    f = _impact(report, "manners=loud")
    assert f.bound["class"] == "legal-moves", f.message
    assert "shout" in f.message and f.bound["legal_moves"]["step"] >= 0
    assert "shout" in f.bound["legal_moves"]["option"]["legal"] and f.witness is not None
    # the witness proves the legal moves differ; that the outcomes do not is only what the samples showed
    assert f.verdict == "bounded"
    # a rare target reached under the default options and not under this one is sampling noise
    assert not f.bound["verdict_changes"]
    rare = next(s for s in f.bound["statistics"] if s.get("property") == "rare_event")
    assert not rare["significant"]


def test_an_option_whose_rule_never_applies_changes_nothing_observable(report):
    f = _impact(report, "idle=busy")
    assert f.bound["class"] == "nothing" and f.severity == "warning" and f.verdict == "bounded"
    assert f.acknowledged_by is None and "slip" in f.message


def test_an_option_the_spec_never_tests_provably_changes_nothing(report):
    f = _impact(report, "unused=two")
    assert (f.bound["class"], f.verdict, f.method) == ("nothing", "proven", "static")
    assert "unused is" in f.message


def test_noise_between_two_samples_of_one_game_is_no_change():
    from rulekit.checking.sampling import Outcomes, Tally

    def tally(wins0, games):
        t = Tally()
        t.outcomes[2] = Outcomes(2)
        t.outcomes[2].ends["won"] = games
        t.outcomes[2].wins = [wins0, games - wins0]
        t.outcomes[2].lengths = [3] * games
        t.games_by_players = {2: games}
        t.played = games
        return t

    stats = impact.outcome_tests(tally(52, 100), tally(9, 25), 0.95)
    impact.holm(stats := [s for s in stats if s["p_value"] is not None])
    assert all(s["adjusted_p_value"] > 0.05 for s in stats)
    stats = impact.outcome_tests(tally(50, 100), tally(25, 25), 0.95)
    impact.holm(stats := [s for s in stats if s["p_value"] is not None])
    assert min(s["adjusted_p_value"] for s in stats) < 0.05


def test_the_ambiguity_finding_lists_its_options_without_doubled_stops(report):
    f = next(f for f in report.findings if f.id == "coin/ambiguity/rigged")
    assert "fair: A random player wins; first: The first player wins. Default: fair" in f.message, f.message


BROKEN = """
game broken "Broken"
rulebook "rulebook.txt" source "coin.txt"
players 2 to 2
unmodelled "Tiny Game." because "Title."
unmodelled "Each player draws one card." because "Not modelled."
unmodelled "The player with the Ace wins." because "Not modelled."
zone box: set, public, initial
card Ace x 1
var full: int 0..0 = 0
ambiguity pace "Pace?" {
  quote "Each player draws one card."
  question "Fast or slow?"
  option slow "Slow."
  option fast "Fast."
  default slow because "Slow."
}
flow {
  choose by seat(0) { action go { } }
  if pace is fast { win seat(0) }
  add 1 to full
  end game
}
"""


def test_an_option_whose_default_games_all_fail_is_unknown_not_nothing(tmp_path):
    path = write_spec(tmp_path, BROKEN, name="broken")
    report = check_spec(Spec(path), PlayBounds(max_states=0))
    f = next(f for f in report.findings if f.id == "broken/option-impact/pace=fast")
    assert f.verdict == "unknown" and f.bound["class"] == "unknown" and f.severity == "info", f.message
