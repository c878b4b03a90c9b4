"""Stage 2, syntax tree -> model: every resolver error code, error collection, hints, and the model's values."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from rulekit import Spec, SpecError
from rulekit import model as m
from rulekit.parse import parse
from rulekit.resolve import resolve

ROOT = Path(__file__).resolve().parent.parent
CHOCOBO = ROOT / "specs" / "chocobo" / "chocobo.rules"

# Three lines every small spec starts with; line 4 is the first line after it.
HEADER = 'game g "G"\nrulebook "r.txt" source "s"\nplayers 2 to 4\n'
FLOW = "flow { end game }\n"
AMBIGUITY = 'quote "q" question "?" option a "A" option b "B"'


def compile_text(text: str, checks: str | None = None) -> m.Game:
    """Parse and resolve `text` as t.rules (and `checks` as t.checks)."""
    checks_tree = parse(checks, "t.checks") if checks is not None else None
    return resolve(parse(text, "t.rules"), "t.rules", text, checks_tree, {"t.checks": checks} if checks else None)


def errors(text: str, checks: str | None = None) -> SpecError:
    with pytest.raises(SpecError) as info:
        compile_text(text, checks)
    return info.value


def where(err: SpecError) -> list[tuple[str, int, int]]:
    return [(d.code, d.span.line, d.span.column) for d in err.diagnostics]


# ---- one or more specs per resolver code -------------------------------------------------
# (text, code, line, column): the first diagnostic must be this one.

CASES = [
    # E200 duplicate declaration
    pytest.param(HEADER + FLOW + "fact a = 1\nfact a = 2\n", "E200", 6, 6, id="E200-fact-twice"),
    pytest.param(HEADER + FLOW + "flow {\n  end game\n}\n", "E200", 5, 1, id="E200-flow-twice"),
    pytest.param(HEADER + FLOW + "enum Colour { red, green, red }\n", "E200", 5, 1, id="E200-enum-member-twice"),
    pytest.param(HEADER + FLOW + "fact current = 1\n", "E200", 5, 6, id="E200-builtin-name"),
    pytest.param(HEADER + "flow {\n  choose by current {\n    action go { end turn }\n    action go { end game }\n  }\n}\n",
                 "E200", 7, 12, id="E200-action-twice"),
    # E201 unknown name
    pytest.param(HEADER + "fact hand_size = 3\nflow {\n  if hand_sise > 2 { end game }\n}\n", "E201", 6, 6,
                 id="E201-name"),
    pytest.param(HEADER + FLOW + "var v: colour = 1\n", "E201", 5, 8, id="E201-type"),
    pytest.param(HEADER + "flow {\n  do nope\n}\n", "E201", 5, 6, id="E201-procedure"),
    pytest.param(HEADER + FLOW + "ambiguity amb { " + AMBIGUITY + ' default a because "r" }\nclaim c: amb is c\n',
                 "E201", 6, 17, id="E201-option"),
    pytest.param(HEADER + FLOW + "ambiguity amb { " + AMBIGUITY + ' default c because "r" }\n', "E201", 5, 74,
                 id="E201-default-option"),
    # E202 type mismatch
    pytest.param(HEADER + "var n: int 0..5 = 0\nflow {\n  set n = true\n}\n", "E202", 6, 11, id="E202-assign"),
    pytest.param(HEADER + "flow {\n  if 1 { end game }\n}\n", "E202", 5, 6, id="E202-condition"),
    pytest.param(HEADER + FLOW + "fact a = 1\nfact b = a(2)\n", "E202", 6, 10, id="E202-call-a-fact"),
    pytest.param(HEADER + FLOW + "claim c: 1 + 2\n", "E202", 5, 10, id="E202-claim-not-bool"),
    # E203 wrong number of arguments
    pytest.param(HEADER + "procedure p(x: int) { end turn }\nflow {\n  do p(1, 2)\n}\n", "E203", 6, 3,
                 id="E203-procedure"),
    pytest.param(HEADER + FLOW + "fact a = min(1)\n", "E203", 5, 10, id="E203-builtin"),
    pytest.param(HEADER + FLOW + "var score per player: int 0..9 = 0\nclaim c: score > 1\n", "E203", 6, 10,
                 id="E203-per-player-without-player"),
    # E204 misplaced statement (or state used where none exists)
    pytest.param(HEADER + "flow {\n  break\n}\n", "E204", 5, 3, id="E204-break-outside-loop"),
    pytest.param(HEADER + FLOW + "var n: int 0..9 = 0\nfact a = n\n", "E204", 6, 10, id="E204-state-in-fact"),
    pytest.param(HEADER + FLOW + "fact a = current\n", "E204", 5, 10, id="E204-current-in-fact"),
    # E205 bad ambiguity declaration
    pytest.param(HEADER + FLOW + 'ambiguity amb { quote "q" question "?" option a "A" default a because "r" }\n',
                 "E205", 5, 1, id="E205-one-option"),
    pytest.param(HEADER + FLOW + "ambiguity amb {\n  kind vague\n  " + AMBIGUITY + ' default a because "r"\n}\n',
                 "E205", 6, 8, id="E205-kind"),
    pytest.param(HEADER + FLOW + 'ambiguity amb { quote "q" option a "A" option b "B" default a because "r" }\n',
                 "E205", 5, 1, id="E205-no-question"),
    # E206 missing or bad game header
    pytest.param(HEADER, "E206", 1, 1, id="E206-no-flow"),
    pytest.param('rulebook "r.txt" source "s"\nplayers 2 to 4\n' + FLOW, "E206", 1, 1, id="E206-no-game"),
    # E207 bad value
    pytest.param('game g "G"\nrulebook "r.txt" source "s"\nplayers 3 to 2\n' + FLOW, "E207", 3, 1,
                 id="E207-player-range"),
    pytest.param(HEADER + FLOW + "zone a: set, public, initial\nzone b: stack, hidden, initial\n", "E207", 5, 1,
                 id="E207-two-initial-zones"),
    pytest.param(HEADER + FLOW + "zone a per player: set, public, initial\n", "E207", 5, 1,
                 id="E207-initial-per-player"),
    pytest.param(HEADER + FLOW + "card C x 1 { worth = 1 + 2 }\nzone box: set, public, initial\n", "E207", 5, 22,
                 id="E207-attribute-value"),
]


@pytest.mark.parametrize("text, code, line, column", CASES)
def test_resolver_error(text, code, line, column):
    err = errors(text)
    first = err.diagnostics[0]
    assert (first.code, first.span.line, first.span.column) == (code, line, column), err.render()
    assert first.span.file == "t.rules"
    assert err.render().splitlines()[0].startswith(f"t.rules:{line}:{column}: {code} ")


def test_every_resolver_code_is_covered():
    covered = {p.values[1] for p in CASES}
    assert covered == {f"E20{i}" for i in range(8)}


def test_checks_file_for_another_game():
    err = errors(HEADER + FLOW, checks="# about another game\nchecks other\n")
    (diag,) = err.diagnostics
    assert (diag.code, diag.span.file, diag.span.line, diag.span.column) == ("E206", "t.checks", 2, 8)
    assert "checks other" in err.render()  # the source line comes from the checks text


def test_checks_file_without_header():
    err = errors(HEADER + FLOW, checks="invariant ok: true\n")
    assert [d.code for d in err.diagnostics] == ["E206"]
    assert err.diagnostics[0].span.file == "t.checks"


def test_checks_file_names_are_resolved():
    game = compile_text(HEADER + FLOW + "var n: int 0..3 = 0\n", checks="checks g\ninvariant small: n <= 3\n")
    (prop,) = game.properties
    assert (prop.kind, prop.name) == ("invariant", "small")
    err = errors(HEADER + FLOW, checks="checks g\ninvariant small: nn <= 3\n")
    assert where(err) == [("E201", 2, 18)]


# ---- several errors at once --------------------------------------------------------------

def test_all_errors_are_reported_in_source_order():
    text = HEADER + (
        "procedure p {\n"          # 4
        "  set zz = 1\n"           # 5: E201 unknown variable
        "  break\n"                # 6: E204
        "}\n"                      # 7
        "flow {\n"                 # 8
        "  do nope\n"              # 9: E201 unknown procedure
        "  do p(1)\n"              # 10: E203
        "}\n"                      # 11
        "fact q = foo\n"           # 12: E201 (facts are resolved before procedures)
        "var v: colour = 1\n"      # 13: E201 unknown type
        "fact q = 2\n"             # 14: E200
    )
    err = errors(text)
    assert where(err) == [
        ("E201", 5, 7), ("E204", 6, 3), ("E201", 9, 6), ("E203", 10, 3),
        ("E201", 12, 10), ("E201", 13, 8), ("E200", 14, 6),
    ]
    rendered = err.render()
    assert rendered.count("t.rules:") == 7
    assert rendered.index("t.rules:5:7") < rendered.index("t.rules:12:10") < rendered.index("t.rules:14:6")


def test_header_errors_are_all_reported():
    err = errors('players 2 to 4\nplayers 3 to 4\n')
    codes = [d.code for d in err.diagnostics]
    assert codes.count("E206") == 3  # no game, no rulebook, no flow
    assert ("E200", 2, 1) in where(err)


# ---- did you mean ------------------------------------------------------------------------

@pytest.mark.parametrize("text, hint", [
    pytest.param(HEADER + "fact hand_size = 3\nflow {\n  if hand_sise > 2 { end game }\n}\n",
                 "did you mean 'hand_size'?", id="fact"),
    pytest.param(HEADER + "var rounds_won per player: int 0..2 = 0\nflow {\n  add 1 to round_won(current)\n}\n",
                 "did you mean 'rounds_won'?", id="variable"),
    pytest.param(HEADER + "procedure deal_cards { end turn }\nflow {\n  do deal_card\n}\n",
                 "did you mean 'deal_cards'?", id="procedure"),
    pytest.param(HEADER + FLOW + "enum Colour { red, blue }\nvar c: Color = red\n",
                 "did you mean 'Colour'?", id="type"),
    pytest.param(HEADER + FLOW + "ambiguity timing { " + AMBIGUITY.replace("option a", "option early")
                 + ' default early because "r" }\nclaim c: timing is erly\n', "did you mean 'early'?", id="option"),
])
def test_did_you_mean(text, hint):
    err = errors(text)
    diag = err.diagnostics[0]
    assert diag.code == "E201"
    assert diag.hint == hint
    assert err.render().splitlines()[3] == f"  hint: {hint}"


def test_no_hint_when_nothing_is_close():
    err = errors(HEADER + "fact hand_size = 3\nflow {\n  if zzzzzz > 2 { end game }\n}\n")
    assert err.diagnostics[0].hint is None
    assert "hint:" not in err.render()


@pytest.mark.parametrize("decl", ["enum E { a, b }", "procedure E { end turn }", "token E x 3"])
def test_wrong_kind_of_name_is_not_called_unknown(decl):
    err = errors(HEADER + FLOW + decl + "\nfact x = E\n")
    (diag,) = err.diagnostics
    assert diag.hint != "did you mean 'E'?"


# ---- a correct spec and its model ------------------------------------------------------------

SMALL = HEADER + """order counterclockwise
payoff win 2 lose -2

