"""Explicit-state exploration of one game configuration, through the engine.

Breadth first from the initial state, branching over every legal action and every chance outcome,
so the first path found to a state is a shortest one. Only suspended states are visited (a player
to decide, a chance event, or the end): the instructions between two suspensions run as one step
of the engine, and the properties are tested at these points, as random play does.

A state is identified by a compact key: its zones, undetermined blocks, variables, seat to move,
VM frames and contexts, winners and end flag, without the history and the event log (which only
record how the state was reached). Frame slots that the pending decision or chance event is about
to overwrite are dead and are left out, and so are the binders of every action whose body is over
(the card a player discarded a deal ago), so two states that differ only in a stale choice compare
equal. The key is marshalled to bytes, and the explorer remembers only a 128-bit fingerprint of it
(see `fingerprint`); its frontier holds packed states (`State.pack`), its paths and successors flat
arrays, so that a configuration of ten million states fits in a few gigabytes.

Variables that play never reads (a turn counter, the last roll: `inert`) are left out of the key
unless a property reads them: two states that differ only there play alike. For termination alone
(`Limits.termination_only`) they are always left out, and no property is judged.

Symmetry reduction (players interchangeable) is applied only when the model never tells seats
apart: see `seat_symmetry`. Then a state's key lists the per-player parts (per-player zones,
variables and token holdings, and being a winner) as a sorted multiset, so the states that differ
only by a renaming of the seats share one key. States whose frames hold live values (which might
be seats) keep their plain key: fewer merges, never a wrong one.

The exploration stops at a state budget, a time limit or a depth; it is then `complete=False`
and every verdict drawn from it is `bounded`.
"""
from __future__ import annotations

import dataclasses
import hashlib
import marshal
import time
from array import array
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import ne

from .. import model as m
from ..engine.state import State
from ..errors import EndlessRun, LongRun, RuleRuntimeError
from . import budget
from .inert import ignored_by_keys, var_slots
from ..memo import PerObject
from .successors import Successors


@dataclass
class Limits:
    max_states: int = 20_000
    time_limit: float = 5.0  # seconds per configuration
    depth: int | None = None  # steps (decisions and chance outcomes) from the start
    symmetry: bool = True
    keep_edges: bool = True  # needed for the termination analysis (SCCs); costs memory
    termination_only: bool = False  # keys leave out every variable no rule reads (`inert`); no property is judged
    memory: int | None = None  # bytes of resident memory at which exploration stops (see budget.memory_limit)


CHANCE = 1  # a chance event, not a player's decision
EXPANDED = 2  # its successors were all generated (a state on the frontier has none recorded)


@dataclass
class Exploration:
    players: int
    options: dict
    states: int = 0
    transitions: int = 0
    complete: bool = False
    stopped_by: str = ""  # states, time, depth, or "" when complete
    depth: int = 0  # the deepest level fully expanded
    seconds: float = 0.0
    symmetry: bool = False
    symmetry_reason: str = ""
    terminal: list[int] = field(default_factory=list)
    violated: dict[str, int] = field(default_factory=dict)  # invariant name -> first state breaking it
    reached: dict[str, int] = field(default_factory=dict)  # reachability target -> first state meeting it
    deadlocks: list[int] = field(default_factory=list)
    errors: list[tuple[int, int, str]] = field(default_factory=list)  # (state, action, message)
    # (state, action, shown): a run of the rules after that action that never waited again, `shown`
    # endless (its state came back) or only past the engine's step limit
    unending: list[tuple[int, int, bool]] = field(default_factory=list)
    fired: set = field(default_factory=set)  # (choice point, action index) taken at least once
    parent: Sequence[int] = field(default_factory=list)  # per state: the state it was first reached from
    via: Sequence[int] = field(default_factory=list)  # per state: the action that reached it from there
    edges: Sequence[Sequence[int]] | None = None  # per state: its successors (a `Successors` here, lists elsewhere)
    prefix: list[int] = field(default_factory=list)  # actions from the start to the explored root
    kinds: bytearray = field(default_factory=bytearray)  # per state: CHANCE and EXPANDED flags
    fingerprint_bits: int = 0  # > 0 when visited states are remembered by a hash of that many bits

    def failed(self, index: int, action: int, exc: RuleRuntimeError) -> None:
        """Record the engine's error on `action` from state `index`, and whether its run never waited again."""
        self.errors.append((index, action, str(exc)))
        if isinstance(exc, (EndlessRun, LongRun)):
            self.unending.append((index, action, isinstance(exc, EndlessRun)))

    def path(self, index: int) -> list[int]:
        """The actions (chance outcomes included) from the start to state `index`: the prefix to the
        root, then a shortest path from the root."""
        out = []
        while index > 0:
            out.append(self.via[index])
            index = self.parent[index]
        return self.prefix + out[::-1]

    @property
    def collision_bound(self) -> float:
        """At most this chance that two distinct states shared a fingerprint (0 when states are kept whole)."""
        n = self.states
        return n * (n - 1) / 2 ** (self.fingerprint_bits + 1) if self.fingerprint_bits else 0.0

    @property
    def states_per_second(self) -> float:
        return self.states / self.seconds if self.seconds else 0.0


