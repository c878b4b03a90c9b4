"""Shared test configuration.

Hypothesis profiles: "ci" is derandomized (the same examples on every run, so a
CI failure reproduces locally) and prints the blob to reproduce a failure;
"dev" explores fresh random examples on each run. The profile is "ci" when the
CI environment variable is set and "dev" otherwise; HYPOTHESIS_PROFILE names
one explicitly and wins over both.
"""
from __future__ import annotations

import os

from hypothesis import settings

# ---- Hypothesis profiles ---------------------------------------------------------------

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, max_examples=100)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

# ---- fixtures ----------------------------------------------------------------------------
# (none yet; add shared fixtures below)
