"""The segments abstraction: a whole game as guarded commands over counts, sound for invariants.

Where `fragment` encodes one decision point exactly, this module covers games with turns, rounds,
loops, nested decisions, chance, triggers and boards, by giving up the control flow:

- A *segment* is a maximal run of statements of one statement list (the flow, a loop or turn body,
  an action, a procedure, a trigger) that contains no place where the engine can stop: no decision
  (`choose`), no chance event (`random`, a card taken from the top or bottom of a stack) and no
  loop. Such places split runs; the bodies of the statements that split them are segmented in turn.
  Decision-free procedures are inlined, decision-free `for` loops over a finite domain unrolled,
  `if` merged into conditional values; `end turn`, `end round`, `break` and `end game` end the
  segment (`end game` also sets the end flag).
- Every segment is one command, enabled whenever the game is not over: the abstraction forgets the
  program counter, so any segment may follow any other. Between two engine stops the engine runs a
  sequence of whole segments (each from its start to its end or to an `end`/`break`), so every
  engine trace is a sequence of abstract steps: what holds in every abstract state holds in every
  engine state (proven stays proven), while an abstract counterexample may be spurious.
- Zones are counts per card kind per zone (stack order forgotten: the top card is any kind the
  zone holds). A family of zones laid out on a board is pooled: one count per kind for the whole
  board, so that cards are conserved across it; what one position holds is an unknown between 0
  and the pool (every position holds at most what the board holds), and a move from or to it
  changes the pool by what it moves. Whatever a segment reads that the state does not record (the
  current player, a local bound outside the segment, a chosen or random value, a board position,
  `the(...)`, what one position holds) is an *unknown*: a free variable, any value of its type (or
  range), fresh in every read. A set of cards moved (a chosen subset, say) moves, of each kind,
  an unknown number of the cards the source holds.
- For each invariant the state is cut to its cone of influence: the slots it reads, then the slots
  whose value flows into a kept slot's new value (and the integer variables and tokens that a kept
  slot's update tests), to a fixpoint. Every other slot becomes an unknown as well, which is again
  an over-approximation.

An invariant that reads something the abstraction does not record, or whose abstract system
is not decided, stays `unknown`. Witnesses found here are not engine traces and are never reported
as refutations.
"""
from __future__ import annotations

import dataclasses

from .. import model as m
from ..lower import Config, core
from . import Unsupported, balance, budget, commandwise, kindflow, ranges
from .fragment import Builder, Store, where
from ..memo import PerObject
from .terms import FALSE, TRUE, Command, Slot, SlotSets, System, and_, arith, compare, const, ite, not_, or_, slots_of
from .terms import size as term_size

_STOPS = (m.Choose, m.Random, m.Loop, m.Turns, m.Rounds, m.CheckTriggers)


