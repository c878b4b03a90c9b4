"""The legal actions of a decision as a plain list of action ids, and the action an id stands for.

The engine lists a decision's options in a dict (action id -> what the action binds), which the
whole-game code needs only to pick one of them. Here the same loops and tests list the ids alone,
in increasing order, as one list comprehension per action where the loops allow it; the id picked
is then read back into its action and the values of its binders by arithmetic on the id (the
mixed-radix numbering of `rulekit.lower.actions`), so that nothing is built per option but an int.
"""
from __future__ import annotations

import itertools
import re

from .pyscope import free_names

ID_MARK = "@ID@"  # the entry of each option in the listing's lines, until they become an id list
_ENTRY = re.compile(r"(\s*)_o\[(.+)\] = " + re.escape(ID_MARK))
_HEAD = re.compile(r"(for .+ in .+|if .+):")
_FOR = re.compile(r"for (\w+(?:, \w+)*) in (.+)")
_NAMES = re.compile(r"\w+")


def id_list_lines(lines: list[str], implied: dict[str, str | None] | None = None, loops: bool = True) -> list[str]:
    """The lines of a listing that fill the dict `_o` with `ID_MARK` entries, turned into lines that
    extend the list `_o` with the ids, in the same order, each nest of loops and tests one list
    comprehension (the tests before its first loop stay statements: each is evaluated once), or
    with `loops` the same loops as statements that append each id (see `_comprehended`).
    `implied`: tests (`if ...:` heads) that the loop just before them already makes (None: left out)
    or makes in part (the test that stands in for it, wherever it is)."""
    implied = implied or {}
    out: list[str] = []
    chain: list[str] = []
    hoisted = itertools.count()
    for line in lines:
        found = _ENTRY.fullmatch(line)
        if found is None:
            chain.append(line)
            continue
        out += _comprehended(chain, found.group(1), found.group(2), implied, hoisted, loops)
        chain = []
    return out + chain


def _comprehended(chain: list[str], pad: str, aid: str, implied, hoisted, loops: bool = True) -> list[str]:
    """One action's nest of `for` and `if` heads (`chain`), each one level inside the last, then its
    entry at `pad`: as statements down to the first loop, then one comprehension."""
    chain = [line[:len(line) - len(line.lstrip())] + implied[line.strip()] if implied.get(line.strip()) else line
             for line in chain]
    depth = len(pad) // 4
    nested = len(chain) == depth and all(
        line[:4 * i] == "    " * i and _HEAD.fullmatch(line[4 * i:]) for i, line in enumerate(chain))
    if not nested:  # not a plain nest (no listing is another shape today): the loops as they are
        return chain + [f"{pad}_o.append({aid})"]
    first = next((i for i, line in enumerate(chain) if line.lstrip().startswith("for ")), None)
    if first is None:
        return chain + [f"{pad}_o.append({aid})"]
    heads = [line.strip()[:-1] for line in chain[first:] if implied.get(line.strip(), "") is not None]
    before, clauses = hoist(heads, "    " * first, hoisted, aid, loops)
    comprehension = f"{'    ' * first}_o += [{aid} {' '.join(clauses)}]"
    if not loops or _NONEMPTY_IDS.search(comprehension):  # `nonempty_ids` makes the latter a call of `compress`
        return chain[:first] + before + [comprehension]
    # As statements: a comprehension is a function made and called each time, which costs more
    # than the loops save on the few options of a decision (measured on Python 3.11).
    heads = [f"{'    ' * (first + depth)}{clause}:" for depth, clause in enumerate(clauses)]
    return chain[:first] + before + heads + [f"{'    ' * (first + len(clauses))}_o.append({aid})"]


