"""The English of the rules pages: golden text for every rule of two games, read against their
rulebooks; no raw name, underscore or path in any generated sentence of any bundled game; phrases.

To refresh the golden English after an intended change to the renderer or to a spec's phrases, run
(then read the diff against specs/<game>/rulebook.txt before committing it):

    RULEKIT_UPDATE_GOLDEN=1 python -m pytest tests/test_english.py
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

pytest.importorskip("sphinx")

from rulekit import model as m  # noqa: E402
from rulekit import resources  # noqa: E402
from rulekit.pipeline import Spec  # noqa: E402
from rulekit.sphinx.english import English, plain  # noqa: E402
from rulekit.sphinx.playbook import how_to_play, lines_text, rules_text  # noqa: E402
from tests.helpers import compile_text  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "english"
UPDATE = os.environ.get("RULEKIT_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("game", ["chucky", "chocobo"])
def test_golden_english(game):
    actual = rules_text(Spec.find(game).model)
    path = GOLDEN / f"{game}.txt"
    if UPDATE:
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"no {path.name}: run RULEKIT_UPDATE_GOLDEN=1 python -m pytest {__file__}"
    assert actual == path.read_text(encoding="utf-8")


def _sentences(game: m.Game) -> list[str]:
    """Every sentence the docs generate from a game's model, as plain text."""
    english = English(game)
    out = rules_text(game).splitlines()
    out += [plain(s) for _, sentences in how_to_play(game).sections() for s in sentences]
    out += [english.zone_title(z) for z in game.zones]
    out += [english.text(f.value) for f in game.facts]
    out += [english.text(c.expr) for c in game.claims]
    out += [english.procedure_title(p) for p in game.procedures]
    out += lines_text(english.block(game.flow.body))
    return [s for s in out if s and not s.startswith("#")]


_PATH = re.compile(r"\w/\w|\\\w|\.rules\b|\.checks\b|\.txt\b")


@pytest.mark.parametrize("name", resources.bundled_games())
def test_no_raw_names_or_paths_in_the_english(name):
    game = Spec.find(name).model
    identifiers = {n for decl in (game.zones, game.vars, game.defines, game.procedures, game.facts, game.components,
                                  game.tokens, game.boards, game.triggers) for n in (d.name for d in decl)}
    raw = sorted(n for n in identifiers if "_" in n)
    for sentence in _sentences(game):
        assert "_" not in sentence, sentence
        assert "\x00" not in sentence, sentence
        assert not _PATH.search(sentence), sentence
        assert not any(re.search(rf"\b{re.escape(n)}\b", sentence) for n in raw), sentence


def test_every_placeholder_of_every_bundled_phrase_is_filled():
    for name in resources.bundled_games():
        for sentence in _sentences(Spec.find(name).model):
            assert not re.search(r"\{\w*\}", sentence), (name, sentence)


# ---- phrases in the language ---------------------------------------------------------------------

SPEC = """game t "T"
rulebook "rulebook.txt" source "t.txt"
players 2 to 3
enum Kind { plain phrase "plain card", gold phrase "gold card" } phrase "kind"
card Coin x 3 { kind = gold, worth = 2 }
card Pebble x 3 { kind = plain, worth = 1 }
attribute worth phrase "value"
fact goal = 4 phrase "the goal"
zone box: set, public, initial
zone deck: stack, hidden phrase "the draw pile"
zone hand per player: set, owner phrase "{player}'s hand"
var score per player: int = 0 phrase "the points {player} has scored"
var dealt: bool = false bookkeeping phrase "the cards are dealt"
define rich(p: player): bool = count(c in hand(p) where c.kind == gold) >= 2 phrase "{p} holds two gold cards"
procedure draw(p: player) phrase "{p} draws a card" { move top from deck to hand(p) }
flow {
  move all from box to deck
  shuffle deck
  set dealt = true
  turns from seat(0) {
    choose by current {
      action take(c in hand(current) where c.kind == gold) phrase "cash in {c}" { add c.worth to score(current) }
      action pass { }
    }
    do draw(current)
    if rich(current) { win current end game }
  }
}
"""


