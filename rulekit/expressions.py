"""One expression of the rule language, compiled for one loaded game: what `rulekit simulate --stat`
measures.

The expression goes through the project's own front end, as an invariant of a checks file does: the
grammar parses it, the resolver types it against the spec's zones, variables, tokens, facts, defines and
enums, and the engine's code generator compiles it for the game's player count and options.

    >>> size_of_deck = compile_expression(game, "size(deck)")
    >>> size_of_deck(state)
    12
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import model as m
from .engine import Game, State
from .errors import DiagnosticSink, Span
from .parse import parse, parse_expression
from .resolve import resolve_expression

VALUE_KINDS = ("int", "bool")  # what a statistic can average


@dataclass(frozen=True)
class Expression:
    """A compiled expression: call it on a state of its game."""

    text: str
    type: m.Type
    evaluate: Callable[[State], int]

    def __call__(self, state: State) -> int:
        return self.evaluate(state)


def resolve(game: Game, text: str, source: str = "<expression>") -> m.Expr:
    """`text` parsed and resolved in the scope of `game`'s spec; a SpecError (with `source` as the file
    name, the column and a caret) when it is not a well-typed number or condition."""
    spec = game.spec
    syntax = parse_expression(text, source)
    checks, texts = None, {}
    if spec.checks_text is not None:
        checks_file = str(spec.checks_path)
        checks = parse(spec.checks_text, checks_file)
        texts[checks_file] = spec.checks_text
    expr = resolve_expression(syntax, source, text, spec.syntax, spec.display_path, spec.text, checks, texts)
    if expr.type.kind not in VALUE_KINDS and expr.type != m.ERROR:
        sink = DiagnosticSink(source, text)
        span = getattr(expr, "span", None) or Span(source, 1, 1, 1, len(text) + 1)
        sink.error("E202", f"a statistic is a number or a condition, not {_a(str(expr.type))}", span,
                   "count(...), size(...) or sum(...) turn cards and players into numbers")
        sink.raise_if_any()
    return expr


def compile_expression(game: Game, text: str, source: str = "<expression>") -> Expression:
    """`text` as a function of `game`'s states (see the module's documentation)."""
    expr = resolve(game, text, source)
    return Expression(text, expr.type, game.compile_expression(expr))


def _a(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word
