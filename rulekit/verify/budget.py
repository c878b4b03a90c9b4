"""Budgets that make the check's verdicts the same on every machine, and limits that always hold.

Z3 queries: every solver gets a resource limit (Z3's `rlimit`, a count of the solver's own
elementary steps, the same on any machine and under any load) as the limit that decides; the
wall-clock timeout stays only as a safety net, far above what the resource limit takes on an idle
machine. An unknown answer says which of the two stopped it (`unknown_reason`): "the resource limit"
is a property of the spec and the budget; "the wall-clock safety net" means the verdict depends on
the machine and is said so.

Encodings: building a symbolic encoding walks expression graphs whose size can grow fast with the
player count; `time_box` gives a phase a deadline, and the builders call `tick`, which raises
`TooLarge` (an `Unsupported`, so every caller already ends in an honest `unknown`) once it has passed.
"""
from __future__ import annotations

import contextlib
import os
import time
from contextvars import ContextVar

from . import Unsupported

# Calibrated on the bundled specs (see benchmarks/check.py, which prints the resource use of the
# proofs): the hardest query that succeeds on them takes a small fraction of this.
DEFAULT_RLIMIT = 1_000_000
SAFETY_FACTOR = 4  # the wall-clock safety net: this many times the time limit a caller asks for

# the share of the machine's memory that the explorers of one `check` may fill, split between its processes
MEMORY_SHARE = 0.6


def physical_memory() -> int | None:
    """The machine's memory in bytes, where the system says."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def memory_limit(processes: int = 1) -> int | None:
    """The resident memory at which an explorer stops, per process, when `processes` run side by side:
    an exploration that would fill the machine ends as `unknown` with its figures, not killed."""
    total = physical_memory()
    return int(total * MEMORY_SHARE / max(1, processes)) if total else None


def resident_bytes() -> int:
    """This process's resident memory now (Linux), or its peak where that is all the system says."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def over_memory(limit: int | None) -> bool:
    return limit is not None and resident_bytes() > limit


_rlimit: ContextVar[int] = ContextVar("rlimit", default=DEFAULT_RLIMIT)
_deadline: ContextVar[tuple | None] = ContextVar("deadline", default=None)
_usage: ContextVar[list | None] = ContextVar("usage", default=None)
_account: ContextVar = ContextVar("account", default=None)  # of Account
_context: ContextVar = ContextVar("z3_context", default=None)  # of z3.Context, see `fresh_context`


class Account:
    """Resource units shared by the queries of one piece of work (a configuration): each query gets at
    most what is left (`check` holds a solver asked again to what is left then), so the work done, and
    the verdicts, do not depend on the machine."""

    def __init__(self, units: int, seconds: float | None = None):
        self.units = int(units)
        self.left = int(units)
        # a wall-clock safety net: past it the account counts as spent, and says why
        self.seconds = seconds if seconds and seconds > 0 else None
        self.deadline = time.perf_counter() + self.seconds if self.seconds else None
        self.timed_out = False

    @property
    def empty(self) -> bool:
        return self.out_of_time() or self.left <= 0

    def out_of_time(self) -> bool:
        """Whether the safety net has fired (it empties the account once it has)."""
        if self.deadline is not None and not self.timed_out and time.perf_counter() > self.deadline:
            self.timed_out, self.left = True, 0
        return self.timed_out

    def reason(self) -> str:
        if self.timed_out:
            return (f"the wall-clock safety net of {self.seconds:g} s fired before the resource budget of the "
                    f"configuration ({self.units:,} Z3 resource units) was spent (the machine was too slow or too "
                    "busy; the verdict depends on the machine)")
        return f"the resource budget of the configuration ({self.units:,} Z3 resource units) is spent"


@contextlib.contextmanager
def spending(account: Account):
    """The queries inside the block draw on `account`."""
    token = _account.set(account)
    try:
        yield account
    finally:
        _account.reset(token)


def account() -> Account | None:
    return _account.get()


def spent() -> bool:
    """Whether the account the queries draw on (if any) has nothing left."""
    acc = _account.get()
    return acc is not None and acc.empty


class TooLarge(Unsupported):
    """An encoding that did not fit its phase's time or size limit."""


@contextlib.contextmanager
def resource_limit(rlimit: int | None):
    """Z3's resource limit per query inside the block (None: the default)."""
    token = _rlimit.set(int(rlimit) if rlimit else DEFAULT_RLIMIT)
    try:
        yield
    finally:
        _rlimit.reset(token)


