"""Chuche: the subset generator, random play with invariants under every option, golden playthroughs.

The golden playthroughs deal known cards by naming the outcome of each chance event (the deferred
shuffle makes every draw one), then name every decision.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulekit
from rulekit.engine import subsets
from tests.helpers import act, chance, option_variants, play_random

GAME = "chuche"
VARIANTS = option_variants(GAME)


# ---- the capture generator -------------------------------------------------------------------

def brute_force(cards, value, target):
    """Every choice of positions, reduced to the multisets of kinds it picks."""
    found = set()
    for mask in range(1 << len(cards)):
        picked = [cards[i] for i in range(len(cards)) if mask >> i & 1]
        if sum(value(k) for k in picked) == target:
            found.add(tuple(sorted(picked)))
    return found


tables = st.lists(st.integers(0, 11), max_size=12)


@given(cards=tables, target=st.integers(-2, 30), values=st.lists(st.integers(0, 6), min_size=12, max_size=12))
def test_summing_finds_exactly_the_subsets_brute_force_finds(cards, target, values):
    value = values.__getitem__
    got = list(subsets.summing(cards, value, target))
    assert len(got) == len(set(got)), "each multiset once"
    assert set(got) == brute_force(cards, value, target)


@given(cards=tables, target=st.integers(-2, 30), values=st.lists(st.integers(-1, 6), min_size=12, max_size=12))
def test_summing_by_a_table_of_kinds_answers_as_summing_again_and_again(cards, target, values):
    values = tuple(values)
    expected = tuple(subsets.summing(cards, values.__getitem__, target))
    assert subsets.summing_kinds(cards, values, target) == expected
    assert subsets.summing_kinds(list(cards), values, target) == expected, "remembered, the same"
    other = tuple(v + 1 for v in values)
    assert subsets.summing_kinds(cards, other, target) == tuple(subsets.summing(cards, other.__getitem__, target))


def test_the_memo_of_sums_holds_no_more_sub_multisets_than_its_bound(monkeypatch):
    monkeypatch.setattr(subsets, "SUMS_KEPT", 50)
    values = tuple(range(1, 13))
    for target in range(1, 30):
        expected = tuple(subsets.summing(list(range(12)), values.__getitem__, target))
        assert subsets.summing_kinds(list(range(12)), values, target) == expected
        assert subsets.remembered() <= 50


def test_the_captures_sum_the_values_of_a_table_of_kinds():
    # The rules' captures add up a value of each card's kind: the engine's code reads a constant table.
    source = rulekit.load(GAME, players=3).program.source
    assert "subsets_summing_kinds(" in source and "subsets_summing(" not in source


@given(cards=st.lists(st.integers(0, 5), max_size=8), target=st.integers(-6, 6),
       values=st.lists(st.integers(-3, 3), min_size=6, max_size=6))
def test_summing_with_negative_values_falls_back_to_every_subset(cards, target, values):
    value = values.__getitem__
    assert set(subsets.summing(cards, value, target)) == brute_force(cards, value, target)


@given(cards=st.lists(st.integers(0, 5), max_size=9))
def test_every_lists_each_sub_multiset_once_and_indexes_round_trip(cards):
    every = list(subsets.every(cards))
    counts = Counter(cards)
    expected = 1
    for n in counts.values():
        expected *= n + 1
    assert len(every) == len(set(every)) == expected
    copies = [max(counts.get(k, 0), 3) for k in range(6)]
    weights = subsets.weights(copies)
    numbers = {subsets.index(bag, weights) for bag in every}
    assert len(numbers) == len(every), "distinct multisets get distinct numbers"
    for bag in every:
        assert subsets.from_index(subsets.index(bag, weights), copies) == bag


def test_summing_prunes_a_dozen_card_table():
    """Twelve cards have 4,096 subsets; the search visits only sums that can still reach the target."""
    calls = Counter()

    def value(kind):
        calls[kind] += 1
        return kind % 6 + 1

    cards = list(range(12))
    found = list(subsets.summing(cards, value, 7))
    assert set(found) == brute_force(cards, lambda k: k % 6 + 1, 7)
    assert sum(calls.values()) == 12, "values are computed once per kind, not once per subset"


# ---- random play -------------------------------------------------------------------------------

def assert_invariants(state):
    game = state.game
    n = game.num_players()
    for p in range(n):
        assert len(state.zone("hand", p)) <= 3
    total = sum(len(state.zone(z, p)) for z in ("hand", "gewonnen", "aktionen", "benutzt", "blockiert")
                for p in range(n))
    total += sum(len(state.zone(z)) for z in ("schachtel", "stapel", "unterlage", "tisch", "chuche_stapel", "ablage"))
    assert total == sum(game.component_counts.values())
    assert not game.violated_invariants(state)


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@settings(max_examples=1)
@given(seed=st.integers(0, 2**31))
def test_random_play_keeps_the_invariants(players, options, seed):
    game = rulekit.load(GAME, players=players, options=options)
    state = play_random(game, seed, max_decisions=3000, on_state=assert_invariants)
    assert state.is_terminal(), "a match ends"
    assert any(r > 0 for r in state.returns()), "someone wins"


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_many_random_matches_end_with_a_winner(players):
    game = rulekit.load(GAME, players=players)
    for seed in range(20):
        state = play_random(game, seed, max_decisions=5000, on_state=assert_invariants)
        assert state.is_terminal()
        assert any(r > 0 for r in state.returns())


def test_capture_moves_are_exactly_the_brute_force_combinations():
    """In random positions, the engine's capture moves are the combinations a brute force finds."""
    game = rulekit.load(GAME, players=3)
    value = {name: (int(name.rsplit("_", 1)[1]) if name[-1].isdigit() else 0) for name in game.kind_names}
    checked = 0
    for seed in range(8):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed, auto_chance=True)
        while not state.is_terminal():
            p = state.current_player()
            actions = [state.action_to_string(a) for a in state.legal_actions()]
            if any(a.startswith("ablegen(") or a.startswith("kombinieren(") for a in actions) and \
                    not state.zone("blockiert", p):
                target = 7 if not state.zone("stapel") else state.value("rueckseite")
                table = state.zone("tisch")
                expected = set()
                for h in set(state.zone("hand", p)):
                    for bag in brute_force(table, value.__getitem__, target - value[h]):
                        if bag:
                            shown = ", ".join(sorted(bag, key=game.kind_names.index))
                            expected.add(f"kombinieren(h={h}, r={{}}, s={{{shown}}})")
                assert {a for a in actions if a.startswith("kombinieren(")} == expected
                checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 100


