"""Verification backends for `rulekit check`, one module per third-party dependency.

- `smt`: Z3 (consistency of facts and claims with minimal unsat cores; induction over counter systems)
- `explore`: explicit-state exploration through the engine (no dependency)
- `graphs`: networkx (turn-structure graph, dead rules, strongly connected components)
- `strategies`: Hypothesis (random play with shrinking)

Every backend reads the model only; a construct it cannot handle raises `Unsupported`, which the
caller turns into an `unknown` verdict, never a crash.
"""
from __future__ import annotations


class Unsupported(Exception):
    """A model construct this backend cannot encode; the caller reports `unknown`."""