def rlimit() -> int:
    return _rlimit.get()


@contextlib.contextmanager
def recording():
    """Collects (resource units, seconds, result) of every query checked with `check` in the block."""
    out: list = []
    token = _usage.set(out)
    try:
        yield out
    finally:
        _usage.reset(token)


def solver(timeout_ms: int | float, simplify: bool = False):
    """A Z3 solver with the resource limit and, as a safety net, SAFETY_FACTOR times `timeout_ms`.
    With `simplify`, for one query over a large formula: the formula is simplified, its constants'
    values propagated and its equations solved before the SMT core sees it (on the whole-language
    relation's steps this takes a third to a quarter of the resource units)."""
    import z3

    ctx = context()
    s = (z3.Then("simplify", "propagate-values", "solve-eqs", "simplify", "smt", ctx=ctx).solver() if simplify
         else z3.Solver(ctx=ctx))
    acc = _account.get()
    s.set("rlimit", max(1, min(rlimit(), acc.left)) if acc is not None else rlimit())
    s.set("timeout", max(1, int(timeout_ms * SAFETY_FACTOR)))
    return s


def units_spent(s) -> int:
    """The resource units solver `s` has spent over all its checks so far."""
    stats = s.statistics()
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0


def check(s, *assumptions):
    """`s.check(*assumptions)`, with its resource use recorded when `recording` is on."""
    usage, acc = _usage.get(), _account.get()
    if usage is None and acc is None:
        return s.check(*assumptions)
    if acc is not None:
        acc.out_of_time()
        # Z3 gives each check of a solver its `rlimit` afresh: a solver asked again must be held to what
        # the account has left now, not to what it had when the solver was made.
        s.set("rlimit", max(1, min(rlimit(), acc.left)))
    before, t = units_spent(s), time.perf_counter()
    r = s.check(*assumptions)
    spent = units_spent(s) - before
    if acc is not None:
        acc.left -= spent
    if usage is not None:
        usage.append((spent, time.perf_counter() - t, str(r)))
    return r


def unknown_reason(s) -> str:
    """Why `s` answered unknown, in words: the resource limit (deterministic) or the safety net."""
    why = s.reason_unknown()
    if why in ("timeout",):
        return ("the wall-clock safety net fired (the machine was too slow or too busy for the query's "
                "resource limit; the verdict depends on the machine)")
    if why in ("canceled", "max. resource limit exceeded", "resource limit exceeded"):
        acc = _account.get()
        if acc is not None and acc.left < rlimit():
            return acc.reason()
        return f"the resource limit ({rlimit():,} Z3 resource units per query, --solver-rlimit)"
    return f"Z3: {why}"


@contextlib.contextmanager
def fresh_context():
    """A new Z3 context for the block: every term the verifiers make inside it is made in `context()`.

    Z3 numbers the terms of a context in the order they are made, and its heuristics follow those
    numbers, so the resource units a query takes depend on every term made in its context before it. On
    a small game's termination check, other Z3 work first moved the units spent from 0.88 to 1.22
    million and the verdict from `proven` to `unknown`. A piece of work run in a fresh context spends the
    same units wherever it runs: alone, after another spec, in a test suite, on a worker. Every Z3 object
    keeps its own context alive, so one that leaves the block stays valid (it cannot be mixed with
    objects made outside it)."""
    import z3

    token = _context.set(z3.Context())
    try:
        yield
    finally:
        _context.reset(token)


def context():
    """The Z3 context that terms, solvers and parsed formulas are made in: the innermost
    `fresh_context`, else Z3's default one."""
    current = _context.get()
    if current is not None:
        return current
    import z3

    return z3.main_ctx()


@contextlib.contextmanager
def time_box(seconds: float | None, what: str):
    """A deadline for building the encodings inside the block; `tick` raises TooLarge after it."""
    if seconds is None:
        yield
        return
    token = _deadline.set((time.perf_counter() + seconds, what, seconds))
    try:
        yield
    finally:
        _deadline.reset(token)


def tick() -> None:
    box = _deadline.get()
    if box is not None and time.perf_counter() > box[0]:
        raise TooLarge(f"{box[1]} is too large: building it took more than its limit of {box[2]:g} s")
