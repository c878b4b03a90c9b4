"""What every executor is (`rulekit.executors` has the local ones and the choice among them,
`rulekit.dask_executor` the one on a Dask cluster): tasks in, `(index, result)` out as they finish."""
from __future__ import annotations

from collections.abc import Callable, Iterator


class Executor:
    """Runs tasks; a context manager that releases what it started (processes, a cluster)."""

    workers = 1

    def map(self, fn: Callable, tasks: list[tuple]) -> Iterator[tuple[int, object]]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