# ---- symmetry: can seats be renamed without changing the game?

_SEAT_BUILTINS = ("seat", "next", "previous")
_KNOWN = {cls for cls in vars(m).values() if isinstance(cls, type) and dataclasses.is_dataclass(cls)}


_children = m.children


def seat_symmetry(game: m.Game) -> tuple[bool, str]:
    """(True, why) when every permutation of the seats maps the game's transitions onto themselves.

    Conservative: seats are interchangeable only if no rule or property names a seat (`seat(n)`), the
    seat order (`next`, `previous`, turns, `rotate`, players iterated from a start), the first seat
    meeting a condition (`the` over players), iterates over the players in order with effects
    (`for p in players`), or reads `current` other than as the one who decides. Any model node this
    analysis does not know makes the answer no.
    """
    if m.uses_no_player(game):
        return False, "the rules say `none` (no player): player values are kept in the state"
    roots = [game.flow, *game.procedures, *game.defines, *game.properties]
    stack = [(r, None) for r in roots]
    while stack:
        node, parent = stack.pop()
        cls = type(node)
        if cls not in _KNOWN:
            return False, f"the model has a construct ({cls.__name__}) the symmetry analysis does not know"
        if isinstance(node, m.Builtin):
            if node.name in _SEAT_BUILTINS:
                return False, f"the rules use {node.name}(), which tells seats apart"
            if node.name == "current" and not (isinstance(parent, m.Choose) and parent.by is node):
                return False, "the rules read `current` other than as the player who decides"
        if isinstance(node, (m.Turns, m.Rotate)):
            return False, "the rules have a seat order (turns or rotate)"
        if isinstance(node, m.Iter) and node.kind == "players" and node.start is not None:
            return False, "the rules iterate over the players from a given seat"
        if isinstance(node, m.Quant) and node.kind in ("the", "argmax", "argmin") and node.binder.iter.kind == "players":
            return False, "the rules pick the first player meeting a condition (or the first of equals)"
        if isinstance(node, m.For) and node.binder.iter.kind == "players":
            return False, "the rules go through the players in seat order (`for p in players`)"
        if isinstance(node, m.Iter) and node.kind not in ("cards", "players", "enum", "set", "range"):
            return False, f"the rules iterate over {node.kind}, which the symmetry analysis does not know"
        stack.extend((child, node) for child in _children(node))
    return True, "no rule or property tells the seats apart"


_KNOWN_FIELDS = {"game", "code", "zone_names", "kind_names", "is_set", "log", "turn_start", "history", "seed", "auto",
                 "pending", "legal", "chance", "resume", "to_move", "z", "lo", "hi", "v", "cur", "fr", "ctx", "winners",
                 "over", "knowledge_memo", "armed"}  # knowledge_memo: a cache of what the move log says


def _plain(value):
    if isinstance(value, (list, tuple)):
        return tuple(_plain(x) for x in value)
    if isinstance(value, (set, frozenset)):
        return tuple(sorted(value))
    if isinstance(value, dict):
        return tuple(sorted((k, _plain(v)) for k, v in value.items()))
    return value


# Marshal's format 2, not its default: from format 3 on, an object met twice is written the second time as
# a back-reference, so two equal states whose equal values are shared differently got different keys.
KEY_MARSHAL = 2