# ---- golden playthroughs -----------------------------------------------------------------------

def legal(state) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def deal(state, *cards: str) -> None:
    for c in cards:
        chance(state, c)


def start(players=2, p1=("rot_2", "gelb_4", "gruen_5"), p0=("orange_1", "orange_2", "gelb_6"),
          table=("orange_3", "gruen_1", "rot_1"), back="7", **options):
    """Two players: P0 deals, so P1 (to the dealer's right) receives first and plays first."""
    state = rulekit.load(GAME, players=players, options=options).new_initial_state()
    deal(state, *p1, *p0, *table, back)
    return state


def test_a_capture_that_clears_the_table_wins_a_chuche_card():
    s = start()
    assert s.current_player() == 1
    assert "ablegen(h=rot_2)" not in legal(s), "a player who can combine does not lay a card down"
    act(s, "kombinieren(h=rot_2, r={}, s={rot_1, orange_3, gruen_1})")  # 2 + 1 + 3 + 1 = 7
    chance(s, "joker")                                                # CHUCHE!: the top Chuche card
    assert s.zone("aktionen", 1) == ["joker"]
    assert sorted(s.zone("gewonnen", 1)) == ["gruen_1", "orange_3", "rot_1", "rot_2"]
    assert s.zone("tisch") == []
    deal(s, "rot_2", "8")                                             # draws back to three; new back 8
    assert len(s.zone("hand", 1)) == 3 and s.value("rueckseite") == 8
    assert s.current_player() == 0


def test_a_capture_that_leaves_cards_wins_nothing():
    s = start(table=("orange_3", "gruen_1", "gelb_2"), back="6")
    act(s, "kombinieren(h=rot_2, r={}, s={orange_3, gruen_1})")      # 2 + 3 + 1 = 6
    assert s.zone("tisch") == ["gelb_2"] and s.zone("aktionen", 1) == []


