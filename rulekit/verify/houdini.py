"""Invariants of a guarded-command system that its steps keep, found among candidates (Houdini).

A ranking function is checked over every state within the declared ranges, reachable or not. In a game
where players drop out that is too much: "the loser of a call gives back a chip" holds only because the
loser is still in, and "the rules go on to the next player still in" only because someone is. Those
facts hold in every state that play reaches, and here Z3 proves them by induction, so that the ranking
may assume them.

The candidates are what elimination games rely on, for each quantity a player has (tokens held, a
per-player variable, the cards of a per-player zone) and each variable that names a player (whose turn
it is included):

- the player it names (if any) has some of it, or has none;
- some player has some of it;

each in every state, and at each location of the rules on its own (a decision, or a silent location
where the rules go on). Houdini keeps those that hold in the initial state and drops, step by step, each
that some step from a state meeting all those kept so far breaks (Z3 gives the step), until no step
breaks any: what is left holds in every reachable state where play goes on. A query that Z3 cannot
decide ends the search with no invariant at all.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import budget, locations, smtlib
from . import terms as t
from .stepvars import StepVars

MAX_CANDIDATES = 240  # a relation with more player variables, quantities and locations keeps the first


@dataclass
class Candidate:
    term: tuple  # over the slots of a state where play goes on
    text: str


def invariants(system: t.System, timeout_ms: int = 1000) -> tuple[list[Candidate], str]:
    """(the candidates that every step keeps, ""), or ([], why none is known)."""
    kept = [c for c in candidates(system) if t.evaluate(c.term, system.init)]
    steps = _Steps(system, timeout_ms)
    while kept:
        for command in system.commands:
            if command.guard == t.FALSE:
                continue
            broken = steps.broken(command, kept)
            if isinstance(broken, str):
                return [], f"Houdini over the candidate invariants: {broken}"
            if broken:  # the steps checked before may need what is dropped now: check them all again
                kept = [c for k, c in enumerate(kept) if k not in broken]
                break
        else:
            return kept, ""
    return [], "no candidate invariant holds at the start and is kept by every step"


class _Steps:
    """The steps of a system for Z3, from a state where play goes on to one where it still goes on."""

    def __init__(self, system: t.System, timeout_ms: int):
        self.system, self.timeout_ms = system, timeout_ms
        self.state = StepVars(system, {i for c in system.commands for i in c.updates})
        self.domain = self.state.within(range(len(system.slots)))

    def broken(self, command: t.Command, kept: list[Candidate]) -> set[int] | str:
        """The indexes of the candidates that some step of `command` breaks from a state meeting all of
        `kept` (one query per step Z3 finds, until it finds none), or why Z3 could not tell."""
        import z3

        system = self.system
        over = ("s", system.over)
        step = t.and_(command.guard, command.assume, t.not_(command.error), t.compare("==", over, t.const(0)),
                      t.compare("==", command.updates.get(system.over, over), t.const(0)))
        posts = t.replace_slots([c.term for c in kept], command.updates)
        pre = self.state.pre
        encoded = smtlib.conditions([pre(step), *(pre(c.term) for c in kept), *map(pre, posts)],
                                    self.state.names)
        enabled, before, after = encoded[0], encoded[1:1 + len(kept)], encoded[1 + len(kept):]
        solver = budget.solver(self.timeout_ms, simplify=True)
        solver.add(*self.domain, enabled, *before)
        broken: set[int] = set()
        while len(broken) < len(kept):
            standing = [k for k in range(len(kept)) if k not in broken]
            solver.push()
            solver.add(z3.Or(*(z3.Not(after[k]) for k in standing)))
            answer = budget.check(solver)
            model = solver.model() if answer == z3.sat else None
            why = budget.unknown_reason(solver) if answer == z3.unknown else ""
            solver.pop()
            if answer == z3.unsat:
                break
            if model is None:
                return why
            values = self.state.values(model)
            memo: dict = {}
            now = {k for k in standing if not t.evaluate(posts[k], values, memo)}
            if not now:  # the model and the terms disagree: trust neither
                return "a step that Z3 gives breaks none of them"
            broken |= now
        return broken


def candidates(system: t.System) -> list[Candidate]:
    """The candidate invariants of the module docstring, for the system's quantities and players: each
    fact everywhere first, then at each location (the first MAX_CANDIDATES of them)."""
    n = system.players
    players = _player_slots(system)
    facts = []
    for kind, name, terms_of, low in _per_player_quantities(system):
        if low is not None and low >= 1:  # a quantity that cannot be below 1: every player always has some
            continue
        some, none_of = _phrases(kind, name)
        for slot, player in players:
            v = ("s", slot)
            has = _at(v, terms_of, n)
            can_be_none = system.slots[slot].low is not None and system.slots[slot].low < 0
            none = t.compare("==", v, t.const(-1)) if can_be_none else t.FALSE
            also = " (or is none)" if can_be_none else ""
            facts.append((t.or_(none, t.compare(">=", has, t.const(1))), some(player) + also))
            facts.append((t.or_(none, t.compare("<=", has, t.const(0))), none_of(player) + also))
        facts.append((t.or_(*(t.compare(">=", x, t.const(1)) for x in terms_of)), some("some player")))
    out = [Candidate(term, text) for term, text in facts]
    pc = locations.pc_slot(system)
    if pc is not None:
        said = _location_names(system, pc)
        for loc in range(1, (system.slots[pc].high or 0) + 1):
            where = said.get(loc, f"at location {loc}: ")
            out += [Candidate(t.or_(t.compare("!=", ("s", pc), t.const(loc)), term), where + text)
                    for term, text in facts]
    return out[:MAX_CANDIDATES]


def _phrases(kind: str, name: str):
    """How a reader says that a player has some of a quantity, and that they have none."""
    if kind == "held":
        return (lambda who: f"{who} has some {name}"), (lambda who: f"{who} has no {name}")
    if kind == "zone":
        return (lambda who: f"{who} has cards in {name}"), (lambda who: f"{who} has no card in {name}")
    if kind == "flag":
        return (lambda who: f"{name} is true for {who}"), (lambda who: f"{name} is false for {who}")
    return (lambda who: f"{name} is at least 1 for {who}"), (lambda who: f"{name} is at most 0 for {who}")


def _at(v, terms_of: list, n: int):
    """The quantity of the player slot `v` names (the last seat's where it names none: the candidate
    says what it says of `none` on its own)."""
    out = terms_of[n - 1]
    for p in range(n - 2, -1, -1):
        out = t.ite(t.compare("==", v, t.const(p)), terms_of[p], out)
    return out


def _per_player_quantities(system: t.System) -> list[tuple[str, str, list, int | None]]:
    """(kind: held, zone, flag or number; name; the term of each seat's; the lowest value it can have) of
    each quantity every seat has."""
    n = system.players
    held: dict = {}
    for i, s in enumerate(system.slots):
        key = s.key
        if key[0] == "held" and isinstance(key[2], int):
            held.setdefault(("held", key[1]), {}).setdefault(key[2], []).append(i)
        elif key[0] == "var" and key[2] is not None and s.seat is not None:
            held.setdefault(("var", key[1]), {}).setdefault(key[2], []).append(i)
        elif key[0] == "zone" and s.seat is not None and key[2] == s.seat:
            held.setdefault(("zone", key[1]), {}).setdefault(key[2], []).append(i)
    out = []
    for (kind, name), seats in held.items():
        if sorted(seats) != list(range(n)):
            continue
        terms_of = []
        for p in range(n):
            total = ("s", seats[p][0])
            for i in seats[p][1:]:
                total = t.arith("+", total, ("s", i))
            terms_of.append(total)
        members = [system.slots[i] for p in range(n) for i in seats[p]]
        low = 0
        if kind == "var":
            lows = [m.low for m in members]
            low = None if any(x is None for x in lows) else min(lows)
            if all((m.low, m.high) == (0, 1) for m in members):
                kind = "flag"
            else:
                kind = "number"
        out.append((kind, name, terms_of, low))
    return out


def _player_slots(system: t.System) -> list[tuple[int, str]]:
    """(slot, how a reader names it) of whose turn it is and of each shared variable that names a seat."""
    n = system.players
    out = []
    for i, s in enumerate(system.slots):
        if s.key == ("cur",):
            out.append((i, "the current player"))
        elif s.key[0] == "var" and s.key[2] is None and s.low in (-1, 0) and s.high == n - 1 and n > 1:
            out.append((i, s.key[1]))
    return out


def _location_names(system: t.System, pc: int) -> dict[int, str]:
    """Location -> where it is, as a reader knows it: by the actions offered there."""
    labels: dict = {}
    for c in system.commands:
        source = locations.source_of(c.guard, pc)
        if source and c.label[0] != "(":
            labels.setdefault(next(iter(source)), []).append(c.label.split("(")[0])
    out = {loc: f"where the rules offer {' or '.join(dict.fromkeys(ls))}: " for loc, ls in labels.items()}
    for c in system.commands:  # a location with no action: the rules go on from there by themselves
        source = locations.source_of(c.guard, pc)
        if source and next(iter(source)) not in out:
            out[next(iter(source))] = "where the rules go on by themselves: "
    return out


__all__ = ["Candidate", "candidates", "invariants"]
