"""Names for the decisions of a game, so that action strings tell apart decisions that look alike.

A `choose c in ... by p` statement and an `action play(c in ...)` print as `c=King` and `play(c=King)`. Where
two decisions (choice points) would print the same way, each string is prefixed with the decision's
place in the spec: the innermost rule, action, procedure or trigger around it, numbered when one place
holds several such decisions.
"""
from __future__ import annotations

from collections import Counter, defaultdict

from .. import model as m


def _places(game: m.Game) -> dict[int, str]:
    """The innermost named place around each choice point."""
    out: dict[int, str] = {}

    def visit(stmts, place: str) -> None:
        for st in stmts:
            if isinstance(st, m.Choose):
                out[st.point] = place
                for a in st.actions:
                    visit(a.body, a.name if a.binders or len(st.actions) > 1 else place)
            elif isinstance(st, m.Rule):
                visit(st.body, st.name)
            elif isinstance(st, m.If):
                for _, body in st.branches:
                    visit(body, place)
                visit(st.orelse, place)
            elif isinstance(st, m.Turns):
                visit(st.body, place)
                visit(st.then, place)
            elif isinstance(getattr(st, "body", None), tuple):
                visit(st.body, place)

    visit(game.flow.body, "flow")
    for p in game.procedures:
        visit(p.body, p.name)
    for t in game.triggers:
        visit(t.body, t.name)
    return out


def _shape(action: m.Action) -> tuple:
    return (action.name, tuple(b.name for b in action.binders))


def decision_prefixes(game: m.Game) -> dict[int, str]:
    """For each choice point whose action strings another choice point could print too, the name that
    tells it apart; points that print uniquely are absent."""
    chooses = {st.point: st for body in m.bodies(game) for st in m.walk(body) if isinstance(st, m.Choose)}
    owners: dict[tuple, set[int]] = defaultdict(set)
    for point, choose in chooses.items():
        for a in choose.actions:
            if a.binders:  # an action without parameters prints its own name, which its choice makes unique
                owners[_shape(a)].add(point)
    shared = sorted({p for points in owners.values() if len(points) > 1 for p in points})
    places = _places(game)
    per_place = Counter(places.get(p, "flow") for p in shared)
    seen: Counter = Counter()
    out = {}
    for point in shared:
        place = places.get(point, "flow")
        seen[place] += 1
        out[point] = place if per_place[place] == 1 else f"{place}#{seen[place]}"
    return out