class _Abstract(Builder):
    def __init__(self, config: Config):
        self.unknown: list[int] = []
        self._stop_memo: dict[str, bool] = {}
        self.segment_unknowns: dict = {}
        super().__init__(config)

    # ---- declarations: triggers and boards are fine here
    def _check_declarations(self) -> None:
        pass

    def pooled_zones(self) -> frozenset:
        """The families of zones laid out on a board, each counted as one pool per kind."""
        if not hasattr(self, "_pooled"):
            self._pooled = frozenset(z.name for z in self.g.zones if z.per_board is not None)
        return self._pooled

    def instances(self, z: m.ZoneDecl):
        return [None] if z.per_board is not None else super().instances(z)

    # ---- unknowns
    def fresh(self, low: int | None, high: int | None, what: str):
        i = len(self.slots)
        self.slots.append(Slot(("unknown", i), f"?{what}#{i}", None, None))
        self.init.append(0)
        self.unknown.append(i)
        self.domains[i] = (low, high)
        return ("s", i)

    def fresh_of(self, t: m.Type, what: str):
        kind = t.kind
        if kind == "bool":
            return compare("!=", self.fresh(0, 1, what), const(0))
        if kind == "int":
            return self.fresh(None, None, what)
        if kind == "player":
            return self.fresh(-1 if self.no_player else 0, self.n - 1, what)
        if kind == "card":
            return self.fresh(0, len(self.counts) - 1, what)
        if kind == "enum":
            return self.fresh(0, len(self.enums[t.enum].members) - 1, what)
        if kind == "pos":  # the engine's integer for a position (see `fragment`)
            return self.fresh(0, self.positions(t.enum) - 1, what)
        raise Unsupported(f"an unknown value of type {t} ({what})")

    @property
    def domains(self) -> dict:
        if not hasattr(self, "_domains"):
            self._domains = {}
        return self._domains

    # ---- expressions: what the state does not record is an unknown of the expression's type
    def ev(self, e, st, env):
        try:
            return super().ev(e, st, env)
        except budget.TooLarge:
            raise  # a limit that holds: not a construct to leave unknown
        except Unsupported:
            t = getattr(e, "type", None)
            if not hasattr(self, "slots") or t is None or t.kind not in ("bool", "int", "player", "card", "enum", "pos"):
                raise
            return self.fresh_of(t, type(e).__name__)

    # Within one segment a local bound outside it, and the current player, keep one (unknown) value.
    def e_Local(self, e, st, env):
        if e.slot in env:
            return env[e.slot]
        key = ("local", e.slot, e.name)
        if key not in self.segment_unknowns:
            self.segment_unknowns[key] = self.fresh_of(e.type, e.name)
        return self.segment_unknowns[key]

    def e_Current(self, e, st, env):
        if "current" not in self.segment_unknowns:
            self.segment_unknowns["current"] = self.fresh(0, self.n - 1, "current")
        return self.segment_unknowns["current"]

    # The direction of play is not recorded: where `reverse order` can turn it, a neighbour is any player
    # and the order of `players from` is unknown.
    def e_Neighbour(self, e, st, env):
        if self.reverses:
            return self.fresh_of(m.PLAYER, "neighbour")
        return super().e_Neighbour(e, st, env)

    # Boards are not recorded (the fragment's exact reading of them costs a count per position): a
    # position, whether two are neighbours, the first element that meets a condition (`the`) and the
    # cards of a whole family on a board are unknowns, as the module says.
    def e_Near(self, e, st, env):
        raise Unsupported(f"neighbours on a board{where(e)}")

    def e_Attr(self, e, st, env):
        if e.target.type.kind == "pos":
            raise Unsupported(f"the {e.attr} of a position{where(e)}")
        return super().e_Attr(e, st, env)

    def the(self, e, st, env):
        raise Unsupported(f"the(...){where(e)}")

    def domain(self, it, st, env):
        if isinstance(it, core.Positions):
            raise Unsupported(f"the positions of board {it.board}")
        if isinstance(it, core.CardsInEvery) and it.family in self.pooled_zones():
            return [(const(k), self.pool(st, it.family, k)) for k in range(len(self.counts))]
        if self.reverses and isinstance(it, core.Seats) and it.start is not None:
            raise Unsupported(f"the order of `players from` once the order of play can turn{where(it.start)}")
        return super().domain(it, st, env)

    def pool(self, st, family: str, k: int):
        return st.vals[self.at[("zone", family, None, k)]]

    def zone_count(self, st, zone, k: int):
        if zone[1] not in self.pooled_zones():
            return super().zone_count(st, zone, k)
        # One position holds any number of the pool's cards of kind k: a move from it takes at most the pool.
        pool = self.pool(st, zone[1], k)
        here = self.fresh(0, max(0, self.counts[k]), f"count {zone[1]}")
        return ite(compare("<=", here, pool), here, pool)

    # ---- statements
    def s_Shuffle(self, s, st, env):
        pass  # counts forget the order

    def s_Reverse(self, s, st, env):
        pass  # the direction of play is not recorded (see e_Neighbour)

    def s_End(self, s, st, env):
        if s.what == "game":
            return super().s_End(s, st, env)
        st.halted = TRUE  # the rest of the segment does not run

    def s_Break(self, s, st, env):
        st.halted = TRUE

    def s_Random(self, s, st, env):
        env[s.binder.slot] = self.fresh_of(s.binder.iter.element, s.binder.name)

    def s_Rotate(self, s, st, env):
        # Markers pass between seats: the counts of that family become unknowns (their sum is lost too).
        decl = self.zones.get(s.zone)
        if decl is None or s.zone in self.pooled_zones():
            return
        for k in range(len(self.counts)):
            for slot in self.family(("zone", s.zone, k), decl.per_player):
                new = self.fresh(0, max(0, self.counts[k]), f"rotated {s.zone}")
                st.vals[slot] = ite(st.halted, st.vals[slot], new)

    def s_Move(self, s, st, env):
        sel = s.selector
        src_decl = self.zones.get(getattr(s.source, "zone", None))
        first = isinstance(sel, core.FirstCard)
        cond = sel.cond if first else None
        if isinstance(sel, (core.TopCard, core.BottomCard)) or (first and sel.cond is None) or (
                first and src_decl is not None and src_decl.shape == "stack"):
            src, dst = self.ev(s.source, st, env), self.ev(s.dest, st, env)
            if src[0] != "zone" or dst[0] != "zone":
                raise Unsupported(f"move between things that are not zones{where(s)}")
            # Order forgotten: the card taken is any kind the zone holds (and matches); `one` may take none.
            kinds = len(self.counts)
            card = self.fresh(0, kinds if first else kinds - 1, "drawn")
            for k in range(kinds):
                here = compare("==", card, const(k))
                if cond is not None:
                    self.fail_if(st, and_(here, not_(self.ev(cond, st, {**env, sel.slot: const(k)}))))
                self.fail_if(st, and_(here, compare("<=", self.zone_count(st, src, k), const(0))))
                self._move(st, src, dst, k, lambda have, h=here: ite(h, const(1), const(0)))
            return
        if isinstance(sel, core.GivenCard) and sel.card.type == m.CARDS:
            # A set of cards (a chosen subset, say) is not recorded: of each kind, any number of the cards
            # the source holds moves (the engine refuses a set that is not all there: no step then).
            src, dst = self.ev(s.source, st, env), self.ev(s.dest, st, env)
            if src[0] != "zone" or dst[0] != "zone":
                raise Unsupported(f"move between things that are not zones{where(s)}")
            for k, total in enumerate(self.counts):
                some = self.fresh(0, max(0, total), "moved")
                self._move(st, src, dst, k, lambda have, n=some: ite(compare("<=", n, have), n, have))
            return
        return super().s_Move(s, st, env)

    # ---- where the engine may stop
    def stops(self, s) -> bool:
        if isinstance(s, _STOPS):
            return True
        if self.reads_stack_end(s):
            return True  # on a shuffled stack the engine settles that card by chance first: it may stop there
        if isinstance(s, m.Move):
            decl = self.zones.get(getattr(s.source, "zone", None))
            return isinstance(s.selector, (core.TopCard, core.BottomCard)) or (
                decl is not None and decl.shape == "stack" and isinstance(s.selector, core.FirstCard))
        if isinstance(s, m.For) and any(isinstance(x, m.Break) for x in m.walk(s.body)):
            return True  # `break` leaves the loop, not the segment: keep the loop out of segments
        if isinstance(s, m.Do):
            name = s.procedure
            if name not in self._stop_memo:
                self._stop_memo[name] = True  # a recursive procedure is not inlined
                proc = self.procs.get(name)
                self._stop_memo[name] = proc is None or any(self.stops(x) for x in proc.body)
            return self._stop_memo[name]
        return any(self.stops(x) for body in _bodies(s) for x in body)

    def reads_stack_end(self, s) -> bool:
        """Whether a statement reads `top(Z)` or `bottom(Z)`, in itself or in the definitions and functions
        it calls (anywhere in it, to be safe)."""
        if not hasattr(self, "_end_memo"):
            self._end_memo = {}
            self._has_ends = m.reads_stack_ends(self.g)
        if not self._has_ends:
            return False
        for x in m.nodes(s):
            if isinstance(x, core.StackEnd):
                return True
            if isinstance(x, (m.DefineCall, m.ProcedureCall)):
                key = getattr(x, "define", None) or x.procedure
                if key not in self._end_memo:
                    self._end_memo[key] = False  # a recursive definition: its other parts decide
                    body = self.defines[key].body if isinstance(x, m.DefineCall) else self.procs[key].body
                    self._end_memo[key] = any(self.reads_stack_end(b) for b in (body if isinstance(body, tuple)
                                                                                 else (body,)))
                if self._end_memo[key]:
                    return True
        return False

    def translates(self, s) -> bool:
        """Whether the statement can run inside a segment (else its bodies are segmented apart)."""
        try:
            self.run([s], Store([("s", i) for i in range(len(self.slots))]), {})
        except budget.TooLarge:
            raise  # a limit that holds: not a construct to leave unknown
        except Unsupported:
            if not _bodies(s) and not isinstance(s, m.Do):
                raise
            return False
        return True

    def segments(self) -> list[tuple[str, list, bool]]:
        """(where it starts, statements, whether it is of the set-up) of every segment of the game.

        The set-up is the run of segments the flow opens with (a `rule` there included), up to the
        first statement whose body is segmented apart (a loop, `turns`, a `for` with a draw in it, a
        decision, a procedure with a stop in it): the engine runs each of them once, in order, before
        anything else, as no trigger fires before the first decision."""
        out: list[tuple[str, list, bool]] = []
        seen_procs: set[str] = set()
        opening = [True]  # the flow's opening run of segments goes on

        def visit(stmts, where: str, setup: bool = False) -> None:
            run: list = []

            def flush():
                if run:
                    out.append((_span_of(run[0], where), list(run), setup and opening[0]))
                    run.clear()
            for s in stmts:
                chance = (isinstance(s, (m.Move, m.Random)) or (self.reads_stack_end(s) and not _bodies(s))) and self.stops(s)
                if chance:
                    flush()
                    run.append(s)  # the draw starts the next segment: the engine stops before it
                    continue
                if not self.stops(s) and self.translates(s):
                    run.append(s)
                    continue
                flush()
                if setup and opening[0] and isinstance(s, m.Rule):
                    visit(s.body, _span_of(s, where), setup=True)  # a rule's body runs once, where it stands
                    continue
                opening[0] = False
                if isinstance(s, m.Do):
                    if s.procedure not in seen_procs and s.procedure in self.procs:
                        seen_procs.add(s.procedure)
                        proc = self.procs[s.procedure]
                        visit(proc.body, f"procedure {proc.name}")
                    continue
                for body in _bodies(s):
                    visit(body, _span_of(s, where))
            flush()
        visit(self.g.flow.body, "the flow", setup=True)
        opening[0] = False
        for t in self.g.triggers:
            visit(t.body, f"trigger {t.name}")
        return out

    def build_abstract(self) -> System:
        over = self.at[("over",)]
        found = self.segments()
        start = self.after_setup([stmt for _, stmts, first in found if first for stmt in stmts])
        symbolic = [("s", i) for i in range(len(self.slots))]
        commands = []
        for index, (origin, stmts, first) in enumerate(found):
            if first and start is not None:
                continue  # the set-up is the start: it runs once, before anything else
            self.segment_unknowns = {}
            st = Store(list(symbolic))
            self.run(stmts, st, {})
            st.vals += [("s", i) for i in range(len(st.vals), len(self.slots))]
            updates = {i: v for i, v in enumerate(st.vals) if v != ("s", i) and i not in self.unknown}
            guard = compare("==", ("s", over), const(0))
            commands.append(Command(f"segment {index} ({origin})", -1, index, (), guard, st.error, updates))
        invariants, untracked = {}, {}
        for p in self.g.properties:
            if p.kind != "invariant":
                continue
            before = len(self.unknown)
            self.segment_unknowns = {}
            value = self.ev(p.expr, Store(list(symbolic)), {})
            if len(self.unknown) != before:
                names = sorted({self.slots[i].name.split("#")[0].lstrip("?") for i in self.unknown[before:]})
                boards = "; of a board only the cards on all of it are counted, not each position's" if self.pooled_zones() else ""
                untracked[p.name] = (f"it reads what the counts abstraction does not record ({', '.join(names)}"
                                     f"{boards}){where(p)}")
            else:
                invariants[p.name] = value
        commands = [dataclasses.replace(c, guard=and_(c.guard, *self._domain_of(c))) for c in commands]
        init = list(self.init) if start is None else start + self.init[len(start):]
        system = System(self.n, self.options, self.slots, init, commands, invariants, {}, over,
                        free=frozenset(self.unknown))
        system.compiled["untracked"] = untracked
        return system

    def after_setup(self, stmts: list) -> list[int] | None:
        """The slot values once the set-up has run from the initial state, where they are known before
        play (no chance, no unknown); else None. The engine shows no state before it: its first is at
        the first stop, after the set-up."""
        if not stmts:
            return None
        before = len(self.unknown)
        self.segment_unknowns = {}
        st = Store([const(v) for v in self.init])
        try:
            self.run(stmts, st, {})
        except budget.TooLarge:
            raise
        except Unsupported:
            return None
        if len(self.unknown) != before or st.error not in (FALSE, ("b", False)):
            return None
        values = []
        for v in st.vals[:len(self.init)]:
            if v[0] not in ("c", "b"):
                return None
            values.append(int(v[1]))
        return values

    def _domain_of(self, c: Command) -> list:
        used: set = set()
        seen: set = set()  # the command's terms share nodes: each is visited once
        for x in (c.guard, c.error, *c.updates.values()):
            slots_of(x, used, seen)
        out = []
        for i in sorted(used & set(self.unknown)):
            low, high = self.domains.get(i, (None, None))
            if low is not None:
                out.append(compare(">=", ("s", i), const(low)))
            if high is not None:
                out.append(compare("<=", ("s", i), const(high)))
        return out