class _Keyer:
    """Compact, canonical state keys for one loaded game."""

    def __init__(self, game, symmetric: bool, termination_only: bool = False):
        lay = game.layout
        # Variables play never reads (`inert`) cannot tell apart two states' futures: a turn counter
        # would otherwise make every state new.
        self.blank = var_slots(game, ignored_by_keys(game, termination_only))
        n = game.num_players()
        self.symmetric = symmetric and n > 1
        per_zone = [z.name for z in game.model.zones if z.per_player]
        per_var = [v.name for v in game.model.vars if v.per_player]
        self.player_zones = [[lay.zone_base[z] + p for z in per_zone] for p in range(n)]
        self.player_vars = [[lay.var_base[v] + p for v in per_var] + [lay.held_base[t.name] + p for t in game.model.tokens]
                            for p in range(n)]
        flat_z = {i for zs in self.player_zones for i in zs}
        flat_v = {i for vs in self.player_vars for i in vs}
        self.shared_zones = [i for i in range(len(lay.zone_names)) if i not in flat_z]
        self.shared_vars = [i for i in range(lay.nvars) if i not in flat_v]
        self.n = n
        # At a decision, the binder slots of every action of that choice point are written before
        # they are read: whatever they hold is dead.
        self.table = game.action_table
        self.dead = {point: sorted({b.slot + 1 for a in c.actions for b in a.binders})
                     for point, c in game.choices.items()}
        # A stuck state offers nothing to tell its decision by: the statement it waits at does.
        self.program = game.program
        self.point_of_span = {c.span: point for point, c in game.choices.items() if c.span is not None}
        self.point_at: dict[int, int | None] = {}
        # A decision's binders outlive its action's body in the frame: there they are dead too.
        self.scopes = game.program.action_scopes
        self.stale_at: dict[int, tuple] = {}
        # Engine fields this keyer does not know are part of the key, unless every state shares them.
        probe = game.new_initial_state(seed=0)
        twin = probe.clone()
        self.extra = [name for name in State.__slots__ if name not in _KNOWN_FIELDS
                      and getattr(twin, name) is not getattr(probe, name)]

    def stale(self, pc: int) -> tuple:
        """The frame indices that hold the binders of actions whose body does not contain `pc`, in
        the procedure of `pc`: the value of a decision taken earlier, which nothing reads again."""
        out = self.stale_at.get(pc)
        if out is None:
            out = self.stale_at[pc] = tuple(sorted({
                slot for start, last, first, end, slots in self.scopes
                if start <= pc <= last and not first <= pc <= end for slot in slots}))
        return out

    def frames(self, s: State) -> list:
        if s.over:
            return []  # nothing runs after the end: what the frames still hold is dead
        frames = [f[:] for f in s.fr]
        if self.scopes:
            for f in frames:
                for slot in self.stale(f[0]):
                    if slot < len(f):
                        f[slot] = None
        if frames:
            top = frames[-1]
            if s.chance is not None:
                if s.resume is not None and s.resume[0] == "random":
                    top[s.resume[1]] = None
            else:
                point = self.waiting(s, top[0])
                for slot in self.dead.get(point, ()):
                    if slot < len(top):
                        top[slot] = None
        return frames

    def waiting(self, s: State, pc: int) -> int | None:
        """The decision a state waits at: the owner of its actions, or, stuck with none, the decision of
        the statement at `pc` (two stuck states that differ only in a value chosen at an earlier pass of
        that decision are one state: nothing reads it again)."""
        if s.pending:
            return self.table.owner(next(iter(s.pending)))[0]
        if pc not in self.point_at:
            self.point_at[pc] = self.point_of_span.get(self.program.origin(pc)[0])
        return self.point_at[pc]

    def values(self, s: State) -> list:
        if not self.blank:
            return s.v
        v = s.v[:]
        for i in self.blank:
            v[i] = 0
        return v

    def key(self, s: State) -> bytes:
        # Marshal writes the state's own lists: two states get the same bytes exactly when their
        # parts are equal, without tuples built first. The trigger flags (`armed`) are a list of bools.
        frames = self.frames(s)
        v = self.values(s)
        if self.symmetric and all(x is None for f in frames for x in f[1:]):
            z, lo, hi, w = s.z, s.lo, s.hi, s.winners
            players = sorted((tuple((tuple(z[i]), lo[i], hi[i]) for i in zs), tuple(v[i] for i in vs), p in w)
                             for p, (zs, vs) in enumerate(zip(self.player_zones, self.player_vars)))
            shared = (tuple((tuple(z[i]), lo[i], hi[i]) for i in self.shared_zones),
                      tuple(v[i] for i in self.shared_vars))
            content = (1, shared, players, s.cur, frames, s.ctx, s.over, s.to_move, s.armed)
        else:
            winners = s.winners
            content = (0, s.z, s.lo, s.hi, v, s.cur, frames, s.ctx, sorted(winners) if winners else None, s.over,
                       s.to_move, s.armed)
        if self.extra:
            content = (content, tuple(_plain(getattr(s, name)) for name in self.extra))
        return marshal.dumps(content, KEY_MARSHAL)


_KEYERS = PerObject()


def keyer_of(loaded, symmetric: bool, termination_only: bool) -> _Keyer:
    """The keyer of a loaded game, made once: a search builds keys at each of its many small
    explorations, and making a keyer plays the game's set-up."""
    return _KEYERS.get(f"keyer {symmetric} {termination_only}", loaded,
                       lambda: _Keyer(loaded, symmetric, termination_only))


