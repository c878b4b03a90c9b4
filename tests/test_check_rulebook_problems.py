"""What `rulekit check` finds in a rulebook by itself: cases the rulebook is silent on (`silent-case`),
triggers whose order matters and what sets them off (`conflict`), modal verbs that the construct
contradicts (`modal`). Each on a tiny spec, once where the problem is there and once where it is not."""
from __future__ import annotations

import json
import random

from rulekit.checking import modal
from rulekit.cli import main
from rulekit.pipeline import Spec
from tests.helpers import compile_text, write_spec

FAST = ["--games", "8", "--variant-games", "1", "--symbolic-time-limit", "0", "--max-states", "0", "--jobs", "1",
        "--format", "json"]

RULEBOOK = ("Tiny Game.\nOn your turn, draw one card.\nIf the deck is empty, draw nothing.\nTake a coin.\n"
            "After four turns the first player wins.\n")

# Four turns, three cards, one coin: the fourth draw finds the deck empty, the second coin is not there,
# and `argmax` over equal values picks by seat order.
DRAWS = """
game tiny "Tiny"
rulebook "rulebook.txt" source "tiny.txt"
players 2 to 2
unmodelled "Tiny Game." because "Title."
zone box: stack, hidden, initial
zone hand per player: set, owner
card Ace x 1
card Two x 2
token Coin "Coin" x 1
var turns_taken: int 0..10 = 0
flow {
  shuffle box
  turns from seat(0) {
    rule draw quote "On your turn, draw one card." {
      if size(box) > 0 { move top from box to hand(current) }
    }
    take 1 Coin by current quote "Take a coin."
    add 1 to turns_taken
    if turns_taken >= 4 {
      win argmax(p in players: 0)
      end game
    } quote "After four turns the first player wins."
  }
}
"""


def run(capsys, path, *extra):
    code = main(["check", str(path), *FAST, *extra])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    return json.loads(out)["games"][0]["findings"]


def of_kind(findings, kind):
    return {f["id"]: f for f in findings if f["kind"] == kind}


def test_a_reached_silent_case_is_reported_once_with_a_replayed_witness(tmp_path, capsys):
    path = write_spec(tmp_path, DRAWS, rulebook=RULEBOOK)
    silent = of_kind(run(capsys, path), "silent-case")
    skip = silent["tiny/silent-case/draw/skip-16"]
    assert skip["message"].startswith("the rulebook is silent here; the spec decides: when size(box) > 0 does not "
                                      "hold, the spec skips the step `move top from box to hand(current)`")
    assert skip["quotes"] == ["On your turn, draw one card."] and skip["location"].endswith("tiny.rules:16:7")
    assert skip["details"]["site"] == "skip" and skip["details"]["rule"] == "draw"
    assert skip["witness"] and skip["severity"] == "warning" and skip["acknowledged_by"] is None
    assert "tiny/silent-case/flow/supply-clamp-18" in silent
    assert "tiny/silent-case/flow/tie-21" in silent
    assert len(silent) == 3  # each site once, though every game reaches it


def test_a_case_the_quote_settles_or_play_never_reaches_is_not_reported(tmp_path, capsys):
    settled = DRAWS.replace('quote "On your turn, draw one card."',
                            'quote "On your turn, draw one card." quote "If the deck is empty, draw nothing."')
    settled = settled.replace("x 1\nvar", "x 4\nvar").replace("argmax(p in players: 0)", "seat(0)")
    silent = of_kind(run(capsys, write_spec(tmp_path, settled, rulebook=RULEBOOK)), "silent-case")
    assert silent == {}  # the quote names the empty deck, four coins never run out, no tie


def test_an_expect_acknowledges_a_silent_case(tmp_path, capsys):
    checks = 'checks tiny\nexpect empty "tiny/silent-case/draw" because "the rulebook says nothing; skip it"\n'
    path = write_spec(tmp_path, DRAWS, rulebook=RULEBOOK, checks=checks)
    silent = of_kind(run(capsys, path), "silent-case")
    assert silent["tiny/silent-case/draw/skip-16"]["acknowledged_by"] == "expect empty"
    assert silent["tiny/silent-case/flow/supply-clamp-18"]["acknowledged_by"] is None