def _bodies(s) -> list:
    """The statement lists directly inside a statement."""
    if isinstance(s, m.If):
        return [body for _, body in s.branches] + [s.orelse]
    if isinstance(s, m.Choose):
        return [a.body for a in s.actions]
    if isinstance(s, m.Turns):
        return [s.body, s.then]
    return [getattr(s, "body")] if isinstance(getattr(s, "body", None), tuple) else []


def _span_of(s, where: str) -> str:
    span = getattr(s, "span", None)
    return str(span) if span is not None else where


def build(config: Config) -> System:
    """The counts abstraction of one configuration (all invariants; `slice` cuts it per invariant)."""
    return _Abstract(config).build_abstract()


def cone(system: System, expr) -> set:
    """The slots of the invariant's cone of influence (see the module's docstring)."""
    flows = _flows(system)
    kept = slots_of(expr) - set(system.free)
    while True:
        more = set()
        for i in kept:
            more |= flows.get(i, set())
        more -= set(system.free)
        if more <= kept:
            return kept
        kept |= more


def _flows(system: System) -> dict:
    """Per slot, the slots that some command's update of it reads for its value, and the scalars it
    tests (computed once per system: the updates are large shared graphs)."""
    if "flows" not in system.compiled:
        scalar = {i for i, s in enumerate(system.slots) if s.key[0] in ("var", "supply", "held", "over")}
        sets = _slot_sets(system)
        flows: dict = {}
        for c in system.commands:
            for i, update in c.updates.items():
                into = flows.setdefault(i, set())
                into |= sets.values(update)
                into |= sets.reads(update) & scalar
        system.compiled["flows"] = flows
    return system.compiled["flows"]


