"""States of `auto_chance` games stepped by the whole-game code: a generator that stops at each decision.

The whole-game code of `rulekit.engine.direct` plays a game as plain Python, which is much faster than
the engine's instructions, but cannot stop. Compiled a second time with each decision a `yield` (and
each procedure that decides a generator, called with `yield from`), it stops at every decision and
is stepped by `apply_action`: a `SteppedState` is a `State` with chance drawn inside whose common
questions (legal actions, the player to move, the end, the returns, the history) are answered from
the generator's game, with the same draws from the same seed and the same decisions.

Everything else a state holds (its zones, frames, move log, ...) exists only in the engine's form.
The first time anything else is read, or the whole-game code meets what it leaves to the engine (a
rule error, a loop that may be endless), the state becomes an ordinary engine `State`: the engine
replays the history (same seed, same chance outcomes) and goes on from there, its answers standing.
"""
from __future__ import annotations

from .. import model as m
from ..errors import IllegalActionError
from . import direct, runtime
from .direct import DirectCodegen, GameOver, Playout, Unsupported
from .state import TERMINAL_PLAYER, State


class Stepping(Playout):
    """The game of a stepped state, as the whole-game code plays it, its history recorded in `h`."""

    __slots__ = ("h",)


# The chance of the whole-game code (see `direct`), each outcome that is a chance event recorded in
# the history as the engine records it.
def draw_card(s, zone, span):
    t = s.t
    kind = direct.draw_card(s, zone, span)
    if s.t != t:
        s.h.append(kind)
    return kind


def draw(s, weights, span):
    t = s.t
    outcome = direct.draw(s, weights, span)
    if s.t != t:
        s.h.append(outcome)
    return outcome


def draw_fixed(s, table):
    outcome = direct.draw_fixed(s, table)
    s.h.append(outcome)
    return outcome


def draw_top(s, zone, span):
    t = s.t
    kind = direct.draw_top(s, zone, span)
    if s.t != t:
        s.h.append(kind)
    return kind


def resolve(s, zone, top):
    cards, lo, hi = s.z[zone], s.lo[zone], s.hi[zone]
    t = s.t
    kind = cards[lo + int((s.u[t] if t < len(s.u) else direct.uniform(s)) * (hi - lo))]
    if cards[lo:hi].count(kind) != hi - lo:
        s.t += 1
        s.h.append(kind)
    runtime.fix_end(s, zone, kind, top)


class SteppingCodegen(DirectCodegen):
    """The whole-game code with each decision a `yield (player, options)`, which gets the option taken."""

    def __init__(self, config, consts: dict):
        super().__init__(config, consts)
        # The procedures and triggers that decide, themselves or in what they call (a trigger that decides
        # makes `fire` a generator, and so every procedure that checks triggers one too).
        self.deciding: set[str] = set()
        self.deciding_triggers: set[int] = set()
        changed = True
        while changed:
            changed = False
            for p in config.game.procedures:
                if p.name not in self.deciding and self.decides(p.body):
                    self.deciding.add(p.name)
                    changed = True
            for i, trig in enumerate(config.game.triggers):
                if i not in self.deciding_triggers and self.decides(trig.body):
                    self.deciding_triggers.add(i)
                    changed = True

    def decides(self, body) -> bool:
        return any(isinstance(st, m.Choose) or (isinstance(st, m.Do) and st.procedure in self.deciding)
                   or (isinstance(st, m.CheckTriggers) and self.deciding_triggers) for st in m.walk(body))

    def d_Do(self, st):
        call = super().d_Do(st)[0]
        return [f"yield from {call}" if st.procedure in self.deciding else call]

    n_Do = d_Do

    def d_Choose(self, st):
        # the player who decides, checked as the engine checks it (the decision is then the caller's)
        by, seat = f"_p = {self.ex(st.by)}", f"_p = {self.seat(st.by)}"
        return [line[:len(line) - len(line.lstrip())] + seat if line.strip() == by else line
                for line in super().d_Choose(st)]

    def source(self) -> str:
        text = super().source()
        # the flow is a generator even when it never decides (a game that needs no decision)
        text = text.replace("def FLOW(s):\n", "def FLOW(s):\n    if 0:\n        yield\n", 1)
        if self.deciding_triggers:
            text = text.replace("def fire(s):\n", "def fire(s):\n    if 0:\n        yield\n", 1)
            for i in self.deciding_triggers:
                text = text.replace(f" TQ{i}(s)\n", f" yield from TQ{i}(s)\n")
            text = text.replace(" not fire(s):", " not (yield from fire(s)):").replace("while fire(s):", "while (yield from fire(s)):")
        return text.replace("_k, _v = decide(s, _o)", "_k, _v = yield _p, _o")


