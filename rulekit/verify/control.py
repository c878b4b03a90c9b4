"""The whole-language relation: a configuration's game as a guarded-command system whose states are
its decision points.

`verify.fragment` covers games whose flow is one loop around one choice. This module extends its
builder with the control of the whole language, so that BMC and k-induction (`verify.symbolic`) run on
games with turns, rounds, loops, procedures and triggers around their decisions. The statements run on
a symbolic store with control in `verify.controlflow`; here they are assembled into commands:

- a state is a decision point (or the end): the game's slots, plus `pc` (which decision the rules wait
  at, 0 before the set-up), whose turn it is, whether `reverse order` has turned the direction of play,
  each trigger's armed flag, each stack's `mixed` flag, and
  the locals that the rules still need after the decision (a `for` running around it, a `let` before it),
  each with the range of the values the commands can keep in it (`verify.kept_ranges`);
- a command is one action at one decision: it runs the action, then the rules onward, symbolically,
  until the next decision or the end. One extra command, at pc 0, runs the set-up to the first decision.
  The action's binders are free slots that the guard holds to the values the engine offers, so that the
  rules after the action are translated once for all of them; where the rules need a binder's value
  before play (a division by it, say), the action gets a command per value instead;
- an expression that reads slots (a definition's body, a trigger's condition) is translated once for the
  terms those slots hold, and shared by every store, of any command, where they hold the same terms;
- control inside a stretch is predicated: `running` is the condition under which the rules are still
  running; `break`, `end turn` and `end round` move running paths to an exit flag of their construct,
  which gives them back when the construct is left; reaching a decision stores `pc` and the locals;
- a loop, `turns` or `rounds` that can go round without a decision is unrolled, and a stretch that
  could go round more often than that is refused unless Z3 proves that it cannot;
- triggers fire as the engine fires them: before each decision and at `check triggers`, the first
  armed one whose condition holds, again and again until none fires;
- chance is nondeterminism over its support: each chance event of a stretch reads a free slot (an
  input), and the command assumes that the input is one of the outcomes of nonzero weight. The events
  are kept, in order, so that a witness is replayed in the engine with the same outcomes;
- a stack whose cards were shuffled, and nothing put on since, is its count of each kind: its top is a
  chance event over the kinds it holds, exactly as the engine's deferred shuffle draws it. Once cards
  are put on a stack its order is known to the engine but not to the counts: its top is then any card
  it holds, an over-approximation (`System.exact` is False): a proof stays a proof, and a violation counts
  only once it replays in the engine.

Whatever else the builder does not model raises `Unsupported`, naming it and where it is.
"""
from __future__ import annotations

import dataclasses

from .. import model as m
from ..lower import Config, core
from . import Unsupported, budget
from .controlflow import FUNCTION_ROUNDS, WORK_LIMIT, Event, Flow, FlowBuilder, Frame, Location
from .fragment import where
from .kept_ranges import kept_ranges
from .terms import FALSE, TRUE, Command, System, and_, compare, const, interval, not_, or_


