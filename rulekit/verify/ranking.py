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
from .stepqueries import StepQueries
from . import terms as t

NAMED_QUANTITIES = ("zone", "var", "held", "supply")  # slot kinds whose sums a reader names, in this order
NOT_FOUND = "no weighted sum"  # how the search says that no level fits (not that Z3 ran out)


@dataclass
class Part:
    """The levels `levels[start:end]` of a `Ranking` that rank one part of the rules that can repeat, and
    the parts within it that can still repeat without the steps those levels strictly decrease."""

    start: int
    end: int
    inner: list = field(default_factory=list)  # of Part


@dataclass
class Ranking:
    levels: list = field(default_factory=list)  # [(weights {slot name: weight}, [command labels])]
    sums: list = field(default_factory=list)  # each level's weighted sum as a reader says it
    parts: list = field(default_factory=list)  # of Part: each part of the rules that can repeat, in order
    once: list = field(default_factory=list)  # the labels of the steps that run at most once in a play
    assumed: list = field(default_factory=list)  # the invariants (texts) the levels hold under, proven by Houdini

    def text(self) -> str:
        if not self.levels:
            return ("no step of the rules can come back to where it was: the rules wait at each decision "
                    "at most once in a play")
        parts = self.parts or [Part(0, len(self.levels))]
        if len(parts) == 1:
            said = self._levels_text(parts[0].start, parts[0].end) + self._inner_text(parts[0])
        else:
            said = "; ".join(self._part_text(part, str(k)) for k, part in enumerate(parts, 1))
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

    def _part_text(self, part: Part, number: str) -> str:
        said = f"part {number} of the rules that can repeat: {self._levels_text(part.start, part.end)}"
        return said + self._inner_text(part)

    def _inner_text(self, part: Part) -> str:
        """The parts that can still repeat between two steps that decrease `part`'s levels, each said by
        its own levels in short (the same levels said once, with how many parts have them)."""
        if not part.inner:
            return ""
        shorts: dict = {}
        for inner in part.inner:
            short = self._short_text(inner)
            shorts[short] = shorts.get(short, 0) + 1
        listed = "; ".join(short if n == 1 else f"{short} ({n} parts)" for short, n in shorts.items())
        n = len(part.inner)
        return (f"; between two steps that decrease {'it' if part.end - part.start == 1 else 'them'}, play can "
                f"repeat only within {'a smaller part' if n == 1 else f'{n} smaller parts'}, ranked on "
                f"{'its' if n == 1 else 'their'} own: {listed}")

    def _short_text(self, part: Part) -> str:
        said = ", then ".join(self.sums[k] if k < len(self.sums) else _listed(self.levels[k][0])
                              for k in range(part.start, part.end))
        if part.inner:
            said += f" (then {len(part.inner)} smaller part{'s' if len(part.inner) > 1 else ''})"
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
    result.parts = [part for tree in ranked for part in _add_parts(result, tree, slots, bounded)]
    return result, ""


def _add_parts(result: Ranking, tree: tuple, slots, bounded: list) -> list[Part]:
    """The levels of `tree` (levels, inner trees) added to `result`, then those of its inner parts; the
    parts they make (a tree with no levels of its own is only its inner parts)."""
    levels, inner = tree
    start = len(result.levels)
    for weights, strict in levels:
        labels = list(dict.fromkeys(c.label for c in strict))  # the parts of one command named once
        result.levels.append(({slots[i].name: w for i, w in weights.items() if w}, labels))
        result.sums.append(_sum_text({i: w for i, w in weights.items() if w}, slots, bounded))
    end = len(result.levels)
    inner_parts = [part for sub in inner for part in _add_parts(result, sub, slots, bounded)]
    return [Part(start, end, inner_parts)] if levels else inner_parts


def _ranked_groups(system: t.System, groups: list, changing: list, bounded: list, timeout_ms: int,
                   weight_bound: int, rounds: int, assumed: list = ()) -> list | str:
    """The levels of each group of commands, as a tree (levels, the trees of the groups that can still
    repeat without the steps they strictly decrease), in order, or why one group has none; the steps
    are taken from states that meet the invariants `assumed`."""
    steps = StepQueries(system, changing, bounded, timeout_ms, assumed)
    natural = _natural_sums(system.slots, bounded)
    out = []
    for group in groups:
        commands = [steps.add(c) for c in group]
        if assumed:  # a step that no state meeting them allows is on no play: it needs no level
            commands = [c for c in commands if steps.possible(c)]
        tree = _levels(steps, natural, commands, weight_bound, rounds)
        if isinstance(tree, str):
            return tree
        out.append(tree)
    return out


def _levels(steps: StepQueries, natural: list, remaining: list, weight_bound: int, rounds: int) -> tuple | str:
    """The levels [(weights, the commands that strictly decrease them)] of a lexicographic ranking of
    the commands `remaining`, with the trees of the smaller groups that can still repeat once the
    commands the levels strictly decrease are left out; or why none was found.

    Each level is non-increasing over all of `remaining` and bounded, so a play that went on for ever
    within them would, from some step on, take none of the steps that strictly decrease it; it would
    then stay within one cycle of the locations of the other steps (`locations.recurring`), which is
    ranked on its own: a step that can no longer come back needs no level."""
    bounded = steps.bounded
    levels = []
    split = False
    remaining = _within_control(steps, remaining)
    while remaining:
        level = _natural_level(steps, natural, remaining)
        if level is not None:
            level, remaining = level[:2], level[2]
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
        if levels and levels[-1][0] == level[0]:  # the same sum again, decreased by more branches: one level
            levels[-1] = (level[0], levels[-1][1] + level[1])
        else:
            levels.append(level)
        remaining = _within_control(steps, [c for c in remaining if c not in level[1]])
        inner = _smaller_groups(steps, remaining, natural, weight_bound, rounds)
        if inner is not None:
            return inner if isinstance(inner, str) else (levels, inner)
    return levels, []


