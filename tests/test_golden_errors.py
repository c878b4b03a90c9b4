"""Golden files for rendered diagnostics: the exact text a user sees for a broken spec.

Each case is a spec ``tests/golden/errors/NAME.rules`` (with, optionally, a checks file
``NAME.checks`` beside it) and the expected rendering of its SpecError, ``NAME.txt``.
Files are shown as ``tests/golden/errors/NAME.rules`` whatever the working directory.

To add a case, write ``NAME.rules``; to refresh every ``.txt`` after an intended change to
the messages, run (and review the diff before committing it):

    RULEKIT_UPDATE_GOLDEN=1 python -m pytest tests/test_golden_errors.py
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from rulekit import SpecError
from rulekit.pipeline import Spec

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "errors"
UPDATE = os.environ.get("RULEKIT_UPDATE_GOLDEN") == "1"
CASES = sorted(p.stem for p in GOLDEN.glob("*.rules"))


def rendered(name: str) -> str:
    path = GOLDEN / f"{name}.rules"
    spec = Spec(path, text=path.read_text(encoding="utf-8"), display_path=f"tests/golden/errors/{name}.rules")
    with pytest.raises(SpecError) as info:
        spec.model
    return info.value.render() + "\n"


@pytest.mark.parametrize("name", CASES)
def test_golden_error(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # a checks file beside the spec is shown relative to the working directory
    actual = rendered(name)
    expected_path = GOLDEN / f"{name}.txt"
    if UPDATE:
        expected_path.write_text(actual, encoding="utf-8")
        return
    assert expected_path.exists(), f"no {expected_path.name}: run RULEKIT_UPDATE_GOLDEN=1 python -m pytest {__file__}"
    assert actual == expected_path.read_text(encoding="utf-8")


def test_golden_cases_are_complete():
    assert len(CASES) >= 8
    orphans = sorted(p.name for p in GOLDEN.glob("*.txt") if p.stem not in CASES)
    assert not orphans, f"expected output without a spec: {orphans}"
    codes = {line.split()[1] for p in GOLDEN.glob("*.txt") for line in p.read_text(encoding="utf-8").splitlines()
             if line.startswith("tests/golden/errors/")}
    assert {"E101", "E102", "E103", "E104", "E105", "E106"} <= codes  # syntax errors
    assert {"E200", "E201", "E202", "E203", "E204", "E205", "E206", "E207"} <= codes  # resolver errors


def test_display_path_does_not_depend_on_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert rendered("syntax_bad_character").startswith("tests/golden/errors/syntax_bad_character.rules:6:")