class ControlBuilder(FlowBuilder):
    """The whole-language relation of one configuration: the rules run from each location where they
    wait (`FlowBuilder`), each action a command, assembled into a `System`."""

    # ---- the system
    def _commands(self) -> list[Command]:
        over = self.at[("over",)]
        # Over after the set-up (a game with no decision), the state still waits at 0: no step follows the end.
        commands = [self._command("(set-up)", -1, -1, (), and_(compare("==", ("s", self.pc), const(0)),
                                                               compare("==", ("s", over), const(0))),
                                  lambda st: self._finish(self.g.flow.body, st, {}), start=True)]
        done = 0
        while done < len(self.order):
            loc = self.order[done]
            done += 1
            waiting = and_(compare("==", ("s", self.pc), const(loc.pc)), compare("==", ("s", over), const(0)))
            if loc.choose is None:
                commands.append(self._command("(the rules go on)", -1, -1, (), waiting,
                                              lambda st, l=loc: self.resume(l, None, st, {})))
                continue
            for ai, action in enumerate(loc.choose.actions):
                combos = self._resumed_combos(loc, action)
                if self.symbolic_binders and action.binders and len(combos) > 1:
                    command = self._chosen_command(loc, ai, action, combos, waiting)
                    if command is not None:
                        commands.append(command)
                        continue
                for values, env in combos:
                    self._begin_command()
                    guard = and_(waiting, self._allowed(action, values, env))
                    if guard == FALSE:
                        continue
                    combo = tuple(index for _, _, index in values)
                    shown = ", ".join(str(v[1]) for v, _, _ in values)
                    label = f"{action.name}({shown})" if values else action.name
                    commands.append(self._command(label, loc.choose.point, ai, combo, guard,
                                                  lambda st, l=loc, a=action, en=env: self.resume(l, a, st, en),
                                                  begun=True))
        return commands

    def _allowed(self, action: m.Action, values: list, env: dict):
        """Whether one assignment of an action's binders is offered: each value present and meeting its
        `where`, and the action's `when` on it."""
        allowed = and_(*(p for _, p, _ in values))
        if action.when is not None:
            allowed = and_(allowed, self.ev(action.when, self.symbolic_store(), env))
        return allowed

    def _chosen_command(self, loc: Location, ai: int, action: m.Action, combos: list, waiting) -> Command | None:
        """One command for every assignment of an action's binders: each binder a free slot that the
        guard holds to the assignments present, so that what follows the action is translated once,
        not once per value. None where the rules need a binder's value before play (a division by it,
        say): the caller then makes a command per assignment."""
        base = dict(combos[0][1])
        slots = []
        for i, b in enumerate(action.binders):
            values = [int(v[i][0][1]) for v, _ in combos]
            key = ("binder", loc.pc, ai, i)
            if key not in self.at:
                name = f"{action.name}.{b.name}@{loc.pc}"
                self.binders.append(self._add(key, min(values), max(values), values[0], name))
            slots.append(self.at[key])
            # a condition is kept as 0 or 1, as the engine numbers the values of a choice over {true, false}
            flags = combos[0][0][i][0][0] == "b"
            base[b.slot] = compare("!=", ("s", slots[-1]), const(0)) if flags else ("s", slots[-1])
        chosen = {}
        member = some = FALSE
        self._begin_command()
        for values, env in combos:
            chosen[tuple(int(v[1]) for v, _, _ in values)] = tuple(index for _, _, index in values)
            allowed = self._allowed(action, values, env)
            taken = and_(*(compare("==", ("s", x), const(int(v[1]))) for x, (v, _, _) in zip(slots, values)))
            member = or_(member, and_(taken, allowed))
            some = or_(some, allowed)
        if member == FALSE:
            return None
        order = len(self.order)
        try:
            command = self._command(f"{action.name}(chosen)", loc.choose.point, ai, (), and_(waiting, member),
                                    lambda st: self.resume(loc, action, st, base), begun=True)
        except budget.TooLarge:
            raise
        except Unsupported:  # the locations only this attempt reached are no part of the relation
            gone = {id(x) for x in self.order[order:]}
            self.locations = {k: v for k, v in self.locations.items() if id(v) not in gone}
            del self.order[order:]
            return None
        return dataclasses.replace(command, chosen=(tuple(slots), chosen), enabled=and_(waiting, some))

    def build(self) -> System:
        for _ in range(8):
            self.stale = False
            commands = self._commands()
            if not self.stale:
                break
        else:
            raise Unsupported("locals kept over a decision that do not settle")
        for s in self.slots:
            if s.key == ("pc",):
                s.high = len(self.order)
        kept = [i for i, s in enumerate(self.slots) if s.key[0] == "local"]
        for i, (low, high) in kept_ranges(self.slots, self.init, commands, kept).items():
            self.slots[i].low, self.slots[i].high = low, high
        waiting = [compare("!=", ("s", self.pc), const(loc.pc)) for loc in self.order if loc.choose is None]
        # a state: a decision point or the end (which the set-up can reach without leaving location 0)
        started = or_(compare("!=", ("s", self.at[("over",)]), const(0)),
                      and_(compare("!=", ("s", self.pc), const(0)), *waiting))
        props = {"invariant": {}, "reachable": {}}
        for p in self.g.properties:
            if p.kind in props:
                value = self.ev(p.expr, self.symbolic_store(), {})
                props[p.kind][p.name] = or_(not_(started), value) if p.kind == "invariant" else and_(started, value)
        return System(self.n, self.options, self.slots, self.init, commands, props["invariant"], props["reachable"],
                      self.at[("over",)], free=frozenset(self.inputs) | frozenset(self.binders),
                      inexact=tuple(sorted(self.inexact)))

    def symbolic_store(self) -> Flow:
        """A store in which every slot holds itself: the state a guard or a property reads, whatever it is."""
        return Flow([("s", i) for i in range(len(self.slots))])

    def _begin_command(self) -> None:
        """A new command's chance events start here: those its guard reads (the end of a stack whose
        order the relation forgot, say) come first, each an input of its own, held by the command's
        assumptions like those of its rules."""
        self.used_inputs, self.events, self.assumes = 0, [], []

    def _command(self, label, point, action, combo, guard, body, start: bool = False,
                 begun: bool = False) -> Command:
        """One command: `body` run on a store of the slots (of their initial values, at the start).
        `begun`: its guard was computed after `_begin_command`, and its chance events are kept."""
        self.spend(len(self.slots))
        if not begun:
            self._begin_command()
        initial = {self.pc} | {i for i, s in enumerate(self.slots) if s.key[0] in ("local", "input", "binder")}
        st = Flow([const(v) if start and i not in initial else ("s", i) for i, v in enumerate(self.init)])
        self.frames, self.envs = [], []
        body(st)
        self.pad(st)
        updates = {i: v for i, v in enumerate(st.vals) if v != ("s", i)}
        return Command(label, point, action, combo, guard, st.error, updates, assume=and_(*self.assumes),
                       events=list(self.events))

    def _finish(self, stmts, st: Flow, env: dict) -> None:
        """The flow from its start; when it runs out, the game is over."""
        self.run(stmts, st, env)
        self.write_slot(st, self.at[("over",)], const(1))

    def _resumed_combos(self, loc: Location, action: m.Action) -> list:
        """The assignments of an action's binders at a location, each with the environment it runs in."""
        base = self._restored(loc)[loc.frames[-1].level] if loc.frames else {}
        out = []
        self.binding = True
        try:
            combos = self._combos(action, self.symbolic_store(), dict(base))
        finally:
            self.binding = False
        for values in combos:
            env = {**base, **{b.slot: v for b, (v, _, _) in zip(action.binders, values)}}
            out.append((values, env))
        return out

    def domain(self, it, st, env):
        if isinstance(it, core.Numbers):
            lo, hi = self.ev(it.low, st, env), self.ev(it.high, st, env)
            if lo[0] != "c" or hi[0] != "c":
                # A range known only during play: every value it can take, each present when in range.
                bounds = {i: (s.low, s.high) for i, s in enumerate(self.slots)}
                low, high = interval(lo, bounds)[0], interval(hi, bounds)[1]
                if low is None or high is None or high - low > 64:
                    raise Unsupported(f"a range whose bounds are not known before play{where(it.low)}")
                return [(const(v), and_(compare("<=", lo, const(v)), compare("<=", const(v), hi)))
                        for v in range(low, high + 1)]
        if isinstance(it, core.Seats) and self.binding:
            return [(const(p), TRUE) for p in range(self.n)]  # a choice's players, numbered by seat
        if isinstance(it, core.Seats) and it.start is not None:
            s = self.ev(it.start, st, env)
            if s[0] != "c" or self.turned is not None:
                return [(self.seats_on(st, s, i), TRUE) for i in range(self.n)]
        return super().domain(it, st, env)

    def _restored(self, loc: Location) -> list[dict]:
        """The environments of a location's levels, read back from where they were kept."""
        levels = max((f.level for f in loc.frames), default=-1) + 1
        envs = []
        for level in range(levels):
            e: dict = {}
            for name, (how, what) in loc.locals.get(level, {}).items():
                value = what if how == "const" else ("s", what)
                if isinstance(name, tuple) and len(name) == 2 and isinstance(name[0], tuple):
                    e.setdefault(name[0], []).append(value)
                else:
                    e[name] = value
            envs.append(e)
        return envs

    def resume(self, loc: Location, action: m.Action, st: Flow, env: dict) -> None:
        """An action taken at a location, then the rules onward: each enclosing construct, innermost
        first, runs what is left of it."""
        envs = self._restored(loc)
        frames = list(loc.frames)
        self.envs = list(envs)
        if action is not None:
            # A choice's binders are locals of the block it stands in: the statements after it read them.
            self.envs[frames[-1].level].update({b.slot: env[b.slot] for b in action.binders})
            inner = dict(env)
            self.frames = frames[:]
            self.frames.append(Frame("action", loc.choose, id(action), self._level(inner)))
            self.run(action.body, st, inner)
        for d in range(len(frames) - 1, -1, -1):
            f = frames[d]
            self.frames = frames[:d]
            e = self.envs[f.level]
            if f.kind == "block":
                if d == len(frames) - 1 or frames[d + 1].kind != "trigger":
                    self.run_block(f.node, f.extra + 1, st, e)
                else:
                    self.run_block(f.node, f.extra, st, e)  # after a trigger, its quiet moment again
            elif f.kind == "loop":
                self.loop_from(f.node, st, e)
            elif f.kind == "for":
                self.for_from(f.node, f.extra + 1, st, e)
            elif f.kind == "turns":
                st.regain(("end", id(f.node)))
                self.turns_from(f.node, {"body": "then", "then": "after", "head": "body"}[f.extra], st, e)
            elif f.kind == "rounds":
                st.regain(("end", id(f.node)))
                self.rounds_from(f.node, st, e)
        self.write_slot(st, self.at[("over",)], const(1))


