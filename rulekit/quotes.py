"""Rulebook sentences and the spec's quotes of them.

A quote counts only if it is a verbatim substring of its rulebook, with white
space normalized. The rulebook is segmented into sentences (list items and
table rows count as sentences); a sentence is accounted for when the spec's
quotes cover at least half of it.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from . import model as m

_BULLET = re.compile(r"^\s*(?:[•\-*]|\d+\.|[IVX]+\.|[A-Z]\.)\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"”)]?\s+(?=[A-Z\"“(*•])")
COVERED_FRACTION = 0.5


def normalize(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Sentence:
    text: str  # as normalized
    line: int  # 1-based line in the rulebook
    start: int  # offset in the normalized rulebook
    end: int


def sentences(rulebook: str) -> list[Sentence]:
    """Split a rulebook into sentences, each located in the normalized text."""
    flat = normalize(rulebook)
    out: list[Sentence] = []
    cursor = 0
    for lineno, raw in enumerate(rulebook.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        body = line if "\t" in line else _BULLET.sub("", line)
        for piece in (_SENTENCE_END.split(body) if "\t" not in body else [body]):
            text = normalize(piece)
            if not text:
                continue
            at = flat.find(text, cursor)
            if at < 0:
                at = flat.find(text)
            if at < 0:
                continue
            out.append(Sentence(text, lineno, at, at + len(text)))
            cursor = at + len(text)
    return out


@dataclass(frozen=True)
class QuoteUse:
    text: str
    where: m.QuoteRef  # the quote as the spec cites it
    owner: str  # what carries it, for messages


def quote_uses(game: m.Game) -> list[QuoteUse]:
    """Every quote in the model, with what carries it."""
    uses: list[QuoteUse] = []

    def add(quotes, owner):
        for q in quotes:
            uses.append(QuoteUse(q.text, q, getattr(q, "owner", None) or owner))

    add(game.quotes, "game")
    add(game.flow.quotes, "flow")
    for group, items in (("enum", game.enums), ("component", game.components), ("fact", game.facts),
                         ("claim", game.claims), ("token", game.tokens), ("zone", game.zones), ("var", game.vars),
                         ("define", game.defines), ("procedure", game.procedures), ("ambiguity", game.ambiguities),
                         ("property", game.properties), ("board", game.boards), ("trigger", game.triggers),
                         ("example", game.examples)):
        for item in items:
            add(item.quotes, f"{group} {item.name}")
    for u in game.unmodelled:
        add(u.quotes, "unmodelled")
    for e in game.expected:
        add(e.quotes, f"expect {e.name}")
    for owner, body in ((p.name, p.body) for p in (game.flow, *game.procedures, *game.triggers)):
        for st in m.walk(body, actions=True):
            add(getattr(st, "quotes", ()), _statement_owner(st, owner))
    return uses


def _statement_owner(st, owner: str) -> str:
    """A statement (or action) that carries a quote, as messages name it: "the `for` statement in the flow"."""
    where = "the flow" if owner == "flow" else owner
    if isinstance(st, m.Action):
        return f"action {st.name} in {where}"
    if isinstance(st, m.Rule):
        return f"rule {st.name} in {where}"
    return f"the `{m.keyword(st)}` statement in {where}"


@dataclass(frozen=True)
class QuoteProblem:
    use: QuoteUse
    suggestion: str | None


def bad_quotes(game: m.Game, rulebook: str) -> list[QuoteProblem]:
    """Quotes that are not verbatim in the rulebook, each with the closest sentence as a hint."""
    flat = normalize(rulebook)
    found = sentences(rulebook)
    problems = []
    for use in quote_uses(game):
        if normalize(use.text) in flat:
            continue
        close = difflib.get_close_matches(normalize(use.text), [s.text for s in found], n=1, cutoff=0.5)
        problems.append(QuoteProblem(use, close[0] if close else None))
    return problems


def locate(rulebook: str, text: str) -> tuple[int, int] | None:
    """Line and column (1-based) where a quote starts in the rulebook, white space normalized."""
    words = text.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    found = re.search(pattern, rulebook)
    if found is None:
        return None
    before = rulebook[:found.start()]
    line = before.count("\n") + 1
    return line, found.start() - (before.rfind("\n") + 1) + 1


def column(rulebook: str, sentence: Sentence) -> int:
    """The column (1-based) where a sentence starts on its line; 1 when its words are not found there as
    written (normalizing changed them)."""
    lines = rulebook.splitlines()
    raw = lines[sentence.line - 1] if 0 < sentence.line <= len(lines) else ""
    found = locate(raw, sentence.text)
    return found[1] if found is not None else 1


def uncovered(game: m.Game, rulebook: str) -> list[Sentence]:
    """Rulebook sentences that no quote of the spec accounts for."""
    flat = normalize(rulebook)
    covered = bytearray(len(flat))
    for use in quote_uses(game):
        q = normalize(use.text)
        if not q:
            continue
        at = flat.find(q)
        while at >= 0:
            covered[at:at + len(q)] = b"\x01" * len(q)
            at = flat.find(q, at + 1)
    out = []
    for s in sentences(rulebook):
        chars = [i for i in range(s.start, s.end) if flat[i] != " "]
        if chars and sum(covered[i] for i in chars) < COVERED_FRACTION * len(chars):
            out.append(s)
    return out
