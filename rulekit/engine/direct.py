"""A second compilation of a configuration, for playing whole games fast: the flow as Python code.

The engine (`codegen`) compiles the rules into instructions whose control lives in data (frames, pcs,
contexts), so that a state can stop at any decision, be cloned, observed and serialized. A playout
needs none of that: it runs one game from start to end. Here every construct becomes its Python
counterpart: a procedure a function, `rounds` and `turns` loops, `end turn` and `end round`
exceptions, a decision a call that picks the action and a branch on it, chance drawn in place. The
statements that need no decision are compiled by the engine's own code generator, and chance,
decisions and triggers follow the engine's rules step for step (the same seed gives the same draws),
so a playout here is the game the engine plays with the same seed and the same picks; a test holds
the two to that. What this compiler does not know makes it refuse the configuration
(`Unsupported`), and a game that meets a rule error, or anything it cannot be sure of, is played
again by the engine, whose outcome then stands.
"""
from __future__ import annotations

import re
from itertools import compress

from .. import model as m
from ..errors import RuleRuntimeError
from ..lower import core
from . import runtime, triggermemo
from .codegen import Codegen
from .fixedloops import fixed_filter_lines, narrowed_domain, remember
from .listing import ID_MARK, any_nonempty, binder_value, digit, id_list_lines, nonempty_ids
from .picks import ascending_domain
from .existsloops import looped
from .statelists import localized
from .stream import DrawCounts, Stream
from .subsets import Decoder

WON, NO_WINNER, CUT, DEADLOCK = "won", "no winner", "cut", "deadlock"
# Trigger tests written out before each decision rather than called (`DirectCodegen.fire_once_lines`):
# at most this many triggers, each condition at most this many characters of Python.
INLINE_TRIGGERS, INLINE_CONDITION = 2, 240
# rounds of a loop without a decision after which the whole-game code hands the game to the engine,
# which can tell a run that goes round for ever (its state comes back) from a long one
HAND_OFF_ROUNDS = 10_000


def py_name(name: str) -> str:
    """A rule language name as a Python identifier, as the engine's code generator spells it."""
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)


class Unsupported(Exception):
    """The configuration uses a construct this compiler does not know: the engine plays it."""


class Unsure(Exception):
    """A game went where the engine alone decides (an endless loop, say): the engine replays it."""


class GameOver(Exception):
    pass


class Deadlock(Exception):
    pass


class Cut(Exception):
    pass


class EndOfTurn(Exception):
    pass


class EndOfRound(Exception):
    pass


ENDS = {"turn": EndOfTurn, "round": EndOfRound}


class Playout:
    """The state of one game played here: the engine's state without its control data."""

    __slots__ = ("z", "lo", "hi", "v", "cur", "winners", "over", "end", "log", "seed", "u", "t", "made", "max_steps",
                 "bits", "h", "rounds", "armed", "is_set", "zone_names", "kind_names")

    def __init__(self, game, seed: int, max_steps: int, rng, stream: Stream | None = None):
        self.z = list(map(list, game.initial_zones))
        self.lo = [0] * len(self.z)
        self.hi = [0] * len(self.z)
        self.v = list(game.initial_values)
        self.cur = 0
        self.winners: set[int] = set()
        self.over = False
        self.end = CUT  # how the game ended: won, no winner, deadlock or cut
        self.log: list[tuple] = []  # what the native statements record; nobody reads it here
        self.seed = seed
        self.u = stream if stream is not None else Stream(seed)  # the draws: u[t] is splitmix(seed, t)
        self.t = 0  # the length of the engine's history: decisions and chance outcomes so far
        self.h: list | None = []  # the outcome of each chance event, in order (a stepped game: its history)
        self.made = 0
        self.max_steps = max_steps
        # the decisions, as `rng.choice` of the sorted options picks them (none for a stepped game)
        self.bits = rng.getrandbits if rng is not None else None
        self.rounds = 0
        self.armed = [True] * len(game.triggers)
        self.is_set = game.zone_is_set
        self.zone_names = game.layout.zone_names
        self.kind_names = game.kind_names


# ---- what the compiled code calls: the engine's chance and decisions (see State), without suspending
def uniform(s) -> float:
    """The draw of chance event `s.t`; the helpers below read the stream inline, this where it runs out."""
    return s.u.at(s.t)


