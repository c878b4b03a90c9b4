"""`quote` findings for a fact's number: a fact whose quotes write numbers, none of them its value.

`fact hand_size = 4 quote "Each player draws until they have 3 cards."` compiles, and no claim need
cover it; the quote still says 3. A fact whose value is a plain number is compared with the numbers
its quotes (and their translations) write, as digits or as number words ("two", "zwei", "twice",
"doubled"):
when they write some and none is the value, the two disagree. A quote without any number says
nothing here (its words carry the number, as "half the party" does), nor does a fact given by an
expression (the rulebook's table, say), whose value the quote need not write. A `take`, `return`, `add`
or `subtract` of a written number is compared with its own quotes the same way.
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
    return out + statement_findings(game)


def statement_findings(game: m.Game) -> list[Finding]:
    """A `take`, `return`, `add` or `subtract` of a number written in the spec whose own quotes write
    numbers, none of them that one: `take 1 Fear by p quote "... takes two Fear tokens"`."""
    out = []
    bodies = [("flow", game.flow.body), *((p.name, p.body) for p in game.procedures),
              *((f"trigger {t.name}", t.body) for t in game.triggers)]
    for owner, body in bodies:
        for st in m.walk(body):
            amount = _literal_amount(st)
            texts = quote_texts(st)
            if amount is None or not texts:
                continue
            written = set().union(*map(written_numbers, texts))
            if not written or amount in written:
                continue
            says = ", ".join(str(n) for n in sorted(written))
            line = st.span.line if st.span is not None else 0
            out.append(Finding(f"{game.name}/quote/number/{owner.replace(' ', '-')}/{line}", game.name, "quote",
                               "warning", "refuted", "static",
                               f"`{m.keyword(st)}` of {amount}, but its quote writes {says}, not {amount}",
                               quotes=texts, location=location_of(st.span),
                               hint="correct the number or the quote, or quote the sentence that gives this number"))
    return out


def _literal_amount(st) -> int | None:
    """The number a token move or a change of a variable writes as a literal, else None."""
    if isinstance(st, m.TokenMove):
        value = st.amount
    elif isinstance(st, m.Assign) and st.op in ("+", "-"):
        value = st.value
    else:
        return None
    return value.value if isinstance(value, m.Const) and type(value.value) is int else None
