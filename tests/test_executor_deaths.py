"""A local pool whose process dies: the tasks run again in a new pool, and a task that always kills
its process is an error, not a traceback."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from rulekit.errors import RulekitError
from rulekit.executors import LocalProcesses


def _dies_once(marker: str, value: int) -> int:
    """Ends its process the first time any task runs (as a kill would), then answers."""
    try:
        Path(marker).touch(exist_ok=False)
    except FileExistsError:
        return value * value
    os._exit(3)


def _always_dies(value: int) -> int:
    os._exit(3)


def test_a_pool_that_loses_a_process_runs_the_tasks_left_in_a_new_one(tmp_path):
    executor = LocalProcesses(2)
    try:
        results = dict(executor.map(_dies_once, [(str(tmp_path / "died"), v) for v in range(6)]))
    finally:
        executor.close()
    assert results == {i: i * i for i in range(6)}


def test_a_task_that_always_kills_its_process_is_an_error(tmp_path):
    executor = LocalProcesses(2)
    try:
        with pytest.raises(RulekitError, match="died 2 times"):
            list(executor.map(_always_dies, [(1,), (2,)]))
    finally:
        executor.close()
