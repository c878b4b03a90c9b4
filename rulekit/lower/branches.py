"""Branch sites: each branch of an `if` in one configuration's core IR, with the test that holds, just
before the `if` runs, exactly when that branch is the one taken.

A branch that play never takes is usually a slip in the spec: a condition that can never hold
(`size(deck) > 43` where 0 was meant, `>` where `>=` was), or one that an earlier branch always takes
first. The engine built with probes (`rulekit.engine.Game` with `probes=True`) records the branch sites
taken, as it records the silent-case sites of `lower.sites`, and `rulekit check` reports the branches that
its random games never took.

A branch's test evaluates the conditions in the order the `if` does (`not c0 and not c1 and c2`), so it
evaluates no condition the `if` itself would not: a condition that fails with a rule error fails there
first. Branches that an option folded away are not there; a branch folded to `true` is the `if`'s else.
"""
from __future__ import annotations

from .. import model as m
from ..memo import PerObject
from .sites import Site


def of(config) -> list[Site]:
    """Every branch site of a configuration, in a stable order."""
    return _found(config).sites


def folded(config) -> list[Site]:
    """The branches of a configuration that the facts, options and player count rule out before play: a
    condition folded to false, an `else` or a later branch after one folded to true. Keyed as `of` keys
    its sites (no test: they never run)."""
    return _found(config).folded


def certain(config) -> list[Site]:
    """The branches of a configuration whose condition the facts, options and player count make true
    before play: each runs whenever its `if` is reached."""
    return _found(config).certain


def _found(config) -> "_Finder":
    return _PER_CONFIG.get("branch sites", config, lambda: _find(config))


def _find(config) -> "_Finder":
    finder = _Finder()
    game = config.game
    finder.body(game.flow.body, "flow", ())
    for p in game.procedures:
        finder.body(p.body, p.name, (_texts(p),))
    for t in game.triggers:
        finder.body(t.body, f"trigger {t.name}", (_texts(t),))
    return finder


_PER_CONFIG = PerObject()
REACHED = "reached"


def condition_of(site: Site) -> m.Expr | None:
    """The condition written on a branch (None for an else)."""
    return site.case[0] if site.case else None


def _texts(node) -> tuple[str, ...]:
    return tuple(q.text for q in getattr(node, "quotes", ()))


def _constant(e) -> bool:
    return isinstance(e, m.Const) and e.type == m.BOOL


def never(cond) -> bool:
    """A condition folded to false, or a conjunction with a part folded to false."""
    if isinstance(cond, m.Binary) and cond.op == "and":
        return never(cond.left) or never(cond.right)
    return _constant(cond) and not int(cond.value)


class _Finder:
    def __init__(self):
        self.sites: list[Site] = []
        self.folded: list[Site] = []
        self.certain: list[Site] = []
        self.ifs = 0

    def body(self, stmts, owner: str, around: tuple) -> None:
        for st in stmts:
            self.stmt(st, owner, around)

    def stmt(self, st, owner: str, around: tuple) -> None:
        quotes = (_texts(st), *around)
        if isinstance(st, m.Rule):
            self.body(st.body, st.name, quotes)
        elif isinstance(st, m.If):
            self.branches(st, owner, quotes)
        elif isinstance(st, m.Choose):
            for a in st.actions:
                self.body(a.body, owner, (_texts(a), *quotes))
        elif isinstance(st, m.Turns):
            self.body(st.body, owner, quotes)
            self.body(st.then, owner, quotes)
        elif isinstance(getattr(st, "body", None), tuple):
            self.body(st.body, owner, quotes)

    def branches(self, st: m.If, owner: str, quotes: tuple) -> None:
        # the `if` reached at all: a branch of one never reached is no slip of its own (an enclosing one is)
        self.ifs += 1
        self.add(st, REACHED, st.span, owner, quotes, m.Const(1, m.BOOL), (), ())
        before = None  # no earlier branch was taken
        for i, (cond, body) in enumerate(st.branches):
            if never(cond):  # an option not chosen (`... and accuse is backfire`, folded to false)
                if body:
                    self.add(st, f"{i}", getattr(cond, "span", None) or st.span, owner, quotes, None, (cond,), body,
                             into=self.folded)
                continue
            if _constant(cond):  # true: it is taken whenever it is reached, and what follows never is
                if body:
                    self.add(st, f"{i}", getattr(cond, "span", None) or st.span, owner, quotes, None, (cond,), body,
                             into=self.certain)
                self.body(body, owner, quotes)
                for j, (later, rest) in enumerate(st.branches[i + 1:], i + 1):
                    if rest:
                        self.add(st, f"{j}", getattr(later, "span", None) or st.span, owner, quotes, None, (later,),
                                 rest, into=self.folded)
                if st.orelse:
                    self.add(st, "else", st.span, owner, quotes, None, (), st.orelse, into=self.folded)
                return
            taken = cond if before is None else m.Binary("and", before, cond, m.BOOL)
            if body:
                self.add(st, f"{i}", getattr(cond, "span", None) or st.span, owner, quotes, taken, (cond,), body)
            self.body(body, owner, quotes)
            refused = m.Unary("not", cond, m.BOOL)
            before = refused if before is None else m.Binary("and", before, refused, m.BOOL)
        if st.orelse:  # with every condition folded to false, the else runs whenever the `if` is reached
            self.add(st, "else", st.span, owner, quotes, before, (), st.orelse,
                     into=self.certain if before is None else None)
        self.body(st.orelse, owner, quotes)

    def add(self, st, which: str, span, owner: str, around: tuple, test, case: tuple, body, into=None) -> None:
        at = st.span  # every site of one `if` is keyed by where the `if` is
        where = f"{at.file}:{at.line}:{at.column}" if at is not None else f"#{self.ifs}"
        texts = tuple(text for group in around for text in group)
        near = next((group for group in around if group), ())
        (self.sites if into is None else into).append(
            Site(f"branch@{where}/{which}", "branch", st, span, owner, texts, near, test=test, case=case,
                 step=body[0] if body else None))


def reached_key(site: Site) -> str:
    """The key of the site that records that the `if` of a branch site was reached."""
    return f"{site.key.rpartition('/')[0]}/{REACHED}"


def is_reached_site(site: Site) -> bool:
    return site.key.endswith("/" + REACHED)


__all__ = ["REACHED", "certain", "condition_of", "folded", "is_reached_site", "never", "of", "reached_key"]