def _slot_sets(system: System) -> SlotSets:
    if "slot sets" not in system.compiled:
        system.compiled["slot sets"] = SlotSets()
    return system.compiled["slot sets"]


def slice(system: System, name: str) -> System:
    """The system for one invariant: every slot outside its cone is an unknown."""
    expr = system.invariants[name]
    kept = cone(system, expr) | {system.over}
    commands = [dataclasses.replace(c, updates={i: v for i, v in c.updates.items() if i in kept})
                for c in system.commands]
    commands = [c for c in commands if c.updates]  # the others only stutter
    sets = _slot_sets(system)
    used = set(sets.reads(expr))
    for c in commands:
        for x in (c.guard, c.error, *c.updates.values()):
            used |= sets.reads(x)
    free = frozenset(used - kept)
    return System(system.players, system.options, system.slots, system.init, commands, {name: expr}, {},
                  system.over, free=free)


__all__ = ["build", "slice", "cone", "by_cost", "decide", "never_held", "CONSERVED", "ONE_SEGMENT_AT_A_TIME", "derived_ranges", "kind_flow",
           "kinds_by_zone", "never_hold", "rule_facts", "state_proofs", "state_system"]


def by_cost(system: System) -> list[str]:
    """The invariants, those decided without Z3 first, then by the size of their cone of influence."""
    untracked = system.compiled.get("untracked", {})
    decided = [name for name in untracked]
    rest = sorted((name for name in system.invariants), key=lambda n: len(cone(system, system.invariants[n])))
    return decided + rest