def draw_card(s, zone, span):
    cards = s.z[zone]
    if not cards:
        raise RuleRuntimeError("a random card is drawn from an empty zone", span)
    t = s.t
    kind = cards[int((s.u[t] if t < len(s.u) else uniform(s)) * len(cards))]
    if cards.count(kind) != len(cards):
        s.t += 1
        s.h.append(kind)
    return kind


def draw(s, weights, span):
    if len(weights) == 1:
        return next(iter(weights))
    if not weights:
        raise RuleRuntimeError("a random choice has nothing to choose from", span)
    t = s.t
    u = (s.u[t] if t < len(s.u) else uniform(s)) * sum(weights.values())
    for outcome in sorted(weights):
        u -= weights[outcome]
        if u < 0:
            break
    s.t += 1
    s.h.append(outcome)
    return outcome


def draw_fixed(s, table):
    """`draw` for constant weights of two outcomes or more: (their total, (outcome, weight) in order)."""
    total, weights = table
    t = s.t
    u = (s.u[t] if t < len(s.u) else uniform(s)) * total
    for outcome, weight in weights:
        u -= weight
        if u < 0:
            break
    s.t = t + 1
    s.h.append(outcome)
    return outcome


def resolve(s, zone, top):
    cards, lo, hi = s.z[zone], s.lo[zone], s.hi[zone]
    t = s.t
    kind = cards[lo + int((s.u[t] if t < len(s.u) else uniform(s)) * (hi - lo))]
    if cards[lo:hi].count(kind) != hi - lo:
        s.t += 1
        s.h.append(kind)
    runtime.fix_end(s, zone, kind, top)


def draw_top(s, zone, span):
    """The top card of a zone taken, drawn first if it is undetermined: `resolve` then `take_top`."""
    cards, lo, hi = s.z[zone], s.lo[zone], s.hi[zone]
    if hi > lo and hi == len(cards):
        t = s.t
        # The block of undetermined cards is kept sorted (`runtime.shuffle`): it is one kind when its
        # ends are, and the card at the drawn position is one of the equal cards lying together there.
        at = lo + int((s.u[t] if t < len(s.u) else uniform(s)) * (hi - lo))
        kind = cards[at]
        if cards[lo] != cards[hi - 1]:
            s.t += 1
            s.h.append(kind)
        del cards[at]
        s.hi[zone] = hi - 1
        return kind
    return runtime.take_top(s, zone, span)


def decide(s, options):
    """The action picked among the legal ones (ids in increasing order), as `rng.choice` of them
    picks it (see `picks`)."""
    return options[_pick(s, len(options))]


def decide_listed(s, options):
    """`decide` for options listed in increasing order of their ids as they were found (no sort)."""
    return options[_pick(s, len(options))]


def _pick(s, n: int) -> int:
    """The index of the next decision among `n` options, drawn as `rng.choice` draws it."""
    if not n:
        raise Deadlock
    if s.made >= s.max_steps:
        raise Cut
    s.made += 1
    s.t += 1
    bits = s.bits
    k = n.bit_length()
    r = bits(k)
    while r >= n:
        r = bits(k)
    return r


def endless(span):
    raise Unsure(span)


# what the listings of ids call, in the namespace of the whole-game code (stopping or not)
HELPERS = {"compress": compress, "remember": remember}
# quantifiers unrolled over a constant domain of at most UNROLL_VALUES values: how the tests join, and
# the value over no values; an unrolled test longer than UNROLL_CHARS stays a loop
UNROLLED = {"forall": ("and", "True"), "exists": ("or", "False"), "count": ("+", "0"), "sum": ("+", "0")}
UNROLL_VALUES = 8
UNROLL_CHARS = 2000
CONSTANT_RANGE = re.compile(r"range\(\d+\)")
# A test of a card's kind that this many kinds pass or fewer: in a listing, each of those kinds is looked
# for in the zone (in C), rather than the zone's kinds put in a set and sorted.
FEW_KINDS = 4


