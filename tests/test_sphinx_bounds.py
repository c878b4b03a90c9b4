"""A finding's bound on a page: in words, numbers rounded, never a Python dict or list."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("sphinx")

from rulekit.sphinx.bounds import bound_lines  # noqa: E402

IMPACT = {
    "class": "legal-moves", "games": {"default": 20, "option": 6}, "confidence": 0.95, "verdict_changes": [],
    "statistics": [
        {"statistic": "win rate of P0", "test": "Fisher's exact test",
         "default": {"value": 0.3, "interval": [0.11893159040572772, 0.5427891822762891], "hits": 6, "games": 20},
         "option": {"value": 0.5, "interval": [0.11811724875702523, 0.8818827512429748], "hits": 3, "games": 6},
         "p_value": 0.5691547081830985, "adjusted_p_value": 1.0, "significant": False},
        {"statistic": "game length (decisions)", "test": "Mann-Whitney U",
         "default": {"value": 102.0, "interval": [88.42545890256794, 115.57454109743206], "games": 20},
         "option": {"value": None, "interval": None, "games": 0}, "p_value": None, "significant": False},
        {"statistic": "games that get stuck", "test": "Fisher's exact test",
         "default": {"value": 0.0, "interval": [0.0, 0.1684334709830853], "hits": 0, "games": 20},
         "option": {"value": 0.0, "interval": [0.0, 0.45925812643990044], "hits": 0, "games": 6},
         "p_value": None, "property": "no deadlock", "verdicts": {"default": "bounded", "option": "bounded"},
         "significant": False}],
    "legal_moves": {"players": 3, "step": 189, "default": {"over": True, "winners": [0, 1]},
                    "option": {"chance": {"chance: C10": 0.041666667}},
                    "text": "after 189 steps with 3 players, the game ends with other winners"},
    "replayed": 6}

TERMINATION = {"players": [3, 4], "per_players": {3: "unknown", 4: "unknown"}, "games": 6, "cut": 0,
               "finished_lengths": {"min": 72, "median": 108.0, "max": 144},
               "long_games": {"games": 6, "cut": 0, "confidence": 0.95, "rate_below": 0.6315968501359612,
                              "games_by_players": {3: 3, 4: 3}}}


def _text(bound) -> str:
    return "\n".join(f"{label}: {said}" for label, said in bound_lines(bound))


def test_nested_values_are_said_not_printed():
    for bound in (IMPACT, TERMINATION):
        text = _text(bound)
        assert not re.search(r"[{}\[\]]'|'[{}\[\]]|\{|\}", text), text
        assert "'" not in text.replace("Fisher's", ""), text
        assert not re.search(r"\d\.\d{4,}", text), text  # rounded


def test_a_statistic_reads_as_a_comparison():
    lines = dict(bound_lines(IMPACT))
    stats = lines["Statistics"]
    assert ("win rate of P0: 30 % [12 %, 54 %] under the default options against 50 % [12 %, 88 %] under this one, "
            "Fisher's exact test, adjusted p = 1") in stats
    assert "game length (decisions): 102 [88.4, 116] under the default options against no games" in stats
    assert "games that get stuck: 0 % [0 %, 17 %]" in stats and "not tested" in stats
    assert "legal moves: after 189 steps with 3 players, the game ends with other winners" in lines["Bound"]
    assert "games: default 20, option 6" in lines["Bound"] and "verdict changes: none" in lines["Bound"]


def test_floats_keep_three_significant_digits():
    text = _text(TERMINATION)
    assert "rate below 0.632" in text and "median 108," in text
    assert "games by players (3 3, 4 3)" in text


def test_no_bound_says_none():
    assert bound_lines({}) == [("Bound", "none")]