def test_phrases_reach_the_model_outside_equality():
    game = compile_text(SPEC)
    plain_game = compile_text(re.sub(r'\s*phrase "[^"]*"', "", SPEC).replace(" bookkeeping", "").replace(
        'attribute worth\n', ""))
    assert game == plain_game  # phrases and the bookkeeping marker are for readers only
    assert next(z for z in game.zones if z.name == "hand").phrase == "{player}'s hand"
    assert next(v for v in game.vars if v.name == "dealt").bookkeeping
    assert next(d for d in game.defines if d.name == "rich").phrase == "{p} holds two gold cards"
    assert dict(game.enums[0].member_phrases) == {"plain": "plain card", "gold": "gold card"}
    assert next(a for a in game.attrs if a.name == "worth").phrase == "value"
    assert game.facts[0].phrase == "the goal"


def test_phrases_are_used_wherever_the_thing_is_referred_to():
    text = rules_text(compile_text(SPEC))
    assert "Move all cards of the box to the draw pile." in text
    assert "You may cash in a card in your hand that is a gold card:" in text
    assert "Add the card's value to the points you have scored." in text
    assert "You draw a card." in text
    assert "If you hold two gold cards:" in text
    assert "dealt" not in text  # bookkeeping is left out


def test_default_phrases_come_from_the_names():
    text = rules_text(compile_text(re.sub(r'\s*phrase "[^"]*"', "", SPEC).replace(" bookkeeping", "").replace(
        "attribute worth\n", "")))
    assert "Move all cards of the box to the deck." in text
    assert "Carry out Draw for you." in text  # a name is a title, carried out
    assert "If you are rich:" in text
    assert "From now on, the dealt flag is on." in text  # not bookkeeping any more: a flag with no phrase


@pytest.mark.parametrize("bad, message", [
    ('zone deck: stack, hidden phrase "{p}"', "names '{p}', which is not one of its parameters"),
    ('procedure draw(p: player) phrase "{p} draws {q}" { }', "names '{q}'"),
    ('define rich(p: player): bool = true phrase "{p holds"', "has an unmatched '{'"),
    ('fact goal = 4 phrase "the goal {x}"', "names '{x}'"),
    ('attribute colour phrase "colour"', "unknown attribute 'colour'"),
])
def test_bad_phrases_are_spec_errors(bad, message):
    from rulekit import SpecError

    base = 'game t "T"\nrulebook "r.txt" source "t.txt"\nplayers 2 to 3\ncard Coin x 1 { worth = 2 }\n' \
           'zone box: set, public, initial\nzone hand per player: set, owner\n'
    with pytest.raises(SpecError) as info:
        compile_text(base + bad + "\nflow { }\n")
    assert message in info.value.render()
    assert re.search(r":\d+:\d+: E2\d\d", info.value.render())


def test_option_tests_read_as_readings_linked_to_the_register():
    game = Spec.find("chucky").model
    english = English(game)
    flow = english.block(game.flow.body)
    first = flow[0]
    assert first.text == "If the number of players is 1 (under the reading two to five players), the game ends."
    refs = [p for p in first.parts if not isinstance(p, str)]
    assert refs and refs[0].target == ("reading", "solo_play")


def test_consecutive_moves_become_one_sentence():
    game = Spec.find("chocobo").model
    lines = English(game).procedure(next(p for p in game.procedures if p.name == "gather_cards"))
    assert lines[1].text == ("Move all cards of the deck, all cards of the discard pile and all cards of the pile of "
                             "unused cards to the box.")


