"""Verification backends for `rulekit check`, one module per third-party dependency.

- `smt`: Z3 (consistency of facts and claims with minimal unsat cores; induction over counter systems)
- `explore`: explicit-state exploration through the engine (no dependency)
- `termination`, `endless`: whether every play ends (lassos replayed in the engine, found from the
  start or near random games; ranking functions found by Z3)
- `estimate`, `distinct`: the size of a state space not explored to the end, from random plays (scipy)
- `graphs`: networkx (turn-structure graph, dead rules, strongly connected components)
- `strategies`: Hypothesis (random play with shrinking)

Every backend reads the core IR of one configuration (`rulekit.lower`); a construct it does not
cover raises `Unsupported` explicitly, which the caller turns into an `unknown` verdict. Any other
exception is a rulekit bug and is never reported as `unknown`.
"""
from __future__ import annotations

from ..errors import Unsupported

__all__ = ["Unsupported"]
