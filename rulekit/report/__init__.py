"""Findings rendered: for people (`text`), for machines (JSON) and for code-scanning tools (`sarif`).

One set of finding objects and one set of words (`wording`) serve the terminal, SARIF and the Sphinx
verdict pages alike."""
from __future__ import annotations

import json

from ..findings import GameReport
from .sarif import to_sarif
from .text import game_summary, pass_rows, render_text, run_summary


def to_json(reports: list[GameReport], version: str, errors: list[dict] = ()) -> str:
    """Every finding of every method, complete: what the text report merges, this keeps apart; and the
    errors of the specs that could not be checked (a spec that does not compile: each diagnostic)."""
    return json.dumps({"rulekit": version, "games": [r.to_json() for r in reports], "errors": list(errors)},
                      indent=2, ensure_ascii=False)


__all__ = ["game_summary", "pass_rows", "render_text", "run_summary", "to_json", "to_sarif"]