# ---- deciding one invariant over the abstraction ---------------------------------------------------

SLICE_LIMIT = 3_500  # distinct term nodes of an invariant's slice (shared nodes once), above which it is not tried
# whole, but one segment at a time (`commandwise`), with the bounds of the slots it reads where they are at most:
COMMANDWISE_LEMMAS = 100


def slice_size(system: System) -> int:
    """The distinct term nodes of a system's commands (shared subterms counted once)."""
    return term_size(*(x for c in system.commands for x in (c.guard, c.error, *c.updates.values())))


# The note of an invariant proven without Z3: a sum that no segment changes (`balance`).
CONSERVED = "every rule segment keeps the sum it counts"
# The note of an invariant whose slice is too large for one query, proven a segment at a time (`commandwise`).
ONE_SEGMENT_AT_A_TIME = "every rule segment keeps it, each asked on its own"


def decide(system: System, name: str, depth: int, max_k: int, timeout_ms: int, deadline: float,
           zero: frozenset = frozenset()) -> tuple:
    """(status, k or depth, note) for one invariant of `build`'s system, over its slice:

    - ("proven", 1, CONSERVED): a sum of counts and variables equal to a constant that no segment changes (`balance`,
      with `zero` the slots that are 0 in every reachable state), whatever the size of its slice;
    - ("proven", k, ...): k-inductive in the abstraction (Houdini with the slot bounds for k = 1, then
      k-induction with BMC covering its base case), hence true in every engine state;
    - ("proven", 1, ONE_SEGMENT_AT_A_TIME): where the slice is too large for that, 1-inductive with the
      bounds of the slots it reads, each segment asked separately (`commandwise`);
    - ("bounded", d, ...): no abstract state within d segments breaks it (so no engine state reached
      through at most d segments does);
    - ("unknown", d, why): the abstraction allows a trace breaking it (not an engine trace, and perhaps
      a spurious one), the slice is too large (`SLICE_LIMIT`), or Z3 ran out of its resource budget
      (`budget`); `deadline` is only a wall-clock safety net.
    """
    from . import symbolic

    if name in system.compiled.get("untracked", {}):
        return "unknown", 0, system.compiled["untracked"][name]
    if balance.conserved(system, system.invariants[name], zero):
        return "proven", 1, CONSERVED
    spent = _spent_or_late(deadline)
    if spent:
        return "unknown", 0, spent
    sliced = slice(system, name)
    nodes = slice_size(sliced)
    expr = sliced.invariants[name]
    if nodes > SLICE_LIMIT:
        reads = slots_of(expr)
        bounds = {k: e for k, e in symbolic.bound_lemmas(sliced).items() if e[1][1] in reads}
        kept = commandwise.kept_by_each(sliced, expr, SLICE_LIMIT, timeout_ms, deadline,
                                        lemmas=bounds if len(bounds) <= COMMANDWISE_LEMMAS else None)
        if kept.proven:
            return "proven", 1, ONE_SEGMENT_AT_A_TIME
        return "unknown", 0, (f"its slice of the abstraction is too large for this budget ({nodes:,} term nodes, "
                              f"above {SLICE_LIMIT:,}), and taken one rule segment at a time, {kept.why}")
    candidates = {("invariant", name): expr}
    candidates.update({("bound", k): e for k, e in symbolic.bound_lemmas(sliced).items()})
    lemmas = symbolic.houdini(sliced, candidates, timeout_ms, deadline)
    if ("invariant", name) in lemmas:
        return "proven", 1, f"{len(lemmas) - 1} slot bound(s) proven alongside"
    facts = [e for key, e in lemmas.items() if key[0] == "bound"]
    pending = 0
    if not _spent_or_late(deadline):
        status, k, _ = symbolic.k_induction(sliced, expr, max_k, timeout_ms, assume=facts)
        pending = k if status == "proven" else 0
    spent = _spent_or_late(deadline)
    if spent:
        return "unknown", 0, spent
    answer = symbolic.bmc(sliced, max(depth, pending - 1), timeout_ms, deadline, {("invariant", name)}, facts)
    a = answer[("invariant", name)]
    if a.status == "refuted":
        return "unknown", a.depth, (f"the abstraction found a trace of {a.depth} segment(s) breaking it, which is no "
                                    "engine trace to replay (the abstraction forgets the control flow; it may be "
                                    "spurious)")
    if a.status == "unknown":
        return "unknown", a.depth, a.reason
    if pending and a.depth >= pending - 1:
        return "proven", pending, f"{len(facts)} slot bound(s) assumed"
    return "bounded", a.depth, ""


