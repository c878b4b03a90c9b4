"""States stepped by the whole-game code: a generator that stops at each decision (and chance event).

The whole-game code of `rulekit.engine.direct` plays a game as plain Python, which is much faster than
the engine's instructions, but cannot stop. Compiled a second time with each decision a `yield` (and
each procedure that decides a generator, called with `yield from`), it stops at every decision and
is stepped by `apply_action`: a `SteppedState` is a `State` whose common questions (legal actions,
the player to move, chance outcomes, the end, the returns, the history) are answered from the
generator's game. With chance drawn inside (`auto_chance`), the draws are those of the engine from
the same seed; without, each chance event is a stop too, offered as the engine offers it (the same
outcomes, the same probabilities) and carried out with the outcome the caller gives.

Everything else a state holds (its zones, frames, move log, ...) exists only in the engine's form.
The first time anything else is read, or the whole-game code meets what it leaves to the engine (a
rule error, a loop that may be endless), the state becomes an ordinary engine `State`: the engine
replays the history (same seed, same chance outcomes) and goes on from there, its answers standing.
"""
from __future__ import annotations

from .. import model as m
from ..errors import IllegalActionError, RuleRuntimeError
from . import direct, runtime
from .direct import DirectCodegen, GameOver, Playout, Unsupported
from .state import CHANCE_PLAYER, TERMINAL_PLAYER, State, integral_action
from .stream import DrawCounts, SeedStreams


class Stepping(Playout):
    """The game of a stepped state, as the whole-game code plays it, its history in `h`: the draws of
    `direct` record each chance outcome there as the engine records it, and each decision is added
    as the caller makes it. `draws`: the draw counts of its program's games, which it adds to at its end; `events`: the card
    events they met (when the caller gives chance), `stack_events` those of stacks of more than
    `FEW_CARDS` cards; `stack`: the undetermined cards left at the top of
    the stack drawn from last, with how many of each kind (see `top_event`), or None; `drawing`: while a
    draw from a deck waits for its outcome, its undetermined cards and their counts (else None)."""

    __slots__ = ("draws", "events", "stack_events", "stack", "drawing")


CARD_EVENTS_KEPT = 4096  # events a program remembers at most; then forgotten all at once
# Only the events of this many cards or fewer: the ways to be left with some of a big deck are too
# many to meet again often.
CARD_EVENTS_CARDS = 24
CARD_EVENTS_REUSE = 4  # times a full store must have been used per event it holds, to go on
# Stacks of more cards than this keep their events apart: a store of the few cards of hands is met
# again and again, one of deck draws seldom is, and once that one stops, a deck carries its kinds left.
FEW_CARDS = 8
_UNKNOWN = ()


class CardEvents:
    """The chance events of cards drawn blindly (see `counted_event`) that the games of one program met.

    An event depends on the cards alone, and some games draw from the same few cards again and again
    (a small deck at each deal): remembered, the stops share their lists, which nobody changes. Where
    the games seldom meet the same cards twice, remembering costs more than it saves (measured, the
    garbage collector's visits to the store included): when the store is full, it goes on only if it
    was used `CARD_EVENTS_REUSE` times as often as it was filled."""

    __slots__ = ("events", "hits", "misses", "on")

    def __init__(self):
        self.events: dict[tuple, tuple | None] = {}
        self.hits = self.misses = 0
        self.on = True

    def event(self, cards) -> tuple | None:
        if not self.on or len(cards) > CARD_EVENTS_CARDS:
            return counted_event(cards)
        key = tuple(cards)
        event = self.events.get(key, _UNKNOWN)
        if event is not _UNKNOWN:
            self.hits += 1
            return event
        self.misses += 1
        if len(self.events) >= CARD_EVENTS_KEPT:
            self.on = self.hits >= CARD_EVENTS_REUSE * self.misses
            self.events.clear()
            self.hits = self.misses = 0
            if not self.on:
                return counted_event(cards)
        event = self.events[key] = counted_event(cards)
        return event


def counted_event(cards) -> tuple | None:
    """The chance event of a card drawn blindly from `cards`, as a stop: (None, how many cards of
    each kind, the kinds in increasing order, (kind, probability) of each); None for cards of one kind."""
    return event_of(runtime.kind_counts(cards), len(cards))


def event_of(counts: dict[int, int], n: int) -> tuple | None:
    """`counted_event` of `n` cards whose kinds are `counts` (kinds in increasing order)."""
    if len(counts) == 1:
        return None
    return None, counts, list(counts), [(kind, count / n) for kind, count in counts.items()]


