"""Hidden information: what each seat knows, decisions in their public form, and the information-flow check."""
from __future__ import annotations

import random
from collections import Counter
import subprocess
import sys

import pytest

import rulekit
from rulekit import model as m
from rulekit.checking import PlayBounds, check_spec
from rulekit.engine.knowledge import knowledge
from rulekit.pipeline import Spec
from rulekit.sphinx.playbook import rules_text
from rulekit.verify import information
from tests.helpers import compile_text, write_spec

HEADER = '''
game tiny "Tiny"
rulebook "rulebook.txt" source "x"
players 2 to 2
card Ace x 2
card King x 2
zone box: set, hidden, initial
zone hand per player: set, owner
zone table: set, public
'''

# P0 may call only when P1 holds an Ace: the list of P0's legal actions tells it P1's hidden card.
LEAKY = HEADER + '''
flow {
  for p in players { random c in box  move c from box to hand(p) }
  choose by seat(0) {
    action call when count(c in hand(seat(1)) where c == Ace) > 0 { win seat(0) }
    action fold { win seat(1) }
  }
}
'''

# The twin reads P0's own hand, which P0 sees: no leak.
TWIN = LEAKY.replace("hand(seat(1)) where c == Ace", "hand(seat(0)) where c == Ace")

SECRET = HEADER + '''
flow {
  for p in players { random c in box  move c from box to hand(p) }
  choose by seat(0) {
    action bury(secret c in hand(seat(0))) { move c from hand(seat(0)) to box }
    action keep secret { }
  }
  choose secret k in hand(seat(1)) by seat(1)
  choose by seat(0) { action done { end game } }
}
'''


def _check(tmp_path, text, name):
    spec = Spec.find(str(write_spec(tmp_path, text, name=name)))
    return information.findings(spec, [spec.model.default_options()], information.Bounds(games=6, comparisons=30),
                                lambda **k: rulekit.findings.Finding(game=spec.model.name, **k))


def test_a_leak_through_legal_actions_is_reported_and_its_twin_is_not(tmp_path):
    leaky = _check(tmp_path, LEAKY, "leaky")
    leak = next(f for f in leaky if f.id.startswith("tiny/information-flow/legal-actions"))
    assert leak.severity == "error" and leak.verdict == "refuted" and leak.location
    assert leak.witness[-1]["real"] != leak.witness[-1]["redealt"] and "P0" in leak.message
    twin = _check(tmp_path, TWIN, "twin")
    assert [f.id for f in twin] == ["tiny/information-flow"] and twin[0].verdict == "bounded"


# Whoever holds an Ace is asked to knock: who moves tells the other seat where the Aces are.
KNOCK = HEADER.replace("players 2 to 2", "players 2 to 3") + '''
flow {
  for p in players { random c in box  move c from box to hand(p) }
  rule knock {
    for p in players {
      if count(c in hand(p) where c == Ace) > 0 { choose by p { action knock { } action stay { } } }
    }
  }
  rule play { choose by seat(0) { action done { end game } } }
}
'''


def test_a_leak_through_who_moves_names_both_places_and_the_seats_per_player_count(tmp_path):
    leak = next(f for f in _check(tmp_path, KNOCK, "knock") if "/to-move/" in f.id)
    assert "(in the re-dealt game: " in leak.message, leak.message
    assert " with 2 players; " in leak.message and " with 3 players" in leak.message, leak.message


@pytest.mark.parametrize("named", ["tiny/information-flow/legal-actions",
                                   "information-flow/legal-actions"])  # as ids were before they named the game
def test_the_check_runs_in_rulekit_check_and_an_expect_acknowledges_it(named, tmp_path):
    checks = (f'checks tiny\nexpect calling_tells "{named}" because "Calling shows the Ace."\n'
              '  quote "The player with the Ace wins."\n')
    path = write_spec(tmp_path, LEAKY, name="tiny", checks=checks)
    report = check_spec(Spec.find(str(path)), PlayBounds(games=5, variant_games=1, shrink=False, time_limit=0.5,
                                                         explore_budget=0.5, symbolic_time_limit=0.5))
    found = [f for f in report.findings if f.kind == "information-flow"]
    assert found and all(f.acknowledged_by == "expect calling_tells" and f.id.startswith("tiny/") for f in found)
    assert not any(f.kind == "stale-expect" for f in report.findings)
    assert not any(f.kind == "quote" and "The player with the Ace wins." in f.message for f in report.findings)