def _spent_or_late(deadline: float) -> str:
    """Why no more work is done on this configuration, or "" to go on."""
    import time

    acc = budget.account()
    if acc is not None and acc.empty:
        return acc.reason()
    if time.perf_counter() >= deadline:
        return "the wall-clock safety net of the symbolic step fired (the verdict depends on the machine)"
    return ""


# ---- one abstract state: what follows from conservation and the declared ranges alone --------------

def state_system(config: Config) -> System:
    """The slots of the counts abstraction with no commands, its `invariants` the state facts (see
    `_state_facts`), for checking that engine states are abstract states."""
    b = _Abstract(config)
    facts = {f"fact {i}": f for i, f in enumerate(_state_facts(b))}
    return System(b.n, b.options, b.slots, b.init, [], facts, {}, b.at[("over",)], free=frozenset(b.unknown))


_PER_CONFIG = PerObject()  # the static analyses of each configuration: the check asks per option set and proof


def derived_ranges(config: Config) -> dict[str, tuple]:
    """Variable name -> (low, high) for the variables declared without a range, where the writes of the
    rules bound a side (`ranges`), the values read as the counts abstraction reads them."""
    return _PER_CONFIG.get("ranges", config, lambda: ranges.derived_ranges(_Abstract(config)))


def never_held(system: System, config: Config) -> frozenset:
    """The count slots of `build`'s system for a card kind that never comes to that zone (`kinds_by_zone`):
    0 in every reachable state."""
    kinds = kinds_by_zone(config)
    if kinds is None:
        return frozenset()
    return frozenset(i for i, slot in enumerate(system.slots)
                     if slot.key[0] == "zone" and slot.key[1] in kinds and slot.key[3] not in kinds[slot.key[1]])


