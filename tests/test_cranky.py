"""Cranky Chinchillas: random play with invariants under every option, and golden playthroughs.

The golden playthroughs deal known roles, Heroes and hands by choosing the outcome of each chance
event of the set-up, then name every decision. Everyone drafts Scouts and holds only the cards a
scene needs, so that nobody can answer an Attack! unless the scene says so.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulekit
from tests.helpers import option_variants, play_explicit

GAME = "cranky"
VARIANTS = option_variants(GAME)
ROLES = {"ChinEmpire", "SleepyTown", "Deceiver", "ForestSpirit"}
HEROES = {"Scout", "Bard", "Guard"}


# ---- driving a game ------------------------------------------------------------------------

class Table:
    """Chance outcomes chosen by the kind of deck drawn from: the next wanted card of that kind."""

    def __init__(self, roles, hands, heroes=(), draws=()):
        self.queues = {"role": list(roles), "hero": list(heroes), "action": [c for h in hands for c in h] + list(draws)}

    def pick(self, state) -> int:
        names = {state.action_to_string(a)[len("chance: "):]: a for a, _ in state.chance_outcomes()}
        kind = "role" if set(names) & ROLES else "hero" if set(names) & HEROES else "action"
        queue = self.queues[kind]
        # Unless a scene asks for them, no card that answers an Attack! is drawn while another is left.
        fallback = {"hero": ["Scout", "Bard"], "role": [],
                    "action": ["Interrogate", "Revive", "Recruit", "WhatsMine", "Accuse", "Attack"]}[kind]
        wanted = [queue.pop(0)] if queue else []
        for name in wanted + fallback + sorted(names):
            if name in names:
                return names[name]
        raise AssertionError("no chance outcome")


def settle(state, table: Table) -> None:
    while state.is_chance_node():
        state.apply_action(table.pick(state))


def act(state, text: str, table: Table) -> None:
    settle(state, table)
    assert not state.is_terminal()
    names = {state.action_to_string(a): a for a in state.legal_actions()}
    assert text in names, (text, sorted(names))
    state.apply_action(names[text])
    settle(state, table)


def let_pass(state, table: Table) -> None:
    """The answers to an Attack! of players who cannot answer it: every player with cards is asked."""
    while legal(state) == ["let_it_pass"]:
        act(state, "let_it_pass", table)


def start(players: int, roles, hands, **options):
    """A game after the set-up: the given roles and hands; every party holds Scouts and Bards only."""
    table = Table(roles, hands)
    state = rulekit.load(GAME, players=players, options=options).new_initial_state()
    settle(state, table)
    while not state.is_terminal() and (pick := next((a for a in legal(state) if a.endswith(": h=Scout")), None)):
        act(state, pick, table)
    for p, role in enumerate(roles):
        assert state.zone("role", p) == [role]
        assert sorted(state.zone("hand", p)) == sorted(hands[p]), (p, state.zone("hand", p))
        assert len(state.zone("heroes_up", p)) == 4 and set(state.zone("heroes_up", p)) <= {"Scout", "Bard"}
    return state, table


def legal(state) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def end_turns(state, table, until: int) -> None:
    """End the current turn, then every turn after it (discarding the first cards above the limit),
    until it is `until`'s turn to play."""
    moved = False
    for _ in range(500):
        options = legal(state)
        if moved and state.current_player() == until and "end_turn" in options:
            return
        moved = moved or "end_turn" in options
        act(state, "end_turn" if "end_turn" in options else options[-1], table)  # discards keep Attack!s
    raise AssertionError("the turns did not come round")


def lose(state, table) -> str:
    """The player to move gives up a faceup Hero; returns which."""
    while "let_it_pass" in legal(state):   # a player who could answer the Attack! lets it through
        act(state, "let_it_pass", table)
    choice = next(a for a in legal(state) if a.startswith("lose_faceup("))
    act(state, choice, table)
    return choice[len("lose_faceup(h="):-1]


def heroes(state, p: int) -> int:
    return len(state.zone("heroes_up", p)) + len(state.zone("heroes_down", p))


# ---- random play -------------------------------------------------------------------------------

