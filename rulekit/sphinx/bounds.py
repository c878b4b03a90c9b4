"""A finding's bound (what a verdict rests on: games, depths, statistics) said for a reader.

A bound is JSON for machines, nested at will; the page says it in words, with numbers rounded,
so that no Python dict or list reaches it. The JSON report keeps every digit.
"""
from __future__ import annotations

from .. import statistics
from .wording import humanize


def bound_lines(bound: dict) -> list[tuple[str, str]]:
    """The bound as (label, text) lines: "Bound" for its plain values, then one line for each list of
    records it holds (the statistics of an option's impact), which would drown the rest."""
    if not bound:
        return [("Bound", "none")]
    plain, listed = [], []
    for key, value in bound.items():
        if _records(value):
            listed.append((humanize(str(key)).capitalize(), "; ".join(said(v) for v in value)))
        else:
            plain.append(f"{humanize(str(key))}: {said(value)}")
    return ([("Bound", "; ".join(plain))] if plain else []) + listed


def said(value, depth: int = 0) -> str:
    """A value of a bound in words: a statistic as a comparison, a record that carries its own text by
    that text, other records as their fields, numbers to three significant digits."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}"
    if value is None:
        return "none"
    if isinstance(value, dict):
        return _record(value, depth)
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(said(v, depth + 1) for v in value) or "none"
    return str(value)


def _records(value) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, dict) for v in value)


def _record(value: dict, depth: int) -> str:
    if {"statistic", "default", "option"} <= value.keys():
        return statistic(value)
    if isinstance(value.get("text"), str):  # it says itself; the rest of it is for machines
        return value["text"]
    fields = ", ".join(f"{humanize(str(k))} {said(v, depth + 1)}" for k, v in value.items())
    return f"({fields})" if depth else fields


def statistic(s: dict) -> str:
    """"win rate of P0: 30 % [12 %, 54 %] against 50 % [12 %, 88 %] under this option, Fisher's exact
    test, adjusted p = 1"."""
    p = s.get("adjusted_p_value", s.get("p_value"))
    adjusted = "adjusted " if "adjusted_p_value" in s else ""
    test = f"{s['test']}, {adjusted}p = {p:.2g}" if p is not None else "not tested"
    return (f"{s['statistic']}: {_side(s['default'])} under the default options against {_side(s['option'])} "
            f"under this one, {test}")


def _side(side) -> str:
    """One sample of a statistic: a rate as a percentage, a mean as a number, with its interval."""
    if not isinstance(side, dict):
        return said(side, 1)
    value, interval = side.get("value"), side.get("interval")
    if value is None:
        return "no games"
    shown = statistics.percent if "hits" in side else (lambda x: f"{x:.3g}")
    out = shown(value)
    if interval and len(interval) == 2:
        out += f" [{shown(interval[0])}, {shown(interval[1])}]"
    return out