def test_the_probed_engine_plays_exactly_as_the_normal_one(tmp_path):
    spec = Spec(write_spec(tmp_path, DRAWS, rulebook=RULEBOOK))
    plain, probed = spec.engine(2), spec.engine(2, probes=True)
    assert plain.probe_sites == [] and len(probed.probe_sites) >= 3
    for seed in range(5):
        states = [g.new_initial_state(seed=seed, auto_chance=True) for g in (plain, probed)]
        rng = random.Random(seed)
        while not states[0].is_terminal():
            action = rng.choice(states[0].legal)
            for s in states:
                s.apply_action(action)
        assert states[0].history == states[1].history and states[0].returns() == states[1].returns()
    assert not plain.probe_hits and probed.probe_hits


TRIGGERS = """
game tiny "Tiny"
rulebook "rulebook.txt" source "tiny.txt"
players 2 to 2
unmodelled "Tiny Game." because "Title."
var x: int 0..10 = 0
var y: int 0..10 = 0
var z: int 0..10 = 0
trigger first when x == 1 quote "When the bell rings, raise the flag." { set y = 1 }
trigger second when x == 1 quote "When the bell rings, lower the flag." { SECOND }
flow {
  turns from seat(0) {
    choose by current {
      action ring "Ring the bell." { set x = 1 }
      action rest "Rest." { end game }
    }
  }
}
"""
TRIGGER_BOOK = ("Tiny Game.\nWhen the bell rings, raise the flag.\nWhen the bell rings, lower the flag.\n"
                "Ring the bell.\n")


def test_two_triggers_whose_order_matters_are_a_conflict(tmp_path, capsys):
    path = write_spec(tmp_path, TRIGGERS.replace("SECOND", "set y = 2"), rulebook=TRIGGER_BOOK)
    conflicts = of_kind(run(capsys, path), "conflict")
    order = conflicts["tiny/conflict/order/first+second"]
    assert order["severity"] == "warning" and order["witness"]
    assert order["details"]["triggers"] == ["first", "second"]
    causes = conflicts["tiny/conflict/causes/first"]
    assert causes["details"]["causes"] == [{"action": "ring", "changes": ["var x"], "seen": True,
                                            "named_by_quote": True}]
    assert "When the bell rings, raise the flag." in causes["message"]


def test_triggers_set_off_by_what_chance_draws_after_the_action_are_a_conflict_with_a_witness(tmp_path, capsys):
    """The bell rings only on a roll of 1 after the action: the triggers fire once chance has drawn it.
    The witness ended at the action, and replayed without the game's draws it stopped at the roll, where
    the two orders do not differ yet: an internal error (a random game of the check's fuzz test)."""
    text = TRIGGERS.replace("SECOND", "set y = 2").replace("{ set x = 1 }", "{ random d in 1..2  set x = d }")
    conflicts = of_kind(run(capsys, write_spec(tmp_path, text, rulebook=TRIGGER_BOOK)), "conflict")
    order = conflicts["tiny/conflict/order/first+second"]
    assert order["verdict"] == "proven" and order["witness"]


def test_a_trigger_that_keeps_another_from_firing_is_a_conflict(tmp_path, capsys):
    # `first` resets the bell: `second`, set off at the same moment, never fires, and had it run first it would
    text = TRIGGERS.replace("{ set y = 1 }", "{ set x = 0 }").replace("SECOND", "set y = 2")
    conflicts = of_kind(run(capsys, write_spec(tmp_path, text, rulebook=TRIGGER_BOOK)), "conflict")
    order = conflicts["tiny/conflict/order/first+second"]
    assert order["verdict"] == "proven" and order["witness"], order
    assert "keep the other from firing" in order["message"]