def weighted_event(weights) -> tuple:
    """The chance event of outcomes of these weights, as a stop, the probabilities as the engine's."""
    legal = sorted(weights)
    total = sum(weights.values())
    return None, weights, legal, [(k, weights[k] / total) for k in legal]


# The same chance, each event a stop: the code yields `(None, weights, outcomes, probabilities)` and
# gets the outcome the caller gives. An event of one outcome is none, as in the engine (see
# `State.chance_random`, `State.chance_resolve`). The common draws stop in the generated code itself
# (`card_event`, `top_event` and `took_deck` are plain functions around its `yield`), the rarer ones in
# these generators, called with `yield from`.
def offer(s, weights, span):
    if len(weights) == 1:
        return next(iter(weights))
    if not weights:
        raise RuleRuntimeError("a random choice has nothing to choose from", span)
    return (yield weighted_event(weights))


def offer_end(s, zone, top):
    cards, lo, hi = s.z[zone], s.lo[zone], s.hi[zone]
    event = s.events.event(cards if lo == 0 and hi == len(cards) else cards[lo:hi])
    kind = cards[lo] if event is None else (yield event)
    runtime.fix_end(s, zone, kind, top)


def card_event(s, zone, span):
    """The event of a card drawn blindly from a zone; None when its cards are all of one kind."""
    cards = s.z[zone]
    if not cards:
        raise RuleRuntimeError("a random card is drawn from an empty zone", span)
    return s.events.event(cards)


def top_event(s, cards, lo, hi):
    """The event of the top card of a stack whose top is undetermined (its cards `cards`, the top ones
    from `lo` to `hi`, the end), None when those cards are all of one kind. The generated code then
    takes the kind drawn, with `took_deck` first when a deck's counts are carried (`s.drawing`)."""
    undetermined = cards if lo == 0 else cards[lo:hi]
    n = hi - lo
    store = s.events if n <= FEW_CARDS else s.stack_events  # a hand's cards, a deck's
    if n <= CARD_EVENTS_CARDS and store.on:
        s.drawing = None
        # the store's common case, met again, without the call of `CardEvents.event`
        event = store.events.get(tuple(undetermined), _UNKNOWN)
        if event is not _UNKNOWN:
            store.hits += 1
            return event
        return store.event(undetermined)
    # A deck is drawn from card after card: the kinds left are those of the last draw but one card,
    # which are known when the cards left are the same (compared in C, far cheaper than counting).
    last = s.stack
    counts = last[1] if last is not None and last[0] == undetermined else runtime.kind_counts(undetermined)
    s.drawing = (undetermined if lo else list(undetermined), counts)
    return event_of(counts, n)


def took_deck(s, kind) -> None:
    """The card of `kind` taken from the deck whose draw `top_event` counted: the counts carried on."""
    rest, counts = s.drawing
    left = dict(counts)
    if left[kind] == 1:
        del left[kind]
    else:
        left[kind] -= 1
    rest.remove(kind)  # the first card of that kind, as the generated code takes it
    s.stack = (rest, left)
    s.drawing = None


