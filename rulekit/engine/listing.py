"""The legal actions of a decision as a plain list of action ids, and the action an id stands for.

The engine lists a decision's options in a dict (action id -> what the action binds), which the
whole-game code needs only to pick one of them. Here the same loops and tests list the ids alone,
in increasing order, as one list comprehension per action where the loops allow it; the id picked
is then read back into its action and the values of its binders by arithmetic on the id (the
mixed-radix numbering of `rulekit.lower.actions`), so that nothing is built per option but an int.
"""
from __future__ import annotations

import re

ID_MARK = "@ID@"  # the entry of each option in the listing's lines, until they become an id list
_ENTRY = re.compile(r"(\s*)_o\[(.+)\] = " + re.escape(ID_MARK))
_HEAD = re.compile(r"(for .+ in .+|if .+):")


def id_list_lines(lines: list[str]) -> list[str]:
    """The lines of a listing that fill the dict `_o` with `ID_MARK` entries, turned into lines that
    extend the list `_o` with the ids, in the same order, each nest of loops and tests one list
    comprehension (the tests before its first loop stay statements: each is evaluated once)."""
    out: list[str] = []
    chain: list[str] = []
    for line in lines:
        found = _ENTRY.fullmatch(line)
        if found is None:
            chain.append(line)
            continue
        out += _comprehended(chain, found.group(1), found.group(2))
        chain = []
    return out + chain


def _comprehended(chain: list[str], pad: str, aid: str) -> list[str]:
    """One action's nest of `for` and `if` heads (`chain`), each one level inside the last, then its
    entry at `pad`: as statements down to the first loop, then one comprehension."""
    depth = len(pad) // 4
    nested = len(chain) == depth and all(
        line[:4 * i] == "    " * i and _HEAD.fullmatch(line[4 * i:]) for i, line in enumerate(chain))
    if not nested:  # not a plain nest (no listing is another shape today): the loops as they are
        return chain + [f"{pad}_o.append({aid})"]
    first = next((i for i, line in enumerate(chain) if line.lstrip().startswith("for ")), None)
    if first is None:
        return chain + [f"{pad}_o.append({aid})"]
    clauses = " ".join(line.strip()[:-1] for line in chain[first:])
    return chain[:first] + [f"{'    ' * first}_o += [{aid} {clauses}]"]


def binder_value(kind: str, index: str, low: str | None = None, table: str | None = None) -> str | None:
    """The value a binder of domain `kind` (a core type name) takes at position `index` of its domain,
    as the action numbering counts (see `Codegen.domain_index`); None for a domain read otherwise."""
    if kind in ("CardsIn", "CardsInEvery", "Seats", "Members", "Positions"):
        return index
    if kind == "Numbers" and low is not None:
        return f"{index} + {low}" if low != "0" else index
    if kind == "Items" and table is not None:
        return f"{table}[{index}]"
    if kind == "SubsetsOf" and table is not None:
        return f"bag_from_index({index}, {table})"
    return None


def digit(offset: str, radix: int, size: int, first: bool) -> str:
    """The index of one binder in the id's offset from its action's first id: the binders are the
    digits of the offset in mixed radix, the first binder the most significant."""
    value = offset if radix == 1 else f"{offset} // {radix}"
    return value if first else f"({value}) % {size}"
