"""`quote` findings for a fact's number: a fact whose quotes write numbers, none of them its value.

`fact hand_size = 4 quote "Each player draws until they have 3 cards."` compiles, and no claim need
cover it; the quote still says 3. A fact whose value is a plain number is compared with the numbers
its quotes (and their translations) write, as digits or as number words ("two", "zwei", "twice",
"doubled"):
when they write some and none is the value, the two disagree. A quote without any number says
nothing here (its words carry the number, as "half the party" does), nor does a fact given by an
expression (the rulebook's table, say), whose value the quote need not write. The same for a card,
piece or token declared `x N` and its quotes ("Knight x4"), for a `take`, `return`, `add` or
`subtract` of a written number and its own quotes, and for a loop over a written range (`for i in
1..4`), whose length or last number its own quote, or else that of the nearest quoted statement
around it, should write ("deal 3 cards to each player").
"""
from __future__ import annotations

import re

from .. import model as m
from ..findings import Finding
from .shared import location_of, quote_texts

_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "once": 1, "twice": 2, "thrice": 3, "dozen": 12, "single": 1,
    "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
    "elf": 11, "zwölf": 12, "einmal": 1, "zweimal": 2, "dreimal": 3,
    "double": 2, "doubled": 2, "doubles": 2, "triple": 3, "tripled": 3, "triples": 3,
    "doppelt": 2, "verdoppelt": 2, "verdoppeln": 2, "dreifach": 3, "verdreifacht": 3, "verdreifachen": 3,
}
_NUMBER = re.compile(r"(?<![\w.])(\d+)(?![\d.,]\d)|\b(" + "|".join(_WORDS) + r")\b", re.IGNORECASE)


def written_numbers(text: str) -> set[int]:
    """The whole numbers a sentence writes, in digits or in words."""
    out = set()
    for digits, word in _NUMBER.findall(text):
        out.add(int(digits) if digits else _WORDS[word.lower()])
    return out


def findings(game: m.Game) -> list[Finding]:
    out = []
    for fact in game.facts:
        if not isinstance(fact.value, m.Const) or type(fact.value.value) is not int:
            continue
        texts = [*quote_texts(fact), *(q.translation for q in fact.quotes if getattr(q, "translation", None))]
        written = set().union(*map(written_numbers, texts)) if texts else set()
        if not written or fact.value.value in written:
            continue
        says = ", ".join(str(n) for n in sorted(written))
        out.append(Finding(f"{game.name}/quote/number/{fact.name}", game.name, "quote", "warning", "refuted", "static",
                           f"fact {fact.name} = {fact.value.value}, but its quote writes {says}, not "
                           f"{fact.value.value}", quotes=quote_texts(fact), location=location_of(fact.span),
                           hint="correct the fact or the quote, or quote the sentence that gives this number"))
    return out + count_findings(game) + statement_findings(game)


def count_findings(game: m.Game) -> list[Finding]:
    """A card, piece or token declared `x N` whose own quotes write numbers, none of them N:
    `card Knight x 5 quote "Knight x4"`."""
    out = []
    for decl in (*game.components, *game.tokens):
        count = decl.count
        if not isinstance(count, m.Const) or type(count.value) is not int:
            continue
        says = _disagreeing(decl, {count.value}, _counts_of(decl))
        if says:
            out.append(Finding(f"{game.name}/quote/number/{decl.name}", game.name, "quote", "warning", "refuted",
                               "static", f"{decl.name} x {count.value}, but its quote writes {says}, not "
                               f"{count.value}", quotes=quote_texts(decl), location=location_of(decl.span),
                               hint="correct the count or the quote, or quote the sentence that gives this number"))
    return out


def statement_findings(game: m.Game) -> list[Finding]:
    """A `take`, `return`, `add` or `subtract` of a number written in the spec whose own quotes write
    numbers, none of them that one: `take 1 Coin by p quote "... takes two coins"`."""
    out = []
    limits = _limits(game)
    bodies = [("flow", game.flow.body), *((p.name, p.body) for p in game.procedures),
              *((f"trigger {t.name}", t.body) for t in game.triggers)]
    for owner, body in bodies:
        for st, around in _with_quotes(body, None):
            amount, times = _literal_amount(st), _literal_times(st)
            if amount is not None:
                # a counter's quote often writes where it stops ("Play 4 hands." on `add 1 to hands_played`)
                counted = limits.get(st.var, set()) if isinstance(st, m.Assign) else set()
                said, values, quoted = f"`{m.keyword(st)}` of {amount}", {amount, *counted}, st
            elif times is not None:
                # a loop's number is often said by the quote of what encloses it ("deal 3 cards to each player")
                said, values, quoted = f"a loop over {_range_text(st)}", set(times), st if st.quotes else around
            else:
                continue
            says = _disagreeing(quoted, values)
            if not says:
                continue
            line = st.span.line if st.span is not None else 0
            out.append(Finding(f"{game.name}/quote/number/{owner.replace(' ', '-')}/{line}", game.name, "quote",
                               "warning", "refuted", "static",
                               f"{said}, but its quote writes {says}, not "
                               f"{amount if amount is not None else ' or '.join(map(str, sorted(values)))}",
                               quotes=quote_texts(quoted), location=location_of(st.span),
                               hint="correct the number or the quote, or quote the sentence that gives this number"))
    return out


COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


def _limits(game: m.Game) -> dict[str, set[int]]:
    """Variable -> the whole numbers the rules compare it with (`hands_played >= 4`, or a fact of 4)."""
    facts = {f.name: f.value.value for f in game.facts
             if isinstance(f.value, m.Const) and type(f.value.value) is int}
    out: dict[str, set[int]] = {}
    for node in m.nodes(game):
        if not (isinstance(node, m.Binary) and node.op in COMPARISONS):
            continue
        for var, other in ((node.left, node.right), (node.right, node.left)):
            value = (other.value if isinstance(other, m.Const) and type(other.value) is int
                     else facts.get(other.fact) if isinstance(other, m.FactRef) else None)
            if isinstance(var, m.VarRef) and value is not None:
                out.setdefault(var.var, set()).add(value)
    return out


def _disagreeing(node, values: set[int], numbers=written_numbers) -> str:
    """The numbers the quotes (and translations) of `node` write (as `numbers` reads them), as text,
    when they write some and none of them is one of `values`; else ''."""
    if node is None:
        return ""
    quotes = getattr(node, "quotes", ())
    texts = [*quote_texts(node), *(q.translation for q in quotes if getattr(q, "translation", None))]
    written = set().union(*map(numbers, texts)) if texts else set()
    if not written or written & values:
        return ""
    return ", ".join(str(n) for n in sorted(written))


def _counts_of(decl):
    """How a quote writes how many of a component there are: "Knight x4", "4x Knight", "4 Knight cards"; the
    other numbers of its quote (what the card does: "take two coins") say nothing of that."""
    names = "|".join(re.escape(n) for n in dict.fromkeys((decl.display, decl.name)) if n)
    number = r"(\d+|" + "|".join(_WORDS) + r")"
    pattern = re.compile(rf"(?<!\w)[x×]\s*(\d+)\b|\b(\d+)\s*[x×](?!\w)|\b{number}\s+(?:{names})", re.IGNORECASE)

    def numbers(text: str) -> set[int]:
        out = set()
        for match in pattern.finditer(text):
            found = next(g for g in match.groups() if g)
            out.add(int(found) if found.isdigit() else _WORDS[found.lower()])
        return out
    return numbers


def _with_quotes(stmts, around):
    """Every statement below `stmts` with the nearest quoted statement or action that encloses it (None
    at the top, and below a rule, whose quotes may speak of several numbers)."""
    for st in stmts:
        yield st, around
        inner = None if isinstance(st, m.Rule) else (st if st.quotes else around)
        if isinstance(st, m.If):
            for body in (*(body for _, body in st.branches), st.orelse):
                yield from _with_quotes(body, inner)
        elif isinstance(st, m.Choose):
            for a in st.actions:
                yield from _with_quotes(a.body, a if a.quotes else inner)
        elif isinstance(st, m.Turns):
            yield from _with_quotes((*st.body, *st.then), inner)
        elif isinstance(getattr(st, "body", None), tuple):
            yield from _with_quotes(st.body, inner)


def _literal_times(st) -> tuple[int, ...] | None:
    """For a `for` over a range written in numbers (`1..4`): its length and its last number."""
    if not isinstance(st, m.For) or st.binder.iter.kind != "range":
        return None
    low, high = st.binder.iter.low, st.binder.iter.high
    if not all(isinstance(e, m.Const) and type(e.value) is int for e in (low, high)):
        return None
    return high.value - low.value + 1, high.value


def _range_text(st: m.For) -> str:
    return f"{st.binder.iter.low.value}..{st.binder.iter.high.value}"


def _literal_amount(st) -> int | None:
    """The number a token move or a change of a variable writes as a literal, else None."""
    if isinstance(st, m.TokenMove):
        value = st.amount
    elif isinstance(st, m.Assign) and st.op in ("+", "-"):
        value = st.value
    else:
        return None
    return value.value if isinstance(value, m.Const) and type(value.value) is int else None
