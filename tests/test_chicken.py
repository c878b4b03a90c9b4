"""Chuck-It Chicken!: random play with invariants under every option, golden playthroughs, option switches.

The golden playthroughs name the outcome of every die and of the egg, and every decision; positions are
written henhouse(ROW,COLUMN), where row 1 is the floor and row s + 1 is step s.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulekit
from tests.helpers import act, chance, option_variants, play_random

GAME = "chicken"
VARIANTS = option_variants(GAME)
TEAMS = "ABCD"


def decisions(state) -> list[str]:
    return [] if state.is_chance_node() else [state.action_to_string(a) for a in state.legal_actions()]


def start(players: int = 2, **options):
    return rulekit.load(GAME, players=players, options=options).new_initial_state()


def columns(state) -> int:
    return state.game.facts["widest"]


def hens(state, row: int, column: int) -> list[str]:
    return state.zone("spot", (row - 1) * columns(state) + column - 1)


def place_of(state, hen: str) -> tuple[int, int] | str:
    for zone in ("nest", "moving", "falling", "box"):
        if hen in state.zone(zone):
            return zone
    facts = state.game.facts
    for r in range(1, facts["steps"] + 2):
        for c in range(1, columns(state) + 1):
            if hen in hens(state, r, c):
                return (r, c)
    raise AssertionError(f"{hen} is nowhere")


def roll(state, first: str, second: str) -> None:
    chance(state, first)
    chance(state, second)


def throw_and_miss(state, aim: str) -> None:
    """Aim the egg, miss, and knock no neighbour off (when a neighbour could be)."""
    act(state, f"aim={aim}")
    chance(state, "0")
    if state.is_chance_node() and any(state.action_to_string(a) == "chance: 1" for a, _ in state.chance_outcomes()):
        chance(state, "0")


# ---- random play ------------------------------------------------------------------------

def assert_invariants(state):
    game = state.game
    n = game.num_players()
    facts = game.facts
    width = facts["widest"]
    where: dict[str, object] = {}
    for r in range(1, facts["steps"] + 2):
        for c in range(1, width + 1):
            here = hens(state, r, c)
            if r == 1 and c == 1:
                where.update((h, "floor") for h in here)
                continue
            assert len(here) <= 1, f"two hens on straw bale {r},{c}: {here}"
            if here:
                places = facts["steps"] + 1 - (r - 1) if game.options["henhouse_shape"] == "pyramid" else \
                    (facts["steps"] + 2 - (r - 1)) // 2
                assert c <= places, f"a hen off the straw bales at {r},{c}"
                where[here[0]] = (r, c)
    for zone in ("moving", "falling", "nest"):
        where.update((h, zone) for h in state.zone(zone))
    if len(state.zone("box")) < 12:  # the teams are on the floor (a game of one refused leaves them boxed)
        for t in range(4):
            team = [h for h in where if h[0] == TEAMS[t]]
            assert len(team) == (3 if t < n else 0), f"team {TEAMS[t]} has {team} in play"
    assert len(state.zone("moving")) <= 1 and len(state.zone("falling")) <= 1
    assert not game.violated_invariants(state)


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
@pytest.mark.parametrize("players", [1, 2, 3, 4])
@settings(max_examples=2)
@given(seed=st.integers(0, 2**31))
def test_random_play_keeps_the_invariants(players, options, seed):
    game = rulekit.load(GAME, players=players, options=options)
    end = play_random(game, seed, max_decisions=3000, on_state=assert_invariants, auto_chance=False)
    assert end.is_terminal(), "every random game ends"
    if players > 1 or options.get("solo") != "two_to_four":
        assert sum(1 for r in end.returns() if r > 0) == 1, "one winner, on the rooster's back"
        assert len(end.zone("nest")) == 1


@pytest.mark.slow
@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_every_game_ends_under_every_option(options):
    """Whether play can go on forever: it can in principle (the egg may knock hens down again and again,
    the final roll may miss every time), but in 300 seeded games per player count every one ended."""
    for players in (2, 3, 4):
        game = rulekit.load(GAME, players=players, options=options)
        for seed in range(300):
            assert play_random(game, seed, max_decisions=5000).is_terminal(), (players, seed)


# ---- golden playthroughs -------------------------------------------------------------------

def test_a_double_roll_moves_one_hen_up_two_steps():
    s = start()
    roll(s, "hat", "hat")
    act(s, "place=henhouse(2,3)")                  # step 1: any of the five straw bales
    act(s, "place=henhouse(3,2)")                  # step 2
    assert place_of(s, "A1") == (3, 2) and s.value("die1") == s.value("die2")
    assert s.current_player() == rulekit.CHANCE_PLAYER and s.observation(0)["turn"] == 1, "then P1 rolls"


def test_two_different_headgear_move_two_hens_in_the_chosen_order():
    s = start()
    roll(s, "hat", "cap")
    assert decisions(s) == ["lead=hat", "lead=cap"]
    act(s, "lead=cap")
    act(s, "place=henhouse(2,3)")                  # the cap hen first
    assert decisions(s) == [f"place=henhouse(2,{c})" for c in (1, 2, 4, 5)], "not onto an occupied straw bale"
    act(s, "place=henhouse(2,4)")
    assert place_of(s, "A2") == (2, 3) and place_of(s, "A1") == (2, 4)


def test_a_rooster_roll_moves_then_throws_and_may_hit_two_hens():
    """The egg knocks the aimed hen and a neighbour off, one of them the thrower's own."""
    s = start()
    roll(s, "hat", "cap")
    act(s, "lead=hat")
    act(s, "place=henhouse(2,2)")                  # A1
    act(s, "place=henhouse(2,3)")                  # A2
    roll(s, "hat", "rooster")                      # P1: B1 moves, then P1 throws the egg
    act(s, "place=henhouse(2,4)")
    assert decisions(s) == ["aim=henhouse(2,2)", "aim=henhouse(2,3)", "aim=henhouse(2,4)"]
    act(s, "aim=henhouse(2,3)")
    assert dict((s.action_to_string(a), p) for a, p in s.chance_outcomes()) == {"chance: 1": 0.5, "chance: 0": 0.5}
    chance(s, "1")                              # A2 is hit
    assert dict((s.action_to_string(a), p) for a, p in s.chance_outcomes()) == {"chance: 1": 0.25, "chance: 0": 0.75}
    chance(s, "1")                              # and a neighbour too: A1 or B1, equally likely
    assert sorted(s.action_to_string(a) for a, _ in s.chance_outcomes()) == ["chance: henhouse(2,2)", "chance: henhouse(2,4)"]
    chance(s, "henhouse(2,4)")                     # P1's own hen
    assert place_of(s, "A2") == (1, 1) and place_of(s, "B1") == (1, 1), "from step 1 they roll to the floor"
    assert s.value("knocked") == 2
    assert s.observation(0)["turn"] == 0, "the turn ends after the throw"