class DirectCodegen(Codegen):
    """Python source of whole games for one configuration; `consts`: the engine's constants, which
    this code shares (its own are numbered after them)."""

    inline_picks = True  # `decision_lines`; off, a decision calls `decide` (for tests that watch it)
    # a decision's options listed by loops (see `listing.id_list_lines`), and a test that is one `exists`
    # a loop too (see `existsloops`)
    loop_listings = True

    def __init__(self, config, consts: dict, probes: list | None = None):
        super().__init__(config, probes)
        self.consts.update(consts)
        self.has_triggers = bool(config.game.triggers)
        self.inline_draws = True  # `top_draw_lines`, and a blind draw of a card (`d_Random`)
        # while ids are listed: the tests a binder's domain implies (None) or the test standing in for one
        self.kinds_only: dict[str, str | None] | None = None
        self.few_kinds = True  # `binder_src` may look for each of a few kinds in turn

    def block_lines(self, stmts) -> list[str]:
        lines = []
        for st in stmts:
            kind = type(st).__name__
            method = getattr(self, "d_" + kind, None) or getattr(self, "n_" + kind, None)
            if method is None:
                raise Unsupported(kind)
            # silent-case probes (a build with `probes` only), where the engine's code has them too
            lines += self.probe_lines(self.probe_before, st)
            lines += method(st)
            lines += self.probe_lines(self.probe_after, st)
        return lines or ["pass"]

    def d_Rule(self, st):
        return self.block_lines(st.body)

    def d_Move(self, st):
        if self.is_native(st):
            return self.n_Move(st)
        if isinstance(st.selector, core.TopCard):  # the card drawn and taken in one go
            return self.n_Move(st, drawn=True)
        return [f"_z = {self.ex(st.source)}", "if needs_bottom(s, _z):", f"    {self.draw_call('resolve', 's, _z, False')}",
                *self.n_Move(st)]

    def draw_call(self, helper: str, args: str) -> str:
        """The call of one of the helpers that draw (`draw_top`, `draw_card`, `draw`, ...)."""
        return f"{helper}({args})"

    def take_end_lines(self, end: str, span: str, drawn: bool) -> list[str]:
        if drawn and end == "top":
            return self.top_draw_lines(span)
        return super().take_end_lines(end, span, drawn)

    def top_draw_lines(self, span: str) -> list[str]:
        """The top card of zone `_z` drawn and taken: inline, for the common case of a stack whose top
        is undetermined (the steps of `draw_top`, without its call), the rest left to `take_top`."""
        if not self.inline_draws:
            return [f"_k = {self.draw_call('draw_top', f's, _z, {span}')}"]
        return ["_dz = _z", "_dc = s.z[_dz]", "_dl = s.lo[_dz]", "_dh = s.hi[_dz]",
                "if _dh > _dl and _dh == len(_dc):", "    _dt = s.t",
                "    _di = _dl + int((s.u[_dt] if _dt < len(s.u) else uniform(s)) * (_dh - _dl))",
                "    _k = _dc[_di]", "    if _dc[_dl] != _dc[-1]:",
                "        s.t = _dt + 1", "        s.h.append(_k)",
                "    del _dc[_di]", "    s.hi[_dz] = _dh - 1",
                "else:", f"    _k = take_top(s, _dz, {span})"]

    # The move log is for observations, and nobody observes a playout: moves, reveals of a whole zone
    # and rotations leave it out (a one-card reveal still checks that the card is there).
    def move_log_lines(self, entry: str, each: bool = False) -> list[str]:
        return []

    def take_all_lines(self) -> list[str]:
        return ["_ks = s.z[_z]", "s.z[_z] = []", "s.lo[_z] = s.hi[_z] = 0"]

    def take_first_lines(self, var: str, cond: str) -> list[str]:
        # a set's bounds of undetermined cards never move, so the card is simply removed
        return [f"_ks = next(([{var}] for {var} in s.z[_z] if {cond}), [])", "if _ks:", "    s.z[_z].remove(_ks[0])"]

    def put_many_lines(self, at_bottom: bool) -> list[str]:
        return super().put_many_lines(at_bottom) if at_bottom else ["s.z[_d].extend(_ks)"]

    def decision_lines(self, st) -> list[str]:
        """The pick of a decision among the ids listed in `_o`, in increasing order, into `_a`:
        `decide`'s steps inline (or its call, without `inline_picks`)."""
        if not self.inline_picks:
            return [f"_a = {'decide_listed' if self.listed_in_order(st) else 'decide'}(s, _o)"]
        return ["_dn = len(_o)", "if not _dn:", "    raise Deadlock", "if s.made >= s.max_steps:", "    raise Cut",
                "s.made += 1", "s.t += 1", "_db = _dn.bit_length()", "_dr = s.bits(_db)", "while _dr >= _dn:",
                "    _dr = s.bits(_db)", "_a = _o[_dr]"]

    def d_If(self, st):
        lines = []
        for i, (cond, body) in enumerate(st.branches):
            lines.append(f"{'if' if i == 0 else 'elif'} {self.ex(cond)}:")
            lines += self.indent(self.block_lines(body))
        if st.orelse:
            lines.append("else:")
            lines += self.indent(self.block_lines(st.orelse))
        return lines

    def d_For(self, st):
        src = self.iter_src(st.binder.iter, distinct=True)
        var = self.local_ref(st.binder.slot)
        if CONSTANT_RANGE.fullmatch(src):
            fixed = fixed_filter_lines(self, st, var, src)
            if fixed is not None:
                return fixed
        else:  # the domain taken before the body runs, which may change the zone it reads
            src = f"tuple({src})"
        return [f"for {var} in {src}:",
                *self.indent(self.block_lines(st.body))]

    def loop_guard(self, guard: int, span: str) -> list[str]:
        # The engine stops a run that goes on too long without a decision; a loop that goes round
        # this often is left to the engine to judge.
        return [f"    if _g{guard} > {HAND_OFF_ROUNDS}:", f"        endless({span})"]

    def d_Loop(self, st):
        return [*self.loop_head(st), *self.indent(self.block_lines(st.body))]

    def d_Do(self, st):
        return [f"Q_{py_name(st.procedure)}(s{''.join(', ' + self.ex(a) for a in st.args)})"]

    n_Do = d_Do  # a procedure without decisions too is compiled here, without the move log

    def d_Choose(self, st):
        decoded = self.decoded_actions(st)
        if decoded is not None:  # the ids alone, each read back into its action once picked
            options = self.id_listing(st)
        else:  # the ids of the dict of options (action id -> its index and the values it binds)
            options = [*self.choice_options(st, lambda ai, slots, values: f"({ai}, ({values}))"),
                       "_od, _o = _o, list(_o)" if self.listed_in_order(st) else "_od, _o = _o, sorted(_o)"]
        by = self.decider_line(st)
        if self.has_triggers:  # a trigger fires before the decision, which is then offered anew
            lines = ["while True:", *self.indent(options), f"    {by}", *self.indent(self.fire_once_lines(then="break"))]
        else:
            lines = [*options, by]
        lines += self.decision_lines(st)
        if decoded is not None:
            return lines + decoded
        lines.append("_k, _v = _od[_a]")
        for ai, action in enumerate(st.actions):
            lines.append(f"{'if' if ai == 0 else 'elif'} _k == {ai}:")
            if action.binders:
                lines.append("    " + "".join(f"{self.local_ref(b.slot)}, " for b in action.binders) + "= _v")
            lines += self.indent(self.block_lines(action.body))
        return lines

    def decider_line(self, st) -> str:
        """The player who decides, into `_p`: evaluated, as the engine does, though nobody needs it here."""
        return f"_p = {self.ex(st.by)}"

    def id_listing(self, st) -> list[str]:
        """Lines that list the ids of a decision's legal actions in `_o`, in increasing order."""
        saved, self.memo = self.memo, {}
        self.kinds_only = {}
        try:
            lines = self.option_lines(st, lambda ai, slots, values: ID_MARK)
            heads = {line.strip() for line in lines}
            if any(by is not None and test not in heads for test, by in self.kinds_only.items()):
                # a domain of a few kinds is exact only with the test that stands in for the binder's
                self.memo, self.kinds_only, self.few_kinds = {}, {}, False
                try:
                    lines = self.option_lines(st, lambda ai, slots, values: ID_MARK)
                finally:
                    self.few_kinds = True
            lines = id_list_lines(lines, dict(self.kinds_only), self.loop_listings)
        finally:
            memo, self.memo = self.memo, saved
            self.kinds_only = None
        head = ["_o = []", "_m = {}"] if memo else ["_o = []"]
        return head + [nonempty_ids(line) for line in lines] + ([] if self.listed_in_order(st) else ["_o.sort()"])

    def narrowed(self, b, var: str, src: str, cond: str | None) -> tuple[str, str | None]:
        found = narrowed_domain(self, b, var, src, cond) if CONSTANT_RANGE.fullmatch(src) else None
        return found if found is not None else (src, cond)

    def binder_src(self, b, distinct: bool) -> str:
        """In a listing of ids: the kinds of a zone's cards that pass a test of the kind alone, as
        the zone's kinds among the constant set of those that pass (the test, then implied, is left out),
        or, for a few kinds, as those kinds in order, the test made one of the zone holding each."""
        if self.kinds_only is None or not distinct or b.cond is None or not isinstance(b.iter, core.CardsIn):
            return super().binder_src(b, distinct)
        var = f"_L{b.slot}"
        self.env[b.slot] = var
        cond = self.ex(b.cond)
        kinds = self.kind_set(var, cond)
        if kinds is None:
            return super().binder_src(b, distinct)
        zone = f"s.z[{self.ex(b.iter.zone)}]"
        few = self.consts.get(kinds)
        if self.few_kinds and isinstance(few, frozenset) and len(few) <= FEW_KINDS:
            self.kinds_only[f"if {cond}:"] = f"if {var} in {zone}:"
            return self.const(f"KS{len(self.consts)}", tuple(sorted(few)))
        self.kinds_only[f"if {cond}:"] = None
        return f"sorted({kinds}.intersection({zone}))"

    def decoded_actions(self, st) -> list[str] | None:
        """Lines that run the action whose id `_a` holds, its binders set from the id's digits; None
        when a binder's domain cannot be read back from an index here (a set of values that are not
        constants, or not distinct): then the options are listed with their values."""
        order = sorted(range(len(st.actions)), key=lambda ai: self.action_table.bases[(st.point, ai)])
        branches = []
        for ai in order:
            action = st.actions[ai]
            base, sizes = self.action_table.bases[(st.point, ai)], self.action_table.sizes[(st.point, ai)]
            span = 1
            for size in sizes:
                span *= size
            offset = f"(_a - {base})" if base else "_a"
            sets, radix = [], span
            for i, (b, size) in enumerate(zip(action.binders, sizes)):
                radix //= max(size, 1)
                value = self.binder_value(b, digit(offset, radix, size, i == 0))
                if value is None:
                    return None
                sets.append(f"{self.local_ref(b.slot)} = {value}")
            branches.append((base + max(span, 1), sets, action))
        if len(branches) == 1:
            _, sets, action = branches[0]
            return sets + self.block_lines(action.body)
        lines = []
        for n, (end, sets, action) in enumerate(branches):
            lines.append("else:" if n == len(branches) - 1 else f"{'if' if n == 0 else 'elif'} _a < {end}:")
            lines += self.indent(sets + self.block_lines(action.body))
        return lines

    def binder_value(self, b, index: str) -> str | None:
        it = b.iter
        kind = type(it).__name__
        if isinstance(it, core.Numbers):
            return binder_value(kind, index, low=self.ex(it.low))
        if isinstance(it, core.Items):
            if not all(isinstance(x, m.Const) for x in it.items):
                return None
            values = tuple(int(self.ex(x)) for x in it.items)
            if len(set(values)) != len(values):
                return None
            return binder_value(kind, index, table=self.const(f"IV{len(self.consts)}", values))
        if isinstance(it, core.SubsetsOf):
            return binder_value(kind, index, decode=self.const("BAG_OF", Decoder(self.config.component_counts).bag))
        return binder_value(kind, index)

    def quant_src(self, e):
        """A quantifier over a few constant values (the seats, an enum's members, listed numbers) as one
        test per value, joined by `and`, `or` or `+`, instead of a loop: each test then reads a constant
        (a card test by kind, say, becomes one constant set of kinds per value)."""
        b = e.binder
        domain = self.finite_domain(b) if e.kind in UNROLLED else None
        if domain is None or len(domain) > UNROLL_VALUES:
            return any_nonempty(super().quant_src(e))
        join, empty = UNROLLED[e.kind]
        saved = self.env.get(b.slot)
        parts = []
        try:
            for value in domain:
                self.env[b.slot] = str(value) if value >= 0 else f"({value})"
                cond = self.ex(b.cond) if b.cond is not None else None
                body = self.ex(e.body) if e.kind in ("forall", "sum") else None
                if e.kind == "exists":
                    parts.append(cond or "True")
                elif e.kind == "forall":
                    parts.append(body if cond is None else f"((not {cond}) or {body})")
                elif e.kind == "count":
                    parts.append("1" if cond is None else f"(1 if {cond} else 0)")
                else:
                    parts.append(body if cond is None else f"({body} if {cond} else 0)")
        finally:
            if saved is None:
                self.env.pop(b.slot, None)
            else:
                self.env[b.slot] = saved
        code = f" {join} ".join(parts)
        if len(code) > UNROLL_CHARS:
            return super().quant_src(e)
        if not parts:
            return empty
        if join == "+":
            return f"({code})"
        # `and`/`or` give an operand's value, a 0 or 1 read from the state, say: still a truth value
        return f"({code} or False)" if join == "or" else f"({code} and True)"

    def listed_in_order(self, st) -> bool:
        """Whether the options of a decision are listed in increasing order of their ids: the actions
        in the order of their id ranges, each binder's domain in increasing order of its index (the
        first binder is the most significant digit of an id)."""
        bases = [self.action_table.bases[(st.point, ai)] for ai in range(len(st.actions))]
        return bases == sorted(bases) and all(
            ascending_domain(type(b.iter).__name__, getattr(b.iter, "start", None) is not None)
            for action in st.actions for b in action.binders)

    def d_Random(self, st):
        b = st.binder
        if self.draws_card(st):
            target, zone, span = self.local_ref(b.slot), self.ex(b.iter.zone), self.span_const(st.span)
            if not self.inline_draws:
                return [f"{target} = {self.draw_call('draw_card', f's, {zone}, {span}')}"]
            # `draw_card`'s steps inline; an empty zone is its call, which raises the rule error
            return [f"_dc = s.z[{zone}]", "if _dc:", "    _dt = s.t",
                    f"    {target} = _dc[int((s.u[_dt] if _dt < len(s.u) else uniform(s)) * len(_dc))]",
                    f"    if _dc.count({target}) != len(_dc):", "        s.t = _dt + 1", f"        s.h.append({target})",
                    "else:", f"    {target} = draw_card(s, {zone}, {span})"]
        fixed = self.constant_weights(st)
        if fixed is not None and len(self.consts[fixed]) == 1:  # one outcome: no chance event
            return [f"{self.local_ref(b.slot)} = {next(iter(self.consts[fixed]))}"]
        if fixed is not None and self.consts[fixed]:  # the outcomes in order, each with its weight
            weights = self.consts[fixed]
            total, ordered = sum(weights.values()), tuple(sorted(weights.items()))
            if self.inline_draws and len(ordered) == 2:  # `draw_fixed`'s steps inline: u - w < 0 is u < w
                (first, weight), (second, _) = ordered
                target = self.local_ref(b.slot)
                return ["_dt = s.t", f"{target} = {first} if (s.u[_dt] if _dt < len(s.u) else uniform(s)) * {total} < {weight} else {second}",
                        "s.t = _dt + 1", f"s.h.append({target})"]
            table = self.const(f"DW{len(self.consts)}", (total, ordered))
            return [f"{self.local_ref(b.slot)} = {self.draw_call('draw_fixed', f's, {table}')}"]
        return [*self.chance_weights(st), f"{self.local_ref(b.slot)} = {self.draw_call('draw', f's, _w, {self.span_const(st.span)}')}"]

    def d_CheckTriggers(self, st):
        return self.fire_all_lines() if self.has_triggers else []

    # What checks the triggers: `fire(s)` fires one (see `trigger_lines`), True if one fired.
    def fire_once_lines(self, then: str) -> list[str]:
        """A trigger fired if one is due; if none is, `then`. Before a decision (`then` is "break", in the
        loop that lists its options again once a trigger has fired) a few cheap tests are written out
        in place: the call of `fire` at every decision cost more than the tests themselves."""
        inline = self.inline_trigger_tests() if then == "break" else None
        if inline is None:
            return ["if not fire(s):", f"    {then}"]
        out = ["_ar = s.armed"]
        for i, once, cond in inline:  # as `trigger_tests` writes them, `continue` for its `return True`
            out += trigger_test(i, once, cond, "_ar", [f"TQ{i}(s)", "continue"])
        return [*out, then]

    def inline_trigger_tests(self) -> list[tuple[int, bool, str]] | None:
        """(index, once, condition) of each trigger, where there are few and their conditions are short
        and not remembered (`triggermemo`); else None."""
        if not hasattr(self, "_inline_tests"):
            triggers = self.g.triggers
            tests = None
            if len(triggers) <= INLINE_TRIGGERS and all(triggermemo.inputs(t.cond, self.g, self.lay) is None
                                                        for t in triggers):
                saved, self.env = self.env, {}
                try:
                    tests = [(i, t.once, self.whole(t.cond)) for i, t in enumerate(triggers)]
                finally:
                    self.env = saved
                if any(len(cond) > INLINE_CONDITION or "\n" in cond for _, _, cond in tests):
                    tests = None
            self._inline_tests = tests
        return self._inline_tests

    def fire_all_lines(self) -> list[str]:
        """Triggers fired until none is due."""
        return ["while fire(s):", "    pass"]

    def d_End(self, st):
        if st.what == "game":
            return ["s.over = True", "raise GameOver"]
        if st.what not in ENDS:
            raise Unsupported(f"end {st.what}")
        return [f"raise {ENDS[st.what].__name__}"]

    n_End = d_End

    def endless_guard(self, st) -> list[str]:
        """The head of a `rounds` or `turns` loop: one that goes round this often (without a decision to
        end it, say) is left to the engine to judge, as `d_Loop` does."""
        return self.loop_head(st, "while True:")

    def d_Rounds(self, st):
        return [*self.endless_guard(st), "    s.rounds += 1", "    try:", *self.indent(self.indent(self.block_lines(st.body))),
                "    except EndOfRound:", "        pass"]

    def d_Turns(self, st):
        lines = [f"s.cur = {self.ex(st.start)}", *self.endless_guard(st), "    try:",
                 *self.indent(self.indent(self.block_lines(st.body))), "    except EndOfTurn:", "        pass"]
        if st.then:
            lines += ["    try:", *self.indent(self.indent(self.block_lines(st.then))), "    except EndOfTurn:",
                      "        pass"]
        return lines + [f"    s.cur = (s.cur + {self.dir_src()}) % {self.n}"]  # the direction may have turned

    def function(self, name: str, params, nlocals: int, body, head: list[str] = ()) -> list[str]:
        args = "".join(f", {self.local_ref(p.slot)}" for p in params)
        rest = [self.local_ref(slot) for slot in range(nlocals) if slot not in {p.slot for p in params}]
        self.env = {}
        start = [f"{' = '.join(rest)} = None"] if rest else []  # as the engine's frame starts
        lines = [f"def {name}(s{args}):", *self.indent([*head, *start, *self.block_lines(body)])]
        return localized(looped(lines) if self.loop_listings else lines)

    @staticmethod
    def local_ref(slot: int) -> str:
        return f"fv{slot}"  # a Python local: read and written faster than a place in a list

    def source(self) -> str:
        g = self.g
        out = ["# generated by rulekit (whole games) from " + g.spec_path]
        out += self.function("FLOW", (), g.flow.nlocals, g.flow.body, self.flow_head())
        for p in g.procedures:
            if p.result is None:
                out += self.function(f"Q_{py_name(p.name)}", p.params, p.nlocals, p.body)
        for i, trig in enumerate(g.triggers):
            out += self.function(f"TQ{i}", (), trig.nlocals, trig.body)
        out += self.trigger_lines()
        return "\n".join(out) + "\n"

    def trigger_lines(self) -> list[str]:
        """`fire(s)`: the trigger that is due, if any, fired at once (its body run), True if one was."""
        return self.trigger_tests("fire", lambda i: [f"TQ{i}(s)", "return True"], "return False")

    def trigger_tests(self, name: str, fired, none: str) -> list[str]:
        """A function that finds the trigger that fires as the reference engine does (the first armed one
        whose condition holds; one that is not `once` re-arms when its condition is false), with the
        conditions inline (or remembered between tests with the same inputs: `triggermemo`), and
        disarms it: then `fired(i)` (its lines), or `none` if none fires."""
        remembered = self.remembered_conditions()
        out = [*(line for lines in remembered.values() for line in lines), f"def {name}(s):", "    armed = s.armed"]
        for i, trig in enumerate(self.g.triggers):
            self.env = {}
            cond = f"TH{i}(s)" if i in remembered else self.whole(trig.cond)
            out += self.indent(trigger_test(i, trig.once, cond, "armed", fired(i)))
        out.append(f"    {none}")
        return out

    def flow_head(self) -> list[str]:
        """The lines that begin the flow's function, before its locals."""
        return []