def test_two_triggers_that_commute_are_no_conflict_and_an_unnamed_cause_stands_out(tmp_path, capsys):
    text = TRIGGERS.replace("SECOND", "set z = 2").replace('action ring "Ring the bell."', 'action pull "Pull."')
    conflicts = of_kind(run(capsys, write_spec(tmp_path, text, rulebook=TRIGGER_BOOK)), "conflict")
    assert not [i for i in conflicts if "/order/" in i]
    causes = conflicts["tiny/conflict/causes/second"]
    assert causes["details"]["causes"][0]["action"] == "pull"
    assert not causes["details"]["causes"][0]["named_by_quote"] and "not named by its quote: pull" in causes["message"]


MODAL = """
game tiny "Tiny"
rulebook "rulebook.txt" source "tiny.txt"
players 2 to 2
zone box: stack, hidden, initial
zone hand per player: set, owner
card Ace x 9
token Coin "Coin" x 9
flow {
  turns from seat(0) {
    rule drawing quote "DRAW" {
      choose by current {
        action draw "Draw." { move top from box to hand(current) }
        action pass "Pass." { end turn }
      }
    }
    take 1 Coin by current quote "COIN"
    if size(box) == 0 { end game }
  }
}
"""


def modal_findings(draw: str, coin: str):
    return {f.details["says"]: f for f in modal.findings(compile_text(MODAL.replace("DRAW", draw).replace("COIN", coin)))}


def test_a_declinable_must_and_a_forced_may_are_modal_findings():
    found = modal_findings("You must draw a card.", "You may take a coin.")
    assert set(found) == {"must", "may"}
    assert "lets them decline" in found["must"].message and "pass" in found["must"].message
    assert found["may"].quotes == ["You may take a coin."] and found["may"].kind == "modal"
    german = modal_findings("Du musst eine Karte ziehen.", "Du darfst eine Münze nehmen.")
    assert set(german) == {"must", "may"}


def test_matching_verbs_negations_and_mixed_sentences_are_no_modal_findings():
    assert modal_findings("You may draw a card.", "You must take a coin.") == {}
    assert modal_findings("Du kannst eine Karte ziehen.", "Take a coin.") == {}
    assert modal_findings("You must draw a card, but may pass instead.", "You may not keep the coin.") == {}
    assert modal_findings("You do not have to draw a card.", "Du darfst keine Münze ablehnen.") == {}
    assert modal_findings("You must draw a card.", "The coin can be taken.")["must"]  # "can be": no permission
    assert "may" not in modal_findings("You must draw a card.", "The coin can be taken.")
    # what may happen in play (a card that can win, players who may tie) is no permission either
    for possible in ("Only a coin of the led suit can win the trick.", "Several players may tie for the most coins.",
                     "Wer die meisten Münzen hat, kann gewinnen."):
        assert "may" not in modal_findings("Draw.", possible), possible


def test_a_choice_the_quote_makes_secret_and_the_spec_shows_everyone_is_a_modal_finding():
    found = modal_findings("You may secretly draw a card.", "Take a coin.")
    assert set(found) == {"secret"} and "shows it to every player" in found["secret"].message
    assert "actions draw, pass are not `secret`" in found["secret"].message
    assert "secret" in modal_findings("Du darfst heimlich eine Karte ziehen.", "Take a coin.")
    kept = MODAL.replace('action draw "Draw."', 'action draw secret "Draw."').replace('action pass "Pass."',
                                                                                    'action pass secret "Pass."')
    quiet = compile_text(kept.replace("DRAW", "You may secretly draw a card.").replace("COIN", "Take a coin."))
    assert not [f for f in modal.findings(quiet) if f.details["says"] == "secret"]
    assert "secret" not in modal_findings("You may draw a card; it is not secret.", "Take a coin.")


def reveal_findings(to: str, quote: str):
    text = MODAL.replace("DRAW", "You may draw a card.").replace(
        'take 1 Coin by current quote "COIN"', f'reveal hand(current) to {to} quote "{quote}"')
    return [f for f in modal.findings(compile_text(text)) if f.id.endswith("/audience")]


