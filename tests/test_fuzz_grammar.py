"""Fuzzing the front end: whatever the text, compiling it gives a model or a SpecError, never a traceback.

(a) texts generated from the grammar itself (hypothesis.extra.lark.from_lark), alone and
    after a valid game header, so that many of them reach the resolver;
(b) mutations of the real Chocobo spec: lines deleted or duplicated, tokens swapped,
    braces and quotes deleted or inserted, identifiers replaced, the text truncated.

The default runs are small enough for every test run; `-m slow` runs the same properties
on many more examples.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import lark
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

import rulekit
from rulekit import Spec, resources
from rulekit import model as m
from rulekit.errors import Span
from rulekit.parse import parse
from rulekit.syntax import Name, Node, Quote, Text

ROOT = Path(__file__).resolve().parent.parent
CHOCOBO = ROOT / "specs" / "chocobo" / "chocobo.rules"
CHOCOBO_TEXT = CHOCOBO.read_text(encoding="utf-8")

HEADER = 'game g "G"\nrulebook "r.txt" source "s"\nplayers 2 to 4\n'
FAST = settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SLOW = settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Identifiers the generated text draws from most of the time, so that references often
# resolve: a few short names, the names of builtins, and some of the Chocobo spec's.
NAME_POOL = ["a", "b", "c", "p", "q", "x1", "n", "deck", "hand", "score", "E", "current", "player_count",
             "size", "next", "previous", "seat", "supply", "min", "max", "abs", "box", "FatChocobo", "crystal", "marker"]


# ---- checking one text ---------------------------------------------------------------------

def check_compiles_or_reports(text: str, path: Path = Path("fuzz.rules"), display: str = "fuzz.rules"):
    """Compile `text`; a SpecError is fine, any other exception fails the test."""
    spec = Spec(path, text=text, display_path=display)
    try:
        game = spec.model
    except rulekit.SpecError as err:
        assert err.diagnostics, "a SpecError without diagnostics"
        for d in err.diagnostics:
            assert re.fullmatch(r"E\d{3}", d.code), d
            assert d.message
            if d.span is not None:
                assert d.span.line >= 1 and d.span.column >= 1, d
        assert err.render()
        return None
    assert isinstance(game, m.Game)
    return game


def spans_of(value):
    if isinstance(value, (Node, Name, Quote, Text)):
        yield value
    if isinstance(value, Node):
        for child in value.fields.values():
            yield from spans_of(child)
    elif isinstance(value, (list, tuple)):
        for child in value:
            yield from spans_of(child)


def check_spans(text: str):
    """If `text` parses, every syntax node has a span inside the text."""
    try:
        tree = parse(text, "fuzz.rules")
    except rulekit.SpecError:
        return
    last_line = text.count("\n") + 1
    for node in spans_of(tree):
        assert isinstance(node.span, Span), node
        assert 1 <= node.span.line <= node.span.end_line <= last_line, node


# ---- (a) texts from the grammar ----------------------------------------------------------------

@lru_cache(maxsize=1)
def grammar() -> lark.Lark:
    return lark.Lark(resources.grammar_text(), parser="lalr", start="start")


def keywords() -> set[str]:
    return set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', resources.grammar_text()))


def terminal_strategies() -> dict[str, st.SearchStrategy[str]]:
    """A strategy for every terminal of the grammar, each value followed by whitespace.

    from_lark concatenates terminals; the trailing space keeps `game g` from becoming
    `gameg`. Built from the compiled grammar, so it follows changes to the grammar.
    """
    terminals, _, _ = grammar().grammar.compile(["start"], ())
    reserved = keywords()
    out = {}
    for t in terminals:
        if t.name == "NAME":
            free = st.from_regex(t.pattern.to_regexp(), fullmatch=True).filter(lambda s: s not in reserved)
            s = st.one_of(st.sampled_from(NAME_POOL), free)
        elif t.name == "INT":
            s = st.one_of(st.integers(0, 12).map(str), st.from_regex(t.pattern.to_regexp(), fullmatch=True))
        elif t.name == "STRING":
            s = st.one_of(st.sampled_from(['"x"', '""', '"a \\"quoted\\" word"']),
                          st.from_regex(t.pattern.to_regexp(), fullmatch=True))
        elif t.name == "WS":
            s = st.sampled_from([" ", "\n", "\t", "\n\n  "])
        elif t.name == "COMMENT":
            s = st.text(st.characters(blacklist_characters="\n\r", codec="utf-8"), max_size=10).map(
                lambda c: f"# {c}\n")
        elif t.pattern.type == "str":
            s = st.just(t.pattern.value)
        else:
            s = st.from_regex(t.pattern.to_regexp(), fullmatch=True)
        out[t.name] = s.map(lambda v: v + " ")
    return out


@lru_cache(maxsize=1)
def grammar_texts() -> st.SearchStrategy[str]:
    return from_lark(grammar(), start="start", explicit=terminal_strategies())


@st.composite
def spec_texts(draw):
    """Generated text: now and then alone, mostly a few pieces after a valid header and before a flow,
    so that most texts reach the resolver."""
    if draw(st.integers(0, 4)) == 0:
        return draw(grammar_texts())
    pieces = draw(st.lists(grammar_texts(), min_size=1, max_size=3))
    zone = draw(st.sampled_from(["", "zone box: set, public, initial\n"]))
    return HEADER + zone + "\n".join(pieces) + "\nflow { end game }\n"


def test_generated_texts_are_well_formed():
    """The generator itself is sound: Lark accepts all its texts (if not, fix terminal_strategies)."""

    @FAST
    @given(grammar_texts())
    def parses(text):
        grammar().parse(text)

    parses()


@FAST
@example(text=HEADER + 'unmodelled "\\x4" because "\\u12"\n')
@given(text=spec_texts())
def test_grammar_texts_compile_or_report(text):
    check_compiles_or_reports(text)
    check_spans(text)


@pytest.mark.slow
@SLOW
@given(text=spec_texts())
def test_grammar_texts_compile_or_report_long(text):
    check_compiles_or_reports(text)
    check_spans(text)


# ---- (b) mutations of the real spec -----------------------------------------------------------

TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\.\.|[=!<>]=|\S')
IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
IDENTIFIERS = sorted(set(IDENT.findall(CHOCOBO_TEXT)))


def delete_line(draw, text):
    lines = text.split("\n")
    i = draw(st.integers(0, len(lines) - 1))
    return "\n".join(lines[:i] + lines[i + 1:])


def duplicate_line(draw, text):
    lines = text.split("\n")
    i = draw(st.integers(0, len(lines) - 1))
    return "\n".join(lines[: i + 1] + lines[i:])


def swap_tokens(draw, text):
    tokens = [t for t in TOKEN.finditer(text) if not t.group().startswith("#")]
    if len(tokens) < 2:
        return text
    i, j = sorted(draw(st.lists(st.integers(0, len(tokens) - 1), min_size=2, max_size=2, unique=True)))
    a, b = tokens[i], tokens[j]
    return text[: a.start()] + b.group() + text[a.end(): b.start()] + a.group() + text[b.end():]


def delete_brace_or_quote(draw, text):
    positions = [i for i, ch in enumerate(text) if ch in '{}"()']
    if not positions:
        return text
    i = draw(st.sampled_from(positions))
    return text[:i] + text[i + 1:]


def insert_brace_or_quote(draw, text):
    i = draw(st.integers(0, len(text)))
    return text[:i] + draw(st.sampled_from(['{', '}', '"', '(', ')', "\\"])) + text[i:]


def replace_identifier(draw, text):
    found = list(IDENT.finditer(text))
    if not found:
        return text
    target = draw(st.sampled_from(found))
    other = draw(st.sampled_from(IDENTIFIERS))
    return text[: target.start()] + other + text[target.end():]


def truncate(draw, text):
    return text[: draw(st.integers(0, len(text)))]


MUTATIONS = [delete_line, duplicate_line, swap_tokens, delete_brace_or_quote, insert_brace_or_quote,
             replace_identifier, truncate]


@st.composite
def mutated_chocobo(draw):
    text = CHOCOBO_TEXT
    for mutation in draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=3)):
        text = mutation(draw, text)
    return text


@FAST
@given(text=mutated_chocobo(), with_checks=st.booleans())
def test_mutated_chocobo_compiles_or_reports(text, with_checks):
    # with the real path, the spec is compiled together with checks/chocobo.checks
    check_compiles_or_reports(text, CHOCOBO if with_checks else Path("fuzz.rules"), "fuzz.rules")


@pytest.mark.slow
@SLOW
@given(text=mutated_chocobo(), with_checks=st.booleans())
def test_mutated_chocobo_compiles_or_reports_long(text, with_checks):
    check_compiles_or_reports(text, CHOCOBO if with_checks else Path("fuzz.rules"), "fuzz.rules")


def test_unmutated_chocobo_compiles():
    assert check_compiles_or_reports(CHOCOBO_TEXT, CHOCOBO) is not None


# ---- inputs found by fuzzing or by hand, kept as regression cases --------------------------------

def nested_ifs(n):
    return HEADER + "flow {" + "if true {" * n + "end game" + "}" * (n + 1) + "\n"


def long_sum(n):
    return HEADER + "flow { end game }\nfact a = " + " + ".join(["1"] * n) + "\n"


def long_and(n):
    return HEADER + "flow { end game }\nclaim a: " + " and ".join(["true"] * n) + "\n"


def negations(n):
    return HEADER + "flow { end game }\nfact a = " + "-" * n + "1\n"


def test_found_by_fuzzing():
    # a backslash before a NUL character made ast.literal_eval fail inside the transformer (lark VisitError)
    assert parse('game a "\\\x00"', "t.rules").items[0].title == "\\x00"


@pytest.mark.parametrize("text, line, column", [
    # a backslash escape Python cannot decode (was lark VisitError)
    pytest.param(HEADER + 'fact a = 1 quote "bad \\N escape"\n', 4, 18, id="bad-N-escape"),
    pytest.param(HEADER + 'fact a = 1 quote "\\x4"\n', 4, 18, id="short-x-escape"),
    # deep nesting (was RecursionError in the transformer or the resolver)
    pytest.param(nested_ifs(400), 4, 892, id="nested-ifs"),
    pytest.param(long_sum(2000), 5, 10, id="long-sum"),
    pytest.param(long_and(600), 5, 10, id="long-and"),
    pytest.param(negations(3000), 5, 109, id="negations"),
])
def test_regressions_are_reported(text, line, column):
    with pytest.raises(rulekit.SpecError) as info:
        Spec(Path("fuzz.rules"), text=text).model
    first = info.value.diagnostics[0]
    assert (first.code, first.span.line, first.span.column) == ("E101", line, column), info.value.render()


def test_strings_with_valid_escapes_and_nul_still_decode():
    tree = parse('fact a = 1 quote "tab\\there \\"q\\" \x00 \\u00e9"', "t.rules")
    assert tree.items[0].quotes[0].text == 'tab\there "q" \x00 \u00e9'


@pytest.mark.parametrize("text", [nested_ifs(90), long_sum(95), long_and(95), negations(95)],
                         ids=["nested-ifs", "long-sum", "long-and", "negations"])
def test_deep_but_allowed_nesting_compiles(text):
    assert check_compiles_or_reports(text) is not None


def test_an_example_step_repeated_billions_of_times_is_an_error_not_a_memory_error():
    text = HEADER + 'example e players 2 do "go" x 2, "stop" x 8007292277 expect true\n'
    with pytest.raises(rulekit.SpecError) as err:
        Spec(Path("fuzz.rules"), text=text, display_path="fuzz.rules").model
    assert any(d.code == "E101" and "8,007,292,277" in d.message for d in err.value.diagnostics)