def test_a_hen_knocked_off_lands_on_the_nearest_free_straw_bale_of_the_step_below():
    s = start()
    roll(s, "hat", "hat")
    act(s, "place=henhouse(2,4)")
    act(s, "place=henhouse(3,4)")                  # A1 on step 2, fourth straw bale
    roll(s, "cap", "rooster")
    act(s, "place=henhouse(2,4)")                  # B2 right below it
    act(s, "aim=henhouse(3,4)")
    chance(s, "1")
    chance(s, "0")                             # B2 is next to A1 and could have been knocked off too
    # Step 1, column 4 is taken: columns 3 and 5 are equally near, and the leftmost is taken.
    assert place_of(s, "A1") == (2, 3) and place_of(s, "B2") == (2, 4)


def test_a_sheltered_hen_cannot_be_hit_or_is_hit_half_as_often():
    for shelter, odds in (("immune", None), ("halves_the_odds", 0.25)):
        s = start(shelter=shelter)
        roll(s, "hat", "hat")
        act(s, "place=henhouse(2,1)")              # the milk churn's straw bale
        act(s, "place=henhouse(3,3)")
        roll(s, "cap", "rooster")
        act(s, "place=henhouse(2,1)")              # B2 behind the first obstacle
        act(s, "aim=henhouse(2,1)")
        if odds is None:  # a certain miss is no chance event: the turn ends and P0 rolls
            assert s.observation(0)["turn"] == 0 and "chance: rooster" not in [
                s.action_to_string(a) for a, _ in s.chance_outcomes()]
        else:
            assert dict((s.action_to_string(a), p) for a, p in s.chance_outcomes())["chance: 1"] == odds