def kinds_by_zone(config: Config) -> dict[str, frozenset[int]] | None:
    """Zone name -> the card kinds that can ever be there (`kindflow`), the moves' conditions read as
    the counts abstraction reads them; None where the moves cannot be read off the rules."""
    flow = kind_flow(config)
    return flow.where if flow is not None else None


def rule_facts(config: Config) -> tuple:
    """What the facts of the one-state proofs read off the rules of `config` (where each kind can be, the
    ranges the writes keep the variables in), as one hashable value: configurations that agree on it
    get the same one-state proofs, whatever else their options change."""
    kinds = kinds_by_zone(config)
    return (None if kinds is None else tuple(sorted((zone, tuple(sorted(ks))) for zone, ks in kinds.items())),
            tuple(sorted(derived_ranges(config).items())))


def kind_flow(config: Config) -> kindflow.KindFlow | None:
    """Where the kinds can be and what each move can carry (`kindflow.kind_flow`), the moves' conditions
    read as the counts abstraction reads them; worked out once per configuration."""
    return _PER_CONFIG.get("kinds", config, lambda: kindflow.kind_flow(_Abstract(config)))


def _state_facts(b: _Abstract) -> list:
    """What holds in every reachable state, whatever the dynamics: every slot within its declared range
    (the engine refuses a variable outside it; take/return are clamped), every variable declared
    without a range within the one its writes keep it in (`ranges`), no card of a kind in a zone
    that no move can carry that kind to (`kindflow`), every card kind conserved across the zones
    (no statement creates or destroys a card; a board's zones are one pool), and every token
    conserved."""
    out = []
    for i, slot in enumerate(b.slots):
        low, high = (slot.low, slot.high) if i not in b.unknown else b.domains.get(i, (None, None))
        if low is not None:
            out.append(compare(">=", ("s", i), const(low)))
        if high is not None:
            out.append(compare("<=", ("s", i), const(high)))
    reach = kinds_by_zone(b.config)
    if reach is not None:
        for i, slot in enumerate(b.slots):
            if slot.key[0] == "zone" and slot.key[3] not in reach[slot.key[1]]:
                out.append(compare("==", ("s", i), const(0)))
    for name, (low, high) in derived_ranges(b.config).items():
        for i in b.family(("var", name), b.vars[name].per_player):
            if low is not None:
                out.append(compare(">=", ("s", i), const(low)))
            if high is not None:
                out.append(compare("<=", ("s", i), const(high)))
    for k, total in enumerate(b.counts):
        copies = [("s", i) for i, slot in enumerate(b.slots) if slot.key[0] == "zone" and slot.key[3] == k]
        held = const(0)
        for x in copies:
            held = arith("+", held, x)
        out.append(compare("==", held, const(total)))
    for t in b.g.tokens:
        total = arith("+", ("s", b.at[("supply", t.name)]), const(0))
        for p in range(b.n):
            total = arith("+", total, ("s", b.at[("held", t.name, p)]))
        out.append(compare("==", total, const(b.config.supplies[t.name])))
    return out


def never_hold(config: Config, tests: dict, timeout_ms: int = 5000) -> set:
    """The keys of `tests` (key -> a condition of the rules of `config`, that reads no local) that no
    abstract state (`_state_facts`) satisfies: conditions that hold in no state play can reach, at a
    statement's boundary as at a decision (each fact holds after every statement). A test that reads
    a local, or what the abstraction does not record, is left out; so is one Z3 leaves undecided."""
    import z3

    from . import smtlib

    b = _Abstract(config)
    goals = []
    for key, expr in tests.items():
        try:
            goals.append((key, b.ev(expr, Store([("s", i) for i in range(len(b.slots))]), {})))
        except budget.TooLarge:
            raise  # a limit that holds: the caller ends in an honest unknown
        except Unsupported:
            continue
    if not goals:
        return set()
    xs = {i: f"x{i}" for i in range(len(b.slots))}
    solver = budget.solver(timeout_ms)
    solver.add(smtlib.condition(and_(*_state_facts(b)), xs))
    return {key for key, goal in goals if budget.check(solver, smtlib.condition(goal, xs)) == z3.unsat}


