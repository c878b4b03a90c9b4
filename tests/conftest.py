"""Shared test configuration.

Hypothesis profiles: "ci" is derandomized (the same examples on every run, so a
CI failure reproduces locally) and prints the blob to reproduce a failure;
"dev" explores fresh random examples on each run. The profile is "ci" when the
CI environment variable is set and "dev" otherwise; HYPOTHESIS_PROFILE names
one explicitly and wins over both.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import settings

from rulekit.verify import budget

# ---- Hypothesis profiles ---------------------------------------------------------------

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, max_examples=100)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

# ---- fixtures ----------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def own_solver_context():
    """Each test's Z3 work in a context of its own (see `budget.fresh_context`): the resource units a
    query takes, and so a verdict near its limit, do not depend on which tests the worker ran before."""
    with budget.fresh_context():
        yield