class SteppingCodegen(DirectCodegen):
    """The whole-game code with each decision a `yield (player, options)`, which gets the option taken;
    with `chance`, each chance event too (see `offer`)."""

    def __init__(self, config, consts: dict, chance: bool = False):
        super().__init__(config, consts)
        self.chance = chance
        self.inline_draws = not chance  # a draw that stops is the call of a generator
        # The procedures and triggers that stop, themselves or in what they call (a trigger that stops
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
        return any(self.stops(st) for st in m.walk(body))

    def stops(self, st) -> bool:
        if isinstance(st, m.Choose) or (isinstance(st, m.Do) and st.procedure in self.deciding):
            return True
        if isinstance(st, m.CheckTriggers):
            return bool(self.deciding_triggers)
        # a chance event: a `random`, or a card taken from a stack's end (see `DirectCodegen.d_Move`)
        return self.chance and (isinstance(st, m.Random) or (isinstance(st, m.Move) and not self.is_native(st)))

    def d_Do(self, st):
        call = super().d_Do(st)[0]
        return [f"yield from {call}" if st.procedure in self.deciding else call]

    n_Do = d_Do

    def decider_line(self, st) -> str:
        # the player who decides, checked as the engine checks it (the decision is then the caller's)
        return f"_p = {self.seat(st.by)}"

    def draw_call(self, helper: str, args: str) -> str:
        call = super().draw_call(helper, args)
        return f"yield from {call}" if self.chance else call

    # With chance offered to the caller, the common draws stop here, with no generator of their own;
    # the stack's test and the card's taking are inline, as a call costs more than either.
    def top_draw_lines(self, span: str) -> list[str]:
        if not self.chance:
            return super().top_draw_lines(span)
        return ["_dc = s.z[_z]", "_dl = s.lo[_z]", "_dh = s.hi[_z]",
                "if _dh > _dl and _dh == len(_dc):",
                "    _e = top_event(s, _dc, _dl, _dh)", "    _k = _dc[_dl] if _e is None else (yield _e)",
                "    if s.drawing is not None:", "        took_deck(s, _k)",
                "    del _dc[_dc.index(_k, _dl, _dh)]", "    s.hi[_z] = _dh - 1",
                "else:", f"    _k = take_top(s, _z, {span})"]

    def d_Random(self, st):
        if not self.chance:
            return super().d_Random(st)
        target = self.local_ref(st.binder.slot)
        if self.draws_card(st):
            zone = self.ex(st.binder.iter.zone)
            return [f"_e = card_event(s, {zone}, {self.span_const(st.span)})",
                    f"{target} = s.z[{zone}][0] if _e is None else (yield _e)"]
        fixed = self.constant_weights(st)
        if fixed is not None and len(self.consts[fixed]) > 1:  # the same event every time: a constant
            event = self.const(f"DE{len(self.consts)}", weighted_event(dict(self.consts[fixed])))
            return [f"{target} = yield {event}"]
        return super().d_Random(st)

    def decision_lines(self, st) -> list[str]:
        return ["_a = yield _p, _o"]

    def flow_head(self) -> list[str]:
        # the flow is a generator even when it never stops (a game that needs no decision)
        return ["if 0:", "    yield"]

    # Triggers that decide: `which(s)`, a plain function, finds the trigger that fires (as `fire` does:
    # disarming it, re-arming on the way those whose condition is false) and `run_trigger`, a
    # generator, runs it; a check that fires nothing (the common case) so starts no generator.
    def fire_once_lines(self, then: str) -> list[str]:
        if not self.deciding_triggers:
            return super().fire_once_lines(then)
        inline = self.inline_trigger_tests() if then == "break" else None
        if inline is None:
            return ["_tf = which(s)", "if not _tf:", f"    {then}", "yield from run_trigger(s, _tf)"]
        # `which` written out, as `DirectCodegen.fire_once_lines` writes `fire`: each trigger tested only
        # while none before it has fired
        out = ["_ar = s.armed", "_tf = 0"]
        for i, once, cond in inline:
            test = direct.trigger_test(i, once, cond, "_ar", [f"_tf = {i + 1}"])
            out += test if i == 0 else ["if not _tf:", *self.indent(test)]
        return [*out, "if not _tf:", f"    {then}", "yield from run_trigger(s, _tf)"]

    def fire_all_lines(self) -> list[str]:
        if not self.deciding_triggers:
            return super().fire_all_lines()
        return ["_tf = which(s)", "while _tf:", "    yield from run_trigger(s, _tf)", "    _tf = which(s)"]

    def trigger_lines(self) -> list[str]:
        if not self.deciding_triggers:
            return super().trigger_lines()
        runs = ["def run_trigger(s, _tf):"]
        for i in range(len(self.g.triggers)):
            call = f"yield from TQ{i}(s)" if i in self.deciding_triggers else f"TQ{i}(s)"
            runs += [f"    {'if' if i == 0 else 'elif'} _tf == {i + 1}:", f"        {call}"]
        runs += ["    if 0:", "        yield"]
        fire = ["def fire(s):", "    _tf = which(s)", "    if not _tf:", "        return False",
                "    yield from run_trigger(s, _tf)", "    return True"]
        return [*self.trigger_tests("which", lambda i: [f"return {i + 1}"], "return 0"), *runs, *fire]