FINGERPRINT_BITS = 128


def fingerprint(key: bytes) -> bytes:
    """What the explorer remembers of a visited state: a 128-bit hash of its key, as TLC keeps 64-bit
    fingerprints, so that ten million visited states take about a gigabyte, where their keys took
    several. Two distinct states share one with a chance below n**2 / 2**129 among n states
    (`Exploration.collision_bound`); the exploration would then merge them and miss what follows one."""
    return hashlib.blake2b(key, digest_size=FINGERPRINT_BITS // 8).digest()


def state_key(loaded, symmetric: bool = False, termination_only: bool = False):
    """The explorer's key of a state of `loaded` as a function: with `symmetric`, up to renaming the
    seats where the model allows it (as `explore` keys its states), else exact. Variables play never
    reads are left out when no property reads them either, or, with `termination_only`, always."""
    use = symmetric and seat_symmetry(loaded.model)[0]
    return keyer_of(loaded, use, termination_only).key


def changes(a: State, b: State) -> int:
    """How many zones and variables differ between two states of one game: how much a step did."""
    # in C (`map` over `operator.ne`): the loop search ranks every option of a decision by it
    return (sum(map(ne, a.z, b.z)) + sum(map(ne, a.v, b.v)) + sum(map(ne, a.lo, b.lo))
            + (a.winners != b.winners))


COUNTED_KINDS = 8  # see `Distance.zone`


class Distance:
    """How far a state of the same game is from a target state: per zone, the cards one holds and
    the other does not, plus the places where their orders differ; per variable, how far apart the two
    values are (1 for values that are not numbers); 1 for each other field that differs. Zero only for
    states that agree on all of these; a guide for searches, never a verdict.

    Calling it measures a state; `around(state)` gives a function that measures the states one step
    from `state` (its children), measuring again only the zones the step changed: a search ranks
    every option of a decision by its distance, and a step changes a few zones."""

    def __init__(self, target: State):
        # Per zone: its cards, its kinds and how many of each, worked out once for the many states
        # measured against one target.
        self.zones = [(z, tuple(c), tuple(c.values())) for z, c in ((z, Counter(z)) for z in target.z)]
        self.target = target
        self.zone_slots, self.var_slots = range(len(target.z)), range(len(target.v))

    def zone(self, i: int, x: list) -> int:
        """How far the cards `x` are from the target's in zone `i` (which they differ from)."""
        # The sums run in C (`map` over `list.count`, `min` and `operator.ne`); `list.count` scans the zone
        # once per kind: past COUNTED_KINDS kinds, the zone's cards are counted once.
        y, kinds, counts = self.zones[i]
        if not x:
            common = 0
        elif len(kinds) <= COUNTED_KINDS:
            common = sum(map(min, map(x.count, kinds), counts))
        else:
            common = sum(map(min, map(Counter(x).__getitem__, kinds), counts))
        return 1 + len(x) + len(y) - 2 * common + sum(map(ne, x, y))

    def zone_terms(self, a: State) -> list[int]:
        terms = [0] * len(self.zones)
        az = a.z
        for i in compress(self.zone_slots, map(ne, az, self.target.z)):
            terms[i] = self.zone(i, az[i])
        return terms

    def rest(self, a: State) -> int:
        """The distance of everything but the zones."""
        t = self.target
        d = 0
        av, v = a.v, t.v
        for i in compress(self.var_slots, map(ne, av, v)):
            x, y = av[i], v[i]
            d += abs(x - y) if isinstance(x, int) and isinstance(y, int) else 1
        return (d + sum(map(ne, a.lo, t.lo)) + sum(map(ne, a.hi, t.hi))
                + (a.cur != t.cur) + (a.winners != t.winners) + 2 * (a.fr != t.fr))

    def __call__(self, a: State) -> int:
        return sum(self.zone_terms(a)) + self.rest(a)

    def around(self, parent: State):
        terms = self.zone_terms(parent)
        base, pz, target_zones = sum(terms), parent.z, self.target.z
        slots, zone, rest = self.zone_slots, self.zone, self.rest

        def distance(a: State) -> int:
            d = base
            az = a.z
            for i in compress(slots, map(ne, az, pz)):
                x = az[i]
                d += (zone(i, x) if x != target_zones[i] else 0) - terms[i]
            return d + rest(a)

        return distance


FRONTIER_WHOLE = 50_000  # frontier states kept as State objects (packing costs a fifth of the time)


def _whole(root: State, item) -> State:
    return item if type(item) is State else root.unpack(item)


def explore(loaded, limits: Limits | None = None, prefix: list[int] | None = None,
            played: State | None = None) -> Exploration:
    """Breadth-first exploration of a loaded game (`rulekit.engine.Game`), from its start or from the
    state that the actions `prefix` lead to (then only the states reachable from there are seen);
    `played`, when given, is that state already played (it is not changed)."""
    limits = limits or Limits()
    symmetric, why = seat_symmetry(loaded.model) if limits.symmetry else (False, "symmetry reduction switched off")
    keyer = keyer_of(loaded, symmetric, limits.termination_only)
    out = Exploration(loaded.num_players(), dict(loaded.options), symmetry=keyer.symmetric,
                      symmetry_reason=why if loaded.num_players() > 1 else "one player", prefix=list(prefix or []),
                      fingerprint_bits=FINGERPRINT_BITS)
    # A key for termination alone merges states that only a property tells apart: none is judged.
    invariants = [] if limits.termination_only else loaded.properties("invariant")
    targets = [] if limits.termination_only else loaded.properties("reachable")
    table = loaded.action_table
    start = time.perf_counter()
    deadline = start + limits.time_limit
    root = (played if played is not None else loaded.replay(prefix) if prefix else
            loaded.new_initial_state(seed=0)).fork()
    seen = {fingerprint(keyer.key(root)): 0}
    parent, depth_of = array("q", [0]), array("i", [0])
    via = [-1]  # a list: an action number may be any size (a choice of cards is numbered by its subset)
    edges = Successors() if limits.keep_edges else None
    # Past its first FRONTIER_WHOLE states, the frontier holds packed states (a few hundred bytes
    # each, where a State object takes some kilobytes); breadth first, the state it hands out next is
    # always number `index`.
    frontier: deque = deque([root])

    kinds = bytearray(1)

    def visit(s: State, index: int) -> None:
        if s.chance is not None:
            kinds[index] |= CHANCE  # not a state of the game (docs/language.rst): no property is judged here
            return
        for prop, test in invariants:
            if prop.name not in out.violated:
                try:
                    ok = test(s)
                except RuleRuntimeError:
                    ok = False
                if not ok:
                    out.violated[prop.name] = index
        for prop, test in targets:
            if prop.name not in out.reached:
                try:
                    if test(s):
                        out.reached[prop.name] = index
                except RuleRuntimeError:
                    pass
        if s.over:
            out.terminal.append(index)
        elif not s.legal:
            out.deadlocks.append(index)

    visit(root, 0)
    level, stopped, index = 0, "", -1
    while frontier:
        index += 1
        d = depth_of[index]
        if d > level:
            level = d
        if limits.depth is not None and d >= limits.depth:
            s = _whole(root, frontier.popleft())
            if s.legal:
                stopped = "depth"
            if edges is not None:
                edges.skip(index)
            continue
        if len(parent) >= limits.max_states:
            stopped = "states"
            break
        if (index & 63) == 63:
            if time.perf_counter() > deadline:
                stopped = "time"
                break
            if (index & 4095) == 4095 and budget.over_memory(limits.memory):
                stopped = "memory"
                break
        s = _whole(root, frontier.popleft())
        succ = [] if edges is not None else None
        chance = s.chance is not None
        # Nothing reads a state once its children are made: the last child is the state itself, played on.
        last = s.legal[-1] if s.legal and s is not root else None
        for action in s.legal:
            child = s.as_fork() if action == last else s.fork()
            out.transitions += 1
            try:
                child.apply_action(action)
            except RuleRuntimeError as exc:
                out.failed(index, action, exc)
                continue
            if not chance:
                point, ai = table.owner(action)
                out.fired.add((point, ai))
            k = fingerprint(keyer.key(child))
            j = seen.get(k)
            if j is None:
                j = len(parent)
                seen[k] = j
                parent.append(index)
                via.append(action)
                depth_of.append(d + 1)
                kinds.append(0)
                visit(child, j)
                frontier.append(child if len(frontier) < FRONTIER_WHOLE else child.pack())
            if succ is not None:
                succ.append(j)
        if edges is not None:
            edges.expand(index, succ)
        kinds[index] |= EXPANDED
    out.states = len(parent)
    if edges is not None:
        edges.states = out.states
    out.complete = not frontier and not stopped
    out.stopped_by = "" if out.complete else (stopped or "states")
    out.depth = level if out.complete else max(0, level - 1)
    out.parent, out.via, out.edges, out.kinds = parent, via, edges, kinds
    out.seconds = time.perf_counter() - start
    return out