def trigger_test(i: int, once: bool, cond: str, armed: str, fired: list[str]) -> list[str]:
    """The test of trigger `i` as the reference engine makes it: armed and its condition `cond` holds,
    it is disarmed and `fired` runs; not `once`, it re-arms where the condition is false. `armed` names
    the list of the triggers' flags."""
    out = [f"if {armed}[{i}]:", f"    if {cond}:", f"        {armed}[{i}] = False", *("        " + line for line in fired)]
    if not once:
        out += [f"elif not {cond}:", f"    {armed}[{i}] = True"]
    return out


class DirectProgram:
    """The whole-game code of one loaded game."""

    def __init__(self, game):
        codegen, self.source, code = compiled(lambda: DirectCodegen(game.config, game.program.ns),
                                              f"<rulekit:{game.model.name}:{game.num_players()}:games>")
        namespace = program_namespace(game, codegen.consts)
        exec(code, namespace)  # noqa: S102
        self.flow = namespace["FLOW"]
        self.game = game
        self.draws = DrawCounts()  # of the games played lately, to compute as many draws up front

    def play(self, seed: int, max_steps: int, rng, stream: Stream | None = None) -> Playout | None:
        """One game, each decision `rng.choice` of the sorted legal actions (`rng` a `random.Random`),
        chance from `stream` (the draws
        of `seed`, see `rulekit.engine.stream`); None when the engine must play it instead (a rule
        error, or a loop left to the engine to judge)."""
        s = Playout(self.game, seed, max_steps, rng, stream)
        try:
            self.flow(s)
            s.over = True  # the flow ran out
        except GameOver:
            s.over = True
        except Deadlock:
            s.end = DEADLOCK
        except Cut:
            pass
        except Exception:  # noqa: BLE001 - a rule error, an `end turn` outside turns, ...: the engine's to say
            return None
        if s.over:
            s.end = WON if s.winners else NO_WINNER
        return s


