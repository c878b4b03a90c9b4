"""Rulebook segmentation, verbatim quotes and coverage."""
from __future__ import annotations

from rulekit import quotes
from rulekit.pipeline import Spec
from tests.helpers import compile_text

RULEBOOK = """Title Line

Setup
1. Shuffle the deck. Deal three cards to each player.
• 3-player game: Remove the Joker.
Card drawn\tResult
Crystal\tSuccess! Keep it.
"""


def test_sentences_split_lines_bullets_and_table_rows():
    texts = [s.text for s in quotes.sentences(RULEBOOK)]
    assert texts == ["Title Line", "Setup", "Shuffle the deck.", "Deal three cards to each player.",
                     "3-player game: Remove the Joker.", "Card drawn Result", "Crystal Success! Keep it."]
    lines = [s.line for s in quotes.sentences(RULEBOOK)]
    assert lines == [1, 3, 4, 4, 5, 6, 7]


SPEC = """
game g "G"
rulebook "rulebook.txt" source "g.txt"
players 2 to 2
unmodelled "Title Line" "Setup" because "Headings."
zone box: set, public, initial
zone deck: stack, hidden quote "Shuffle the  deck."
flow { shuffle deck quote "Deal three" }
"""


def test_quotes_must_be_verbatim_up_to_white_space():
    game = compile_text(SPEC)
    assert quotes.bad_quotes(game, RULEBOOK) == []
    broken = compile_text(SPEC.replace("Deal three", "Deal 3 cards"))
    problems = quotes.bad_quotes(broken, RULEBOOK)
    assert [p.use.text for p in problems] == ["Deal 3 cards"]
    assert problems[0].suggestion == "Deal three cards to each player."
    assert problems[0].use.where.span.line == 8


def test_uncovered_sentences_are_listed():
    game = compile_text(SPEC)
    missing = [s.text for s in quotes.uncovered(game, RULEBOOK)]
    # "Deal three" covers less than half of its sentence.
    assert missing == ["Deal three cards to each player.", "3-player game: Remove the Joker.",
                       "Card drawn Result", "Crystal Success! Keep it."]


def test_the_bundled_spec_accounts_for_every_sentence():
    spec = Spec.find("chocobo")
    assert quotes.bad_quotes(spec.model, spec.rulebook_text) == []
    assert quotes.uncovered(spec.model, spec.rulebook_text) == []
