"""Lexicographic linear ranking functions over a guarded-command system, found by Z3.

The system is the exact symbolic relation of `verify.fragment`, or the whole-language relation of
`verify.control`, whose steps go from one decision to the next. Each level is a weighted sum of
the slots that change and have a declared range (variables, tokens, card counts, the control
location), so it is bounded; every command strictly decreases one level and does not increase the
levels before it. Hence no infinite run: the first level whose commands run infinitely often would
decrease forever. Where the system has control locations, only the commands that can come back to
where they began need a level, and each part of the rules that can repeat (a strongly connected
component of the locations, `verify.locations`) is ranked on its own: the set-up, which runs once,
may deal the cards that play then takes down. A slot with no range (a counter, a value kept for
later) and an input (a chance outcome, a value chosen for an action) are weighed by no level and may
hold any value in each check, so a ranking holds whatever they hold.

How a level is found: the sums a reader names first are tried first (the cards in one zone, one
variable, one token, taken down or built up), then counterexample-guided search (candidate weights
from the changes seen so far), each checked over every state within the declared bounds. The first time no
named sum fits the commands left, they are split along the branches that decide most of what they
do (`verify.paths`): a step that plays a card and sometimes also ends the round and deals again is
two steps, each ranked on its own. (Not sooner: splitting costs time on a large relation, and most
games need none of it.) Every change a query shows is kept, and rules out at once, without Z3, each
later candidate that the same change would break.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from . import budget, houdini, locations, paths
from .stepvars import StepVars
from . import terms as t

NAMED_QUANTITIES = ("zone", "var", "held", "supply")  # slot kinds whose sums a reader names, in this order
NOT_FOUND = "no weighted sum"  # how the search says that no level fits (not that Z3 ran out)


@dataclass
class Ranking:
    levels: list = field(default_factory=list)  # [(weights {slot name: weight}, [command labels])]
    sums: list = field(default_factory=list)  # each level's weighted sum as a reader says it
    parts: list = field(default_factory=list)  # the levels of each part of the rules that can repeat, in order
    once: list = field(default_factory=list)  # the labels of the steps that run at most once in a play
    assumed: list = field(default_factory=list)  # the invariants (texts) the levels hold under, proven by Houdini

    def text(self) -> str:
        if not self.levels:
            return ("no step of the rules can come back to where it was: the rules wait at each decision "
                    "at most once in a play")
        counts = self.parts or [len(self.levels)]
        texts, start = [], 0
        for n in counts:
            texts.append(self._levels_text(start, start + n))
            start += n
        said = texts[0] if len(texts) == 1 else "; ".join(
            f"part {k} of the rules that can repeat: {x}" for k, x in enumerate(texts, 1))
        if self.once:
            steps = ["the set-up" if label == "(set-up)" else label for label in dict.fromkeys(self.once)]
            one = len(steps) == 1
            said += (f"; {', '.join(steps)} run{'s' if one else ''} at most once (no path of the rules comes back "
                     f"to {'it' if one else 'them'})")
        if self.assumed:
            shown = sorted(self.assumed, key=lambda x: x.startswith("where"))[:3]
            more = len(self.assumed) - len(shown)
            said += (f"; in every state that play reaches, as Z3 proves by induction: {'; '.join(shown)}"
                     + (f" (and {more} more such facts)" if more else ""))
        return said

    def _levels_text(self, start: int, end: int) -> str:
        levels_of: dict = {}  # an action named at several levels was split: each level has some of its branches
        for _, labels in self.levels[start:end]:
            for label in labels:
                levels_of[label] = levels_of.get(label, 0) + 1
        parts = []
        for k in range(start, end):
            weights, labels = self.levels[k]
            sum_ = self.sums[k] if k < len(self.sums) else _listed(weights)
            split = sum(levels_of[label] > 1 for label in labels)
            branches = ("" if not split else ", on some of its branches" if len(labels) == 1 else
                        f", {split} of them on some of their branches")
            parts.append(f"{sum_} (strictly decreased by {len(labels)} action(s){branches})")
        return "; then ".join(parts)


def _listed(weights: dict) -> str:
    return " + ".join(f"{w}*{name}" if w != 1 else name for name, w in weights.items()) or "0"


def ranking(system: t.System, timeout_ms: int = 1000, weight_bound: int = 4, rounds: int = 40) -> tuple[Ranking | None, str]:
    """(a lexicographic linear ranking function, "") or (None, why none was found). Where the system
    has control locations, the steps that can repeat are ranked part by part (`verify.locations`): a
    play that went on for ever would, from some step on, stay within one part."""
    slots = system.slots
    live = [c for c in system.commands if c.guard != t.FALSE]
    grouped = locations.recurring(dataclasses.replace(system, commands=live))
    groups, once = grouped if grouped is not None else ([live], [])
    result = Ranking(once=[c.label for c in once])
    if not groups:
        return result, ""
    # A slot that only a step run once changes still changes: the parts must not take its first value.
    changing = sorted({i for c in system.commands for i in c.updates if i != system.over})
    bounded = [i for i in changing if slots[i].low is not None and slots[i].high is not None]
    if not bounded:
        return None, "no slot that changes has a declared range, so no weighted sum of them is bounded"
    ranked = _ranked_groups(system, groups, changing, bounded, timeout_ms, weight_bound, rounds)
    if isinstance(ranked, str) and ranked.startswith(NOT_FOUND) and grouped is not None and not budget.spent():
        # Over every state within the ranges, a player who is out may still be named to lose a chip, and
        # nobody may be left to take a turn: what play keeps true may be what the ranking needs.
        found, _ = houdini.invariants(system, timeout_ms)
        if found:
            again = _ranked_groups(system, groups, changing, bounded, timeout_ms, weight_bound, rounds,
                                   [c.term for c in found])
            if isinstance(again, str):
                ranked = f"{again}, even in the states that meet {len(found)} invariants Z3 proves play keeps"
            else:
                ranked, result.assumed = again, [c.text for c in found]
    if isinstance(ranked, str):
        return None, ranked
    for levels in ranked:
        for weights, strict in levels:
            labels = list(dict.fromkeys(c.label for c in strict))  # the parts of one command named once
            result.levels.append(({slots[i].name: w for i, w in weights.items() if w}, labels))
            result.sums.append(_sum_text({i: w for i, w in weights.items() if w}, slots, bounded))
        result.parts.append(len(levels))
    if len(result.parts) == 1:
        result.parts = []
    return result, ""


def _ranked_groups(system: t.System, groups: list, changing: list, bounded: list, timeout_ms: int,
                   weight_bound: int, rounds: int, assumed: list = ()) -> list | str:
    """The levels of each group of commands, in order, or why one group has none; the steps are taken
    from states that meet the invariants `assumed`."""
    steps = _Steps(system, changing, bounded, timeout_ms, assumed)
    natural = _natural_sums(system.slots, bounded)
    out = []
    for group in groups:
        commands = [steps.add(c) for c in group]
        if assumed:  # a step that no state meeting them allows is on no play: it needs no level
            commands = [c for c in commands if steps.possible(c)]
        levels = _levels(steps, natural, commands, weight_bound, rounds)
        if isinstance(levels, str):
            return levels
        out.append(levels)
    return out


def _levels(steps: _Steps, natural: list, remaining: list, weight_bound: int, rounds: int) -> list | str:
    """The levels [(weights, the commands that strictly decrease them)] of a lexicographic ranking of
    the commands `remaining`, or why none was found."""
    bounded = steps.bounded
    levels = []
    split = False
    while remaining:
        level = _natural_level(steps, natural, remaining)
        if level is None and not split and not budget.spent():
            # A step that plays a card and sometimes also ends the round and deals again decreases one
            # level on one branch and another on the other: where no level fits the steps whole, their
            # branches are ranked apart. A branch the bounds rule out is dropped (it would pass for
            # strictly decreasing any level); each other one leaves a step of it in `steps.seen`.
            split, shapes = True, t.Shapes()
            parts = [p for c in remaining for p in paths.split(c, bounded, shapes)]
            if len(parts) > len(remaining):
                remaining = [p for p in map(steps.add, parts) if steps.possible(p)]
                continue
        if level is None:
            found = None
            for first in remaining:
                weights = _weights(steps, first, remaining, weight_bound, rounds)
                if isinstance(weights, str):
                    if weights.startswith("the resource") or weights.startswith("the wall-clock"):
                        return weights
                    continue
                if weights is not None:
                    found = weights
                    break
            if found is None:
                labels = ", ".join(dict.fromkeys(c.label for c in remaining[:3]))
                return (f"{NOT_FOUND} of the variables, tokens and card counts decreases on every play "
                        f"of {labels}{' and others' if len(remaining) > 3 else ''} (weights up to "
                        f"{weight_bound})")
            level = found, [c for c in remaining if steps.holds(c, found, -1) is True]
        levels.append(level)
        remaining = [c for c in remaining if c not in level[1]]
    return levels


def _sum_text(weights: dict, slots, bounded: list) -> str:
    """A weighted sum as a reader says it: a whole family of slots with one weight (the cards in every
    hand, a variable over the seats) by its name, any other slot by its own."""
    families: dict = {}
    for i in bounded:
        families.setdefault(_family(slots[i].key), []).append(i)
    said, listed = [], {}
    for family, members in families.items():
        ws = {weights.get(i, 0) for i in members}
        if family is not None and len(ws) == 1 and 0 not in ws and len(members) > 1:
            w = ws.pop()
            phrase = _family_phrase(family, slots[members[0]].key)
            said.append(phrase if w == 1 else f"{w}*({phrase})")
        else:
            listed.update({slots[i].name: weights[i] for i in members if weights.get(i, 0)})
    return " + ".join(said + ([_listed(listed)] if listed else [])) or "0"


def _family(key: tuple):
    """The quantity a reader names that a slot is part of, or None."""
    return (key[0], key[1]) if key[0] in NAMED_QUANTITIES else None


def _family_phrase(family: tuple, key: tuple) -> str:
    kind, name = family
    if kind == "zone":
        return f"the cards in every {name}" if key[2] is not None else f"the cards in {name}"
    if kind == "var":
        return f"{name} summed over the seats" if key[2] is not None else name
    if kind == "held":
        return f"the {name} tokens the players hold"
    return f"the {name} tokens in the supply"


class _Steps:
    """The commands of a system as Z3 formulas over the slots before (x!i) and after (y!i) a step, and
    the changes {slot: change} of the steps that queries have shown, kept per command."""

    def __init__(self, system: t.System, changing: list, bounded: list, timeout_ms: int, assumed=()):
        self.system, self.bounded, self.timeout_ms, self.assumed = system, bounded, timeout_ms, list(assumed)
        n = len(system.slots)
        # A slot that never changes keeps its first value; the others and the inputs may hold anything
        # within their declared ranges (the bounded ones) or at all.
        self.state = StepVars(system, changing)
        self.fixed, self.xs = self.state.fixed, self.state.xs
        self.names = {**self.state.names, **{n + i: f"y!{i}" for i in bounded}}
        self.domain = self.state.within(bounded)
        self.enabled: dict = {}
        self.after: dict = {}  # the new value of each slot a command moves, as a Z3 equation
        self.delta: dict = {}
        self.seen: dict = {}

    def _pre(self, x):
        return self.state.pre(x)

    def add(self, c: t.Command) -> t.Command:
        """Encodes command c for Z3 (see `smtlib`): when it can step, and each slot's value after it;
        returns c."""
        import z3

        from . import smtlib

        system, n, pre = self.system, len(self.system.slots), self._pre
        parts = [pre(c.guard), pre(c.assume), t.compare("==", ("s", system.over), t.const(0)),
                 *map(pre, self.assumed)]
        if system.over in c.updates:  # a step that ends the game is on no infinite run
            parts.append(t.compare("==", pre(c.updates[system.over]), t.const(0)))
        if c.error != t.FALSE:
            parts.append(t.not_(pre(c.error)))
        moved = [i for i in self.bounded if i in c.updates]
        # Translated together, so that what the step and its slots' new values share is one Z3 node; a
        # query then states only the new values of the slots it weighs.
        enabled, *after = smtlib.conditions(
            [t.and_(*parts), *(t.compare("==", ("s", n + i), pre(c.updates[i])) for i in moved)], self.names)
        self.enabled[id(c)], self.after[id(c)] = enabled, dict(zip(moved, after))
        self.delta[id(c)] = {i: z3.Int(self.names[n + i], ctx=budget.context()) - self.xs[i] for i in moved}
        self.seen[id(c)] = []
        return c

    def possible(self, c: t.Command) -> bool:
        """Whether command c can step at all within the declared bounds (unknown counts as possible);
        a step found is kept in `seen`."""
        import z3

        solver = budget.solver(self.timeout_ms, simplify=True)
        solver.add(*self.domain, self.enabled[id(c)])
        r = budget.check(solver)
        if r == z3.sat:
            self.seen[id(c)].append(self._changes(c, solver.model()))
        return r != z3.unsat

    def refuted(self, c: t.Command, weights: dict, bound: int) -> dict | None:
        """The changes of a step of command c seen so far whose weighted change exceeds bound, if any."""
        for changes in self.seen[id(c)]:
            if sum(weights.get(i, 0) * d for i, d in changes.items()) > bound:
                return changes
        return None

    def holds(self, c: t.Command, weights: dict, bound: int):
        """True when the weighted change of command c is <= bound in every state where it is enabled;
        else the changes of a step where it is not {slot: change}, or a string saying why unknown."""
        import z3

        seen = self.refuted(c, weights, bound)
        if seen is not None:
            return seen
        delta, after = self.delta[id(c)], self.after[id(c)]
        weighed = [i for i in delta if weights.get(i, 0)]
        change = z3.Sum([weights[i] * delta[i] for i in weighed] or [z3.IntVal(0, ctx=budget.context())])
        solver = budget.solver(self.timeout_ms, simplify=True)
        solver.add(*self.domain, self.enabled[id(c)], *(after[i] for i in weighed), change > bound)
        r = budget.check(solver)
        if r == z3.unsat:
            return True
        if r == z3.unknown:
            return budget.unknown_reason(solver)
        changes = self._changes(c, solver.model())
        self.seen[id(c)].append(changes)
        return changes

    def _changes(self, c: t.Command, model) -> dict:
        """What the step of command c from the model's state and inputs changes, slot by slot (the
        model need not give the new values of slots that its query did not weigh)."""
        values = self.state.values(model)
        memo: dict = {}
        return {i: int(t.evaluate(c.updates[i], values, memo)) - values[i] for i in self.delta[id(c)]}


def _natural_sums(slots, bounded: list) -> list[dict]:
    """Weights of the quantities a reader names first, taken down or built up: the cards in one zone
    (every seat's or place's of a zone laid out per player or per position), then one variable (every
    seat's of a variable per player), one token held, one token's supply."""
    groups: dict = {}
    for i in bounded:
        key = slots[i].key
        if key[0] in NAMED_QUANTITIES:
            groups.setdefault((NAMED_QUANTITIES.index(key[0]), key[1]), []).append(i)
    return [{i: sign for i in groups[name]} for name in sorted(groups, key=lambda g: g[0]) for sign in (1, -1)]


def _natural_level(steps: _Steps, natural: list, remaining: list) -> tuple | None:
    """The first of the `natural` weights that no command of `remaining` increases and some decrease:
    (the weights, the commands that strictly decrease them), or None."""
    for weights in natural:
        if any(steps.refuted(c, weights, 0) for c in remaining):
            continue
        if all(steps.holds(c, weights, 0) is True for c in remaining):
            strict = [c for c in remaining if steps.holds(c, weights, -1) is True]
            if strict:
                return weights, strict
    return None


def _weights(steps: _Steps, first, remaining: list, weight_bound: int, rounds: int):
    """Weights making `first` strictly decrease and no command of `remaining` increase, or None."""
    import z3

    ws = {i: z3.Int(f"w{i}", ctx=budget.context()) for i in steps.bounded}
    chooser = budget.solver(steps.timeout_ms)
    chooser.add(*(z3.And(w >= -weight_bound, w <= weight_bound) for w in ws.values()))

    def rule_out(changes: dict, bound: int):
        chooser.add(z3.Sum([ws[i] * d for i, d in changes.items()] or [z3.IntVal(0, ctx=budget.context())]) <= bound)

    for c in remaining:  # what earlier queries showed these commands do
        for changes in steps.seen[id(c)]:
            rule_out(changes, -1 if c is first else 0)
    for _ in range(rounds):
        r = budget.check(chooser)
        if r == z3.unsat:
            return None
        if r == z3.unknown:
            return budget.unknown_reason(chooser)
        model = chooser.model()
        weights = {i: model.eval(w, model_completion=True).as_long() for i, w in ws.items()}
        failed = False
        for c in [first, *(c for c in remaining if c is not first)]:
            bound = -1 if c is first else 0
            answer = steps.holds(c, weights, bound)
            if answer is True:
                continue
            if isinstance(answer, str):
                return answer
            rule_out(answer, bound)
            failed = True
            break
        if not failed:
            return weights
    return None


__all__ = ["NAMED_QUANTITIES", "Ranking", "ranking"]