def _full_first_step(**options):
    """P0 and P1 fill step 1: A1, A2, B1, B2, then A3 (with a missed egg)."""
    s = start(**options)
    roll(s, "hat", "cap")
    act(s, "lead=hat")
    act(s, "place=henhouse(2,1)")
    act(s, "place=henhouse(2,2)")
    roll(s, "hat", "cap")
    act(s, "lead=hat")
    act(s, "place=henhouse(2,3)")
    act(s, "place=henhouse(2,4)")
    roll(s, "helmet", "rooster")                   # A3 takes the last free straw bale, no choice left
    assert place_of(s, "A3") == (2, 5)
    throw_and_miss(s, "henhouse(2,4)")
    return s


def test_a_hen_climbing_onto_a_full_step_bumps_an_opponent_down():
    s = _full_first_step()
    roll(s, "helmet", "hat")                       # P1: B3 from the floor, B1 up from step 1
    act(s, "lead=helmet")
    assert decisions(s) == ["victim_bale=henhouse(2,1)", "victim_bale=henhouse(2,2)", "victim_bale=henhouse(2,5)"], \
        "only an opponent's hen can be taken"
    act(s, "victim_bale=henhouse(2,2)")
    assert place_of(s, "A2") == (1, 1) and place_of(s, "B3") == (2, 2) and s.value("pushed") == 1
    act(s, "place=henhouse(3,1)")                  # then B1 (hat) climbs to step 2
    assert place_of(s, "B1") == (3, 1)


@pytest.mark.parametrize("option", ["mover_places", "owner_places"])
def test_who_places_a_bumped_hen(option):
    """Step 2 fills with B1, A2, B2 and B3; A1 climbs onto it from step 1 and bumps B1 down."""
    s = start(bump_place=option)
    roll(s, "hat", "cap")
    act(s, "lead=hat")
    act(s, "place=henhouse(2,1)")
    act(s, "place=henhouse(2,2)")
    roll(s, "hat", "hat")                          # P1: B1 two steps
    act(s, "place=henhouse(2,3)")
    act(s, "place=henhouse(3,1)")
    roll(s, "cap", "rooster")                      # P0: A2 to step 2
    act(s, "place=henhouse(3,2)")
    throw_and_miss(s, "henhouse(3,1)")
    roll(s, "cap", "cap")                          # P1: B2 two steps
    act(s, "place=henhouse(2,4)")
    act(s, "place=henhouse(3,3)")
    roll(s, "helmet", "rooster")                   # P0: A3 to step 1
    act(s, "place=henhouse(2,5)")
    throw_and_miss(s, "henhouse(3,3)")
    roll(s, "helmet", "helmet")                    # P1: B3 two steps; the last straw bale of step 2
    act(s, "place=henhouse(2,3)")
    assert [hens(s, 3, c) for c in (1, 2, 3, 4)] == [["B1"], ["A2"], ["B2"], ["B3"]]
    roll(s, "hat", "rooster")                      # P0: A1 onto the full step 2
    assert decisions(s) == ["victim_bale=henhouse(3,1)", "victim_bale=henhouse(3,3)", "victim_bale=henhouse(3,4)"]
    act(s, "victim_bale=henhouse(3,1)")            # B1 goes one step down: three free straw bales there
    assert s.current_player() == (1 if option == "owner_places" else 0)
    assert decisions(s) == [f"lower_bale=henhouse(2,{c})" for c in (2, 3, 4)], "A1 still stands on (2,1)"
    act(s, "lower_bale=henhouse(2,4)")
    assert place_of(s, "B1") == (2, 4) and place_of(s, "A1") == (3, 1)


