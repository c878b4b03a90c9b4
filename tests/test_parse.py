"""Stage 1, text -> syntax tree: spans on the real Chocobo spec, and friendly syntax errors."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulekit import SpecError
from rulekit.errors import Span
from rulekit.parse import SYNTAX_EXAMPLES, parse
from rulekit.syntax import Name, Node, Quote, Text

ROOT = Path(__file__).resolve().parent.parent
CHOCOBO = ROOT / "specs" / "chocobo" / "chocobo.rules"
CHOCOBO_CHECKS = ROOT / "checks" / "chocobo.checks"
SHOWN = "specs/chocobo/chocobo.rules"

# The word a declaration starts with, by syntax-node kind.
LEADING_WORD = {
    "game": "game", "rulebook": "rulebook", "players": "players", "order": "order", "payoff": "payoff",
    "unmodelled": "unmodelled", "enum": "enum", "fact": "fact", "claim": "claim", "token": "token",
    "zone": "zone", "var": "var", "define": "define", "procedure": "procedure", "flow": "flow",
    "ambiguity": "ambiguity", "checks": "checks", "invariant": "invariant", "reachable": "reachable",
    "expect": "expect",
}


# ---- helpers ---------------------------------------------------------------------------

def walk(value, parent=None, field=None):
    """Yield (item, parent node, field name) for every Node, Name, Quote and Text below `value`."""
    if isinstance(value, (Node, Name, Quote, Text)):
        yield value, parent, field
    if isinstance(value, Node):
        for name, child in value.fields.items():
            yield from walk(child, value, name)
    elif isinstance(value, (list, tuple)):
        for child in value:
            yield from walk(child, parent, field)


def locate(text: str, needle: str, start: int = 0) -> tuple[int, int]:
    """1-based (line, column) of the first occurrence of `needle` at or after offset `start`."""
    offset = text.index(needle, start)
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def source(text: str, span: Span) -> str:
    """The source text a span covers."""
    lines = text.splitlines(keepends=True)
    start = sum(len(x) for x in lines[: span.line - 1]) + span.column - 1
    end = sum(len(x) for x in lines[: span.end_line - 1]) + span.end_column - 1
    return text[start:end]


@pytest.fixture(scope="module")
def chocobo_text() -> str:
    return CHOCOBO.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def chocobo(chocobo_text) -> Node:
    return parse(chocobo_text, SHOWN)


def item(tree: Node, kind: str, name: str | None = None) -> Node:
    for i in tree.items:
        if i.kind == kind and (name is None or i.name.text == name):
            return i
    raise AssertionError(f"no {kind} {name or ''} in the spec")


def find_nodes(tree, kind: str) -> list[Node]:
    return [n for n, _, _ in walk(tree) if isinstance(n, Node) and n.kind == kind]


# ---- the real spec ---------------------------------------------------------------------

def test_chocobo_parses_to_a_spec_node(chocobo):
    assert chocobo.kind == "spec"
    kinds = {i.kind for i in chocobo.items}
    assert {"game", "rulebook", "players", "flow", "enum", "component", "zone", "procedure"} <= kinds


def test_every_node_has_a_span(chocobo):
    seen = 0
    for node, _, _ in walk(chocobo):
        seen += 1
        span = node.span
        assert isinstance(span, Span), node
        assert span.file == SHOWN
        assert span.line >= 1 and span.column >= 1
        # a real range, not the (1, 1, 1, 1) placeholder: line 1 of the spec is a comment
        assert (span.end_line, span.end_column) > (span.line, span.column), (node, span)
    assert seen > 1000


def test_declarations_start_at_their_keyword(chocobo, chocobo_text):
    lines = chocobo_text.splitlines()
    for decl in chocobo.items:
        at = lines[decl.span.line - 1][decl.span.column - 1:]
        word = decl.category if decl.kind == "component" else LEADING_WORD[decl.kind]
        assert re.match(rf"{word}\b", at), (decl.kind, decl.span, at)


def test_names_cover_exactly_their_text(chocobo, chocobo_text):
    names = [n for n, _, _ in walk(chocobo) if isinstance(n, Name)]
    assert len(names) > 300
    for name in names:
        assert source(chocobo_text, name.span) == name.text, name


def test_string_spans_include_the_quotes(chocobo, chocobo_text):
    for value, _, _ in walk(chocobo):
        if isinstance(value, (Quote, Text)):
            covered = source(chocobo_text, value.span)
            assert covered.startswith('"') and covered.endswith('"'), value


def test_child_spans_lie_inside_their_parent(chocobo):
    def bounds(span):
        return (span.line, span.column), (span.end_line, span.end_column)

    for value, parent, field in walk(chocobo):
        if parent is None or field == "quotes":
            continue  # a statement's trailing quotes follow the statement itself
        (start, end), (pstart, pend) = bounds(value.span), bounds(parent.span)
        assert pstart <= start and end <= pend, (parent.kind, field, value)


def test_header_spans(chocobo, chocobo_text):
    game = item(chocobo, "game")
    assert (game.span.line, game.span.column) == locate(chocobo_text, "game chocobo")
    assert (game.name.span.line, game.name.span.column) == locate(chocobo_text, "chocobo \"")
    assert game.title == "Chocobo's Crystal Hunt"

    players = item(chocobo, "players")
    assert (players.span.line, players.span.column) == locate(chocobo_text, "players 3 to 5")
    quote_line, _ = locate(chocobo_text, 'quote "Players: 3 to 5')
    assert players.span.end_line == quote_line  # the declaration runs to the end of its quote
    assert players.quotes[0].span.line == quote_line


def test_declaration_spans(chocobo, chocobo_text):
    for kind, name, needle in [
        ("enum", "Element", "enum Element"),
        ("component", "FatChocobo", "card FatChocobo"),
        ("component", "ChocoboMarker", "piece ChocoboMarker"),
        ("token", "Victory", "token Victory"),
        ("zone", "hand", "zone hand per player"),
        ("var", "first_turn", "var first_turn"),
        ("define", "six_crystals", "define six_crystals"),
        ("ambiguity", "bomb_timing", "ambiguity bomb_timing"),
        ("procedure", "hunt", "procedure hunt("),
    ]:
        decl = item(chocobo, kind, name)
        assert (decl.span.line, decl.span.column) == locate(chocobo_text, needle), (kind, name)
        assert source(chocobo_text, decl.name.span) == name

    # a multi-line define ends where its last clause (here its phrase) ends
    define = item(chocobo, "define", "one_of_each")
    end_line, _ = locate(chocobo_text, 'phrase "{p} holds one Crystal card of each type"')
    assert define.span.end_line == end_line
    assert source(chocobo_text, define.phrase.span) == '"{p} holds one Crystal card of each type"'


def test_statement_and_expression_spans(chocobo, chocobo_text):
    hunt = item(chocobo, "procedure", "hunt")
    first = hunt.body[0]
    assert first.kind == "move"
    assert (first.span.line, first.span.column) == locate(chocobo_text, "move h from hand(current) to hunting")
    assert source(chocobo_text, first.span) == "move h from hand(current) to hunting"
    assert source(chocobo_text, first.source.span) == "hand(current)"

    rnd = hunt.body[1]
    assert rnd.kind == "random"
    assert source(chocobo_text, rnd.span) == "random x in hand(t)"
    assert rnd.quotes and rnd.quotes[0].span.line == rnd.span.line + 1

    claim = item(chocobo, "claim", "one_marker_per_seat")
    assert source(chocobo_text, claim.expr.span) == "player_markers >= 5"
    assert claim.expr.kind == "binop" and claim.expr.op == ">="
    assert source(chocobo_text, claim.expr.right.span) == "5"

    flow = item(chocobo, "flow")
    (action,) = [a for a in find_nodes(flow, "action") if a.name.text == "hunt"]
    assert (action.span.line, action.span.column) == locate(chocobo_text, "action hunt(")
    assert action.label == "Hunt with a Chocobo or Fat Chocobo card."
    (do,) = [s for s in action.body if s.kind == "do"]
    assert source(chocobo_text, do.span) == "do hunt(h, t)"

    ifs = find_nodes(item(chocobo, "procedure", "return_hunter"), "if")
    start = chocobo_text.index("procedure return_hunter")
    assert (ifs[0].span.line, ifs[0].span.column) == locate(chocobo_text, "if h == FatChocobo or", start)
    assert source(chocobo_text, ifs[0].branches[0][0].span) == "h == FatChocobo or monster_with_chocobo is keep"


def test_checks_file_spans():
    text = CHOCOBO_CHECKS.read_text(encoding="utf-8")
    tree = parse(text, "checks/chocobo.checks")
    header = item(tree, "checks")
    assert (header.span.line, header.span.column) == locate(text, "checks chocobo")
    inv = item(tree, "invariant", "hands_not_negative")
    assert (inv.span.line, inv.span.column) == locate(text, "invariant hands_not_negative")
    assert source(text, inv.expr.span) == "forall(p in players: size(hand(p)) >= 0)"
    for node, _, _ in walk(tree):
        assert node.span.file == "checks/chocobo.checks"


def test_string_escapes_are_decoded():
    tree = parse('fact a = 1 quote "say \\"hi\\"\\tnow"', "t.rules")
    assert tree.items[0].quotes[0].text == 'say "hi"\tnow'


def test_a_single_player_count_needs_no_range():
    one, both = (parse(text + ' quote "For two."', "t.rules").items[0] for text in ("players 2", "players 2 to 2"))
    assert (one.low, one.high, [q.text for q in one.quotes]) == (both.low, both.high, ["For two."])
    assert (one.low, one.high) == (2, 2)


def test_a_choice_takes_its_quotes_before_its_actions_or_after_them():
    # as `turns`, `rule` and `action` do, a `choose` may name its quotes before its block
    body = 'action pass "Pass." { }'
    before, after = (parse(f"flow {{ {text} }}", "t.rules").items[0].body[0] for text in (
        f'choose by current quote "On your turn, pass." {{ {body} }}',
        f'choose by current {{ {body} }} quote "On your turn, pass."'))
    assert before.kind == after.kind == "choose"
    assert [q.text for q in before.quotes] == [q.text for q in after.quotes] == ["On your turn, pass."]
    assert [a.name.text for a in before.actions] == [a.name.text for a in after.actions] == ["pass"]


# ---- syntax errors -------------------------------------------------------------------------
# (text, code, line, column): none of these is one of SYNTAX_EXAMPLES' own samples.

MALFORMED = [
    # E101: anything without a friendlier explanation
    pytest.param("fact a = 1 $", "E101", 1, 12, id="E101-bad-character"),
    pytest.param("\tfact\ta = 1 ^", "E101", 1, 13, id="E101-bad-character-after-tabs"),
    pytest.param("fact = 2", "E101", 1, 6, id="E101-missing-name"),
    pytest.param("flow {\n  move top from deck\n}\n", "E101", 3, 1, id="E101-move-without-to"),
    pytest.param('fact a = "abc', "E101", 1, 10, id="E101-unterminated-string"),
    pytest.param("fact a = 1\n\nfact b = 2 3", "E101", 3, 12, id="E101-extra-token"),
    pytest.param("flow { move top from deck to hand(current) at }", "E101", 1, 47, id="E101-bad-placement"),
    # E102: unclosed block
    pytest.param("# header\nflow {\n  loop {\n", "E102", 3, 8, id="E102-flow-loop"),
    pytest.param("procedure deal {\n  if size(deck) > 0 {\n", "E102", 2, 21, id="E102-procedure-if"),
    # E103: quote without a string
    pytest.param("fact hand_size = 3\n  quote hand", "E103", 2, 9, id="E103-fact"),
    pytest.param('game g "Game"\n  quote 42\n', "E103", 2, 9, id="E103-game"),
    pytest.param("players 2 to 4 quote players", "E103", 1, 22, id="E103-players"),
    # E104: zone without shape and visibility
    pytest.param("zone discard: public", "E104", 1, 15, id="E104-no-shape"),
    pytest.param("zone hand", "E104", 1, 6, id="E104-nothing"),
    # the caret where the visibility is missing, not on the next declaration
    pytest.param("zone d:\n  stack\n\nvar x: int = 1", "E104", 2, 8, id="E104-no-visibility"),
    # E105: an expression where a statement belongs
    pytest.param("flow {\n  x = 1\n}\n", "E105", 2, 3, id="E105-assignment-without-set"),
    # a comparison written with '=': said so, where the token is
    pytest.param("flow {\n  if count(c in deck where c.rank = 2) > 0 { }\n}\n", "E101", 2, 35, id="E101-equals-for-comparison"),
    pytest.param("flow { size(deck) }", "E105", 1, 8, id="E105-call"),
    pytest.param("flow { deck }", "E105", 1, 8, id="E105-name"),
    # E106: incomplete expression
    pytest.param("fact limit = (3 + 4\n", "E106", 1, 19, id="E106-unclosed-paren"),
    pytest.param("fact total = 40 -", "E106", 1, 17, id="E106-trailing-operator"),
    pytest.param("define f: bool =\n\n", "E106", 1, 16, id="E106-empty-define"),
]


def syntax_error(text: str):
    with pytest.raises(SpecError) as info:
        parse(text, "t.rules")
    (diag,) = info.value.diagnostics
    return info.value, diag


@pytest.mark.parametrize("text, code, line, column", MALFORMED)
def test_malformed_input_gets_its_code_and_position(text, code, line, column):
    err, diag = syntax_error(text)
    assert (diag.code, diag.span.line, diag.span.column) == (code, line, column), err.render()
    assert diag.span.file == "t.rules"
    if code in SYNTAX_EXAMPLES:
        assert diag.message == SYNTAX_EXAMPLES[code][0]
    assert err.render().splitlines()[0] == f"t.rules:{line}:{column}: {code} {diag.message}"


@pytest.mark.parametrize("code", sorted(SYNTAX_EXAMPLES))
def test_syntax_examples_classify_themselves(code):
    for sample in SYNTAX_EXAMPLES[code][1]:
        _, diag = syntax_error(sample)
        assert diag.code == code, sample


def test_syntax_error_renders_source_caret_and_hint():
    err, diag = syntax_error("fact a = 1\nfact b = 2 $ 3\n")
    lines = err.render().splitlines()
    assert lines[0] == "t.rules:2:12: E101 unexpected character '$'"
    assert lines[1] == "    fact b = 2 $ 3"
    assert lines[2] == "    " + " " * 11 + "^"
    assert lines[3].startswith("  hint: expected ")
    assert diag.code == "E101"


def test_caret_spans_the_unexpected_token():
    err, _ = syntax_error("flow { hand(p) }")
    assert err.render().splitlines()[2] == "    " + " " * 7 + "^^^^"


def test_a_block_open_at_the_end_of_the_file_is_reported_at_its_brace():
    _, diag = syntax_error("\n\nflow {\n  loop {\n    break\n")
    assert diag.code == "E102"
    assert (diag.span.line, diag.span.column) == (4, 8) and "still open" in diag.hint


# Known weakness, kept visible: the friendly codes are found by comparing Lark's parser
# state with that of SYNTAX_EXAMPLES' samples, and that state includes the depth of the
# parse stack, so the same mistake gets plain E101 once it is not in the first declaration
# of a file, or is nested differently from the samples.
FRIENDLY_MISSES = [
    pytest.param("fact a = 1\nfact b = 1 quote x", "E103", 2, 18, id="E103-second-declaration"),
    pytest.param("fact a = 1\nzone deck: stack\n", "E104", 2, 12, id="E104-second-declaration"),
    pytest.param("fact a = 1\nflow { 1 }", "E105", 2, 8, id="E105-second-declaration"),
    pytest.param("fact a = 1\nflow { loop {", "E102", 2, 13, id="E102-second-declaration"),
    pytest.param("fact a = 1\nfact b = 2 +", "E106", 2, 12, id="E106-second-declaration"),
    pytest.param("procedure p {\n  42\n}", "E105", 2, 3, id="E105-in-procedure"),
    pytest.param("fact a = 2 *\n", "E106", 1, 12, id="E106-after-times"),
    pytest.param("fact a = min(1,", "E106", 1, 15, id="E106-in-call"),
    pytest.param("zone hand per player", "E104", 1, 15, id="E104-per-player"),
    pytest.param("flow {\n  rounds {\n    turns from current {\n", "E102", 3, 24, id="E102-deeper"),
    pytest.param("flow {\n  loop {\n    end turn\n", "E102", 2, 8, id="E102-after-a-statement"),
]


@pytest.mark.parametrize("text, code, line, column", FRIENDLY_MISSES)
def test_friendly_code_anywhere_in_the_file(text, code, line, column):
    _, diag = syntax_error(text)
    assert (diag.span.line, diag.span.column) == (line, column)  # the position is right already
    assert diag.code == code


# Known weakness, kept visible: Lark counts lines at "\n" only, but the diagnostic's source
# line is looked up with str.splitlines(), which also breaks at "\r", form feed, U+2028, ...
# (all legal in whitespace, comments or strings), so the line shown is not the line reported.
@pytest.mark.parametrize("text", [
    pytest.param("# a\x0cb\nfact a = 1 $\n", id="form-feed-in-comment"),
    pytest.param("fact a = 1 # note\u2028more\nfact b = $\n", id="line-separator-in-comment"),
    pytest.param('fact a = 1 quote "x\x1cy"\nfact b = $\n', id="separator-in-string"),
])
def test_source_line_shown_is_the_line_reported(text):
    err, diag = syntax_error(text)
    assert diag.source_line == text.split("\n")[diag.span.line - 1]
