"""The English of definitions that have no phrase, said from their names."""
from __future__ import annotations

import pytest

pytest.importorskip("sphinx")

from rulekit.sphinx.playbook import rules_text  # noqa: E402
from tests.helpers import compile_text  # noqa: E402

SPEC = """game t "T"
rulebook "rulebook.txt" source "t.txt"
players 2 to 3
var score per player: int = 0
define has_most(p: player): bool = forall(q in players: score(q) <= score(p))
define has_played(p: player): bool = score(p) > 0
flow {
  turns from seat(0) {
    choose by current {
      action take(n in 1..3) { add n to score(current) }
    }
    if not has_played(current) { end game }
    if not has_most(current) { end turn }
    win current
    end game
  }
}
"""


def test_a_condition_named_has_something_is_negated_as_english_says_it():
    """"has X" is a tense before a participle ("has not played") and possession before anything else
    ("does not have most"; "has not most" is not English)."""
    text = rules_text(compile_text(SPEC))
    assert "If you have not played, the game ends." in text, text
    assert "If you do not have most, your turn ends." in text, text
