"""The rules run on a symbolic store with control: the statements of the whole language translated
into terms, for `verify.control`, which assembles them into the commands of a guarded-command system.

`FlowBuilder` extends the builder of `verify.fragment` (expressions, moves, counts of cards) with what the
whole language adds: a store whose paths may stop running (`Flow`: `break`, `end turn` and `end round`
leave their construct and come back when it is left), loops, `for`, `turns` and `rounds` unrolled, procedures
and functions, decisions that suspend the rules at a location (`Location`), triggers, chance events
(`Event`: a fresh input each), and stacks shuffled (their top a chance event over the kinds they hold).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from .. import model as m
from ..lower import Config, core
from . import Unsupported, budget
from .fragment import Builder, where
from .terms import FALSE, STACK_END_REREAD, TRUE, and_, arith, compare, const, ite, not_, or_, where_holds

WORK_LIMIT = 250_000  # expressions translated and slots written by commands before the relation counts as too large
SHARED_PER_KEY = 16  # stores remembered per shared expression and arguments (the latest kept)
UNROLL = 3  # rounds of a loop (or of `rounds`) run in one stretch before the rest waits at a silent location
FUNCTION_ROUNDS = 64  # rounds of a loop inside a function (which cannot wait anywhere) before it is refused


class _Reads(list):
    """A copy of a store's slot values that notes which slots are read (see `FlowBuilder.shared`)."""

    def __init__(self, items=()):
        super().__init__(items)
        self.seen: set[int] = set()

    def __getitem__(self, i):
        self.seen.add(i)
        return list.__getitem__(self, i)


def _arg_key(a):
    """A cheap key for an argument: itself when small, else its identity (the entry keeps it alive)."""
    if a[0] in ("c", "b", "s") or (a[0] == "zone" and (a[2] is None or a[2][0] in ("c", "s"))):
        return a
    return ("id", id(a))


@dataclass
class Call:
    """A function being run: the value its `return`s gave so far, each on the paths that reached it."""

    value: tuple


class Flow:
    """A symbolic store with control: `running` is the condition under which the rules still run;
    `exits` maps a construct to the paths that left it early and return when it is left."""

    __slots__ = ("vals", "running", "exits", "error")

    def __init__(self, vals: list, running=TRUE, exits: dict | None = None, error=FALSE):
        self.vals, self.running, self.exits, self.error = vals, running, dict(exits or {}), error

    @property
    def halted(self):
        return not_(self.running)

    def copy(self) -> Flow:
        return Flow(list(self.vals), self.running, self.exits, self.error)

    def leave(self, key) -> None:
        """The running paths stop here and resume when construct `key` is left."""
        self.exits[key] = or_(self.exits.get(key, FALSE), self.running)
        self.running = FALSE

    def regain(self, key) -> None:
        self.running = or_(self.running, self.exits.pop(key, FALSE))


@dataclass(frozen=True)
class Frame:
    """One level of what encloses the statement being run: `kind` block/loop/for/turns/rounds/call/
    action/trigger, its node, `extra` (the statement index in a block, the round of a `for`, the part of
    `turns`), and the environment level of its locals."""

    kind: str
    node: object
    extra: object
    level: int

    def key(self) -> tuple:
        return (self.kind, id(self.node), self.extra)


@dataclass
class Location:
    """Where the rules wait: a decision (`choose`), or a silent location (`choose` None) inside a loop
    that went round too often for one stretch. `frames` are outermost first, their levels numbered along
    them; `locals` maps a level to {local: ("const", term) or ("slot", index)}, how each is kept."""

    pc: int
    frames: tuple
    choose: m.Choose | None
    locals: dict = field(default_factory=dict)


@dataclass
class Event:
    """One chance event of a command, in the order the rules meet it: the input slot it reads, the
    condition under which it happens, its outcomes with their weights, and when the engine shows it (a
    stack's top is a chance node only while the stack is shuffled; a single outcome never is)."""

    slot: int
    active: tuple
    outcomes: list  # (value, weight term)
    shown: tuple = TRUE  # the engine shows it as a chance node (it may also skip one of a single outcome)