COMMAND_LIMIT = 100  # actions with their binders' values, summed over the decisions of the rules


def commands_estimate(config: Config) -> int:
    """A cheap measure of the relation's size before it is built: each action of each decision in the
    rules, times the sizes of its binders' domains (a decision inside a procedure counted once). It counts
    commands value by value; an action whose binders become free slots is one command, but its values
    still weigh on what that command translates."""
    game = config.game
    kinds = len(game.components)
    sizes = {b.name: None for b in game.boards}
    total = 0
    for root in (game.flow, *game.procedures, *game.triggers):
        for node in m.nodes(root):
            if not isinstance(node, m.Choose):
                continue
            for action in node.actions:
                n = 1
                for b in action.binders:
                    it = b.iter
                    if isinstance(it, core.Seats):
                        n *= config.players
                    elif isinstance(it, (core.CardsIn, core.CardsInEvery)):
                        n *= kinds
                    elif isinstance(it, core.Members):
                        n *= max(1, len(next(e for e in game.enums if e.name == it.enum).members))
                    elif isinstance(it, core.Items):
                        n *= max(1, len(it.items))
                    elif isinstance(it, core.Positions) and it.board in sizes:
                        n *= _cells(game, it.board)
                    elif isinstance(it, core.SubsetsOf):
                        n *= 2 ** min(kinds, 20)
                    else:
                        n *= 8
                total += n
    return total