def test_without_a_combination_a_card_is_laid_down():
    s = start(p1=("gelb_4", "gruen_5", "gruen_6"), table=("orange_3", "gruen_3", "rot_3"), back="6")
    assert {a for a in legal(s)} == {"ablegen(h=gelb_4)", "ablegen(h=gruen_5)", "ablegen(h=gruen_6)"}
    act(s, "ablegen(h=gruen_6)")
    assert "gruen_6" in s.zone("tisch")


def test_joker_changes_the_target_by_one_and_counts_as_the_turns_action_card():
    s = start()
    act(s, "kombinieren(h=rot_2, r={}, s={rot_1, orange_3, gruen_1})")
    chance(s, "joker")
    deal(s, "rot_2", "7")
    act(s, "ablegen(h=gelb_6)")                                       # P0 cannot combine on an empty table
    deal(s, "gruen_2", "7")
    assert "kombinieren(h=rot_2, r={}, s={gelb_6})" not in legal(s)  # 2 + 6 = 8, the target is 7
    act(s, "joker(h=rot_2, d=1, r={}, s={gelb_6})")                   # the Joker makes it 8
    assert s.zone("benutzt", 1) == ["joker"] and s.zone("aktionen", 1) == []
    chance(s, "stehlen")                                              # the table is clear again




def first_chuche(card: str, **options):
    """P1 clears the table at once and wins `card`; P0 then lays a card down on the empty table."""
    s = start(**options)
    act(s, "kombinieren(h=rot_2, r={}, s={rot_1, orange_3, gruen_1})")
    chance(s, card)
    deal(s, "rot_3", "8")
    act(s, "ablegen(h=gelb_6)")
    deal(s, "gelb_1", "6")
    return s  # P1 to play: hand gelb_4, gruen_5, rot_3; table gelb_6; target 6


def test_steal_lays_a_blind_card_from_another_hand_on_the_table():
    s = first_chuche("stehlen")
    assert legal(s) == ["stehlen(q=P0)", "weiter"]
    act(s, "stehlen(q=P0)")
    chance(s, "orange_1")                                  # drawn blindly from P0's hidden hand
    assert sorted(s.zone("tisch")) == ["gelb_6", "orange_1"]
    assert len(s.zone("hand", 0)) == 2, "the robbed player plays with one card less"
    assert s.zone("benutzt", 1) == ["stehlen"]
    act(s, "kombinieren(h=gruen_5, r={}, s={orange_1})")  # the stolen card helps: 5 + 1 = 6
    deal(s, "gruen_2", "10")
    assert len(s.zone("hand", 0)) == 2
    act(s, "ablegen(h=orange_2)")
    deal(s, "gelb_2", "gelb_3", "7")                       # P0 draws back up to three at the end of the turn
    assert len(s.zone("hand", 0)) == 3


def test_the_robbed_player_chooses_under_the_option():
    s = first_chuche("stehlen", gestohlene_karte="opfer")
    act(s, "stehlen(q=P0)")
    assert s.current_player() == 0 and legal(s) == ["stehlen: c=orange_1", "stehlen: c=orange_2", "stehlen: c=gelb_1"]
    act(s, "stehlen: c=gelb_1")
    assert "gelb_1" in s.zone("tisch")


def test_a_shield_defends_against_a_steal():
    s = start(p0=("orange_1", "orange_2", "gelb_5"))
    act(s, "kombinieren(h=rot_2, r={}, s={rot_1, orange_3, gruen_1})")
    chance(s, "stehlen")
    deal(s, "rot_3", "8")
    act(s, "ablegen(h=gelb_5)")
    deal(s, "gelb_1", "6")
    act(s, "weiter")
    act(s, "ablegen(h=rot_3)")
    deal(s, "gruen_2", "9")
    act(s, "kombinieren(h=orange_1, r={}, s={rot_3, gelb_5})")  # P0 clears the table: 1 + 3 + 5 = 9
    chance(s, "schild")
    deal(s, "gelb_2", "7")
    act(s, "stehlen(q=P0)")
    assert s.current_player() == 0 and legal(s) == ["verteidigen", "hinnehmen"]
    act(s, "verteidigen")
    assert s.zone("benutzt", 0) == ["schild"] and len(s.zone("hand", 0)) == 3, "nothing is stolen"
    assert s.current_player() == 1 and all(a.startswith("ablegen") for a in legal(s))