def _two_full_steps(**options):
    """Narrow henhouse, three players: step 1 holds A1, C2, A3 and step 2 holds B1, C1, B2, with P0 to roll."""
    s = start(3, henhouse_shape="narrow", **options)
    roll(s, "hat", "cap")                          # P0
    act(s, "lead=hat")
    act(s, "place=henhouse(2,1)")
    act(s, "place=henhouse(2,2)")
    roll(s, "hat", "hat")                          # P1: B1 two steps
    act(s, "place=henhouse(3,1)")
    roll(s, "hat", "hat")                          # P2: C1 two steps
    act(s, "place=henhouse(3,2)")
    roll(s, "helmet", "rooster")                   # P0: A3 to the last straw bale of step 1
    throw_and_miss(s, "henhouse(3,2)")
    roll(s, "cap", "cap")                          # P1: B2 onto the full step 1 bumps A2 to the floor,
    act(s, "victim_bale=henhouse(2,2)")            # then climbs to the last straw bale of step 2
    roll(s, "cap", "rooster")                      # P2: C2 to step 1
    throw_and_miss(s, "henhouse(3,1)")
    assert [hens(s, 2, c) for c in (1, 2, 3)] == [["A1"], ["C2"], ["A3"]]
    assert [hens(s, 3, c) for c in (1, 2, 3)] == [["B1"], ["C1"], ["B2"]]
    roll(s, "hat", "rooster")                      # P0: A1 climbs onto the full step 2
    act(s, "victim_bale=henhouse(3,2)")            # and takes C1's straw bale
    return s


def test_a_bumped_hen_falls_further_down_past_a_full_step():
    s = _two_full_steps()
    assert place_of(s, "C1") == (1, 1), "step 1 is full while A1 still stands on it: C1 falls to the floor"
    assert place_of(s, "A1") == (3, 2) and s.value("fell_further") == 1
    assert [hens(s, 2, c) for c in (1, 2, 3)] == [[], ["C2"], ["A3"]]


def test_a_bumped_hen_bumps_again_down_a_cascade():
    s = _two_full_steps(bump_below_full="bumps_again")
    # C1 lands on the full step 1 and takes the place of a hen of one of its opponents: only A3,
    # since A1 is the hen climbing and C2 is C1's own team.
    assert decisions(s) == ["next_bale=henhouse(2,3)"]
    act(s, "next_bale=henhouse(2,3)")
    assert place_of(s, "C1") == (2, 3) and place_of(s, "A3") == (1, 1) and place_of(s, "A1") == (3, 2)
    assert s.value("pushed") == 2


def test_a_bumped_hen_may_take_the_climbers_straw_bale():
    s = _two_full_steps(bump_order="lifted_first")
    assert place_of(s, "C1") == (2, 1) and place_of(s, "A1") == (3, 2), "the two hens swap"


def _to_the_top(**options):
    """A1 climbs to the topmost straw bale (step 5 of the pyramid) while P1 moves B2 and B3."""
    s = start(**options)
    roll(s, "hat", "hat")
    act(s, "place=henhouse(2,3)")
    act(s, "place=henhouse(3,3)")
    roll(s, "cap", "helmet")
    act(s, "lead=cap")
    act(s, "place=henhouse(2,1)")
    act(s, "place=henhouse(2,2)")
    roll(s, "hat", "hat")
    act(s, "place=henhouse(4,2)")
    act(s, "place=henhouse(5,1)")                  # A1 on step 4
    roll(s, "cap", "helmet")
    act(s, "lead=cap")
    act(s, "place=henhouse(3,1)")
    act(s, "place=henhouse(3,2)")
    return s