enum Suit { hearts, spades }
card Ace x 2 { suit = hearts, rank = 1 }
card King x 2 { suit = spades, rank = limit }
fact limit = 13
zone box: set, public, initial
zone deck: stack, hidden
zone hand per player: set, owner
var score per player: int 0..limit = 0

define points(p: player): int = sum(c in hand(p): c.rank)

procedure deal {
  move all from box to deck
  shuffle deck
  for p in players { move top from deck to hand(p) }
}

flow {
  do deal
  turns from current {
    choose by current {
      action draw when size(deck) > 0 "Draw a card" { move top from deck to hand(current) }
      action stop { end turn }
    }
    add points(current) to score(current)
    if score(current) >= limit { win current end game }
  }
}
"""

# The same spec with other whitespace, comments and line breaks.
SMALL_REFORMATTED = "# the same game, laid out differently\n" + "\n\n".join(
    "   " + line.replace(" {", "  {  # opens\n\t") + "\t# a comment" if line.strip() else "#" for line in SMALL.splitlines()
) + "\n"


def test_small_spec_compiles():
    game = compile_text(SMALL)
    assert (game.name, game.title, game.min_players, game.max_players) == ("g", "G", 2, 4)
    assert game.order == "counterclockwise" and game.payoff == (2, -2)
    assert [c.name for c in game.components] == ["Ace", "King"]
    assert [z.name for z in game.zones] == ["box", "deck", "hand"]
    assert [p.name for p in game.procedures] == ["deal"]
    assert game.choice_points == 1
    assert [a.name for a in game.flow.body[1].body[0].actions] == ["draw", "stop"]


def test_model_is_immutable():
    game = compile_text(SMALL)
    for obj, attr, value in [
        (game, "name", "other"),
        (game.zones[0], "initial", False),
        (game.components[0], "count", m.Const(9, m.INT)),
        (game.vars[0], "init", None),
        (game.flow, "body", ()),
        (game.flow.body[0], "procedure", "x"),
        (m.INT, "kind", "bool"),
    ]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, attr, value)


def test_model_holds_no_mutable_containers():
    def check(value, path):
        assert not isinstance(value, (list, dict, set)), path
        if dataclasses.is_dataclass(value):
            assert type(value).__dataclass_params__.frozen, path
            for f in dataclasses.fields(value):
                check(getattr(value, f.name), f"{path}.{f.name}")
        elif isinstance(value, tuple):
            for i, v in enumerate(value):
                check(v, f"{path}[{i}]")

    check(compile_text(SMALL), "game")
    check(Spec(CHOCOBO, text=CHOCOBO.read_text(encoding="utf-8"), display_path="chocobo.rules").model, "chocobo")


def test_equality_ignores_spans_whitespace_and_comments():
    a = compile_text(SMALL)
    b = resolve(parse(SMALL_REFORMATTED, "elsewhere.rules"), "elsewhere.rules", SMALL_REFORMATTED)
    assert a.zones[0].span != b.zones[0].span  # the layout really differs ...
    assert a.zones[0].span.file != b.zones[0].span.file
    assert a == b  # ... and the models are equal
    assert hash(a.flow) == hash(b.flow)


def test_equality_sees_real_changes():
    a = compile_text(SMALL)
    assert a != compile_text(SMALL.replace("limit = 13", "limit = 12"))
    assert a != compile_text(SMALL.replace("shuffle deck\n", ""))
    assert a != compile_text(SMALL.replace("action stop", "action pass"))


def test_chocobo_model_equal_after_reformatting():
    text = CHOCOBO.read_text(encoding="utf-8")
    reformatted = "\n".join("  " + line + "   # reformatted" for line in text.splitlines()) + "\n\n# the end\n"
    a = Spec(CHOCOBO, text=text).model
    b = Spec(CHOCOBO, text=reformatted, display_path="reformatted.rules").model
    assert a.flow.span != b.flow.span
    assert a == b
