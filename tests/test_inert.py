"""What state keys leave out because play never reads it again: variables no rule reads (`verify.inert`),
such as a turn counter, and the card of a decision whose action is over. Either would hide endless play."""
from __future__ import annotations

from rulekit.checking import PlayBounds, check_spec
from rulekit.pipeline import Spec
from rulekit.verify.explore import Limits, explore, state_key
from rulekit.verify.inert import inert_vars

from helpers import load_text, write_spec

# Everyone may pass for ever; `turns_played` only records how long that went on.
PASSING = """
game passing "Passing"
rulebook "rulebook.txt" source "tiny.txt"
players 2 to 3
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Not this game's."
card Ace x 1
card Blank x 4
zone box: set, public, initial
zone deck: stack, hidden
zone hand per player: set, owner
var turns_played: int = 0 bookkeeping phrase "the turns played"
flow {
  move all from box to deck
  shuffle deck
  turns from seat(0) {
    add 1 to turns_played
    choose by current {
      action draw when size(deck) > 0 "Draw." { move top from deck to hand(current) }
      action pass "Pass." { }
    }
    for p in players {
      if exists(c in hand(p) where c == Ace) { win p
        end game }
    }
  }
}
"""

# What makes a variable count for play: a read in a condition, a copy into one that counts, and an
# assignment whose failure (a range, a division) depends on its value.
RECORDS = PASSING.replace('var turns_played: int = 0 bookkeeping phrase "the turns played"', """var turns_played: int = 0 bookkeeping
var last_turn: int = 0 bookkeeping
var passes: int = 0
var capped: int 0..99 = 0
var divisor: int = 1
var share: int = 0
var seen: int = 0
var shown: int = 0""").replace("    add 1 to turns_played\n", """    add 1 to turns_played
    set last_turn = turns_played * 2
    add 1 to capped
    set share = 12 / divisor
    add 1 to shown
    set seen = shown
    if passes > 100 { end game }
""").replace('action pass "Pass." { }', 'action pass "Pass." { add 1 to passes }')


def test_a_record_nothing_in_play_reads_is_inert_and_what_can_matter_is_not(tmp_path):
    game = load_text(tmp_path, RECORDS, players=2)
    inert = inert_vars(game.config.game)
    # turns_played and last_turn feed only each other; seen and shown feed only seen. passes ends the
    # game; capped can go out of its range; divisor divides, so its value can make play fail.
    assert inert == {"turns_played", "last_turn", "seen", "shown", "share"}


def test_a_game_the_players_can_keep_going_is_refuted_although_a_counter_goes_up_every_turn(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, PASSING, name="passing")))
    report = check_spec(spec, PlayBounds(games=20, variant_games=0, max_states=2000, loop_search=2000))
    ending = next(f for f in report.findings if f.id == "passing/termination")
    assert ending.verdict == "refuted" and ending.severity == "warning"
    assert ending.bound["lasso"]["players_alone"]
    assert ending.bound["lasso"]["records_drifting"] == ["turns_played"]
    assert "all but turns_played, which no rule reads" in ending.message
    # The witness replays: after the loop, the state is the one it left, but for the counter.
    game = spec.engine(2)
    key = state_key(game, termination_only=True)
    before = game.replay([step["action"] for step in ending.witness][:ending.bound["lasso"]["prefix"]])
    after = game.replay([step["action"] for step in ending.witness])
    assert key(before) == key(after) and before.v != after.v

def test_keys_keep_a_record_a_property_reads_and_leave_it_out_for_termination_alone(tmp_path):
    checks = "checks passing\ninvariant counted \"Turns are counted.\" : turns_played >= 0\n"
    spec = Spec.find(str(write_spec(tmp_path, PASSING, name="passing", checks=checks)))
    game = spec.engine(2)
    judged = explore(game, Limits(max_states=300, symmetry=False))
    termination = explore(game, Limits(max_states=300, symmetry=False, termination_only=True))
    # The counter is in the key that judges `counted`: the states never repeat, and the budget runs out.
    assert not judged.complete and judged.stopped_by == "states"
    # Left out, the states of the game are few, and the exploration finishes.
    assert termination.complete and termination.states < 300
    assert not termination.violated and not termination.reached


# A card offered stays in the frame after the offer: dead once the offer is over, live while it is answered.
OFFER = """
game offer "Offer"
rulebook "rulebook.txt" source "tiny.txt"
players 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Not this game's."
card Ace x 1
card Blank x 1
zone box: set, public, initial
zone hand per player: set, public
flow {
  move all from box to hand(seat(0))
  turns from seat(0) {
    choose by current {
      action offer(c in hand(current)) "Offer a card." {
        choose by next(current) {
          action accept "Accept." { move c from hand(current) to hand(next(current)) }
          action refuse "Refuse." { }
        }
      }
      action pass "Pass." { }
    }
    choose by current {
      action knock "Knock." { }
      action wait "Wait." { }
    }
    if size(hand(current)) > 0 {
      choose kept in hand(current) by current
      choose by current {
        action keep "Keep it." { }
        action give "Give it." { move kept from hand(current) to hand(next(current)) }
      }
    }
  }
}
"""


def test_the_card_of_a_decision_whose_action_is_over_is_not_part_of_the_state(tmp_path):
    game = load_text(tmp_path, OFFER, players=2)
    key = state_key(game)
    start = game.new_initial_state()

    def play(*names):
        state = start.clone()
        for name in names:
            state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == name))
        return state

    # Answered: the card offered decides what `accept` moves, so the two offers are two states.
    assert key(play("offer(c=Ace)")) != key(play("offer(c=Blank)"))
    # Refused: at the next decision, the same state whichever card was offered.
    ace, blank = play("offer(c=Ace)", "refuse"), play("offer(c=Blank)", "refuse")
    assert key(ace) == key(blank)
    assert ace.fr != blank.fr  # the frames still hold the two cards
    # A card picked with `choose ... by` is used after the pick: it stays part of the state.
    ace, blank = play("pass", "wait", "kept=Ace"), play("pass", "wait", "kept=Blank")
    assert key(ace) != key(blank)
