"""Limits that hold whatever the machine: an exploration stops at its memory limit and says so, and a
`check` process that dies costs the report of its own spec only."""
from __future__ import annotations

import multiprocessing
import os

from rulekit import load
from rulekit.checking import PlayBounds
from rulekit.pipeline import Spec
from rulekit.verify import budget
from rulekit.verify.explore import Limits, explore

from helpers import TINY_SPEC, write_spec


def test_an_exploration_stops_at_its_memory_limit(tmp_path):
    game = load(str(write_spec(tmp_path, TINY_SPEC)), players=2)
    assert explore(game, Limits(max_states=100_000, memory=None)).complete
    x = explore(load("chocobo", players=3), Limits(max_states=100_000, time_limit=60, memory=1))
    assert not x.complete and x.stopped_by == "memory" and x.states > 0


def test_the_memory_limit_is_a_share_of_the_machine_per_process():
    total = budget.physical_memory()
    assert total is None or budget.memory_limit(2) == int(total * budget.MEMORY_SHARE / 2)
    assert budget.resident_bytes() > 0


class _Dies(PlayBounds):
    """Bounds that end the process they are sent to, as an out-of-memory kill would."""

    def __reduce__(self):
        return (os._exit, (3,))


def test_a_process_that_dies_is_an_error_for_its_spec_not_a_traceback(tmp_path):
    from rulekit.cli import _check_alone

    path = write_spec(tmp_path, TINY_SPEC)
    report, error = _check_alone(str(path), Spec.find(str(path)), _Dies(), multiprocessing.get_context("spawn"))
    text, errors = error
    assert report is None and "stopped abruptly" in text and "tiny.rules" in text
    assert [e["code"] for e in errors] == ["E000"] and "stopped abruptly" in errors[0]["message"]


def test_a_memory_limit_must_be_positive(tmp_path, capsys):
    from rulekit.cli import main

    assert main(["check", str(write_spec(tmp_path, TINY_SPEC)), "--memory-limit", "0"]) != 0
    assert "--memory-limit must be a positive" in capsys.readouterr().err


def test_commands_are_told_apart_by_identity_never_by_their_terms():
    # A term is a DAG whose tree can be exponentially larger: compared as trees, two commands over this one
    # (65 nodes, 2**64 leaves) could take for ever; a ranking search that asked whether a command was among
    # those a level decreases (`in`) did, on a random game of the check's fuzz test.
    from rulekit.verify.terms import Command

    deep = ("const", 1)
    for _ in range(64):
        deep = ("+", deep, deep)
    a = Command("a", 0, 0, (), deep, deep, {0: deep})
    twin = Command("a", 0, 0, (), deep, deep, {0: deep})
    # only booleans in the assertion: pytest would print the commands' terms, as trees, if it failed
    told_apart = [a == a, a != twin, twin not in [a]]
    assert told_apart == [True, True, True]
    assert len({a, twin}) == 2


def test_a_resource_account_with_a_safety_net_is_spent_once_the_net_fires_and_says_so():
    import time

    import z3

    x = z3.Int("x")
    plain = budget.Account(10**9)
    timed = budget.Account(10**9, seconds=1e-6)
    time.sleep(0.01)
    for account in (plain, timed):
        with budget.spending(account):
            s = z3.Solver()
            s.add(x * x == 49, x > 0)
            answer = budget.check(s)
            assert budget.spent() is (account is timed)
        if account is plain:
            assert answer == z3.sat and not account.empty and "safety net" not in account.reason()
    assert timed.empty and timed.left <= 0 and "safety net of 1e-06 s fired" in timed.reason()