def test_alternatives_keep_their_grouping_and_a_flag_reads_as_a_predicate():
    """`A or (B and C) or (not D and E)` read as a comma list ("A, B and C or ...") loses its grouping; a
    flag with no phrase reads "the card is shiny", not "the card's shiny"."""
    text = SPEC.replace("card Coin x 3 { kind = gold, worth = 2 }", "card Coin x 3 { kind = gold, worth = 2, shiny = true }")
    text = text.replace("card Pebble x 3 { kind = plain, worth = 1 }", "card Pebble x 3 { kind = plain, worth = 1, shiny = false }")
    text = text.replace("define rich(p: player)", "define good(c: card): bool = c.worth == 2 or (c.kind == plain and "
                        "c.shiny) or (not c.shiny and c.worth == 1)\ndefine rich(p: player)")
    game = compile_text(text)
    said = plain(English(game).define(next(d for d in game.defines if d.name == "good")).parts)
    assert said == ("The card is good when the card's value is 2; the card is a plain card and the card is shiny; "
                    "or the card is not shiny and the card's value is 1."), said


def test_a_condition_named_by_a_verb_and_a_flag_read_as_english():
    """`can_play(p)` reads "you can play" (not "you are can play"), its negation "you cannot play"; a
    flag with no phrase is on or off."""
    text = SPEC.replace('define rich(p: player): bool = count(c in hand(p) where c.kind == gold) >= 2 phrase "{p} holds two gold cards"',
                        "define can_cash(p: player): bool = count(c in hand(p) where c.kind == gold) >= 1")
    text = text.replace("if rich(current) { win current end game }",
                        "if not can_cash(current) { set dealt = false }\n    if dealt and can_cash(current) { win current end game }")
    said = rules_text(compile_text(text.replace(' bookkeeping phrase "the cards are dealt"', "")))
    assert "If you cannot cash, from now on, the dealt flag is off." in said, said
    assert "If the dealt flag is on and you can cash:" in said, said
    assert "The player can cash when" in said, said


def test_a_let_whose_value_the_rules_change_before_reading_it_is_noted_not_inlined():
    """`let had = size(deck) > 0`, a card drawn, then `if had and size(deck) == 0`: said by its
    expression it read "if the draw pile is not empty and the draw pile is empty"."""
    text = SPEC.replace("    do draw(current)\n",
                        "    let had_cards = size(deck) > 0\n    do draw(current)\n"
                        "    if had_cards and size(deck) == 0 { end game }\n"
                        "    let left = size(deck)\n    if left > 3 { end game }\n")
    said = rules_text(compile_text(text))
    assert "Note whether the draw pile is not empty; call it had cards." in said, said
    assert "If had cards (as noted before) and the draw pile is empty, the game ends." in said, said
    assert "If the number of cards in the draw pile is more than 3, the game ends." in said, said  # nothing changed it
    assert "not not" not in said


# ---- counts, calls, pronouns ---------------------------------------------------------------------

DEAL = """game t "T"
rulebook "rulebook.txt" source "t.txt"
players 2 to 3
card Coin x 12
fact hand_size = if player_count == 2 then 3 else 2
fact rounds_max = 8
zone box: set, public, initial
zone deck: stack, hidden
zone hand per player: set, owner
flow {
  move all from box to deck
  for i in 1..hand_size { for p in players { move top from deck to hand(p) } }
  for i in 1..rounds_max { shuffle deck }
  for i in 1..1 { shuffle deck }
  end game
}
"""


def test_a_repeat_reads_as_how_many_times():
    text = rules_text(compile_text(DEAL))
    assert "Do this as many times as the hand size:" in text
    assert "Do this 8 times:" in text and "Do this once:" in text
    assert "the hand size times" not in text


PICK = """game t "T"
rulebook "rulebook.txt" source "t.txt"
players 2 to 3
card Coin x 3
card Pebble x 3
zone box: set, public, initial
zone hand per player: set, owner
var leader: player = none
flow {
  random first in players
  set leader = first
  random prize in box
  move prize from box to hand(leader)
  end game
}
"""


def test_a_player_picked_at_random_is_called_them_a_card_it():
    text = rules_text(compile_text(PICK))
    assert "Pick a player at random; call them the first player." in text
    assert "call it the first player" not in text
    assert "; call it the prize." in text