def test_a_reveal_shown_to_another_audience_than_the_quote_says_is_a_modal_finding():
    [one] = reveal_findings("all", "Show your hand to the owner of the Ace.")
    assert one.id == "tiny/modal/flow/17/audience" and one.details["says"] == "one"
    assert one.message == ("the quote shows it to one player, but the spec shows it to every player: "
                           "`reveal` is to all")
    [everyone] = reveal_findings("next(current)", "Show your hand to all players.")
    assert everyone.details["says"] == "all" and "shows it to one player only" in everyone.message
    assert reveal_findings("all", "Zeige deine Karten dem Besitzer des Asses.")[0].details["says"] == "one"
    assert reveal_findings("current", "Lege deine Karten offen aus.")[0].details["says"] == "all"


def test_a_reveal_to_the_audience_the_quote_says_or_to_an_unclear_one_is_no_finding():
    assert reveal_findings("next(current)", "Show your hand to the owner of the Ace.") == []
    assert reveal_findings("all", "Show your hand to the other players.") == []
    assert reveal_findings("current", "Look at the card by turning it over.") == []  # both: unclear
    assert reveal_findings("all", "Show your hand.") == []  # the quote names no one
    assert reveal_findings("all", "Do not show your hand to the owner.") == []  # a negation


def test_an_expect_of_a_site_not_reached_is_not_stale_but_one_of_no_site_is(tmp_path, capsys):
    roomy = DRAWS.replace("x 1\nvar", "x 4\nvar")  # four coins: the supply never runs short
    checks = ('checks tiny\nexpect short "tiny/silent-case/flow/supply-clamp-18" because "a deeper run may reach it"\n'
              'expect gone "tiny/silent-case/flow/skip-99" because "no such site"\n')
    found = run(capsys, write_spec(tmp_path, roomy, rulebook=RULEBOOK, checks=checks))
    assert "tiny/silent-case/flow/supply-clamp-18" not in of_kind(found, "silent-case")
    stale = of_kind(found, "stale-expect")
    assert [i for i, f in stale.items() if f["severity"] == "warning"] == ["tiny/stale-expect/gone"]
    assert stale["tiny/stale-expect/short"]["severity"] == "info"  # the site exists: only not reached


ONE_CARD = DRAWS.replace('''    take 1 Coin by current quote "Take a coin."''', '''    choose c in hand(current) by current
    move c from hand(current) to box
    move top from box to hand(current)
    take 1 Coin by current quote "Take a coin."''').replace("card Two x 2", "card Two x 4")


def test_a_decision_with_one_legal_action_is_noted_and_one_with_more_is_not(tmp_path, capsys):
    found = of_kind(run(capsys, write_spec(tmp_path, ONE_CARD, rulebook=RULEBOOK)), "silent-case")
    one = [f for f in found.values() if f["details"]["site"] == "one-option"]
    assert len(one) == 1 and one[0]["severity"] == "info" and one[0]["witness"]
    assert "only one choice is legal here" in one[0]["message"]
    # a decision among the two players always offers two
    two = ONE_CARD.replace("choose c in hand(current) by current\n    move c from hand(current) to box",
                           "choose p in players by current\n    add 0 to turns_taken")
    (tmp_path / "two").mkdir()
    found = of_kind(run(capsys, write_spec(tmp_path / "two", two, rulebook=RULEBOOK)), "silent-case")
    assert not [f for f in found.values() if f["details"]["site"] == "one-option"]


def test_a_forced_choice_whose_quote_says_the_player_must_is_no_silent_case(tmp_path, capsys):
    book = RULEBOOK + "If you can, you must give back a card.\n"
    said = ONE_CARD.replace("choose c in hand(current) by current\n",
                            'choose c in hand(current) by current quote "If you can, you must give back a card."\n')
    found = of_kind(run(capsys, write_spec(tmp_path, said, rulebook=book)), "silent-case")
    assert not [f for f in found.values() if f["details"]["site"] == "one-option"], found


