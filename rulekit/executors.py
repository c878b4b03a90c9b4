"""Where batches of playouts run: this process, local processes, or a Dask cluster, behind one interface.

An executor takes a picklable function and a list of argument tuples (the tasks) and yields
`(index, result)` as the tasks finish, in any order; `run` collects the results in task order and
moves a progress bar over the tasks done. Dask (`rulekit.dask_executor`) is imported only when asked.
Every executor is an `Executor` (`rulekit.executor_base`), which this module hands on.
"""
from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from .errors import RulekitError
from .executor_base import Executor


class InProcess(Executor):
    """A plain loop in this process: no start-up cost, one core."""

    def map(self, fn, tasks):
        for i, args in enumerate(tasks):
            yield i, fn(*args)

    def describe(self) -> str:
        return "in-process"


ATTEMPTS = 2  # pools a batch of tasks may break before it is given up


class LocalProcesses(Executor):
    """A pool of processes on this machine, spawned (a forked child would inherit Z3's state)."""

    def __init__(self, jobs: int):
        self.workers = jobs
        self.pool = None

    def map(self, fn, tasks):
        """Each task's (index, result) as it is done. A process that dies (killed, for lack of memory say)
        breaks the whole pool: the tasks not yet done run again in a new one, since a task is a pure
        function of its arguments; a second death is an error that says so, never a traceback."""
        left = dict(enumerate(tasks))
        for attempt in range(ATTEMPTS):
            if self.pool is None:
                self.pool = ProcessPoolExecutor(max_workers=self.workers,
                                                mp_context=multiprocessing.get_context("spawn"))
            futures = {self.pool.submit(fn, *args): i for i, args in left.items()}
            try:
                for future in as_completed(futures):
                    i = futures[future]
                    result = future.result()
                    del left[i]
                    yield i, result
                return
            except BrokenProcessPool:
                self.pool.shutdown(wait=False, cancel_futures=True)
                self.pool = None
        raise RulekitError(f"a process of the pool died {ATTEMPTS} times (killed, perhaps for lack of memory), with "
                           f"{len(left)} of {len(tasks)} tasks not done; try fewer --jobs or smaller tasks")

    def describe(self) -> str:
        return f"{self.workers} local processes"

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None


def make(jobs: int | None = None, dask=None, client=None) -> Executor:
    """A Dask executor for a `client`, for `dask=True` (a LocalCluster of `jobs` workers, default one per
    core) or for `dask="tcp://HOST:PORT"`; otherwise `jobs` local processes (default: one per core),
    or this process when that is one."""
    if jobs is not None and jobs < 1:
        raise RulekitError("the number of jobs must be at least 1")
    if client is not None or dask:
        try:
            from .dask_executor import DaskExecutor
        except ImportError as exc:
            raise RulekitError(f"Dask is not installed ({exc.name or 'dask'} is missing): "
                               "pip install \"rulekit[dask]\"") from None
        return DaskExecutor(client=client, address=dask if isinstance(dask, str) else None, workers=jobs)
    jobs = jobs or os.cpu_count() or 1
    return LocalProcesses(jobs) if jobs > 1 else InProcess()


class ProgressBar:
    """A bar over the tasks done, on stderr (rich); silent when disabled."""

    def __init__(self, enabled: bool):
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=Console(stderr=True), transient=True,
                            disable=not enabled)
        self.task = None

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        self.bar.__exit__(*exc)

    def start(self, label: str, total: int) -> None:
        self.task = self.bar.add_task(label, total=total)

    def advance(self, steps: int = 1) -> None:
        self.bar.advance(self.task, steps)


def run(executor: Executor, fn: Callable, tasks: list[tuple], label: str, progress=None) -> list:
    """Every task's result, in task order. `progress`: an object with `start(label, total)` and
    `advance()` (such as a `ProgressBar` already shown), True or False, or None for a bar on stderr
    when stderr is a terminal."""
    results: list = [None] * len(tasks)
    if progress is None or isinstance(progress, bool):
        with ProgressBar(sys.stderr.isatty() if progress is None else progress) as bar:
            return run(executor, fn, tasks, label, bar)
    progress.start(label, len(tasks))
    for i, result in executor.map(fn, tasks):
        results[i] = result
        progress.advance()
    return results