def _cells(game: m.Game, board: str) -> int:
    decl = next(b for b in game.boards if b.name == board)
    values = [getattr(x, "value", None) for x in (decl.rows, decl.columns)]
    return values[0] * values[1] if all(isinstance(v, int) for v in values) else 64


def commands_allowed(work_limit: int) -> int:
    """The estimated commands past which a relation is refused before it is built, for a size limit."""
    return COMMAND_LIMIT * max(1, work_limit // WORK_LIMIT)


def build(config: Config, work_limit: int = WORK_LIMIT, command_limit: int | None = None) -> System:
    """The configuration as a guarded-command system over its decision points, or `Unsupported` (also
    when it would be too large: its estimated commands, then its translation, are held to limits). The
    command limit grows with the translation's (`commands_allowed`) unless given."""
    if command_limit is None:
        command_limit = commands_allowed(work_limit)
    estimate = commands_estimate(config)
    if estimate > command_limit:
        raise budget.TooLarge(f"the whole-language relation of this configuration is too large (about {estimate:,} "
                              f"commands, more than {command_limit:,})")
    return ControlBuilder(config, work_limit).build()


__all__ = ["ControlBuilder", "Event", "Flow", "FUNCTION_ROUNDS", "WORK_LIMIT", "build", "commands_allowed",
           "commands_estimate"]
