"""The rule language's grammar (`grammar/rules.lark`) as Lark parsers, each built once: the whole spec's,
and one whose start is a single expression. The parser reads them; the vocabulary reads the aggregates
off the first."""
from __future__ import annotations

from functools import lru_cache

from lark import Lark

from . import resources


@lru_cache(maxsize=1)
def parser() -> Lark:
    return Lark(resources.grammar_text(), parser="lalr", propagate_positions=True, maybe_placeholders=False)


@lru_cache(maxsize=1)
def expression_parser() -> Lark:
    return Lark(resources.grammar_text(), parser="lalr", propagate_positions=True, maybe_placeholders=False,
                start="expr")
