"""A computation in a child process that a deadline kills: for a solver that can loop where neither its
resource limit, nor its timeout, nor an interrupt stops it (Z3's Spacer on some relations).

The child is a fork of this process, so it has every object the computation reads as it is now, and
sends back only its result (pickled, through a pipe). Where the system cannot fork, the computation runs
here, unguarded.
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import time
import traceback


class Stopped(Exception):
    """The computation did not finish within its time: the child was killed."""


class Crashed(Exception):
    """The child ended without a result (a crash of native code, or killed from outside)."""


def run(compute, seconds: float):
    """`compute()` run in a child process: its result; Stopped after `seconds`, Crashed if the child
    died without one; an exception that `compute` raised comes back as a RuntimeError with its traceback
    (a bug, not an answer)."""
    if not hasattr(os, "fork"):
        return compute()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, and end without running the parent's exit handlers
        try:
            os.close(read)
            try:
                message = ("done", compute())
            except BaseException:  # noqa: BLE001 - sent to the parent, which raises it there
                message = ("raised", traceback.format_exc())
            with os.fdopen(write, "wb") as out:
                out.write(pickle.dumps(message))
        finally:
            os.kill(os.getpid(), signal.SIGKILL)  # the parent has read what it needs once the pipe closes
    os.close(write)
    chunks, deadline, finished = [], time.monotonic() + seconds, False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read], [], [], left)[0]:
                raise Stopped(f"not finished within {seconds:g} s")
            chunk = os.read(read, 1 << 16)
            if not chunk:
                finished = True
                break
            chunks.append(chunk)
    finally:  # stopped, or interrupted (Ctrl-C): the child must not outlive the wait
        os.close(read)
        if not finished:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if not chunks:
        raise Crashed(f"the child process ended without a result (status {status})")
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "raised":
        raise RuntimeError(f"in a child process:\n{value}")
    return value


__all__ = ["Crashed", "Stopped", "run"]