def test_an_expect_of_a_leak_the_sample_did_not_meet_is_a_note_and_one_of_no_search_is_stale(tmp_path):
    checks = ('checks tiny\nexpect calling_tells "information-flow/legal-actions" because "Calling shows the Ace."\n'
              '  quote "The player with the Ace wins."\n')
    bounds = PlayBounds(games=5, variant_games=1, shrink=False, time_limit=0.5, explore_budget=0.5,
                        symbolic_time_limit=0.5)
    # TWIN leaks nothing: its re-deals are a bounded search that met no leak.
    report = check_spec(Spec.find(str(write_spec(tmp_path, TWIN, name="tiny", checks=checks))), bounds)
    [note] = [f for f in report.findings if f.kind == "stale-expect"]
    assert note.severity == "info" and note.verdict == "unknown"
    assert "calling_tells" in note.message and "did not meet" in note.message and "re-deals" in note.message
    # With no hidden card at all, nothing was searched: the expect is stale.
    public = TWIN.replace("zone box: set, hidden, initial", "zone box: set, public, initial").replace(
        "zone hand per player: set, owner", "zone hand per player: set, public")
    (tmp_path / "public").mkdir()
    report = check_spec(Spec.find(str(write_spec(tmp_path / "public", public, name="tiny", checks=checks))), bounds)
    [stale] = [f for f in report.findings if f.kind == "stale-expect"]
    assert stale.severity == "warning" and stale.verdict == "refuted"


def test_secret_decisions_read_in_their_public_form(tmp_path):
    game = rulekit.load(str(write_spec(tmp_path, SECRET, name="secret")))
    state = game.new_initial_state(seed=1, auto_chance=True)
    bury = next(a for a in state.legal_actions() if state.action_to_string(a).startswith("bury("))
    full = state.action_to_string(bury)
    assert full == state.action_to_string(bury, 0) and "c=a card" not in full
    assert state.action_to_string(bury, 1) == "bury(c=a card)"
    keep = next(a for a in state.legal_actions() if state.action_to_string(a) == "keep")
    assert state.action_to_string(keep, 1) == "a secret choice"
    state.apply_action(keep)
    assert state.observation(1)["events"][-1] == "P0: a secret choice"
    assert state.observation(0)["events"][-1] == "P0: keep"
    pick = state.legal_actions()[0]
    state.apply_action(pick)
    assert state.observation(0)["events"][-1] == "P1: k=a card"
    assert state.observation(1)["events"][-1].startswith("P1: k=") and "a card" not in state.observation(1)["events"][-1]


def test_public_decisions_are_seen_by_every_seat(tmp_path):
    game = rulekit.load(str(write_spec(tmp_path, TWIN, name="twin")))
    state = game.new_initial_state(seed=3, auto_chance=True)
    fold = next(a for a in state.legal_actions() if state.action_to_string(a) == "fold")
    state.apply_action(fold)
    for seat in (0, 1):
        assert "P0: fold" in state.information_state_string(seat)


def test_secret_marks_compile_and_a_zone_cannot_be_internal():
    model = compile_text(SECRET)
    actions = [a for c in m.walk(model.flow.body, actions=True) if isinstance(c, m.Choose) for a in c.actions]
    assert [(a.name, a.secret, sorted(a.secret_params)) for a in actions] == [
        ("bury", False, ["c"]), ("keep", True, []), ("k", False, ["k"]), ("done", False, [])]
    with pytest.raises(rulekit.SpecError, match="internal"):
        compile_text(HEADER.replace("zone table: set, public", "zone table: set, internal") + "flow { end game }")


def test_internal_variables_are_hidden_from_every_seat_and_left_out_of_the_view(tmp_path):
    text = TWIN.replace("zone table: set, public", "zone table: set, public\nvar tally: int = 0, internal")
    game = rulekit.load(str(write_spec(tmp_path, text, name="ghost")))
    state = game.new_initial_state(seed=2, auto_chance=True)
    for seat in (0, 1):
        assert "tally" not in state.observation(seat)["vars"]
        assert "tally" not in state.observation_string(seat)


def test_the_rules_in_english_leave_out_what_changes_an_internal_variable(tmp_path):
    text = TWIN.replace("zone table: set, public", "zone table: set, public\nvar tally: int = 0, internal")
    text = text.replace("action fold { win seat(1) }", "action fold { add 1 to tally  win seat(1) }")
    model = Spec.find(str(write_spec(tmp_path, text, name="ghost"))).model
    said = rules_text(model).lower()
    assert "fold" in said and "tally" not in said


def test_a_checks_file_variable_is_internal_by_default(tmp_path):
    checks = "checks tiny\nvar seen_calls: int = 0\nvar open_note: int = 0, public\n"
    spec = Spec.find(str(write_spec(tmp_path, TWIN, name="tiny", checks=checks)))
    vis = {v.name: v.visibility for v in spec.model.vars}
    assert vis == {"seen_calls": "internal", "open_note": "public"}