class FlowBuilder(Builder):
    """The builder of `verify.fragment`, with the control and chance of the whole language: the rules
    run on a `Flow` up to the locations where they wait."""

    def __init__(self, config: Config, work_limit: int = WORK_LIMIT):
        self.work, self.work_limit = 0, work_limit
        super().__init__(config)
        self.locations: dict[tuple, Location] = {}
        self.order: list[Location] = []
        self.frames: list[Frame] = []
        self.envs: list[dict] = []
        self.inputs: list[int] = []  # input slots, shared by the commands (a step runs one)
        self.used_inputs = 0
        self.events: list[Event] = []
        self.assumes: list = []
        self.inexact: set[str] = set()
        self.binding = False
        self.stale = False
        # (what, arguments) -> [(value, refusal condition, the slots read with their terms, what to keep alive)]
        self._shared: dict = {}
        self._sharable: dict = {}
        self.symbolic_binders = True
        self.binders: list[int] = []  # free slots: the values chosen for actions' binders (see `_chosen_command`)
        self.calls: list[Call] = []  # the functions being run, innermost last
        self.pc = self._add("pc", 0, None, 0)
        self.cur = self._add("cur", 0, self.n - 1, 0)
        self.armed = [self._add(("armed", i), 0, 1, 1, f"armed[{t.name}]") for i, t in enumerate(self.g.triggers)]
        self.mixed = {}
        for z in self.g.zones:
            if z.shape == "stack":
                for p in (range(self.n) if z.per_player else [None]):
                    self.mixed[(z.name, p)] = self._add(("mixed", z.name, p), 0, 1, 0,
                                                        f"mixed[{z.name}{'' if p is None else f'[{p}]'}]")
        # 1 once `reverse order` has turned the direction of play (an odd number of times), else 0
        self.turned = self._add("turned", 0, 1, 0, "order turned") if self.reverses else None
        self.fed = self._fed_stacks()

    def _check_declarations(self) -> None:
        pass  # triggers and `reverse order`, which the fragment refuses, are this builder's to model

    def seats_on(self, st, seat, places: int):
        """The seat `places` seats on from `seat` in the direction of play, as `reverse order` left it."""
        ahead = super().seats_on(st, seat, places)
        if self.turned is None:
            return ahead
        back = super().seats_on(st, seat, -places)
        return ite(compare("==", st.vals[self.turned], const(1)), back, ahead)

    def s_Reverse(self, s, st, env):
        self.write_slot(st, self.turned, arith("-", const(1), st.vals[self.turned]))

    def _add(self, key, low, high, init, name=None) -> int:
        key = key if isinstance(key, tuple) else (key,)
        self._slot(key, name or key[0], low, high, init)
        return self.at[key]

    def _fed_stacks(self) -> set:
        """Stacks that cards are put on during play and not shuffled after, in the same block: their
        order becomes known to the engine."""
        out = set()

        def scan(stmts) -> None:
            for i, s in enumerate(stmts):
                if isinstance(s, m.Move) and isinstance(s.dest, m.ZoneRef) and self.zones[s.dest.zone].shape == "stack":
                    if not any(isinstance(x, m.Shuffle) and isinstance(x.zone, m.ZoneRef) and x.zone.zone == s.dest.zone
                               for x in stmts[i + 1:]):
                        out.add(s.dest.zone)
                for child in _blocks(s):
                    scan(child)

        for body in (self.g.flow.body, *(p.body for p in self.g.procedures), *(t.body for t in self.g.triggers)):
            scan(body)
        return out

    # ---- the store
    def write_slot(self, st: Flow, slot: int, value) -> None:
        self.pad(st)
        st.vals[slot] = ite(st.running, value, st.vals[slot])

    def pad(self, st: Flow) -> None:
        """Slots made while a stretch is built (locals, inputs) join every store as themselves."""
        st.vals.extend(("s", i) for i in range(len(st.vals), len(self.slots)))

    def fail_if(self, st, cond) -> None:
        st.error = or_(st.error, and_(st.running, cond))

    def run(self, stmts, st, env) -> None:
        self.run_block(stmts, 0, st, env)

    def ev(self, e, st, env):
        self.spend(1)
        return super().ev(e, st, env)

    def spend(self, work: int) -> None:
        """Count work against the size limit: an expression translated is one unit, and a command one per
        slot, since it writes every slot (a relation whose locals multiply costs that much per command)."""
        self.work += work
        if self.work > self.work_limit:
            raise budget.TooLarge(f"the whole-language relation of this configuration is too large (more than "
                                  f"{self.work_limit:,} expressions translated and slots written)")

    def run_block(self, stmts, start: int, st: Flow, env: dict) -> None:
        budget.tick()
        level = self._level(env)
        for j in range(start, len(stmts)):
            if st.running == FALSE:
                return
            s = stmts[j]
            method = getattr(self, "s_" + type(s).__name__, None)
            if method is None:
                raise Unsupported(f"the `{m.keyword(s)}` statement{where(s)}")
            with self.inside(Frame("block", stmts, j, level)):
                method(s, st, env)

    @contextmanager
    def inside(self, frame: Frame):
        """Run the block within `frame`, the innermost of what encloses it."""
        self.frames.append(frame)
        try:
            yield
        finally:
            self.frames.pop()

    def _level(self, env: dict) -> int:
        for i, e in enumerate(self.envs):
            if e is env:
                return i
        self.envs.append(env)
        return len(self.envs) - 1

    def split(self, st: Flow, cond) -> tuple[Flow, Flow]:
        then, other = st.copy(), st.copy()
        then.running, other.running = and_(st.running, cond), and_(st.running, not_(cond))
        return then, other

    def merge(self, st: Flow, cond, a: Flow, b: Flow) -> None:
        self.pad(a)
        self.pad(b)
        st.vals = [x if x is y else ite(cond, x, y) for x, y in zip(a.vals, b.vals)]
        st.running = ite(cond, a.running, b.running)
        st.error = ite(cond, a.error, b.error)
        st.exits = {k: ite(cond, a.exits.get(k, FALSE), b.exits.get(k, FALSE)) for k in {*a.exits, *b.exits}}

    # ---- control statements
    def s_End(self, s, st, env):
        if s.what == "game":
            self.write_slot(st, self.at[("over",)], const(1))
            st.running = FALSE
            return
        kind = {"turn": "turns", "round": "rounds"}.get(s.what)
        target = next((f for f in reversed(self.frames) if f.kind == kind), None)
        if target is None:  # the engine's rule error, where play gets here
            self.fail_if(st, TRUE)
            st.running = FALSE
            return
        st.leave(("end", id(target.node)))

    def s_Break(self, s, st, env):
        for f in reversed(self.frames):
            if f.kind in ("loop", "for"):
                st.leave(("break", id(f.node)))
                return
            if f.kind in ("call", "turns", "rounds", "trigger"):
                break
        raise Unsupported(f"`break` outside a loop{where(s)}")

    def s_Loop(self, s, st, env):
        self.loop_from(s, st, env)

    def loop_from(self, s: m.Loop, st: Flow, env: dict) -> None:
        key = ("break", id(s))
        for _ in range(FUNCTION_ROUNDS if self.calls else UNROLL):
            if s.cond is not None:
                cond = self.ev(s.cond, st, env)
                if self.calls:  # its own values, set on the running paths only, decide it there
                    cond = where_holds(cond, st.running)
                if cond != TRUE:
                    then, other = self.split(st, cond)
                    other.leave(key)
                    self.merge(st, cond, then, other)
            if st.running == FALSE:
                break
            with self.inside(Frame("loop", s, None, self._level(env))):
                self.run(s.body, st, env)
        else:
            if self.calls:  # a function cannot wait at a silent location
                raise Unsupported(f"a loop in a function that may go round more than {FUNCTION_ROUNDS} times{where(s)}")
            self.residue(st, Frame("loop", s, None, self._level(env)))
        st.regain(key)

    def s_For(self, s, st, env):
        b = s.binder
        if b.cond is not None:
            raise Unsupported(f"a `for` with a condition{where(s)}")
        cards = isinstance(b.iter, (core.CardsIn, core.CardsInEvery))
        # The engine takes the domain once, before the first round: the amounts are kept for later rounds.
        values = self.domain(b.iter, st, env)
        if cards:
            env[("for", id(s))] = [amount for _, amount in values]
        elif any(present != TRUE for _, present in values):  # a range known only during play
            env[("for", id(s))] = [ite(present, const(1), const(0)) for _, present in values]
        env[("forv", id(s))] = [value for value, _ in values]
        self.for_from(s, 0, st, env)

    def for_from(self, s: m.For, start: int, st: Flow, env: dict) -> None:
        b = s.binder
        amounts, values = env.get(("for", id(s)), []), env[("forv", id(s))]
        key = ("break", id(s))
        level = self._level(env)
        for k in range(start, len(values)):
            if st.running == FALSE:
                break
            inner = env  # the loop variable is a local of this level, like the engine's frame slot
            inner[b.slot] = values[k]
            with self.inside(Frame("for", s, k, level)):
                if amounts:
                    self._if([(compare(">", amounts[k], const(0)), s.body)], (), st, inner)
                else:
                    self.run(s.body, st, inner)
        st.regain(key)

    def call(self, s: m.Do, proc: m.Procedure, st, env: dict, inner: dict) -> None:
        outer = self._tail_call(s.procedure)
        if outer is None:
            with self.inside(Frame("call", s, None, self._level(env))):
                super().call(s, proc, st, env, inner)
            return
        # A procedure that calls itself last: the call takes the place of the one it is the tail of, so
        # that a decision inside it is the same location at every depth (the rules after it are the
        # same), and a recursion as deep as the cards allow adds no locations.
        enclosing = self.frames
        self.frames = enclosing[:outer + 1]
        try:
            super().call(s, proc, st, env, inner)
        finally:
            self.frames = enclosing

    # ---- functions: procedures with a result type, called in expressions
    def e_ProcedureCall(self, e, st, env):
        """A function's value: its body run on the store, which it leaves as it was (a function changes
        only its own values); each `return` ends the paths that reach it, with its value, and a path that
        reaches the end of the body is a rule error, as in the engine."""
        proc = self.procs.get(e.procedure)
        if proc is None or proc.result is None:
            raise Unsupported(f"function {e.procedure}{where(e)}")
        inner = {p.slot: self.ev(a, st, env) for p, a in zip(proc.params, e.args)}
        body = Flow(st.vals, st.running, {}, FALSE)
        call = Call(FALSE if proc.result == m.BOOL else const(0))
        self.calls.append(call)
        try:
            with self._nested(30, f"function {e.procedure} calling itself{where(e)}"):
                with self.inside(Frame("call", e, None, self._level(inner))):
                    self.run(proc.body, body, inner)
        finally:
            self.calls.pop()
        self.fail_if(body, body.running)
        st.error = or_(st.error, body.error)
        return call.value

    def s_Return(self, s, st, env):
        call = self.calls[-1]
        call.value = ite(st.running, self.ev(s.value, st, env), call.value)
        st.running = FALSE

    def s_Let(self, s, st, env):
        """A local's value; in a function, where a branch or a loop may set one of its own values again, the
        new value holds on the running paths only (the branches of an `if` share its locals)."""
        value = self.ev(s.value, st, env)
        old = env.get(s.slot) if self.calls else None
        env[s.slot] = value if old is None or st.running == TRUE else ite(st.running, value, old)

    def branch_env(self, env: dict) -> dict:
        return env if self.calls else dict(env)

    def _tail_call(self, procedure: str) -> int | None:
        """The index of the frame of the call of `procedure` that a call of it made here would be the
        tail of: nothing of that call's body runs after it (each block around it at its last
        statement, with nothing but blocks and chosen actions in between); else None."""
        for i in range(len(self.frames) - 1, -1, -1):
            f = self.frames[i]
            if f.kind == "call":
                return i if f.node.procedure == procedure else None
            if f.kind == "block" and f.extra != len(f.node) - 1:
                return None
            if f.kind not in ("block", "action"):
                return None
        return None

    def s_Rounds(self, s, st, env):
        self.rounds_from(s, st, env)

    def rounds_from(self, s: m.Rounds, st: Flow, env: dict) -> None:
        key = ("end", id(s))
        for _ in range(UNROLL):
            if st.running == FALSE:
                break
            with self.inside(Frame("rounds", s, None, self._level(env))):
                self.run(s.body, st, env)
            st.regain(key)
        else:
            self.residue(st, Frame("rounds", s, None, self._level(env)))

    def s_Turns(self, s, st, env):
        self.write_slot(st, self.cur, self.ev(s.start, st, env))
        self.turns_from(s, "body", st, env)

    def turns_from(self, s: m.Turns, part: str, st: Flow, env: dict) -> None:
        """Turns from `part` of the current one on: its body, its `then`, or the move to the next seat."""
        key = ("end", id(s))
        level = self._level(env)
        for _ in range(self.n + 1):  # a whole round of turns that all pass without a decision, and one more
            if st.running == FALSE:
                break
            for name, stmts in (("body", s.body), ("then", s.then)):
                if part == "after" or (part == "then" and name == "body"):
                    continue
                with self.inside(Frame("turns", s, name, level)):
                    self.run(stmts, st, env)
                st.regain(key)
            self.write_slot(st, self.cur, self.seats_on(st, st.vals[self.cur], 1))
            part = "body"
        else:
            self.residue(st, Frame("turns", s, "head", level))

    def e_Current(self, e, st, env):
        return st.vals[self.cur]

    def blank_store(self) -> Flow:
        return Flow([])

    def define_value(self, d, args, st):
        if not self.sharable(d.body):
            return super().define_value(d, args, st)
        key = ("define", d.name, self.binding, *(_arg_key(a) for a in args))
        return self.shared(key, args, st, lambda probe: super(FlowBuilder, self).define_value(d, args, probe))

    def sharable(self, e) -> bool:
        """Whether an expression's value is a function of the slots it reads: one that reads a stack's end
        is a chance event each time, which must not be shared."""
        known = self._sharable.get(id(e))
        if known is None:
            self._sharable[id(e)] = (False, e)  # a recursive definition is not shared; `e` kept for its id
            known = (all(self._sharable_node(x) for x in m.nodes(e)), e)
            self._sharable[id(e)] = known
        return known[0]

    def _sharable_node(self, x) -> bool:
        if isinstance(x, core.StackEnd):
            return False
        if isinstance(x, m.DefineCall):
            return self.sharable(self.defines[x.define].body)
        if isinstance(x, m.ProcedureCall):
            proc = self.procs.get(x.procedure)
            return proc is not None and all(self.sharable(st) for st in proc.body)
        return True

    def shared(self, key, keep, st: Flow, compute):
        """The value of an expression that reads slots only through `st.vals`: worked out once for the
        values of the slots it read, and shared by every store (of any command) where those slots hold the
        same terms. The condition under which the engine refuses it is kept beside it, and every store it
        is shared with adds that condition to its own error, on its own running paths."""
        vals = st.vals
        n = len(vals)
        entries = self._shared.setdefault(key, [])
        for value, refused, reads, _ in entries:
            if all(i < n and vals[i] is t for i, t in reads):
                if refused != FALSE:
                    self.fail_if(st, refused)
                return value
        probe = Flow(_Reads(vals), TRUE, {}, FALSE)
        value = compute(probe)
        reads = tuple((i, vals[i]) for i in sorted(probe.vals.seen))  # read again: an enclosing probe sees them
        if len(entries) >= SHARED_PER_KEY:
            del entries[0]
        entries.append((value, probe.error, reads, keep))
        if probe.error != FALSE:
            self.fail_if(st, probe.error)
        return value

    def residue(self, st: Flow, frame: Frame) -> None:
        """The rules may still be running after the unrolled rounds: those paths stop at a silent
        location (a state that is no decision point), from which one command goes on."""
        self.suspend(st, (*self.frames, frame), None)

    # ---- decisions and triggers
    def s_Choose(self, s, st, env):
        self.fire_triggers(st)
        self.suspend(st, tuple(self.frames), s)

    def suspend(self, st: Flow, frames: tuple, choose: m.Choose | None) -> None:
        """The running paths wait here: at a decision, or (`choose` None) at a silent location. The
        location and the locals still needed after it are kept in slots."""
        if st.running == FALSE:
            return
        key = tuple(f.key() for f in frames)
        # Levels are numbered by the environments' order along the frames, the same on every path here.
        levels: list[int] = []
        for f in frames:
            if f.level not in levels:
                levels.append(f.level)
        canon = {level: i for i, level in enumerate(levels)}
        loc = self.locations.get(key)
        if loc is None:
            loc = Location(len(self.order) + 1, tuple(Frame(f.kind, f.node, f.extra, canon[f.level]) for f in frames),
                           choose)
            self.locations[key] = loc
            self.order.append(loc)
        for level in levels:
            slots = loc.locals.setdefault(canon[level], {})
            for name, value in self.envs[level].items():
                if isinstance(value, list):
                    for i, v in enumerate(value):
                        self._save(st, slots, (name, i), v, loc)
                else:
                    self._save(st, slots, name, value, loc)
        self.write_slot(st, self.pc, const(loc.pc))
        st.running = FALSE

    def _save(self, st, slots: dict, name, value, loc: Location) -> None:
        """Keep a local for after the decision: as itself when every path brings the same constant."""
        kept = slots.get(name)
        if kept is None and value[0] in ("c", "b"):
            slots[name] = ("const", value)
            return
        if kept is not None and kept[0] == "const":
            if kept[1] == value:
                return
            self.stale = True  # commands built while it looked constant read it wrongly: build again
            kept = None
        if kept is None:  # numbered by the locals kept in slots at this location, which only grow: each its own
            n = sum(1 for level in loc.locals.values() for how, _ in level.values() if how == "slot")
            kept = slots[name] = ("slot", self._add(("local", loc.pc, n), None, None, 0, f"local@{loc.pc}.{n}"))
        self.write_slot(st, kept[1], value)

    def s_CheckTriggers(self, s, st, env):
        self.fire_triggers(st)

    def fire_triggers(self, st: Flow) -> None:
        """The engine's quiet moment: the first armed trigger whose condition holds fires (disarmed),
        one whose condition is false is armed again, and this repeats while a trigger fired."""
        if not self.g.triggers:
            return
        pending = st.running
        # A `once` trigger whose rules are running fired already: it never fires again, though a location
        # inside its rules, resumed from any state, would not know it was disarmed.
        spent = {f.extra for f in self.frames if f.kind == "trigger" and isinstance(f.extra, int)
                 and self.g.triggers[f.extra].once}
        for _ in range(2 * len(self.g.triggers) + 1):
            if pending == FALSE:
                return
            fired = FALSE
            for i, t in enumerate(self.g.triggers):
                if i in spent:
                    continue
                armed = compare("!=", st.vals[self.armed[i]], const(0))
                with self._nested(30, f"trigger {t.name}{where(t)}"):
                    holds = (self.shared(("trigger", i), None, st, lambda probe, c=t.cond: self.ev(c, probe, {}))
                             if self.sharable(t.cond) else self.ev(t.cond, st, {}))
                fire = and_(pending, not_(fired), armed, holds)
                rearm = FALSE if t.once else and_(pending, not_(fired), not_(armed), not_(holds))
                st.vals[self.armed[i]] = ite(fire, const(0), ite(rearm, const(1), st.vals[self.armed[i]]))
                if fire != FALSE:
                    with self.inside(Frame("trigger", t, i, self._level({}))):
                        with self._nested(8, f"trigger {t.name} firing again inside its own rules{where(t)}"):
                            self.fire(i, t, fire, st)
                fired = or_(fired, fire)
            pending = and_(fired, st.running)
        again = Flow(st.vals, pending, st.exits, st.error)
        self.residue(again, Frame("trigger", None, "again", self._level({})))
        st.running = and_(st.running, not_(pending))

    def fire(self, i: int, t: m.Trigger, fire, st: Flow) -> None:
        """Trigger `i`'s rules, on the paths where it fires: there it is disarmed, exactly, so that a
        decision inside its rules does not see it armed."""
        then, other = self.split(st, fire)
        then.vals[self.armed[i]] = const(0)
        self.run(t.body, then, {})
        self.merge(st, fire, then, other)

    # ---- chance
    def chance(self, outcomes: list, st: Flow, shown=TRUE):
        """A fresh input for one chance event with these (value, weight) outcomes: the value it takes."""
        if self.used_inputs == len(self.inputs):
            self.inputs.append(self._add(("input", len(self.inputs)), None, None, 0, f"chance{len(self.inputs)}"))
        slot = self.inputs[self.used_inputs]
        self.used_inputs += 1
        x = ("s", slot)
        live = [(v, w) for v, w in outcomes if w != const(0)]
        # The inputs are shared by the commands: each one's range covers the outcomes of every event it
        # stands for, so that a term that reads it has an interval (a range bounded by a die roll).
        values = [v[1] for v, _ in live if v[0] == "c"]
        if values and len(values) == len(live):
            held = self.slots[slot]
            held.low = min(values) if held.low is None else min(held.low, *values)
            held.high = max(values) if held.high is None else max(held.high, *values)
        self.fail_if(st, and_(*(compare("<=", w, const(0)) for _, w in live)) if live else TRUE)
        self.assumes.append(or_(not_(st.running), *(and_(compare("==", x, v), compare(">", w, const(0))) for v, w in live)))
        self.events.append(Event(slot, st.running, [(v[1], w) for v, w in live], shown))
        return x

    def s_Random(self, s, st, env):
        b = s.binder
        cards = isinstance(b.iter, (core.CardsIn, core.CardsInEvery))
        outcomes = []
        flags = False
        for value, amount in self.domain(b.iter, st, env):
            if value[0] == "b":  # the engine numbers the outcomes false, true as 0, 1
                value, flags = const(int(value[1])), True
            if value[0] != "c":
                raise Unsupported(f"a chance event over values not known before play{where(s)}")
            inner = {**env, b.slot: ("b", bool(value[1])) if flags else value}
            weight = amount if cards else const(1)
            if s.weight is not None:
                w = self.ev(s.weight, st, inner)
                self.fail_if(st, compare("<", w, const(0)))
                weight = arith("max", const(0), w) if not cards else ite(compare(">", amount, const(0)), w, const(0))
            if b.cond is not None:
                weight = ite(self.ev(b.cond, st, inner), weight, const(0))
            outcomes.append((value, weight))
        x = self.chance(outcomes, st)
        env[b.slot] = compare("!=", x, const(0)) if flags else x

    # ---- stacks
    def stack_end(self, zone, st: Flow, top: bool):
        """The kind at the top (or bottom) of a stack: a chance event while it is shuffled."""
        name, seat = zone[1], zone[2]
        kinds = range(len(self.counts))
        outcomes = [(const(k), self.zone_count(st, zone, k)) for k in kinds]
        mixed = self.read(st, self._mixed_slots(name), seat)
        if name in self.fed:
            self.inexact.add(f"the order of stack {name}")
        return self.chance(outcomes, st, shown=compare("==", mixed, const(0)))

    def _mixed_slots(self, name: str) -> list[int]:
        return [self.mixed[(name, p)] for p in (range(self.n) if self.zones[name].per_player else [None])]

    def e_StackEnd(self, e, st, env):
        # The engine decides the end once and reads it again; here each reading is an event of its own.
        self.inexact.add(STACK_END_REREAD)
        zone = self.ev(e.zone, st, env)
        return self.stack_end(zone, st, e.top)

    def s_Shuffle(self, s, st, env):
        zone = self.ev(s.zone, st, env)
        if self.zones[zone[1]].shape == "stack":
            self.write(st, self._mixed_slots(zone[1]), zone[2], lambda old: const(0))

    def s_Move(self, s, st, env):
        sel = s.selector
        src, dst = self.ev(s.source, st, env), self.ev(s.dest, st, env)
        if src[0] != "zone" or dst[0] != "zone":
            raise Unsupported(f"move between things that are not zones{where(s)}")
        if isinstance(sel, core.FirstCard) and self.zones[src[1]].shape == "stack":
            raise Unsupported(f"a move of the first matching card of a stack{where(s)}")
        before = self._size(st, dst)
        if isinstance(sel, (core.TopCard, core.BottomCard)):
            self.fail_if(st, compare("<=", self._size(st, src), const(0)))
            card = self.stack_end(src, st, isinstance(sel, core.TopCard))
            for k in range(len(self.counts)):
                here = compare("==", card, const(k))
                self._move(st, src, dst, k, lambda have, h=here: ite(h, const(1), const(0)))
        else:
            super().s_Move(s, st, env)
        if self.zones[dst[1]].shape == "stack":
            moved = arith("-", self._size(st, dst), before)
            src_bag = (self.read(st, self._mixed_slots(src[1]), src[2]) if self.zones[src[1]].shape == "stack"
                       else None)
            # A shuffled stack moved whole onto an empty one stays shuffled; one card has no order.
            keeps = or_(compare("<=", moved, const(0)),
                        and_(compare("==", before, const(0)), compare("<=", moved, const(1))))
            if src_bag is not None and isinstance(sel, core.AllCards):
                keeps = or_(keeps, and_(compare("==", before, const(0)), compare("==", src_bag, const(0))))
            self.write(st, self._mixed_slots(dst[1]), dst[2], lambda old: ite(keeps, old, const(1)))

    def s_Rotate(self, s, st, env):
        # Zone p's cards go to seat p + step in the direction of play, a stack with its order known or not.
        shift = s.step * self.direction
        turned = compare("==", st.vals[self.turned], const(1)) if self.turned is not None else FALSE
        families = [self.count_slots(("zone", s.zone, None), k) for k in range(len(self.counts))]
        if self.zones[s.zone].shape == "stack":
            families.append(self._mixed_slots(s.zone))
        for family in families:
            old = [st.vals[i] for i in family]
            for p, i in enumerate(family):
                self.write_slot(st, i, ite(turned, old[(p + shift) % self.n], old[(p - shift) % self.n]))

    def _size(self, st, zone):
        out = const(0)
        for k in range(len(self.counts)):
            out = arith("+", out, self.zone_count(st, zone, k))
        return out


def _blocks(s) -> list:
    """The statement lists directly inside a statement."""
    if isinstance(s, m.If):
        return [body for _, body in s.branches] + [s.orelse]
    if isinstance(s, m.Turns):
        return [s.body, s.then]
    if isinstance(s, m.Choose):
        return [a.body for a in s.actions]
    body = getattr(s, "body", None)
    return [body] if isinstance(body, tuple) else []