def program_namespace(game, consts: dict) -> dict:
    """The names whole-game code of `game` runs with: the engine's, the code's own constants, the helpers."""
    namespace = dict(game.program.ns)
    namespace.update(consts)
    namespace.update(draw_card=draw_card, draw=draw, draw_fixed=draw_fixed, resolve=resolve, draw_top=draw_top,
                     uniform=uniform, take_top=runtime.take_top, decide=decide, decide_listed=decide_listed, **HELPERS,
                     endless=endless, GameOver=GameOver, Deadlock=Deadlock, Cut=Cut, EndOfTurn=EndOfTurn,
                     EndOfRound=EndOfRound)
    return namespace


def compiled(make_codegen, filename: str):
    """(the codegen, its source, the compiled code) of the codegen that `make_codegen` makes; where
    Python's own limits refuse the source (20 nested blocks, say), made again with the options of
    a decision listed by comprehensions and each `exists` a generator, which nest no block;
    Unsupported where that fails too."""
    for loops in (True, False):
        codegen = make_codegen()
        codegen.loop_listings = loops
        source = codegen.source()
        try:
            return codegen, source, compile(source, filename, "exec")
        except (SyntaxError, RecursionError) as exc:
            error = exc
    raise Unsupported(str(error)) from None


def direct_program(game) -> DirectProgram | None:
    """The whole-game code of a loaded game, or None where this compiler does not cover its rules."""
    try:
        return DirectProgram(game)
    except Unsupported:
        return None
