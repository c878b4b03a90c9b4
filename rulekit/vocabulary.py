"""The words an expression may call: built-in functions and aggregates, for the resolver and for messages.

The built-in functions are this table; the aggregates spelled with a keyword (`count(x in ...)`,
`sum(x in ...: ...)`, ...) are read off the grammar, and those spelled with a plain name (`max(x in ...: ...)`)
are `BINDER_AGGREGATES`, so that a message listing them names every aggregate the language has.
"""
from __future__ import annotations

from functools import lru_cache

from .grammar import parser

# name -> how its arguments are written in messages; the resolver checks the count and the types
BUILTIN_FUNCTIONS: dict[str, tuple[str, ...]] = {
    "size": ("ZONE",),
    "next": ("PLAYER",),
    "previous": ("PLAYER",),
    "supply": ("TOKEN",),
    "min": ("A", "B"),
    "max": ("A", "B"),
    "abs": ("N",),
    "seat": ("N",),
    "adjacent": ("POS", "POS"),
    "orthogonal": ("POS", "POS"),
    "top": ("STACK",),
    "bottom": ("STACK",),
}


# The aggregates written `NAME(x in D [where C]: E)`, NAME a plain name: what each gives.
BINDER_AGGREGATES: dict[str, str] = {
    "max": "the largest value", "min": "the smallest value",
    "argmax": "the element with the largest value", "argmin": "the element with the smallest value",
}


def arity(name: str) -> int:
    return len(BUILTIN_FUNCTIONS[name])


@lru_cache(maxsize=1)
def aggregates() -> tuple[tuple[str, str], ...]:
    """(keyword, how it is written) for every expression of the grammar that binds a variable over a domain:
    a keyword, '(' and then a binder (`x in D where C`) or `x in D: E`."""
    lark = parser()
    keywords = {t.name: t.pattern.value for t in lark.terminals if t.pattern.type == "str"}
    out = []
    for rule in lark.rules:
        names = [s.name for s in rule.expansion]
        if len(names) < 3 or names[0] not in keywords or names[1] != "LPAR" or not keywords[names[0]].isalpha():
            continue
        word = keywords[names[0]]
        if names[2] == "binder":
            out.append((word, f"{word}(x in D [where C])"))
        elif names[2:4] == ["NAME", "IN"]:
            out.append((word, f"{word}(x in D: E)" if "COLON" in names else f"{word}(x in D)"))
    out += [(word, f"{word}(x in D [where C]: E)") for word in BINDER_AGGREGATES]
    return tuple(dict.fromkeys(out))


def aggregate_words() -> list[str]:
    return [word for word, _ in aggregates()]


def describe_aggregates() -> str:
    return ", ".join(shape for _, shape in aggregates())


def describe_functions() -> str:
    return ", ".join(f"{name}({', '.join(params)})" for name, params in sorted(BUILTIN_FUNCTIONS.items()))