def state_proofs(configs: list[Config], timeout_ms: int = 5000) -> dict:
    """Over one abstract state of the counts abstraction (`_state_facts`), for every configuration of
    `configs` (one per allowed player count):

    - invariant -> ("proven", text, method, bound) when no abstract state breaks it;
    - reachability target -> ("refuted", ...) when no abstract state meets it;
    - boolean definition of players -> ("dead", ...) when no abstract state, for no player, makes it true.

    Nothing is returned for what is not decided at every player count (the other methods judge it).
    """
    import z3

    from . import smtlib

    status: dict[str, list] = {}
    open_ = None  # what is still decided at every player count so far: only that is worth another query
    for config in configs:
        b = _Abstract(config)
        goals = []  # (name, term whose satisfiability means "not decided")
        for prop in b.g.properties:
            if open_ is not None and prop.name not in open_:
                continue
            try:
                value = b.ev(prop.expr, Store([("s", i) for i in range(len(b.slots))]), {})
            except budget.TooLarge:
                raise  # a limit that holds: not a construct to leave unknown
            except Unsupported:
                status.setdefault(prop.name, []).append("unknown")
                continue
            goals.append((prop.name, [not_(value)] if prop.kind == "invariant" else [value]))
        for d in b.g.defines:
            if d.type != m.BOOL or any(p.type.kind != "player" for p in d.params):
                continue
            if open_ is not None and f"define {d.name}" not in open_:
                continue
            seats = [()] if not d.params else [tuple(const(p) for _ in d.params) for p in range(b.n)]
            try:
                cases = [b.ev(d.body, Store([("s", i) for i in range(len(b.slots))]),
                              {p.slot: a for p, a in zip(d.params, args)}) for args in seats]
            except budget.TooLarge:
                raise  # a limit that holds: not a construct to leave unknown
            except Unsupported:
                status.setdefault(f"define {d.name}", []).append("unknown")
                continue
            goals.append((f"define {d.name}", [or_(*cases)]))
        xs = {i: f"x{i}" for i in range(len(b.slots))}
        solver = budget.solver(timeout_ms)
        solver.add(smtlib.condition(and_(*_state_facts(b)), xs))  # one text for Z3 to parse, not a call per node
        for name, (goal,) in goals:
            r = budget.check(solver, smtlib.condition(goal, xs))
            status.setdefault(name, []).append("no" if r == z3.unsat else "yes" if r == z3.sat else "unknown")
        open_ = {name for name, verdicts in status.items() if verdicts == ["no"] * len(verdicts)}
        if not open_:
            break
    counts = [c.players for c in configs]
    game = configs[0].game
    out = {}
    where = f"{counts[0]} to {counts[-1]} players" if len(counts) > 1 else \
        f"{counts[0]} player{'' if counts[0] == 1 else 's'}"
    bound = {"abstraction": "counts per card kind per zone, variables in their declared ranges and in those "
                            "their writes keep them in, cards and tokens conserved, each card kind only in the "
                            "zones the moves of the rules can carry it to",
             "players": counts}
    kinds = {p.name: p.kind for p in game.properties}
    for name, verdicts in status.items():
        if len(verdicts) != len(counts) or any(v != "no" for v in verdicts):
            continue
        if name.startswith("define "):
            out[name[7:]] = ("dead", f"definition {name[7:]} can never be true: no state, over the sound "
                             f"abstraction (counts per card kind per zone), makes it true, with {where}",
                             "z3-abstraction", bound)
        elif kinds[name] == "invariant":
            out[name] = ("proven", f"it follows from card and token conservation, where each card kind can be "
                         f"(the zones the moves of the rules can carry it to), the declared ranges and the ranges "
                         f"the writes of the rules keep the other variables in (Z3 over counts per card kind per "
                         f"zone, {where})", "z3-abstraction", bound)
        else:
            out[name] = ("refuted", f"no state meets it, even over the abstraction counts per card kind per zone "
                         f"(Z3, {where})", "z3-abstraction", bound)
    return out