# ---- knowledge: every reveal of the bundled specs reaches its viewers ---------------------------

def _reveals(model: m.Game) -> list[m.Reveal]:
    bodies = [model.flow.body, *(p.body for p in model.procedures), *(t.body for t in model.triggers)]
    return [st for body in bodies for st in m.walk(body, actions=True) if isinstance(st, m.Reveal)]


def _private_looks(model: m.Game) -> list:
    """Where a seat is shown cards: reveals, and moves out of a hidden zone into one it may see."""
    vis = {z.name: z.visibility for z in model.zones}
    bodies = [model.flow.body, *(p.body for p in model.procedures), *(t.body for t in model.triggers)]
    moves = [st for body in bodies for st in m.walk(body, actions=True) if isinstance(st, m.Move)
             and vis.get(getattr(st.source, "zone", None)) == "hidden" and vis.get(getattr(st.dest, "zone", None)) != "hidden"]
    return _reveals(model) + moves


@pytest.mark.parametrize("name", ["chocobo", "chucky", "chuche", "cranky", "chicken"])
def test_every_reveal_is_seen_by_its_viewers_at_their_next_decision(name):
    """Each time the rules show hidden cards to a seat (a reveal, or a move out of a zone it cannot
    see into one it can), that seat's observation at its next decision shows them, as long as no
    card has left that zone since."""
    spec = Spec.find(name)
    if not _private_looks(spec.model):
        pytest.skip(f"{name} shows no hidden card to anyone")
    players = max(spec.model.min_players, 2)
    game = spec.engine(players, spec.model.default_options())
    names = game.layout.zone_names
    checked = 0
    for seed in range(4):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        pending: list[tuple[int, int, tuple, int]] = []  # viewer, zone, cards shown, log position
        steps = 0
        while not state.is_terminal() and state.legal and steps < 2000:
            steps += 1
            if state.chance is None:
                for look in [p for p in pending if p[0] == state.current_player()]:
                    viewer, zone, cards, at = look
                    pending.remove(look)
                    if any(e[0] == zone or e[0] == "rotate" for e in state.log[at:]):
                        continue  # a card left the zone since: what was shown may no longer be true
                    obs = state.observation(viewer)
                    shown = obs["zones"][names[zone]] if game.zone_visible(zone, viewer) \
                        else obs["known"].get(names[zone], [])
                    if "?" in shown:
                        continue  # shuffled since: the cards are there, their order is not decided
                    missing = Counter(game.kind_names[k] for k in cards) - Counter(shown)
                    assert not missing, (name, names[zone], viewer, missing)
                    checked += 1
                action = rng.choice(state.legal)
            else:
                outcomes, weights = zip(*state.chance)
                action = rng.choices(outcomes, weights)[0]
            mark = state.log_size
            state.apply_action(action)
            for i, entry in enumerate(state.log[mark:], start=mark + 1):
                if entry[0] == "reveal" and entry[2]:
                    viewers = range(players) if entry[3] == -1 else [entry[3]]
                    pending += [(v, entry[1], entry[2], i) for v in viewers]
                elif type(entry[0]) is int:
                    src, dst, kind = entry
                    pending += [(v, dst, (kind,), i) for v in range(players)
                                if not game.zone_visible(src, v) and game.zone_visible(dst, v)]
    assert checked, f"no look of {name} reached a decision of its viewer"


@pytest.mark.parametrize("name", ["chocobo", "chucky", "cranky"])
def test_knowledge_is_always_true(name):
    """What a seat is told it knows is in the zone, in every state of a random game."""
    spec = Spec.find(name)
    game = spec.engine(4, spec.model.default_options())
    rng = random.Random(5)
    state = game.new_initial_state(seed=5)
    for _ in range(400):
        if state.is_terminal() or not state.legal:
            break
        for seat in range(game.num_players()):
            for zone, cards in knowledge(game, state, seat).items():
                have = state.z[zone]
                assert all(have.count(k) >= c for k, c in cards.items()), (zone, cards, have)
        if state.chance is not None:
            outcomes, weights = zip(*state.chance)
            state.apply_action(rng.choices(outcomes, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal))