CALL = """game t "T"
rulebook "rulebook.txt" source "t.txt"
players 2 to 3
card Coin x 3
zone box: set, public, initial
zone hand per player: set, owner
define hand_over: bool = forall(p in players: size(hand(p)) == 0) phrase "every hand is empty"
procedure end_of_hand { end game }
procedure deal phrase "deal a coin to each player" { for p in players { move top from box to hand(p) } }
flow {
  do deal
  if hand_over { do end_of_hand }
  end game
}
"""


def test_a_procedure_without_a_phrase_is_carried_out_by_its_title():
    game = compile_text(CALL)
    text = rules_text(game)
    assert "If every hand is empty, carry out End of hand." in text
    assert "Deal a coin to each player." in text  # a phrase is an instruction already
    assert "## End of hand" in text  # the title the call names
    call = English(game).block(game.flow.body)[1]
    assert any(getattr(p, "target", None) == ("procedure", "end_of_hand") for p in call.parts)


WINNERS = """game t "T"
rulebook "rulebook.txt" source "t.txt"
players 2 to 3
card Coin x 3
zone box: set, public, initial
zone hand per player: set, owner
var score per player: int 0..9 = 0
flow {
  turns from seat(0) {
    add 1 to score(current)
    WINS
  }
}
"""


@pytest.mark.parametrize("wins, goal", [
    ("if score(current) >= 3 { win current\n end game }", "One player wins."),
    ("if score(current) >= 3 { if score(current) > 5 { win current } \n end game }", "One player wins."),
    ("if score(current) >= 3 { for p in players { if score(p) >= 3 { win p } } \n end game }",
     "One or more players win."),
    ("if score(current) >= 3 { win current\n win next(current)\n end game }", "One or more players win."),
    ("if score(current) >= 3 { win current }\n if score(current) >= 5 { end game }", "One or more players win."),
    ("if score(current) >= 3 { win current\n end turn }\n end game", "One or more players win."),
])
def test_the_summary_says_one_winner_only_when_that_is_certain(wins, goal):
    intro = plain(how_to_play(compile_text(WINNERS.replace("WINS", wins))).intro[0])
    assert intro.endswith(goal), intro


@pytest.mark.parametrize("game, goal", [("chocobo", "One player wins."), ("cranky", "One or more players win."),
                                        ("chucky", "Everyone wins or loses together.")])
def test_the_bundled_games_say_how_many_may_win(game, goal):
    assert plain(how_to_play(Spec.find(game).model).intro[0]).endswith(goal)


ENDS = """game t "T"
rulebook "rulebook.txt" source "t.txt"
players 2 to 3
card Coin x 3
zone box: set, public, initial
var score per player: int 0..9 = 0
ambiguity tie "What if two players tie?" {
  kind silence
  quote "The first to 3 wins."
  question "Who wins a tie?"
  option share "Every tied player wins."
  option first "The player who got there first wins."
  option on "Play goes on."
  default share because "A guess."
}
flow {
  turns from seat(0) {
    add 1 to score(current)
    if score(current) >= 3 {
      if tie is share {
        win current
        end game
      } else if tie is first {
        win current
        end game
      } else if score(current) >= 5 {
        win current
        end game
      }
    } else if score(current) == 1 {
      end turn
    } else {
      end game
    }
  }
}
"""


def test_the_endings_keep_the_conditions_that_lead_to_them():
    ends = [plain(s) for s in how_to_play(compile_text(ENDS)).end]
    assert ends == [
        "The game ends if your score is at least 3 (under the reading every tied player wins): you win the game.",
        "The game ends if your score is at least 3 (under the reading the player who got there first wins): "
        "you win the game.",
        "The game ends if your score is at least 3 and your score is at least 5 (under the reading play goes on): "
        "you win the game.",
        "The game ends if your score is not at least 3 and your score is not 1: nobody wins."], ends


def test_counts_in_sentences_agree_with_their_nouns():
    solo = WINNERS.replace("players 2 to 3", "players 1").replace("WINS", "if size(hand(current)) < 1 { end game }")
    text = rules_text(compile_text(solo))
    assert "A game for 1 player." in text
    assert "holds fewer than 1 card," in text or "holds fewer than 1 card:" in text, text