def test_the_final_jump_needs_the_headgear_on_one_more_roll():
    s = _to_the_top()
    roll(s, "hat", "rooster")                      # A1 to the topmost straw bale: no jump yet
    assert place_of(s, "A1") == (6, 1)
    throw_and_miss(s, "henhouse(3,1)")
    roll(s, "cap", "helmet")                       # P1
    act(s, "lead=cap")
    act(s, "place=henhouse(4,1)")
    act(s, "place=henhouse(4,3)")
    roll(s, "hat", "cap")                          # P0: A1 moves up from the topmost straw bale
    act(s, "lead=hat")
    assert dict((s.action_to_string(a), p) for a, p in s.chance_outcomes()) == \
        {"chance: hat": 1 / 3, "chance: cap": 1 / 3, "chance: helmet": 1 / 3}
    chance(s, "cap")                               # the wrong headgear: A1 stays
    assert place_of(s, "A1") == (6, 1) and s.value("jump_roll") == 1
    act(s, "place=henhouse(2,3)")                  # A2 (cap) climbs as usual
    roll(s, "cap", "helmet")
    act(s, "lead=cap")
    act(s, "place=henhouse(5,2)")                  # B3 then takes the last straw bale of step 4
    roll(s, "hat", "rooster")                      # P0 again: hat
    chance(s, "hat")                               # the jump succeeds
    assert s.is_terminal() and s.zone("nest") == ["A1"] and s.returns() == [1.0, -1.0]


def test_the_jump_roll_may_come_on_arrival():
    s = _to_the_top(final_jump="on_arrival")
    roll(s, "hat", "rooster")                      # A1 arrives on the topmost straw bale and jumps at once
    chance(s, "hat")
    assert s.is_terminal() and s.returns() == [1.0, -1.0]


@pytest.mark.parametrize("option", ["keeps_climbing", "stops_at_top"])
def test_a_double_below_the_top(option):
    s = _to_the_top(double_at_top=option)
    roll(s, "hat", "hat")                          # A1: step 5, then the step beyond
    if option == "keeps_climbing":
        chance(s, "hat")                           # the jump roll of the second step
        assert s.is_terminal() and s.zone("nest") == ["A1"]
    else:
        assert place_of(s, "A1") == (6, 1) and s.is_chance_node() and s.observation(0)["turn"] == 1


def test_jump_die_decides_which_die_is_rolled_for_the_jump():
    s = _to_the_top(final_jump="on_arrival", jump_die="rooster_die")
    roll(s, "hat", "rooster")
    assert dict((s.action_to_string(a), p) for a, p in s.chance_outcomes()) == \
        {"chance: hat": 1 / 6, "chance: cap": 1 / 6, "chance: helmet": 1 / 6, "chance: rooster": 1 / 2}


# ---- the other options, each a real switch -------------------------------------------------------

def _seen(options: dict, players: int, seeds: range, watch) -> bool:
    """Whether `watch(state)` holds in some state of seeded random games under these options."""
    game = rulekit.load(GAME, players=players, options=options)
    found = []
    for seed in seeds:
        play_random(game, seed, on_state=lambda s: found.append(True) if not found and watch(s) else None)
        if found:
            return True
    return False


def test_a_hen_stays_when_the_next_step_is_full_of_its_own_team():
    blocked = lambda s: s.value("blocked") == 1  # noqa: E731
    assert _seen({}, 2, range(40), blocked)
    assert not _seen({"full_of_own": "bump_own"}, 2, range(40), blocked)


def test_optional_moves_and_the_order_of_two_moves_are_switches():
    def offered(prefix):
        return lambda s: any(d.startswith(prefix) for d in decisions(s))
    assert _seen({"optional_moves": "may"}, 2, range(3), offered("decline"))
    assert not _seen({}, 2, range(10), offered("decline"))
    assert _seen({}, 2, range(3), offered("lead="))
    assert not _seen({"move_order": "headgear_die_first"}, 2, range(10), offered("lead="))


def test_play_goes_on_forever_when_every_move_is_declined():
    """Under optional_moves=may nothing forces progress: declining every move and throw repeats the start."""
    s = start(optional_moves="may")
    for _ in range(200):
        if s.is_chance_node():
            s.apply_action(s.chance_outcomes()[0][0])
        else:
            options = decisions(s)
            act(s, "decline" if "decline" in options else options[0])
    assert not s.is_terminal() and sorted(hens(s, 1, 1)) == ["A1", "A2", "A3", "B1", "B2", "B3"]


