"""The lowering stage: one core IR per configuration, validated, cached, read by every backend."""
from __future__ import annotations

import dataclasses
import pickle

import pytest

import rulekit
from rulekit import model as m
from rulekit.errors import (IllegalActionError, InternalError, RuleRuntimeError, SpecError, Unsupported,
                            WitnessError)
from rulekit.lower import core, every_count, instantiate
from rulekit.pipeline import Spec
from tests.helpers import load_text, write_spec

BASE = """
game low "Lowering"
rulebook "rulebook.txt" source "low.txt"
players 2 to 4
order clockwise
payoff win 1 lose -1
FACTS
card Gem x gems
zone bag: set, public, initial
zone hand per player: set, owner
var score per player: int 0..10 = 0
flow {
  for p in players { move all from bag to hand(p) }
  win seat(0)
  end game
}
"""


def spec_text(facts: str) -> str:
    return BASE.replace("FACTS", facts)


def compile_error(tmp_path, facts: str, players: int = 2) -> SpecError:
    with pytest.raises(SpecError) as err:
        rulekit.load(str(write_spec(tmp_path, spec_text(facts))), players=players)
    return err.value


def test_a_fact_defined_in_terms_of_itself_is_a_spec_error_with_a_caret(tmp_path):
    err = compile_error(tmp_path, "fact gems = more + 1\nfact more = gems * 2")
    first = err.diagnostics[0]
    assert first.code == "E210" and "gems -> more -> gems" in first.message
    assert first.span.line == 7 and "^" in err.render() and "fact gems = more + 1" in err.render()


def test_a_number_needed_before_play_that_reads_the_state_is_a_spec_error(tmp_path):
    text = spec_text("fact gems = 3").replace("card Gem x gems", "card Gem x size(bag)")
    with pytest.raises(SpecError) as err:
        rulekit.load(str(write_spec(tmp_path, text)), players=2)
    assert err.value.diagnostics[0].code in ("E204", "E211")


def test_a_negative_count_for_one_player_count_is_a_spec_error_of_that_configuration(tmp_path):
    path = write_spec(tmp_path, spec_text("fact gems = 3 - player_count"))
    assert rulekit.load(str(path), players=2).component_counts == {"Gem": 1}
    with pytest.raises(SpecError) as err:
        rulekit.load(str(path), players=4)
    assert err.value.diagnostics[0].code == "E214" and "-1 copies with 4 players" in err.value.render()


def test_facts_options_and_the_player_count_are_folded_and_builtins_are_typed():
    spec = Spec.find("chucky")
    config = spec.config(3)
    assert config.facts["fear_tokens"] == 25 and config.supplies and config.layout.players == 3
    seen = set()

    def walk(node):
        if isinstance(node, tuple):
            for x in node:
                walk(x)
            return
        if not dataclasses.is_dataclass(node) or isinstance(node, m.Type):
            return
        seen.add(type(node))
        for f in dataclasses.fields(node):
            if f.compare:
                walk(getattr(node, f.name))

    walk(config.game)
    assert not seen & {m.FactRef, m.OptionIs, m.Builtin, m.Iter, m.Selector}
    assert {core.Current, core.Held, core.CardsIn, core.Seats} <= seen


def test_every_count_keeps_the_player_count_symbolic():
    game = every_count(Spec.find("chuche").model, {})
    texts = repr(game)
    assert "PlayerCount" in texts and "FactRef" not in texts and "OptionIs" not in texts


def test_one_configuration_is_lowered_and_compiled_once():
    spec = Spec.find("chocobo")
    assert spec.config(4) is spec.config(4, {}) is spec.config(4, spec.model.default_options())
    assert rulekit.load("chocobo", players=4) is spec.engine(4)
    assert spec.config(4) is not spec.config(3)


def test_bad_configurations_are_option_errors():
    with pytest.raises(rulekit.OptionError, match="3 to 5 players"):
        Spec.find("chocobo").config(9)
    with pytest.raises(rulekit.OptionError, match="did you mean"):
        Spec.find("chocobo").config(3, {"six_of_any_typ": "mixed"})


def test_the_engine_publishes_its_layout_and_action_numbering():
    game = rulekit.load("chocobo", players=3)
    assert game.layout is game.config.layout and game.action_table is game.config.actions
    point, index, combo, _ = game.action_table[game.new_initial_state(seed=1, auto_chance=True).legal_actions()[0]]
    assert point in game.choices and 0 <= index < len(game.choices[point].actions)


def test_instantiate_completes_the_options_with_the_defaults():
    model = Spec.find("chocobo").model
    assert dict(instantiate(model, 3, {}).options) == model.default_options()


@pytest.mark.parametrize("error", [
    SpecError([]),
    RuleRuntimeError("no card", None),
    IllegalActionError(7, [1, 2], str),
    Unsupported("a board at x.rules:1:1"),
    WitnessError("the witness does not replay"),
    InternalError("two semantics disagree"),
])
def test_every_error_pickles_with_its_message_and_fields(error):
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error) and str(again) == str(error) and again.__dict__ == error.__dict__


def test_a_real_spec_error_pickles_with_its_diagnostics(tmp_path):
    err = compile_error(tmp_path, "fact gems = gems")
    again = pickle.loads(pickle.dumps(err))
    assert again.render() == err.render() and again.diagnostics[0].code == "E210"


def test_unsupported_is_a_user_facing_error_and_a_bug_is_not():
    assert issubclass(Unsupported, rulekit.RulekitError)
    assert not issubclass(InternalError, rulekit.RulekitError) and issubclass(WitnessError, InternalError)


def test_an_aggregate_in_a_lowered_fact_of_a_spec_compiles(tmp_path):
    game = load_text(tmp_path, spec_text("fact gems = max(2, player_count)"), players=3)
    assert game.component_counts == {"Gem": 3}


@pytest.mark.parametrize("name,players", [("chocobo", 3), ("cranky", 5)])
def test_an_ids_owner_is_its_decoded_choice_point_and_action(name, players):
    table = rulekit.load(name, players=players).action_table
    assert [table.owner(a) for a in range(len(table))] == [table[a][:2] for a in range(len(table))]
    for outside in (-1, len(table)):
        with pytest.raises(IndexError):
            table.owner(outside)
