"""Tasks on a Dask cluster (`dask.distributed`): a LocalCluster on this machine, a running scheduler's
address, or a Client the caller already has.

Each task is submitted with retries, and the scheduler recomputes the tasks of a worker that dies
(up to `distributed.scheduler.allowed-failures` times), so a lost worker loses no results. Workers
need rulekit installed (the same version), and the spec: a bundled game's name, or a path they can read.
"""
from __future__ import annotations

import importlib.util
import os
import uuid

from distributed import Client, KilledWorker, LocalCluster, as_completed

from .errors import RulekitError
from .executor_base import Executor

RETRIES = 3  # a task that raised is run again this many times (a worker that died is handled by the scheduler)


class DaskExecutor(Executor):
    def __init__(self, client: Client | None = None, address: str | None = None, workers: int | None = None,
                 retries: int = RETRIES):
        self.retries = retries
        self.owned: list = []  # what this executor started, and closes
        if client is None:
            if address:
                try:
                    client = Client(address, timeout="10s")
                except (OSError, ValueError) as exc:  # no answer; an address that is not one
                    raise RulekitError(f"no Dask scheduler answers at {address} (give tcp://HOST:PORT): {exc}") \
                        from None
            else:
                cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                                       processes=True, dashboard_address=_dashboard())
                self.owned.append(cluster)
                client = Client(cluster)
            self.owned.insert(0, client)
        self.client = client
        self.workers = max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))

    @property
    def dashboard(self) -> str | None:
        return getattr(self.client, "dashboard_link", None)

    def map(self, fn, tasks):
        run = uuid.uuid4().hex[:12]
        name = getattr(fn, "__name__", "task")
        futures = [self.client.submit(fn, *args, key=f"rulekit-{name}-{run}-{i}", retries=self.retries, pure=False)
                   for i, args in enumerate(tasks)]
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for future in as_completed(futures):
                try:
                    result = future.result()
                except KilledWorker as exc:
                    raise RulekitError(f"a task kept killing the Dask workers that ran it, and was given up: {exc}") \
                        from None
                yield index[future.key], result
                future.release()
        finally:
            for future in futures:
                future.cancel()

    def describe(self) -> str:
        return f"Dask ({self.workers} worker threads)"

    def close(self) -> None:
        for thing in self.owned:
            thing.close()
        self.owned = []


def _dashboard() -> str | None:
    """The dashboard's address, when bokeh (which draws it) is installed: any free port."""
    if importlib.util.find_spec("bokeh") is None:
        return None
    return ":0"
