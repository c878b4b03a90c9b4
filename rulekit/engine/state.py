"""A game state with OpenSpiel's State contract."""
from __future__ import annotations

import hashlib
import json
import marshal
import operator
import pickle
import zlib
from collections import Counter

from ..errors import IllegalActionError, LongRun, RuleRuntimeError, SeatError
from . import runtime
from .runtime import WATCH_AFTER, WATCH_UNTIL, CycleWatch
from .signals import FRAMES, SUSPEND, TRIGGER
from .stream import Stream

CHANCE_PLAYER = -1
CHANCE_LIMIT = 100_000  # chance events in a row (`play_chance`) before the rules count as looping forever
RUN_DRAWS = 10_000  # chance outcomes a long run draws inside (auto_chance) while watched, by which it counts as looping
STEP_LIMIT = 1_000_000  # VM instructions between two decisions before the rules count as looping forever
TERMINAL_PLAYER = -4

def splitmix(seed: int, step: int) -> float:
    """A uniform float in [0, 1) from (seed, step): reproducible, and nothing to serialize."""
    # constants as literals, and 2**-53 as a factor (exact): this runs at every chance event
    z = (seed * 0x9E3779B97F4A7C15 + (step + 1) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return ((z ^ (z >> 31)) >> 11) * 1.1102230246251565e-16


def integral_action(action, state) -> int:
    """An action id given as another integer type (numpy's, as an agent's arrays hold them) as a Python
    int, so that the history stays plain data; anything that is not an integer is an illegal action."""
    try:
        return operator.index(action)
    except TypeError:
        raise IllegalActionError(action, state.legal, state.action_to_string) from None


class State:
    __slots__ = ("game", "code", "z", "lo", "hi", "v", "cur", "fr", "ctx", "log", "turn_start",
                 "winners", "over", "pending", "legal", "to_move", "chance", "resume", "history", "seed", "stream", "auto", "armed",
                 "triggers", "on_round", "fast",
                 "zone_names", "kind_names", "is_set", "knowledge_memo")

    def __init__(self, game, seed: int | None, auto_chance: bool = False, on_round=None):
        if auto_chance and seed is None:
            raise ValueError("auto_chance needs a seed: new_initial_state(seed=..., auto_chance=True)")
        self.auto = auto_chance
        self.game = game
        self.code = game.program.code
        self.zone_names = game.layout.zone_names
        self.kind_names = game.kind_names
        self.is_set = game.zone_is_set
        self.z = [list(cards) for cards in game.initial_zones]
        self.lo = [0] * len(self.z)
        self.hi = [0] * len(self.z)
        self.v = list(game.initial_values)
        self.cur = 0
        self.fr = [[0] + [None] * game.program.entry_locals]
        self.ctx: list[list] = []
        self.log: list[tuple] = []
        self.knowledge_memo: dict = {}  # seat -> what `knowledge` read from the log so far (the log only grows)
        self.turn_start = 0
        self.winners: set[int] = set()
        self.over = False
        self.pending: dict = {}
        self.legal: list[int] = []
        self.to_move = TERMINAL_PLAYER
        self.chance: list[tuple[int, float]] | None = None
        self.resume: tuple | None = None
        self.history: list[int] = []
        self.seed = seed
        self.stream = Stream(seed) if seed is not None else None  # splitmix(seed, t), many at a time
        self.triggers = game.triggers
        self.armed = [True] * len(self.triggers)
        self.on_round = on_round  # a function of the state, called as each round of a `rounds` loop begins
        self.fast = None  # a stepped state's generator and game (see `rulekit.engine.stepping`)
        if game.set_up_failure is not None:
            raise game.set_up_failure
        try:
            self._run()
        except RuleRuntimeError as exc:
            if not self.history:  # no chance event drawn yet: the same rules fail the same way every time
                game.set_up_failure = exc.with_traceback(None)
            raise

    # ---- the virtual machine: signals from compiled instructions
    def _run(self) -> None:
        """Run the compiled code until a decision, a chance event or the end, watching a long run
        for a state that comes back (`_run_watched`)."""
        pc = self._steps(self.fr[-1][0], WATCH_AFTER)
        if pc is not None:  # a long run: only now is it worth counting what it draws
            drawn = len(self.history)
            pc = self._run_watched(pc)
            if pc is not None and len(self.history) - drawn >= RUN_DRAWS:
                span, where = self._running(pc)
                raise LongRun(f"the rules drew {len(self.history) - drawn:,} chance outcomes in "
                              f"{WATCH_UNTIL - WATCH_AFTER:,} steps without waiting for a decision (an endless loop "
                              f"that only chance could end?){where}", span)
            if pc is not None and self._steps(pc, STEP_LIMIT - WATCH_UNTIL) is not None:
                span, where = self._running(pc)
                raise LongRun(f"the rules went {STEP_LIMIT:,} steps without waiting for a decision or a chance "
                              f"event (an endless loop?){where}", span)
        if self.over:
            self.pending, self.legal, self.chance, self.to_move = {}, [], None, TERMINAL_PLAYER

    def _steps(self, pc: int, count: int) -> int | None:
        """At most `count` instructions from `pc`: None when the run stopped (a decision, a chance event,
        the end), else the pc it got to. An instruction returns the next pc of its frame, or a signal;
        one that stops (SUSPEND, HALT) or starts a trigger has left its own pc in its frame, one that
        switches frames has set theirs."""
        code, frames = self.code, self.fr
        fr = frames[-1]
        for _ in range(count):
            r = code[pc](self, fr)
            if r >= 0:
                pc = r
            elif r == FRAMES or r == TRIGGER:
                if not frames:
                    self.over = True
                    return None
                fr = frames[-1]
                pc = fr[0]
            else:
                return None
        return pc

    def _run_watched(self, pc: int) -> int | None:
        """The steps of a run from WATCH_AFTER to WATCH_UNTIL, one at a time, watched for a state that
        comes back (`runtime.CycleWatch`): with no decision and no chance event in between, such a run
        is reported as endless at once instead of at STEP_LIMIT. A run that draws chance inside
        (auto_chance) changes its key with every draw, so only a stretch without draws can be judged
        endless. None when the run stopped, else the pc it got to."""
        watch = CycleWatch(pc, self.run_key(pc), WATCH_AFTER)
        for step in range(WATCH_AFTER + 1, WATCH_UNTIL + 1):
            pc = self._steps(pc, 1)
            if pc is None:
                return None
            if watch.came_back(pc, lambda: self.run_key(pc), step):
                span, where = self._running(pc)
                raise watch.endless(step, where, span)
        return pc

    def run_key(self, here) -> str:
        """All that the rest of a run depends on, with `here` (where it is: its pc, or a loop's locals);
        the move log only feeds observations."""
        return repr((here, self.fr, self.z, self.lo, self.hi, self.v, self.cur, self.ctx, sorted(self.winners),
                     self.over, self.armed, len(self.history)))

    def _running(self, pc: int) -> tuple:
        span, rule = self.game.program.origin(pc)
        return span, (f"; it was running {'rule ' + rule if rule != 'flow' else 'the flow'}" if rule else "")

    def _fire_trigger(self) -> bool:
        """Start the first armed trigger whose condition holds; re-arm those whose condition is false.
        The game's compiled `FIRE` does it with the conditions inline (see `Codegen.fire`); a state
        whose triggers were put in another order (to see whether the order matters) runs this loop."""
        if self.triggers is self.game.triggers:
            return self.game.fire_triggers(self)
        for i, (holds, entry, once, size) in enumerate(self.triggers):
            if self.armed[i]:
                if holds(self):
                    self.armed[i] = False
                    self.fr.append([entry] + [None] * size)
                    return True
            elif not once and not holds(self):
                self.armed[i] = True
        return False

    def check_triggers(self) -> bool:
        """A quiet moment asked for by the rules (`check triggers`): True when a trigger was started."""
        return bool(self.triggers) and self._fire_trigger()

    def decide(self, player: int, options: dict) -> int:
        if self.triggers and self._fire_trigger():
            return TRIGGER
        self.pending = options
        self.legal = sorted(options)
        self.chance = None
        self.to_move = player
        return SUSPEND

    # A chance event with a single outcome is no event: it is carried out at once, unrecorded.
    def chance_random(self, weights: dict, slot: int, span, domain: str, next_pc: int) -> int:
        if len(weights) == 1:
            self.fr[-1][slot] = next(iter(weights))
            return next_pc
        if not weights:
            raise RuleRuntimeError("a random choice has nothing to choose from", span)
        if self.auto:
            self.fr[-1][slot] = self._roll(weights)
            return next_pc
        self._set_chance(weights, ("random", slot, domain))
        return SUSPEND

    def chance_card(self, zone: int, slot: int, span, next_pc: int) -> int:
        """A card drawn blindly from a zone: each card equally likely."""
        cards = self.z[zone]
        if not cards:
            raise RuleRuntimeError("a random card is drawn from an empty zone", span)
        if self.auto:
            kind = cards[int(self._uniform() * len(cards))]
            if cards.count(kind) != len(cards):
                self.history.append(kind)
            self.fr[-1][slot] = kind
            return next_pc
        return self.chance_random(Counter(cards), slot, span, "card", next_pc)

    def chance_resolve(self, zone: int, top: bool) -> int:
        """The top (or bottom) card of a zone's undetermined block is drawn: 0 when that is done at
        once (auto_chance, or a block of one kind), SUSPEND when the caller must give it."""
        cards, lo, hi = self.z[zone], self.lo[zone], self.hi[zone]
        if self.auto:
            # Sampling a position of the block is sampling a kind weighted by its copies.
            history, stream, n = self.history, self.stream, hi - lo
            t = len(history)
            kind = cards[lo + int((stream[t] if t < len(stream) else stream.at(t)) * n)]
            if cards[lo] != cards[hi - 1]:  # the block is sorted: it is one kind when its ends are
                history.append(kind)  # a block of one kind is no chance event
            runtime.fix_end(self, zone, kind, top)
            return 0
        counts = runtime.kind_counts(cards if lo == 0 and hi == len(cards) else cards[lo:hi])
        if len(counts) == 1:
            runtime.fix_end(self, zone, cards[lo], top)
            return 0
        # as `_set_chance` has it, each kind's weight over the block's size
        n = hi - lo
        self.legal = list(counts)
        self.chance = [(k, c / n) for k, c in counts.items()]
        self.pending = counts
        self.resume = ("fix", zone, top)
        self.to_move = CHANCE_PLAYER
        return SUSPEND

    def _uniform(self) -> float:
        """The draw of the next chance event: `splitmix(seed, its place in the history)`."""
        t, stream = len(self.history), self.stream
        return stream[t] if t < len(stream) else stream.at(t)

    def _roll(self, weights: dict) -> int:
        """Sample and record a chance outcome from the seed (auto_chance mode)."""
        u = self._uniform() * sum(weights.values())
        for outcome in sorted(weights):
            u -= weights[outcome]
            if u < 0:
                break
        self.history.append(outcome)
        return outcome

    def _set_chance(self, weights: dict, resume: tuple) -> None:
        total = sum(weights.values())
        self.legal = legal = sorted(weights)
        self.chance = [(k, weights[k] / total) for k in legal]
        self.pending = weights
        self.resume = resume
        self.to_move = CHANCE_PLAYER

    def end_context(self, kind: str, span) -> int:
        ctx = self.ctx
        for i in range(len(ctx) - 1, -1, -1):
            if ctx[i][0] == kind:
                break
        else:
            raise RuleRuntimeError(f"'end {kind}' is reached outside of any {kind}", span)
        _, depth, target = ctx[i]
        del ctx[i + 1:]
        del self.fr[depth + 1:]
        self.fr[depth][0] = target
        return FRAMES

    # ---- OpenSpiel's State API
    def current_player(self) -> int:
        return self.to_move

    def is_chance_node(self) -> bool:
        return self.chance is not None

    def is_terminal(self) -> bool:
        return self.over

    def waiting_at(self) -> tuple:
        """(span, rule or procedure) of the statement the rules are waiting at: a decision, a chance event."""
        if not self.fr:
            return None, None
        return self.game.program.origin(self.fr[-1][0])

    def is_stuck(self) -> bool:
        """Not an end, yet nobody can move: a deadlock of the rules."""
        return not self.over and not self.legal

    @property
    def chance_kind(self) -> str | None:
        """At a chance node, "random" (a `random` statement: dice, a random value or a blind pick) or
        "draw" (the next card of a shuffled stack whose order is not decided yet)."""
        if self.chance is None:
            return None
        return "random" if self.resume[0] == "random" else "draw"

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self.chance) if self.chance is not None else []

    def legal_actions(self, player: int | None = None) -> list[int]:
        if player is not None and player != self.to_move:
            return []
        return list(self.legal)

    def legal_actions_mask(self, player: int | None = None) -> list[int]:
        mask = [0] * self.game.num_distinct_actions()
        for a in self.legal_actions(player):
            mask[a] = 1
        return mask

    def apply_action(self, action: int) -> None:
        if type(action) is not int:
            action = integral_action(action, self)
        if action not in self.pending:
            raise IllegalActionError(action, self.legal, self.action_to_string)
        before = len(self.history)
        self.history.append(action)
        try:
            fr = self.fr[-1]
            if self.chance is not None:
                resume = self.resume
                if resume[0] == "random":
                    fr[resume[1]] = action
                    fr[0] += 1
                else:
                    runtime.fix_end(self, resume[1], action, resume[2])
                self.chance = None
            else:
                self.log.append(("act", self.to_move, action))  # every seat observes the decision
                pc, slots, values = self.pending[action]
                for slot, value in zip(slots, values):
                    fr[slot + 1] = value
                fr[0] = pc
            self._run()
        except RuleRuntimeError:
            self._restore(self.history[:before])
            raise

    def play_on(self, choose, max_steps: int) -> int:
        """Take decisions picked by `choose` until the end, a deadlock or `max_steps` decisions; the
        number taken. For a state whose chance is drawn inside (auto_chance): `choose` gets the sorted
        legal actions (a list it must not change) and returns one of them. Each decision has the same
        effect as `apply_action`, without its check (the action is legal) and without its undo: a rule
        error propagates and leaves the state where it happened."""
        if not self.auto:
            raise ValueError("play_on needs a state whose chance is drawn inside: new_initial_state(seed=..., auto_chance=True)")
        made = 0
        history, log = self.history, self.log
        while made < max_steps and not self.over and self.legal:
            action = choose(self.legal)
            history.append(action)
            log.append(("act", self.to_move, action))
            pc, slots, values = self.pending[action]
            fr = self.fr[-1]
            for slot, value in zip(slots, values):
                fr[slot + 1] = value
            fr[0] = pc
            self._run()
            made += 1
        return made

    def _restore(self, history: list[int]) -> None:
        fresh = self.game.replay(history, self.seed, self.auto)
        fresh.on_round = self.on_round
        for name in State.__slots__:
            setattr(self, name, getattr(fresh, name))

    def returns(self) -> list[float]:
        n = self.game.num_players()
        if not self.over:
            return [0.0] * n
        win, lose = self.game.model.payoff
        return [float(win if p in self.winners else lose) for p in range(n)]

    def rewards(self) -> list[float]:
        return self.returns() if self.over else [0.0] * self.game.num_players()

    def action_to_string(self, action: int, player: int | None = None) -> str:
        """An action for people. With `player`, as that seat sees it: in full for the one who decides,
        in its public form (secret parts hidden) for the others. The action comes first, where
        OpenSpiel's `action_to_string(player, action)` takes the player first (the OpenSpiel adapter's
        states do)."""
        if self.chance is not None:
            domain = "card" if self.resume[0] == "fix" else self.resume[2]
            return "chance: " + self.game.describe_value(domain, action)
        return self.game.describe_action(action, public=player is not None and player != self.to_move)

    def clone(self) -> State:
        return self._copy(self.history[:], self.log[:], self.turn_start)

    def fork(self) -> State:
        """A copy of where play stands, without the history and the move log: for a search that keeps
        its own paths (copying them would cost as much as the game has lasted, at every step)."""
        return self._copy([], [], 0)

    def as_fork(self) -> State:
        """This state made its own `fork`, without a copy: its history and move log let go. For a search
        that has made every other child of a state and no longer needs the state as it was."""
        if self.fast is not None:
            return self.fork()
        self.history, self.log, self.turn_start, self.knowledge_memo = [], [], 0, {}
        return self

    def _copy(self, history: list, log: list, turn_start: int) -> State:
        other = object.__new__(State)
        other.game, other.code = self.game, self.code
        other.zone_names, other.kind_names, other.is_set = self.zone_names, self.kind_names, self.is_set
        # `list.copy` through `map` copies the inner lists in C, a fifth faster than `list` (searches fork
        # every child they try)
        other.z = list(map(list.copy, self.z))
        other.lo, other.hi, other.v = self.lo[:], self.hi[:], self.v[:]
        other.cur = self.cur
        other.fr = list(map(list.copy, self.fr))
        other.ctx = list(map(list.copy, self.ctx))
        other.log = log
        other.knowledge_memo = {}
        other.turn_start = turn_start
        other.winners = set(self.winners)
        other.over = self.over
        other.pending, other.legal, other.to_move = self.pending, self.legal, self.to_move
        other.chance, other.resume = self.chance, self.resume
        other.history = history
        other.seed, other.stream, other.auto = self.seed, self.stream, self.auto
        other.triggers, other.armed = self.triggers, self.armed[:]
        other.on_round = self.on_round
        other.fast = None
        return other

    def pack(self) -> bytes:
        """Where play stands, as compressed bytes: cards, values, what runs and what is offered, without
        the history, the move log or the seed. For tools that hold millions of states at once (an
        explorer's frontier); `unpack` on a state of the same game makes it again."""
        content = (self.z, self.lo, self.hi, self.v, self.cur, self.fr, self.ctx, tuple(self.winners), self.over,
                   dict(self.pending), self.legal, self.to_move, self.chance, self.resume, self.armed)
        try:
            return b"m" + zlib.compress(marshal.dumps(content), 1)
        except ValueError:  # a value marshal does not know (the language grows): pickle knows more
            return b"p" + zlib.compress(pickle.dumps(content, pickle.HIGHEST_PROTOCOL), 1)

    def unpack(self, packed: bytes) -> State:
        """The state `packed` holds, sharing this state's game, seed and chance settings, with an empty
        history and move log."""
        raw = zlib.decompress(packed[1:])
        content = marshal.loads(raw) if packed[:1] == b"m" else pickle.loads(raw)
        other = object.__new__(State)
        other.game, other.code = self.game, self.code
        other.zone_names, other.kind_names, other.is_set = self.zone_names, self.kind_names, self.is_set
        (other.z, other.lo, other.hi, other.v, other.cur, other.fr, other.ctx, winners, other.over, other.pending,
         other.legal, other.to_move, other.chance, other.resume, other.armed) = content
        other.winners = set(winners)
        other.log, other.history, other.turn_start, other.knowledge_memo = [], [], 0, {}
        other.seed, other.stream, other.auto = self.seed, self.stream, self.auto
        other.triggers, other.on_round, other.fast = self.triggers, self.on_round, None
        return other

    def redo(self) -> None:
        """Run again the step this state waits at (a decision or a chance event), so that what it
        offers is computed anew after a tool changed the state's cards (a re-deal, for example)."""
        if not self.over:
            self._run()

    def child(self, action: int) -> State:
        s = self.clone()
        s.apply_action(action)
        return s

    # ---- chance helpers for people who want the engine to roll the dice
    def sample_chance(self) -> int:
        """A chance outcome drawn from this state's seed and position: same seed, same game."""
        if self.chance is None:
            raise IllegalActionError("sample_chance", [], self.action_to_string)
        if self.seed is None:
            raise ValueError("this state has no seed: create it with new_initial_state(seed=...)")
        u = self._uniform()
        acc = 0.0
        for action, p in self.chance:
            acc += p
            if u < acc:
                return action
        return self.chance[-1][0]

    def play_chance(self) -> None:
        """Apply seeded chance outcomes until a player must decide or the game is over; `LongRun` (E502)
        after CHANCE_LIMIT of them, as chance drawn inside a step stops at the step limit."""
        for _ in range(CHANCE_LIMIT):
            if self.chance is None:
                return
            self.apply_action(self.sample_chance())
        if self.chance is not None:
            raise LongRun(f"chance went {CHANCE_LIMIT:,} events without a decision or the end (an endless loop?)")

    # ---- the full truth, for tests, tools and referees (players get `observation`)
    def zone(self, name: str, player: int | tuple | None = None) -> list[str]:
        """The cards in a zone, top last for a stack: `zone("deck")`, `zone("hand", 2)`, a board's
        space `zone("down", (1, 1))` or `zone("down[1,1]")` (row and column from 1)."""
        return [self.kind_names[k] for k in self.z[self.game.zone_index(name, player)]]

    def value(self, name: str, player: int | None = None) -> int:
        """A variable's value, or a token count: `value("Victory", 1)`; `value("Victory")` is the supply."""
        return self.v[self.game.var_index(name, player)]

    # ---- information
    def events(self, player: int, since: int = 0) -> list[str]:
        """What `player` observed happen, from position `since` of the move log on (every decision,
        move, reveal and announcement, each as that seat sees it)."""
        player = self.seat(player)
        return [self.game.event_text(e, player) for e in self.log[since:]]

    def seat(self, player) -> int:
        """`player` as a seat of this game, or a SeatError: what a player observes needs a player."""
        try:
            seat = operator.index(player)
        except TypeError:
            seat = None
        if seat is None or not 0 <= seat < self.game.num_players():
            raise SeatError(player, self.game.num_players())
        return seat

    @property
    def log_size(self) -> int:
        return len(self.log)

    def observation(self, player: int) -> dict:
        return self.game.observe(self, self.seat(player))

    def observation_string(self, player: int) -> str:
        return self.game.observation_text(self, self.seat(player))

    def information_state_string(self, player: int) -> str:
        return self.game.information_text(self, self.seat(player))

    def __str__(self) -> str:
        return self.game.describe_state(self)

    # ---- serialization and identity
    def _content(self) -> tuple:
        return (self.z, self.lo, self.hi, self.v, self.cur, self.fr, self.ctx, sorted(self.winners), self.over,
                self.history, self.seed, self.auto, self.armed)

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self._content(), default=list).encode()).hexdigest()

    def to_json(self) -> str:
        return self.game.serialize(self)

    def __eq__(self, other) -> bool:
        return isinstance(other, State) and other.game.key == self.game.key and self._content() == other._content()

    def __hash__(self):
        return hash(self.digest())
