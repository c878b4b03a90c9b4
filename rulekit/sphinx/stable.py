"""Whether a value kept by `let` still equals its expression wherever the rules read it.

The English says a `let` by its expression ("if the deck is not empty"), which is right only while
nothing the expression reads has changed where the value is read. `let had_deck = size(deck) > 0`,
then a card drawn, then `if had_deck and size(deck) == 0` said that way reads "if the deck is not empty
and the deck is empty": there the value must be named as a value noted before. The statements after
the `let` are followed in the order they run: the test of an `else if` comes after its own block's
statements only, a `for` reads its domain once before its body, and a loop's body may see what its
earlier passes wrote. A statement whose writes are not known (a procedure called, say) may change
anything.
"""
from __future__ import annotations

from .. import model as m
from .. import phrases

# Statements that change no zone, variable or token (a random value or a `let` binds a local only).
_NO_WRITES = (m.If, m.Let, m.End, m.Win, m.Break, m.Reveal, m.Announce, m.Random, m.Choose, m.For, m.Loop)
ANYTHING = None  # what an unknown write or read is said as


def noted_name(name: str) -> str:
    """How the rules refer to a value noted before it changed: "had deck (as noted before)"."""
    return f"{phrases.words(name)} (as noted before)"


def unchanged(let: m.Let, later, defines: dict) -> bool:
    """Whether every read of `let`'s value among the statements `later` comes before any change to
    what its expression reads."""
    reads = _reads(let.value, defines, set())
    if reads is ANYTHING:
        return not _uses_in(later, let.slot)
    return _stable(list(later), let.slot, reads, set())


def _stable(stmts: list, slot: int, reads: set, written: set) -> bool:
    """Following `stmts` in order, `written` what has changed before them (updated in place)."""
    for st in stmts:
        changed = bool(reads & written) or ANYTHING in written
        if isinstance(st, m.If):
            after = set(written)
            for cond, body in st.branches:
                if changed and _uses(cond, slot):
                    return False
                inner = set(written)
                if not _stable(list(body), slot, reads, inner):
                    return False
                after |= inner
            inner = set(written)
            if not _stable(list(st.orelse), slot, reads, inner):
                return False
            written |= after | inner
        elif isinstance(st, m.For):
            if changed and _uses(st.binder, slot):
                return False
            inner = written | _writes(st.body)
            if not _stable(list(st.body), slot, reads, inner):
                return False
            written |= inner
        else:
            nested = _writes([st])
            seen = written | nested if isinstance(st, (m.Loop, m.Choose, m.Turns, m.Rounds)) else written
            if (bool(reads & seen) or ANYTHING in seen) and _uses_in([st], slot):
                return False
            written |= nested
    return True


def _uses(node, slot: int) -> bool:
    return any(isinstance(x, m.Local) and x.slot == slot for x in m.nodes(node))


def _uses_in(stmts, slot: int) -> bool:
    return any(_uses(st, slot) for st in stmts)


def _reads(expr, defines: dict, seen: set) -> set | None:
    """The zones and variables (tokens included) an expression reads; None where that is not known."""
    out: set = set()
    for node in m.nodes(expr):
        if isinstance(node, m.ZoneRef):
            out.add(node.zone)
        elif isinstance(node, m.VarRef):
            out.add(node.var)
        elif isinstance(node, m.Builtin) and node.name in ("supply", "held"):
            token = getattr(node, "token", None)
            if token is None:
                return ANYTHING
            out.add(token)
        elif isinstance(node, m.DefineCall) and node.define not in seen:
            d = defines.get(node.define)
            inner = _reads(d.body, defines, seen | {node.define}) if d is not None else ANYTHING
            if inner is ANYTHING:
                return ANYTHING
            out |= inner
    return out


def _writes(stmts) -> set:
    """What the statements may change: zone, variable and token names, and ANYTHING where not known."""
    out: set = set()
    for st in m.walk(stmts):
        if isinstance(st, m.Move):
            zones = [x.zone for x in (st.source, st.dest) if isinstance(x, m.ZoneRef)]
            out |= set(zones) if len(zones) == 2 else {ANYTHING}
        elif isinstance(st, m.Assign):
            out.add(st.var)
        elif isinstance(st, m.TokenMove):
            out.add(st.token)
        elif isinstance(st, m.Shuffle) and isinstance(st.zone, m.ZoneRef):
            out.add(st.zone.zone)
        elif not isinstance(st, _NO_WRITES):
            out.add(ANYTHING)
    return out


__all__ = ["noted_name", "unchanged"]
