"""A Pygments lexer for the rulekit rule language (``.rules`` and ``.checks`` files).

Its keywords are read from the normative grammar (grammar/rules.lark), so the lexer follows the
language as it grows; a fixed list is the fallback when the grammar cannot be read.
"""
from __future__ import annotations

import re

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

# Words that open a top-level declaration; the name after them is the declared name.
DECLARATIONS = ("game", "rulebook", "players", "order", "payoff", "unmodelled", "enum", "card", "piece", "fact",
                "claim", "token", "zone", "var", "define", "procedure", "flow", "ambiguity", "checks", "invariant",
                "reachable", "expect", "board", "trigger", "rule", "action")
BUILTINS = ("current", "player_count", "size", "next", "previous", "seat", "supply", "held", "min", "max", "abs",
            "count", "exists", "the", "forall", "sum", "argmax", "argmin")
CONSTANTS = ("true", "false", "none")
_FALLBACK = ("move", "from", "to", "at", "top", "bottom", "all", "one", "where", "shuffle", "set", "add",
             "subtract", "take", "return", "by", "if", "else", "then", "for", "in", "loop", "while", "break", "let",
             "do", "choose", "random", "reveal", "win", "end", "turn", "round", "rotate", "rounds", "turns",
             "quote", "question", "option", "default", "because", "kind", "and", "or", "not", "is", "when", "x",
             "per", "player", "stack", "hidden", "owner", "public", "initial", "int", "bool", "clockwise",
             "counterclockwise", "lose", "source", "once", "cap", "every")


def grammar_keywords() -> tuple[str, ...]:
    """Every word the grammar spells out as a literal, such as "move" or "where"."""
    try:
        from ..resources import grammar_text

        found = set(re.findall(r'"([a-z_]+)"', grammar_text()))
    except Exception:  # noqa: BLE001 - a lexer must load even without the grammar
        found = set()
    found |= set(_FALLBACK)
    return tuple(sorted(found - set(DECLARATIONS) - set(BUILTINS) - set(CONSTANTS)))


class RulekitLexer(RegexLexer):
    """Highlights rulekit specs: declarations, statements, quotes of the rulebook, comments."""

    name = "rulekit"
    aliases = ["rulekit", "rules"]
    filenames = ["*.rules", "*.checks"]
    mimetypes = ["text/x-rulekit"]
    url = "https://pypi.org/project/rulekit/"

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            # a rulebook quote: the verbatim text that a rule formalizes
            (r'(quote)(\s+)("(?:[^"\\\n]|\\.)*")', bygroups(Keyword, Whitespace, String.Doc)),
            # a phrase: how the docs say a declaration, with {placeholders} for its parameters
            (r'(phrase)(\s+)(")', bygroups(Keyword, Whitespace, String.Double), "phrase"),
            (r'"(?:[^"\\\n]|\\.)*"', String.Double),
            (r"\b(procedure|define|trigger|rule|action)(\s+)([A-Za-z_][A-Za-z0-9_]*)",
             bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (r"\b(game|card|piece|token|zone|var|fact|claim|enum|ambiguity|board|checks|invariant|reachable|expect)"
             r"(\s+)([A-Za-z_][A-Za-z0-9_]*)", bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            (words(DECLARATIONS, prefix=r"\b", suffix=r"\b"), Keyword.Declaration),
            (words(CONSTANTS, prefix=r"\b", suffix=r"\b"), Keyword.Constant),
            (words(BUILTINS, prefix=r"\b", suffix=r"\b(?=\s*\()"), Name.Builtin),
            (r"\bcurrent\b|\bplayer_count\b", Name.Builtin),
            (words(grammar_keywords(), prefix=r"\b", suffix=r"\b"), Keyword),
            (r"[0-9]+", Number.Integer),
            (r"==|!=|<=|>=|\.\.|[<>+\-*/%=]", Operator),
            (r"[{}()\[\],:.]", Punctuation),
            (r"[A-Za-z_][A-Za-z0-9_]*", Name),
            (r".", Text),
        ],
        "phrase": [
            (r"\{[A-Za-z_][A-Za-z0-9_]*\}", String.Interpol),
            (r'\\.', String.Escape),
            (r'"', String.Double, "#pop"),
            (r"\n", Text, "#pop"),  # an unclosed string: stop at the end of the line
            (r'[^"\\{\n]+|\{', String.Double),
        ],
    }