class SteppingProgram:
    """The generator code of one loaded game; with `chance`, stopping at chance events too."""

    def __init__(self, game, chance: bool = False):
        codegen, self.source, code = direct.compiled(lambda: SteppingCodegen(game.config, game.program.ns, chance),
                                                     f"<rulekit:{game.model.name}:{game.num_players()}:steps>")
        namespace = dict(game.program.ns)
        namespace.update(codegen.consts)
        if chance:
            draws = dict(draw=offer, resolve=offer_end, card_event=card_event, top_event=top_event, took_deck=took_deck,
                         take_top=runtime.take_top)
        else:
            draws = dict(draw_card=direct.draw_card, draw=direct.draw, draw_fixed=direct.draw_fixed, resolve=direct.resolve,
                         draw_top=direct.draw_top, uniform=direct.uniform, take_top=runtime.take_top)
        namespace.update(draws, **direct.HELPERS, decide=None, endless=direct.endless, GameOver=GameOver, EndOfTurn=direct.EndOfTurn,
                         EndOfRound=direct.EndOfRound)
        exec(code, namespace)  # noqa: S102
        self.flow = namespace["FLOW"]
        self.game = game
        self.draws = DrawCounts()  # with chance drawn inside: of the games played lately (see `stream`)
        self.streams = SeedStreams()
        self.card_events = CardEvents()  # with chance offered to the caller
        self.stack_events = CardEvents()  # the same for stacks of more than FEW_CARDS undetermined cards


def stepping_program(game, chance: bool = False) -> SteppingProgram | None:
    try:
        return SteppingProgram(game, chance)
    except Unsupported:
        return None


class SteppedState(State):
    """A `State` stepped by the generator code until it must be an engine State.

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
        if self.fast is None:  # it already is
            return
        fresh = self.game.replay(self.history, self.seed, self.auto)
        self.__class__ = State
        for name in State.__slots__:
            setattr(self, name, getattr(fresh, name))

    def stop_at(self, stopped) -> None:
        """At the next stop: a decision (its player, the ids of its options in increasing order) or a
        chance event (None, its weights, its outcomes in increasing order, their probabilities)."""
        if stopped[0] is None:
            _, self.pending, self.legal, self.chance = stopped
            self.to_move = CHANCE_PLAYER
        else:
            self.to_move, self.pending = stopped
            self.legal = self.pending
            self.chance = None

    def _end(self) -> None:
        s = self.fast[1]
        if s.draws is not None:
            s.draws.seen(s.t)
        self.over = True
        self.pending, self.legal, self.chance, self.to_move = {}, [], None, TERMINAL_PLAYER

    # Each method below may run on a state that became the engine's since the method was looked up
    # (`state.apply_action(pick(state))` where `pick` reads the zones): then it is the State's method.
    def apply_action(self, action: int) -> None:
        fast = self.fast
        if fast is None:
            return State.apply_action(self, action)
        if type(action) is not int:
            action = integral_action(action, self)
        if action not in self.pending:
            raise IllegalActionError(action, self.legal, self.action_to_string)
        gen, s = fast
        history = self.history
        before = len(history)
        history.append(action)
        s.t += 1
        try:
            stopped = gen.send(action)
        except (GameOver, StopIteration):
            self._end()
            return
        except Exception:  # noqa: BLE001 - what the whole-game code leaves to the engine: the engine decides
            del history[before:]
            self.to_engine()
            State.apply_action(self, action)
            return
        if stopped[0] is None:  # `stop_at`'s steps, inline
            _, self.pending, self.legal, self.chance = stopped
            self.to_move = CHANCE_PLAYER
        else:
            self.to_move, self.pending = stopped
            self.legal = self.pending
            self.chance = None

    # The State methods that would read a field of the engine's form after one of the fields above (and
    # so keep the stepped one in hand): the engine's State first.
    def clone(self) -> State:
        SteppedState.to_engine(self)
        return State.clone(self)

    def fork(self) -> State:
        SteppedState.to_engine(self)
        return State.fork(self)

    def play_on(self, choose, max_steps: int) -> int:
        SteppedState.to_engine(self)
        return State.play_on(self, choose, max_steps)


def stepped_state(game, program: SteppingProgram, seed: int | None, auto: bool) -> State:
    """The start of a game (chance drawn inside from `seed` with `auto`, else offered to the caller):
    a SteppedState, or the engine's State when the whole-game code stops before the first decision or
    chance event (the end already, or a rule error)."""
    s = Stepping(game, seed, 0, None, program.streams.take(seed, program.draws.first) if auto and seed is not None else None)
    s.h = [] if auto else None
    s.draws = program.draws if auto else None
    s.events = program.card_events
    s.stack_events = program.stack_events
    s.stack = s.drawing = None
    gen = program.flow(s)
    try:
        stopped = gen.send(None)
    except Exception:  # noqa: BLE001 - over before any stop, or what only the engine may judge
        return State(game, seed, auto_chance=auto)
    state = object.__new__(SteppedState)
    state.game, state.seed, state.auto, state.on_round = game, seed, auto, None
    state.history = s.h if auto else []
    state.winners, state.over = s.winners, False
    state.fast = (gen, s)
    state.stop_at(stopped)
    return state
