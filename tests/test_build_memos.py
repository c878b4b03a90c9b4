"""What builds of one spec share (the folding of unchanging nodes, the compiled functions) changes nothing
in what a build is."""
from __future__ import annotations

import pytest

import rulekit
from rulekit import model as m
from rulekit.checking.variants import option_sets
from rulekit.engine import pycode
from rulekit.errors import DiagnosticSink, RuleRuntimeError
from rulekit.lower import fold
from rulekit.pipeline import Spec

from helpers import TINY_SPEC, write_spec

GAMES = ["chicken", "chocobo", "chuche", "chucky", "cranky"]


def _folded(model, players, options, settled=frozenset()):
    sink = DiagnosticSink("", "")
    folded = fold.fold_facts(model, players, {**model.default_options(), **options}, sink, settled).expr(model)
    return folded, [(d.code, d.message) for d in sink.diagnostics]


@pytest.mark.parametrize("name", GAMES)
def test_folding_that_passes_settled_nodes_by_folds_every_configuration_alike(name):
    model = Spec.find(name).model
    settled = fold.settled_nodes(model)
    assert settled, "a real spec has nodes that no configuration changes"
    configurations = [(model.min_players, options) for options in option_sets(model)]
    configurations += [(players, {}) for players in (None, *range(model.min_players, model.max_players + 1))]
    for players, options in configurations:
        assert _folded(model, players, options, settled) == _folded(model, players, options), (players, options)


def test_what_a_configuration_gives_a_value_is_never_settled(tmp_path):
    text = TINY_SPEC.replace("var drawn", 'fact hand_size = 1 + player_count\n'
                             'ambiguity deal "How many?" {\n  quote "Each player draws one card."\n  question "One or two?"\n'
                             '  option one "One."\n  option two "Two."\n  default one because "It says one."\n}\nvar drawn')
    text = text.replace("add 1 to drawn", "add hand_size to drawn\n    if deal is two { add 1 to drawn }")
    model = Spec(write_spec(tmp_path, text)).model
    settled = fold.settled_nodes(model)
    nodes, stack = [], [model]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
        elif m.is_node(node) and not isinstance(node, m.Type):
            nodes.append(node)
            stack.extend(m.children(node))
    varying = [n for n in nodes if isinstance(n, (m.FactRef, m.OptionIs))
               or (isinstance(n, m.Builtin) and n.name == "player_count")]
    assert varying and not any(id(n) in settled for n in varying)
    assert id(model) not in settled  # it holds them
    assert any(id(n) in settled for n in nodes)


def test_a_module_runs_as_one_compile_would_run_it():
    source = "A = 2\ndef f(x):\n    return x * A\n\nB = (1,\n2)\nclass C:\n    y = f(3)\n"
    mine, theirs = {}, {}
    pycode.run(source, "<test>", mine)
    exec(compile(source, "<test>", "exec"), theirs)  # noqa: S102
    assert mine["B"] == theirs["B"] == (1, 2)
    assert mine["C"].y == theirs["C"].y == 6
    assert mine["f"](5) == 10


def test_two_modules_share_the_code_of_the_functions_they_both_have():
    first, second = {}, {}
    pycode.run("def f(x):\n    return x + K\nK = 1\n", "<one>", first)
    pycode.run("def f(x):\n    return x + K\nK = 2\n", "<two>", second)
    assert first["f"].__code__ is second["f"].__code__
    assert (first["f"](1), second["f"](1)) == (2, 3)  # each runs in its own namespace


def test_a_syntax_error_is_the_whole_modules():
    with pytest.raises(SyntaxError):
        pycode.run("def f(:\n    pass\n", "<bad>", {})


def test_a_spec_nested_deeper_than_python_allows_is_a_rule_error(tmp_path):
    depth = 25  # Python allows 20 nested blocks in one function
    body = "".join(f"for p{i} in players {{ " for i in range(depth)) + "add 1 to drawn " + "} " * depth
    text = TINY_SPEC.replace("  for p in players { if exists", "  " + body + "\n  for p in players { if exists")
    path = write_spec(tmp_path, text.replace("var drawn: int 0..3", "var drawn: int 0..100000000"))
    with pytest.raises(RuleRuntimeError, match="too deeply nested"):
        rulekit.load(str(path))
