"""benchmarks/compare_check.py: a verdict that gets weaker, flips or disappears is reported."""
from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "compare_check.py"
spec = importlib.util.spec_from_file_location("compare_check", SCRIPT)
compare_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare_check)


def report(**verdicts):
    return {"games": [{"findings": [{"id": k, "verdict": v} for k, v in verdicts.items()]}]}


def test_stronger_and_equal_verdicts_pass_weaker_flipped_and_gone_ones_do_not():
    before = report(a="bounded", b="proven", c="unknown", d="proven", e="refuted")
    after = report(a="proven", b="proven", c="bounded", d="bounded", f="unknown")
    weaker, gone, added = compare_check.compare(before, after)
    assert weaker == ["d: proven -> bounded"]
    assert gone == ["e: refuted -> (no finding)"]
    assert added == ["f: unknown"]
    flipped, _, _ = compare_check.compare(report(x="proven"), report(x="refuted"))
    assert flipped == ["x: proven -> refuted"]


def test_the_script_reads_two_reports_and_exits_1_on_a_weaker_verdict(tmp_path, capsys):
    import json

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(report(a="proven")))
    new.write_text(json.dumps(report(a="unknown")))
    assert compare_check.main([str(old), str(new)]) == 1
    assert "a: proven -> unknown" in capsys.readouterr().out
    assert compare_check.main([str(old), str(old)]) == 0
