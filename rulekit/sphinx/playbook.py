"""A game's rules as plain English text, section by section: what the golden files of the English
hold and what a reader reads, without Sphinx."""
from __future__ import annotations

from .. import model as m
from .english import English, Line, plain


def lines_text(lines: list[Line], depth: int = 0) -> list[str]:
    out = []
    for line in lines:
        out.append("  " * depth + line.text)
        out += lines_text(line.children, depth + 1)
    return out


def rules_text(game: m.Game) -> str:
    """Every rule of the game in English: the flow, each procedure, each trigger, each definition."""
    english = English(game)
    out = [f"# {game.title}", "", "## How a game goes", *lines_text(english.block(game.flow.body))]
    for p in game.procedures:
        out += ["", f"## {english.procedure_title(p)}", *lines_text(english.procedure(p))]
    for t in game.triggers:
        out += ["", "## As soon as " + plain(english.cond(t.cond)), *lines_text(english.block(t.body))]
    if game.defines:
        out += ["", "## Definitions", *(english.define(d).text for d in game.defines)]
    return "\n".join(out) + "\n"