def check_invariants(state):
    game = state.game
    n = game.num_players()
    assert not game.violated_invariants(state), [p.name for p in game.violated_invariants(state)]
    for p in range(n):
        assert heroes(state, p) <= 4
    if state.is_terminal():
        assert any(r > 0 for r in state.returns()), "every end has a winner"
        for p in range(n):
            assert (state.returns()[p] > 0) == bool(state.value("won", p))


def play(players: int, options: dict, seed: int, choices: int, cap: int = 6000):
    game = rulekit.load(GAME, players=players, options=options)
    return play_explicit(game, seed, choices, cap, check_invariants)


@pytest.mark.parametrize("players", [4, 5, 6, 7, 8])
@settings(max_examples=3)
@given(seed=st.integers(0, 2**31), choices=st.integers(0, 2**31))
def test_random_play_keeps_the_invariants(players, seed, choices):
    play(players, {}, seed, choices)


@pytest.mark.parametrize("options", VARIANTS[1:], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@settings(max_examples=2)
@given(seed=st.integers(0, 2**31), choices=st.integers(0, 2**31), players=st.sampled_from([4, 5, 6]))
def test_random_play_under_every_option(options, seed, choices, players):
    play(players, options, seed, choices)


def test_role_chart_matches_the_rulebook():
    chart = {4: (1, 1, 1, 1), 5: (2, 2, 1, 0), 6: (2, 2, 1, 1), 7: (2, 2, 1, 2), 8: (3, 3, 1, 1)}
    for players, counts in chart.items():
        game = rulekit.load(GAME, players=players)
        got = tuple(game.component_counts[c] for c in ("ChinEmpire", "SleepyTown", "Deceiver", "ForestSpirit"))
        assert got == counts and sum(got) == players
        assert all(holds for _, holds in game.claims())
        assert game.facts["spirit_goal"] == min(players + 1, 6)


@pytest.mark.slow
@pytest.mark.parametrize("players", [4, 5, 6, 7, 8])
def test_many_random_games_end_with_winners(players):
    ended = 0
    for seed in range(40):
        state = play(players, {}, seed, seed, cap=20000)
        ended += state.is_terminal()
    assert ended == 40


# ---- golden playthroughs ---------------------------------------------------------------------------

FOUR = ["Deceiver", "ChinEmpire", "SleepyTown", "ForestSpirit"]
ATTACKS = ["Attack"] * 5
# Hands that cannot answer an Attack!, within the card counts (5 Revive, 5 Recruit, 4 What's Mine, 6 Accuse!).
QUIET = [["Revive"] * 3 + ["Recruit"] * 2, ["Revive"] * 2 + ["Recruit"] * 3,
         ["WhatsMine"] * 4 + ["Accuse"], ["Accuse"] * 5]


def quiet(*attackers: int, players: int = 4, first=ATTACKS) -> list[list[str]]:
    """Hands for a scene: the given seats hold `first`, the others quiet hands."""
    pool = iter(QUIET)
    return [list(first) if p in attackers else next(pool) for p in range(players)]


def test_snake_draft_goes_clockwise_then_back():
    table = Table(FOUR, quiet(0), heroes=["Scout", "Bard", "Guard", "Scout", "Bard", "Guard", "Scout", "Bard"])
    state = rulekit.load(GAME, players=4).new_initial_state()
    settle(state, table)
    order = []
    while any(a.startswith(("draft#1: h=", "draft#2: h=")) for a in legal(state)):
        order.append(state.current_player())
        act(state, legal(state)[0], table)
    assert order == [0, 1, 2, 3, 3, 2, 1, 0]
    assert all(len(state.zone("heroes_up", p)) == 4 for p in range(4)) and not state.zone("market")


def test_vote_is_secret_until_everyone_has_decided():
    """"All players must first secretly decide which side they wish to support ... Once everyone has
    decided, players vote by discarding cards from their hands.\""""
    hands = [["Accuse", "Attack", "Attack", "Attack", "Attack"], QUIET[0], QUIET[1], ATTACKS]
    s, table = start(4, FOUR, hands)
    act(s, "accuse(t=P1)", table)
    assert s.current_player() == 0
    act(s, "support(s=with_player, n=2)", table)
    seen_by_p1 = s.observation(1)["vars"]
    assert seen_by_p1["side[0]"] is None and seen_by_p1["pledged[0]"] is None, "P0's vote is secret"
    assert s.observation(0)["vars"]["pledged[0]"] == 2
    act(s, "support(s=with_target, n=3)", table)   # P1
    act(s, "abstain", table)                        # P2
    act(s, "support(s=with_player, n=1)", table)   # P3
    events = s.observation(2)["events"]
    assert "P0 announces: with_player" in events and "P1 announces: 3" in events
    for _ in range(2 + 3 + 1):                     # each voter throws down their cards
        act(s, next(a for a in legal(s) if a.startswith("throw_down: c=")), table)
    # 2 + 1 + the Accuse! itself = 4 against 3: P1 loses a Hero to P0.
    lost = lose(s, table)
    assert heroes(s, 1) == 3 and s.zone("eliminated", 0) == [lost]
    assert len(s.zone("discard")) == 7 and "Accuse" in s.zone("discard")
    assert all(s.value("pledged", p) == 0 for p in range(4)) and not s.zone("for_player")


def test_tied_vote_fails():
    hands = [["Accuse", "Attack", "Attack", "Attack", "Attack"], QUIET[0], QUIET[1], ATTACKS]
    s, table = start(4, FOUR, hands)
    act(s, "accuse(t=P1)", table)
    for choice in ("abstain", "support(s=with_target, n=1)", "abstain", "abstain"):
        act(s, choice, table)
    act(s, next(a for a in legal(s) if a.startswith("throw_down: c=")), table)
    assert heroes(s, 1) == 4 and s.current_player() == 0 and "end_turn" in legal(s)


def test_attack_cancelled_by_kak():
    hands = [ATTACKS, ["Kak", "Attack", "Attack", "Attack", "Attack"], QUIET[0], QUIET[1]]
    s, table = start(4, FOUR, hands)
    act(s, "attack(t=P1)", table)
    assert s.current_player() == 1 and "kak" in legal(s)
    act(s, "kak", table)
    assert heroes(s, 1) == 4 and not s.zone("eliminated", 0)
    assert s.zone("discard") == ["Kak", "Attack"]
    assert "attack(t=P2)" not in legal(s), "the red 1 icon: one Attack! a turn"


def test_attack_through_when_nobody_answers():
    s, table = start(4, FOUR, quiet(0))
    act(s, "attack(t=P2)", table)
    let_pass(s, table)
    assert s.current_player() == 2 and all(a.startswith("lose_faceup(") for a in legal(s))
    lost = lose(s, table)
    assert heroes(s, 2) == 3 and s.zone("eliminated", 0) == [lost]


def test_deceiver_reveal_attacks_everyone_and_two_copies_are_cancelled():
    """The rulebook's example: 6 players; the Deceiver reveals and plays an Attack!; a player answers the
    copies targeting them and their teammate with 2 Kak! cards, leaving 3 copies for the other 3."""
    roles = ["Deceiver", "ChinEmpire", "ChinEmpire", "SleepyTown", "SleepyTown", "ForestSpirit"]
    hands = [ATTACKS, ["Kak", "Kak", "Attack", "Attack", "Attack"]] + QUIET
    s, table = start(6, roles, hands)
    act(s, "reveal_self", table)
    assert s.zone("shown_role", 0) == ["Deceiver"] and "attack_everyone" in legal(s)
    assert not [a for a in legal(s) if a.startswith("attack(")], "only the Attack! on everyone this turn"
    act(s, "attack_everyone", table)
    act(s, "kak", table)            # P1 cancels the copy against themself
    assert s.current_player() == 1
    act(s, "kak", table)            # and the copy against their teammate P2
    for target in (3, 4, 5):
        let_pass(s, table)
        assert s.current_player() == target
        lose(s, table)
    assert [heroes(s, p) for p in range(6)] == [4, 4, 4, 3, 3, 3]
    assert len(s.zone("eliminated", 0)) == 3 and s.zone("discard").count("Kak") == 2


def test_a_revealed_living_deceiver_blocks_the_others():
    roles = ["Deceiver", "ChinEmpire", "SleepyTown", "ForestSpirit"]
    s, table = start(4, roles, quiet(1))
    act(s, "reveal_self", table)
    end_turns(s, table, until=1)
    for _ in range(3):              # P1 (Chin Empire) attacks P2 (Sleepy Town) each turn
        act(s, "attack(t=P2)", table)
        lose(s, table)
        end_turns(s, table, until=1)
    act(s, "attack(t=P2)", table)
    lose(s, table)
    assert heroes(s, 2) == 0 and s.zone("shown_role", 2) == ["SleepyTown"]
    assert not s.is_terminal(), "the Chin Empire has met its objective but the living Deceiver is revealed"
    assert s.value("won", 1) == 0


def test_death_reveals_the_role_and_dead_players_keep_playing_with_two_cards():
    roles = ["Deceiver", "ChinEmpire", "SleepyTown", "ForestSpirit"]
    s, table = start(4, roles, quiet(1))
    end_turns(s, table, until=1)
    for _ in range(4):               # P1 attacks P0 on each of their turns
        act(s, "attack(t=P0)", table)
        lose(s, table)
        if heroes(s, 0):
            end_turns(s, table, until=1)
    assert heroes(s, 0) == 0 and s.zone("shown_role", 0) == ["Deceiver"] and not s.zone("role", 0)
    assert not s.is_terminal(), "a dead Deceiver wins only when all others have 1 Hero or less"
    end_turns(s, table, until=0)
    assert "recruit" not in legal(s) and not [a for a in legal(s) if a.startswith(("hero(", "whats_mine("))]
    assert [a for a in legal(s) if a.startswith(("attack(", "interrogate(", "accuse("))], "the dead play normally"
    assert len(s.zone("hand", 0)) > 2
    act(s, "end_turn", table)
    while s.current_player() == 0 and not s.value("just_ended"):
        act(s, legal(s)[0], table)   # discard down to the dead player's limit
    assert len(s.zone("hand", 0)) == 2 and s.value("ended_limit") == 2


def test_shared_win_when_the_forest_spirit_kills_the_last_sleepy_town():
    """The Forest Spirit's fifth Hero is the last Sleepy Town player's last: at that instant the Forest
    Spirit and the Chin Empire have both met their objectives, and both win."""
    roles = ["Deceiver", "ChinEmpire", "SleepyTown", "ForestSpirit"]
    s, table = start(4, roles, quiet(3))
    end_turns(s, table, until=3)
    act(s, "attack(t=P0)", table)
    lose(s, table)
    for turn in range(4):
        end_turns(s, table, until=3)
        act(s, "attack(t=P2)", table)
        lose(s, table)
    assert s.is_terminal()
    assert s.returns() == [0.0, 1.0, 0.0, 1.0]
    assert len(s.zone("eliminated", 3)) == 5 and heroes(s, 2) == 0


def test_role_question_truthful_and_deceiver_may_lie():
    hands = quiet(0, first=["Interrogate"] + ["Attack"] * 4)
    roles = ["ChinEmpire", "Deceiver", "SleepyTown", "ForestSpirit"]
    s, table = start(4, roles, hands)
    act(s, "interrogate(t=P1)", table)
    card = s.zone("question_held", 0)[0]
    assert s.observation(1)["zones"]["question_held[0]"] == 1, "the question card is secret"
    act(s, "number=1", table)
    assert legal(s) == ["answer=true", "answer=false"], "the Deceiver may answer either way"
    act(s, "answer=false", table)
    assert "P1 announces: no" in s.observation(3)["events"] and card in s.zone("question_deck")


def test_honest_player_must_answer_truthfully():
    hands = quiet(0, first=["Interrogate"] + ["Attack"] * 4)
    s, table = start(4, FOUR, hands)
    act(s, "interrogate(t=P1)", table)
    first = {"AskChinSleepy": "ChinEmpire", "AskChinDeceiver": "ChinEmpire", "AskChinSpirit": "ChinEmpire",
             "AskSleepyDeceiver": "SleepyTown", "AskSleepySpirit": "SleepyTown", "AskDeceiverSpirit": "Deceiver"}
    card = s.zone("question_held", 0)[0]
    act(s, "number=1", table)
    truth = first[card] == "ChinEmpire"
    assert legal(s) == ["answer=true" if truth else "answer=false"]


def test_hand_limit_is_checked_only_at_the_end_of_the_turn():
    s, table = start(4, FOUR, quiet(0))
    act(s, "hero(h=Scout)", table)
    assert len(s.zone("hand", 0)) == 7 and s.zone("heroes_down", 0) == ["Scout"]
    act(s, "end_turn", table)
    while not s.value("just_ended"):
        act(s, legal(s)[0], table)
    assert len(s.zone("hand", 0)) == 6 and s.current_player() == 1