@pytest.mark.parametrize("name", ["chocobo", "cranky"])
def test_knowledge_read_step_by_step_is_the_knowledge_read_from_the_whole_log(name):
    """The memo of what a seat knows, extended at every step, agrees with a fresh read of the log; a
    caller that changes what it got changes nothing for the next call."""
    spec = Spec.find(name)
    game = spec.engine(4, spec.model.default_options())
    rng = random.Random(11)
    state = game.new_initial_state(seed=11)
    compared = 0
    for _ in range(300):
        if state.is_terminal() or not state.legal:
            break
        for seat in range(game.num_players()):
            stepped = knowledge(game, state, seat)
            for cards in stepped.values():
                cards.clear()
            stepped = knowledge(game, state, seat)
            fresh = knowledge(game, state.clone(), seat)  # a clone starts with no memo
            assert stepped == fresh
            compared += bool(fresh)
        if state.chance is not None:
            outcomes, weights = zip(*state.chance)
            state.apply_action(rng.choices(outcomes, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal))
    assert compared, "no seat knew anything about a hidden zone"


FIXED_CHOICE = "choose x in shop where weapon_up(x) or not exists(y in shop where weapon_up(y)) by current"


def test_chucky_all_weapons_leak_is_found_in_the_old_spec(tmp_path):
    """The check finds the leak the spec had: face-down weapon positions among the choices."""
    bundled = Spec.find("chucky")
    text = bundled.text.replace(FIXED_CHOICE, "choose x in shop where weapon_up(x) "
                                "or exists(c in down(x) where c.type == weapon) by current")
    assert text != bundled.text
    folder = tmp_path / "chucky"
    folder.mkdir()
    (folder / "rulebook.txt").write_text(bundled.rulebook_path.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "chucky.rules").write_text(text, encoding="utf-8")
    spec = Spec.find(str(folder / "chucky.rules"))
    leaks, _ = information.check(spec.engine(5, spec.model.default_options()), information.Bounds(games=20, comparisons=200))
    assert [x for x in leaks if (x.what, x.place) == ("legal-actions", "all_weapons")]


def test_chucky_all_weapons_reorganization_offers_only_face_up_weapons():
    """Regression: offering face-down weapon positions told the players where a hidden weapon lay."""
    spec = Spec.find("chucky")
    assert FIXED_CHOICE in spec.text
    bounds = information.Bounds(games=20, comparisons=200)
    for players, options in ((5, {}), (3, {"miniature_odds": "one_in_twelve"}), (2, {"peek_near_cap": "not_allowed"})):
        engine = spec.engine(players, {**spec.model.default_options(), **options})
        leaks, compared = information.check(engine, bounds)
        assert compared and not [x for x in leaks if x.place == "all_weapons"], leaks


def test_cranky_asks_every_player_who_might_answer_an_attack():
    """Regression: asking only the holders of a Kak! told the table who held one."""
    spec = Spec.find("cranky")
    engine = spec.engine(5, spec.model.default_options())
    leaks, compared = information.check(engine, information.Bounds(games=8, comparisons=80))
    assert compared and not [x for x in leaks if x.place == "resolve_attack"], leaks


def test_play_shows_no_other_players_secret_choice(tmp_path):
    path = write_spec(tmp_path, SECRET, name="secret")
    out = subprocess.run([sys.executable, "-m", "rulekit", "play", str(path), "--seat", "1", "--seed", "4"],
                         input="1\n1\n1\n", capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "P0: a secret choice" in out.stdout or "P0: bury(c=a card)" in out.stdout
    assert "P0: keep" not in out.stdout and "P0: bury(c=Ace)" not in out.stdout and "P0: bury(c=King)" not in out.stdout


# Chance alone keeps this game going for ever: no decision is ever asked for.
DICE_FOREVER = HEADER + '''
flow {
  for p in players { random c in box  move c from box to hand(p) }
  loop { random face in 1..6  if face == 7 { end game } }
}
'''


def test_a_game_that_chance_alone_keeps_going_is_cut_not_followed_for_ever(tmp_path):
    found = _check(tmp_path, DICE_FOREVER, "dice")
    assert [f.id for f in found] == ["tiny/information-flow"], [f.message for f in found]


def test_an_expect_of_one_leak_is_a_note_when_the_sample_met_other_leaks_but_not_it(tmp_path):
    checks = ('checks tiny\nexpect ends_tell "information-flow/game-over" because "The end shows the Ace."\n'
              '  quote "The player with the Ace wins."\n')
    bounds = PlayBounds(games=5, variant_games=1, shrink=False, time_limit=0.5, explore_budget=0.5,
                        symbolic_time_limit=0.5)
    report = check_spec(Spec.find(str(write_spec(tmp_path, LEAKY, name="tiny", checks=checks))), bounds)
    assert any(f.kind == "information-flow" and "/legal-actions/" in f.id for f in report.findings)
    [note] = [f for f in report.findings if f.kind == "stale-expect"]
    assert note.severity == "info" and "other information-flow findings" in note.message, note.message