def test_mixed_teams_wear_uneven_headgear():
    s = start(team_composition="mixed")
    roll(s, "helmet", "rooster")                   # team A has no helmet: nothing moves, nobody to hit
    assert s.observation(0)["turn"] == 1 and sorted(hens(s, 1, 1)) == ["A1", "A2", "A3", "B1", "B2", "B3"]
    roll(s, "cap", "hat")                          # team B has two caps (B1, B2) and no hat
    act(s, "lead=cap")
    assert decisions(s) == ["hen=B1", "hen=B2"]
    act(s, "hen=B2")
    act(s, "place=henhouse(2,2)")
    assert place_of(s, "B2") == (2, 2) and place_of(s, "B1") == (1, 1)


def test_the_dice_and_the_egg_odds_are_parameters():
    s = start(die_faces="one_rooster")
    chance(s, "hat")
    assert {p for _, p in s.chance_outcomes()} == {0.25}
    s = start(egg_odds="one_in_four")
    roll(s, "hat", "hat")
    act(s, "place=henhouse(2,3)")
    act(s, "place=henhouse(3,3)")
    roll(s, "cap", "rooster")
    act(s, "place=henhouse(2,5)")
    act(s, "aim=henhouse(3,3)")
    assert dict((s.action_to_string(a), p) for a, p in s.chance_outcomes())["chance: 1"] == 0.25


def test_a_hen_hit_may_roll_down_two_steps():
    s = start(egg_fall="one_or_two")
    roll(s, "hat", "hat")
    act(s, "place=henhouse(2,3)")
    act(s, "place=henhouse(3,3)")
    roll(s, "cap", "rooster")
    act(s, "place=henhouse(2,5)")
    act(s, "aim=henhouse(3,3)")
    chance(s, "1")
    assert sorted(s.action_to_string(a) for a, _ in s.chance_outcomes()) == ["chance: 1", "chance: 2"]
    chance(s, "2")
    assert place_of(s, "A1") == (1, 1)


def test_the_obstacles_and_the_henhouse_shape_are_parameters():
    for option, sheltered in (("first_bales", (2, 1)), ("low_ends", (2, 5))):
        s = start(obstacles_at=option)
        roll(s, "hat", "rooster")
        act(s, f"place=henhouse{sheltered}".replace(" ", ""))
        act(s, f"aim=henhouse{sheltered}".replace(" ", ""))
        assert s.observation(0)["turn"] == 1, "a hen behind an obstacle cannot be hit: the throw misses"
    narrow = rulekit.load(GAME, players=2, options={"henhouse_shape": "narrow"})
    assert narrow.facts["steps"] == 6 and narrow.facts["widest"] == 3
    assert all(holds for _, holds in narrow.claims())


@pytest.mark.parametrize("option", ["two_to_four", "one_to_four"])
def test_solo_play_option(option):
    state = rulekit.load(GAME, players=1, options={"solo": option}).new_initial_state(seed=1)
    assert state.is_terminal() == (option == "two_to_four")


def test_the_text_view_shows_the_henhouse_and_the_last_roll():
    s = start()
    roll(s, "hat", "hat")
    act(s, "place=henhouse(2,3)")
    act(s, "place=henhouse(3,2)")
    view = s.observation_string(1)
    assert "henhouse (" in view and "die1=hat, die2=hat" in view and "mover=A1" in view
    floor = next(line for line in view.splitlines() if line.strip().startswith("1 A2"))
    assert floor.split()[1] == "A2/A3/B1/B2/B3"


def test_thrower_chooses_between_two_equally_near_bales():
    """nearest_tie: where the default puts a knocked hen on the first of two equally near bales, the
    other reading asks the thrower to choose (the case `rulekit check` reports as silent)."""
    default = rulekit.load(GAME, players=2)
    variant = rulekit.load(GAME, players=2, options={"nearest_tie": "thrower_chooses"})
    for seed in range(300):
        a = default.new_initial_state(seed=seed, auto_chance=True)
        b = variant.new_initial_state(seed=seed, auto_chance=True)
        rng = random.Random(seed)
        while not a.is_terminal():
            if b.legal_actions() != a.legal_actions():
                offered = [b.action_to_string(x) for x in b.legal_actions()]
                assert len(offered) == 2 and all(o.startswith("bale_to") for o in offered), offered
                return
            action = rng.choice(a.legal_actions())
            a.apply_action(action)
            b.apply_action(action)
    pytest.fail("no knocked hen had two equally near bales in 300 games")