def test_bomb_makes_every_player_lay_a_card_down():
    s = first_chuche("bombe")
    act(s, "bombe")
    assert s.current_player() == 1, "the bomber first (ambiguity bombe_trifft: all players)"
    act(s, "bombe: c=rot_3")
    assert s.current_player() == 0
    act(s, "bombe: c=orange_2")
    assert sorted(s.zone("tisch")) == ["gelb_6", "orange_2", "rot_3"]
    assert len(s.zone("hand", 0)) == 2 and len(s.zone("hand", 1)) == 2
    assert s.zone("benutzt", 1) == ["bombe"]


def test_bomb_spares_the_bomber_under_the_option():
    s = first_chuche("bombe", bombe_trifft="andere")
    act(s, "bombe")
    assert s.current_player() == 0


def test_block_out_of_turn_and_only_the_blocker_uses_the_card():
    s = first_chuche("blockade")
    assert legal(s) == ["blockieren(c=gelb_6)", "nicht_blockieren"]  # in one's own turn
    act(s, "nicht_blockieren")
    act(s, "ablegen(h=rot_3)")
    deal(s, "gruen_2", "8")
    assert s.current_player() == 1, "P0's turn, but P1 may block first, out of turn"
    assert legal(s) == ["blockieren(c=rot_3)", "blockieren(c=gelb_6)", "nicht_blockieren"]
    act(s, "blockieren(c=gelb_6)")
    assert s.zone("blockiert", 1) == ["gelb_6"] and s.zone("benutzt", 1) == ["blockade"]
    assert s.current_player() == 0
    assert all(a.startswith("ablegen") for a in legal(s)), "orange_2 + gelb_6 = 8, but gelb_6 is blocked"
    act(s, "ablegen(h=orange_1)")
    deal(s, "gelb_2", "8")
    act(s, "kombinieren(h=gruen_2, r={gelb_6}, s={})")     # the blocker uses their own blocked card
    assert s.zone("blockiert", 1) == [] and "gelb_6" in s.zone("gewonnen", 1)


def test_block_only_in_ones_own_turn_under_the_option():
    s = first_chuche("blockade", blockade_zeitpunkt="nur_eigener_zug")
    act(s, "nicht_blockieren")
    act(s, "ablegen(h=rot_3)")
    deal(s, "gruen_2", "8")
    assert s.current_player() == 0, "no block out of turn"


def test_the_end_of_a_deal_scores_by_the_table():
    """One deal (option ein_spiel) played at random to its end, scored by hand."""
    game = rulekit.load(GAME, players=3, options={"spiel_und_partie": "ein_spiel"})
    for seed in range(5):
        s = play_random(game, seed)
        assert s.is_terminal() and s.value("spiele") == 1
        assert not s.zone("stapel") and not s.zone("tisch") and all(not s.zone("hand", p) for p in range(3))
        assert all(not s.zone("blockiert", p) for p in range(3)), "blocked cards go to their blockers"
        scores = []
        for p in range(3):
            points = 0
            for name in s.zone("gewonnen", p):
                colour, value = name.rsplit("_", 1)
                points += 5 if (colour, value) == ("rot", "5") else 4 if value == "5" else 3 if colour == "rot" else 1
            chuche = len(s.zone("aktionen", p)) + len(s.zone("benutzt", p))
            points += chuche * 2 * (2 if chuche >= 3 else 1)
            assert s.value("punkte", p) == points
            scores.append(points)
        assert [r > 0 for r in s.returns()] == [x == max(scores) for x in scores]


def test_a_match_goes_on_to_the_winning_score():
    game = rulekit.load(GAME, players=4)
    s = play_random(game, 3)
    assert s.is_terminal() and s.value("spiele") >= 2
    best = max(s.value("punkte", p) for p in range(4))
    assert best >= game.facts["siegpunkte"] == 100
    assert [r > 0 for r in s.returns()] == [s.value("punkte", p) == best for p in range(4)]