def _smaller_groups(steps: StepQueries, commands: list, natural: list, weight_bound: int, rounds: int) -> list | str | None:
    """The trees of the groups that `commands` can recur within, when they are not all one group; None
    when they are."""
    regrouped = locations.recurring(dataclasses.replace(steps.system, commands=commands))
    if regrouped is None or [len(g) for g in regrouped[0]] == [len(commands)]:
        return None
    inner = []
    for group in regrouped[0]:
        tree = _levels(steps, natural, group, weight_bound, rounds)
        if isinstance(tree, str):
            return tree
        inner.append(tree)
    return inner


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


def _natural_level(steps: StepQueries, natural: list, remaining: list) -> tuple | None:
    """A level among the `natural` weights: (the weights, the commands that strictly decrease them, the
    commands to rank, which may be `remaining` with some split into their branches), or None. First
    the sums whose levels the updates' shapes show, no query asked; then the first that no command of
    `remaining` increases and some decrease, as Z3 finds."""
    # Only a step that moves one of the sum's slots can decrease it (the others leave it as it was): a
    # sum that none moves is no level.
    moving = {}
    for k, weights in enumerate(natural):
        moving[k] = [c for c in remaining if any(weights.get(i, 0) for i in steps.moved[id(c)])]
        if moving[k] and all(steps.surely(c, weights, 0) for c in moving[k]):
            shown = _shown_level(steps, weights, moving[k], remaining)
            if shown is not None:
                return (weights, *shown)
    for k, weights in enumerate(natural):
        if not moving[k] or any(steps.refuted(c, weights, 0) for c in moving[k]):
            continue
        if all(steps.never_down(c, weights) for c in moving[k]):  # no step can decrease it: no level
            continue
        if all(steps.holds(c, weights, 0) is True for c in moving[k]):
            strict = [c for c in moving[k] if not steps.never_down(c, weights) and steps.holds(c, weights, -1) is True]
            if strict:
                return weights, strict, remaining
    return None


def _shown_level(steps: StepQueries, weights: dict, moving: list, remaining: list) -> tuple | None:
    """For a sum that no step of `moving` can increase, by the shapes of their updates: (the steps that
    the shapes show decrease it, the commands to rank), or None. A step that decreases it on one branch
    only (a turn that begins the next round on its last branch) is split along the branches of the
    sum's slots, and counts where the shapes show that a branch decreases it."""
    strict = [c for c in moving if steps.surely(c, weights, -1)]
    if strict:
        return strict, remaining
    slots = [i for i, w in weights.items() if w]
    parts = {}
    for c in moving:
        if steps.may_decrease_on_a_branch(c, weights):
            halves = steps.branches(c, slots)
            if len(halves) > 1 and any(steps.surely(p, weights, -1) for p in halves):
                parts[id(c)] = halves
    if not parts:
        return None
    remaining = [p for c in remaining for p in parts.get(id(c), [c])]
    return [p for c in moving if id(c) in parts for p in parts[id(c)] if steps.surely(p, weights, -1)], remaining


def _weights(steps: StepQueries, first, remaining: list, weight_bound: int, rounds: int):
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


def _within_control(steps: StepQueries, commands: list) -> list:
    """`commands` with each split by where it leads (`pc`), where some branch cannot come back (it leads
    out of the cycles of the others): only the branches that can recur are kept. A loop that goes round
    at a silent location, drawing a card each time, and on another branch goes on to the next decision,
    recurs on the first branch only."""
    system = steps.system
    pc = locations.pc_slot(system)
    if pc is None:
        return commands
    parts = {id(c): _by_target(steps, c, pc) for c in commands}
    if all(len(ps) == 1 for ps in parts.values()):
        return commands
    flat = [p for c in commands for p in parts[id(c)]]
    grouped = locations.recurring(dataclasses.replace(system, commands=flat))
    recurring = {id(p) for group in grouped[0] for p in group}
    out = []
    for c in commands:
        kept = [p for p in parts[id(c)] if id(p) in recurring]
        if len(kept) == len(parts[id(c)]):  # every branch can recur: the command stays whole
            out.append(c)
        else:
            out.extend(kept)
    return out


def _by_target(steps: StepQueries, c: t.Command, pc: int) -> list:
    """Command c as one command per location its step can lead to (the paths that end the game lead
    to none, and are on no endless play), or [c] where that is one location or not known."""
    update = c.updates.get(pc)
    found = locations.targets(update, pc) if update is not None and pc in steps.moved[id(c)] else None
    if found is None or len(found) < 2:
        return [c]
    return [steps.restricted(dataclasses.replace(c, guard=t.and_(c.guard, t.compare("==", update, t.const(v))),
                                                 updates={**c.updates, pc: t.const(v)}, enabled=None),
                             c, _leads_to(pc, v))
            for v in sorted(found)]


def _leads_to(pc: int, v: int):
    """The Z3 condition that a command's step leads to location v, made from its encoding."""
    def condition(steps: StepQueries, whole: t.Command):
        import z3

        return steps.new_value(whole, pc) == z3.IntVal(v, ctx=budget.context())
    return condition


__all__ = ["NAMED_QUANTITIES", "Part", "Ranking", "ranking"]