def test_a_fact_whose_quote_writes_another_number_is_a_quote_finding():
    from rulekit.checking import numbers
    text = MODAL.replace("card Ace x 9", 'card Ace x 9\nfact hand_size = 4 quote "Draw until you have three cards."\n'
                         'fact bonus = 2 quote "If you have 3 or more, their value is doubled."\n'
                         'fact plenty = 5 quote "Take as many as you like."')
    found = numbers.findings(compile_text(text.replace("DRAW", "Draw.").replace("COIN", "Coin.")))
    assert [f.id for f in found] == ["tiny/quote/number/hand_size"], [f.message for f in found]
    assert found[0].severity == "warning" and "writes 3, not 4" in found[0].message
    assert numbers.written_numbers("2 Spieler: 140 Punkte, zweimal; 3.5 and 1,000") >= {2, 140}


def test_a_token_move_or_a_change_whose_own_quote_writes_another_number_is_a_quote_finding():
    from rulekit.checking import numbers

    def found(statement: str):
        text = MODAL.replace("DRAW", "Draw.").replace('take 1 Coin by current quote "COIN"', statement)
        return [(f.id, f.message) for f in numbers.findings(compile_text(text))]

    assert found('take 1 Coin by current quote "Take two coins."') == [
        ("tiny/quote/number/flow/17", "`take` of 1, but its quote writes 2, not 1")]
    assert found('take 2 Coin by current quote "Take two coins."') == []
    assert found('take 1 Coin by current quote "Take a coin."') == []  # no number written
    assert found('take 1 Coin by current') == []  # no quote of its own
    # a counter's quote may write where it stops: the rules compare it with that number
    counter = ('add 1 to hands quote "Play 4 hands."\n    if hands >= 4 { end game }')
    text = MODAL.replace("DRAW", "Draw.").replace("card Ace x 9", "card Ace x 9\nvar hands: int 0..9 = 0")
    assert numbers.findings(compile_text(text.replace('take 1 Coin by current quote "COIN"', counter))) == []
    found_step = numbers.findings(compile_text(text.replace('take 1 Coin by current quote "COIN"',
                                                            counter.replace("Play 4", "Play 5"))))
    assert [f.message for f in found_step] == ["`add` of 1, but its quote writes 5, not 1"]


def test_a_component_count_or_a_loop_whose_quote_writes_another_number_is_a_quote_finding():
    from rulekit.checking import numbers

    def found(cards: str, deal: str = "move top from box to hand(current)"):
        text = MODAL.replace("DRAW", "Draw.").replace("card Ace x 9", cards).replace(
            "action draw \"Draw.\" { move top from box to hand(current) }", f"action draw \"Draw.\" {{ {deal} }}")
        return [(f.id, f.message) for f in numbers.findings(compile_text(text))]

    assert found('card Ace x 9 quote "Ace x8"') == [("tiny/quote/number/Ace", "Ace x 9, but its quote writes 8, not 9")]
    assert found('card Ace x 9 quote "9x Ace"') == found('card Ace x 9 quote "nine Ace cards"') == []
    # what a card does is no count of it
    assert found('card Ace x 9 quote "Ace: take two coins."') == []
    deal = 'for i in 1..4 { move top from box to hand(current) } quote "Draw three cards."'
    assert found("card Ace x 9", deal) == [("tiny/quote/number/flow/13",
                                            "a loop over 1..4, but its quote writes 3, not 4")]
    # the quote of the statement around the loop speaks for it
    around = 'if size(box) > 3 { for i in 1..4 { move top from box to hand(current) } } quote "Draw 3 cards."'
    assert [i for i, _ in found("card Ace x 9", around)] == ["tiny/quote/number/flow/13"]
    assert found("card Ace x 9", deal.replace("three", "four")) == []
    assert found("card Ace x 9", deal.replace("1..4", "2..4")) == []  # three times


def test_a_fact_against_its_quote_has_a_heading_of_its_own_in_the_report(tmp_path, capsys):
    from rulekit.cli import main
    text = DRAWS.replace("var ", 'fact rounds = 5 quote "After four turns the first player wins."\nvar ', 1)
    main(["check", str(write_spec(tmp_path, text, rulebook=RULEBOOK)), "--games", "4", "--variant-games", "0",
          "--max-states", "100", "--jobs", "1"])
    out = capsys.readouterr().out
    heading = out.index("numbers their own quotes write otherwise")
    assert out.index("fact rounds = 5, but its quote writes 4, not 5") > heading, out