class SteppingProgram:
    """The generator code of one loaded game."""

    def __init__(self, game):
        codegen = SteppingCodegen(game.config, game.program.ns)
        self.source = codegen.source()
        namespace = dict(game.program.ns)
        namespace.update(codegen.consts)
        namespace.update(draw_card=draw_card, draw=draw, draw_fixed=draw_fixed, resolve=resolve, draw_top=draw_top,
                         decide=None, endless=direct.endless, GameOver=GameOver, EndOfTurn=direct.EndOfTurn,
                         EndOfRound=direct.EndOfRound)
        try:
            code = compile(self.source, f"<rulekit:{game.model.name}:{game.num_players()}:steps>", "exec")
        except (SyntaxError, RecursionError) as exc:
            raise Unsupported(str(exc)) from None
        exec(code, namespace)  # noqa: S102
        self.flow = namespace["FLOW"]
        self.game = game


def stepping_program(game) -> SteppingProgram | None:
    try:
        return SteppingProgram(game)
    except Unsupported:
        return None


class SteppedState(State):
    """A `State` with chance drawn inside, stepped by the generator code until it must be an engine State.

    Of the State's fields it holds those the OpenSpiel loop asks for (`legal`, `pending`, `to_move`,
    `over`, `winners`, `chance`, `history`, `seed`, `auto`, `game`) and, in `fast`, the generator and
    its game. Reading any other field turns it into the engine's State first (see the module docstring).
    """

    __slots__ = ()

    def __getattr__(self, name):
        if name == "fast" or name.startswith("__"):
            raise AttributeError(name)
        self.to_engine()
        return getattr(self, name)

    def to_engine(self) -> None:
        """Become the engine's State for the same game: the history replayed, from the same seed."""
        fresh = self.game.replay(self.history, self.seed, True)
        self.__class__ = State
        for name in State.__slots__:
            setattr(self, name, getattr(fresh, name))

    def _stop(self, stopped) -> None:
        self.to_move, self.pending = stopped
        self.legal = sorted(self.pending)

    def _end(self) -> None:
        self.over = True
        self.pending, self.legal, self.to_move = {}, [], TERMINAL_PLAYER

    def apply_action(self, action: int) -> None:
        pending = self.pending
        if action not in pending:
            raise IllegalActionError(action, self.legal, self.action_to_string)
        gen, s = self.fast
        history = self.history
        before = len(history)
        history.append(action)
        s.t += 1
        try:
            self.to_move, self.pending = gen.send(pending[action])
        except (GameOver, StopIteration):
            self._end()
            return
        except Exception:  # noqa: BLE001 - what the whole-game code leaves to the engine: the engine decides
            del history[before:]
            self.to_engine()
            State.apply_action(self, action)
            return
        self.legal = sorted(self.pending)

    # The State methods that would read a field of the engine's form after one of the fields above (and
    # so keep the stepped one in hand): the engine's State first.
    def clone(self) -> State:
        self.to_engine()
        return self.clone()

    def play_on(self, choose, max_steps: int) -> int:
        self.to_engine()
        return self.play_on(choose, max_steps)


def stepped_state(game, program: SteppingProgram, seed: int) -> State:
    """The start of a game with chance drawn inside from `seed`: a SteppedState, or the engine's State
    when the whole-game code stops before the first decision (the end already, or a rule error)."""
    s = Stepping(game, seed, 0, None)
    s.h = []
    gen = program.flow(s)
    try:
        stopped = gen.send(None)
    except Exception:  # noqa: BLE001 - over before any decision, or what only the engine may judge
        return State(game, seed, auto_chance=True)
    state = object.__new__(SteppedState)
    state.game, state.seed, state.auto, state.on_round = game, seed, True, None
    state.history, state.winners, state.over, state.chance = s.h, s.winners, False, None
    state.fast = (gen, s)
    state._stop(stopped)
    return state
