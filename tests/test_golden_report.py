"""Golden files for the text report of `rulekit check`, one per bundled game: the exact text a rules
editor reads, with what depends on the clock (seconds) masked.

The bounds leave out the explorer and Z3 over the transition relation, the slowest parts, to keep the
test quick (their own tests are elsewhere): the rest is seeded and exact. To refresh
every file after an intended change to the report, run (and review the diff before committing it):

    RULEKIT_UPDATE_GOLDEN=1 python -m pytest tests/test_golden_report.py
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from rulekit import resources
from rulekit.cli import main

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "report"
UPDATE = os.environ.get("RULEKIT_UPDATE_GOLDEN") == "1"
BOUNDS = ["--games", "8", "--variant-games", "1", "--max-states", "0", "--symbolic-time-limit", "0", "--jobs", "1"]
SECONDS = re.compile(r"\b\d+(?:\.\d+)? s\b")


def masked(text: str) -> str:
    return SECONDS.sub("<seconds> s", text)


@pytest.mark.slow  # about ten seconds a game
@pytest.mark.parametrize("game", resources.bundled_games())
def test_golden_report(game, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # spec paths are shown relative to the working directory
    main(["check", game, *BOUNDS])
    actual = masked(capsys.readouterr().out)
    path = GOLDEN / f"{game}.txt"
    if UPDATE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"no {path.name}: run RULEKIT_UPDATE_GOLDEN=1 python -m pytest {__file__}"
    assert actual == path.read_text(encoding="utf-8")


def test_every_golden_report_belongs_to_a_bundled_game():
    assert sorted(p.stem for p in GOLDEN.glob("*.txt")) == sorted(resources.bundled_games())