def hoist(heads: list[str], pad: str, hoisted, entry: str = "", loops: bool = False) -> tuple[list[str], list[str]]:
    """The clauses of a comprehension (`for ... in ...`, `if ...`), each loop after the first whose
    domain and tests read none of the loops before it listed once, before the comprehension (lines
    at `pad`), instead of once for each value of those loops: (those lines, the clauses left).
    `entry`: what the comprehension makes of each option; a hoisted list keeps, of a loop's names,
    only those that it or the clauses after it read. With `loops`, a list is made by a loop that
    appends (see `_comprehended`), else by a comprehension.

    A listing cannot change the state, so a list made earlier holds what the loop would find; an
    error it raises where the loop would not have run makes the whole-game code hand the game to
    the engine, which decides it as ever."""
    groups: list[list[str]] = []
    for head in heads:
        if head.startswith("for ") or not groups:
            groups.append([head])
        else:
            groups[-1].append(head)
    before, clauses, bound = [], [], set()
    for n, group in enumerate(groups):
        found = _FOR.fullmatch(group[0])
        if found is None:
            return [], heads
        target, src = found.groups()
        names = _NAMES.findall(target)
        tests = [head[3:] for head in group[1:]]
        own = [t for t in tests if not free_names(t) & bound]
        plain = not own and (src.startswith(("range(", "(")) or src.isidentifier())  # nothing to save
        if n == 0 or plain or free_names(src) & bound:
            clauses += group
        else:
            name = f"_ol{next(hoisted)}"
            rest = [t for t in tests if t not in own]
            later = [_read_by(h) for g in groups[n + 1:] for h in g]
            read = set().union(*(free_names(code) for code in [*rest, entry, *later] if code))
            kept = [x for x in names if x in read] or names[:1]
            value = kept[0] if len(kept) == 1 else f"({', '.join(kept)})"
            if loops:
                test = " and ".join(f"({t})" for t in own)
                before += [f"{pad}{name} = []", f"{pad}for {target} in {src}:",
                           *([f"{pad}    if {test}:"] if own else []), f"{pad}{'        ' if own else '    '}{name}.append({value})"]
            else:
                before.append(f"{pad}{name} = [{value} for {target} in {src}{''.join(' if ' + t for t in own)}]")
            clauses += [f"for {', '.join(kept)} in {name}", *(f"if {t}" for t in rest)]
        bound |= set(names)
    return before, clauses


def _read_by(head: str) -> str:
    """What a clause reads: a loop's domain (its names are its own), or a test."""
    if not head.startswith("for "):
        return head[3:]
    found = _FOR.fullmatch(head)
    return found.group(2) if found is not None else head[4:]


_NONEMPTY_IDS = re.compile(r"_o \+= \[(\d+) \+ (\w+) for \2, \2_z0 in enumerate\(s\.z\[(\d+):(\d+)\]\) if \(\(not not \2_z0\)\)\]")
_ANY_NONEMPTY = re.compile(r"any\(True for (\w+), \1_z0 in enumerate\((s\.z\[\d+:\d+\])\) if \(\(not not \1_z0\)\)\)")


def nonempty_ids(line: str) -> str:
    """The ids of the zones of a family that hold cards (`base + position`), picked in C by `compress`
    rather than by a comprehension's test of each zone."""
    found = _NONEMPTY_IDS.search(line)
    if found is None:
        return line
    base, low, high = int(found.group(1)), int(found.group(3)), int(found.group(4))
    return (line[:found.start()] + f"_o += compress(range({base}, {base + high - low}), s.z[{low}:{high}])"
            + line[found.end():])


def any_nonempty(code: str) -> str:
    """Whether some zone of a family holds cards: `any` of the zones themselves."""
    return _ANY_NONEMPTY.sub(lambda found: f"any({found.group(2)})", code)


def binder_value(kind: str, index: str, low: str | None = None, table: str | None = None,
                 decode: str | None = None) -> str | None:
    """The value a binder of domain `kind` (a core type name) takes at position `index` of its domain,
    as the action numbering counts (see `Codegen.domain_index`); None for a domain read otherwise.
    `table`: the constant listing an `Items` domain; `decode`: the function that turns a number into
    its set of cards (`subsets.Decoder.bag`)."""
    if kind in ("CardsIn", "CardsInEvery", "Seats", "Members", "Positions"):
        return index
    if kind == "Numbers" and low is not None:
        return f"{index} + {low}" if low != "0" else index
    if kind == "Items" and table is not None:
        return f"{table}[{index}]"
    if kind == "SubsetsOf" and decode is not None:
        return f"{decode}({index})"
    return None


def digit(offset: str, radix: int, size: int, first: bool) -> str:
    """The index of one binder in the id's offset from its action's first id: the binders are the
    digits of the offset in mixed radix, the first binder the most significant."""
    value = offset if radix == 1 else f"{offset} // {radix}"
    return value if first else f"({value}) % {size}"
