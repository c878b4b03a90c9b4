"""The command line: exit codes, output formats, and errors without tracebacks."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from rulekit.cli import main
from tests.helpers import TINY_SPEC as TINY, write_spec

FAST = ["--games", "4", "--variant-games", "1"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_bundled_spec_is_clean(capsys):
    code, out, err = run(capsys, "check", "chocobo", *FAST)
    assert code == 0, out + err
    assert "Chocobo's Crystal Hunt" in out and "invariant" in out


def test_check_json_has_the_documented_shape(capsys):
    code, out, _ = run(capsys, "check", "chocobo", *FAST, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["rulekit"] and data["games"][0]["game"] == "chocobo"
    finding = data["games"][0]["findings"][0]
    for key in ("id", "game", "kind", "severity", "verdict", "method", "bound", "message", "quotes", "location",
                "witness", "options"):
        assert key in finding


def test_check_in_parallel_reports_what_one_process_reports(tmp_path, capsys):
    broken = write_spec(tmp_path, "game broken\n")
    # what depends on the clock (the explorer, Z3's time limits) is off: the rest is seeded
    argv = ("check", "chocobo", "chucky", str(broken), *FAST, "--max-states", "0", "--symbolic-time-limit", "0",
            "--format", "json")
    serial = run(capsys, *argv, "--jobs", "1")
    parallel = run(capsys, *argv, "--jobs", "2")
    assert serial[0] == parallel[0] == 2, "a spec that does not compile still exits 2"
    ids = [[(f["id"], f["verdict"]) for f in g["findings"]] for g in json.loads(serial[1])["games"]]
    assert ids == [[(f["id"], f["verdict"]) for f in g["findings"]] for g in json.loads(parallel[1])["games"]]
    def errors(err: str) -> list[str]:  # progress lines left out: their times and order differ
        return [line for line in err.splitlines() if not re.match(r"\[\s*\d+ s\] ", line)]
    assert len(ids) == 2 and errors(serial[2]) == errors(parallel[2]) and "broken" in serial[2]


def test_check_a_spec_that_does_not_compile_exits_2_with_a_caret(tmp_path, capsys):
    path = write_spec(tmp_path, TINY.replace("move c from box", "move c frm box"))
    code, out, err = run(capsys, "check", str(path))
    assert code == 2
    assert "tiny.rules:15:12: E101" in err and "^" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("form", ["json", "sarif"])
def test_the_errors_of_a_spec_that_does_not_compile_are_in_the_report_for_machines(form, tmp_path, capsys):
    path = write_spec(tmp_path, TINY.replace("move c from box", "move c frm box"))
    code, out, err = run(capsys, "check", str(path), "--format", form)
    assert code == 2 and "E101" in err
    data = json.loads(out)
    if form == "json":
        assert data["games"] == [] and [(e["code"], e["line"], e["column"]) for e in data["errors"]] == [("E101", 15, 12)]
        assert data["errors"][0]["file"].endswith("tiny.rules") and data["errors"][0]["message"]
    else:
        [result] = data["runs"][0]["results"]
        assert result["ruleId"] == "rulekit/spec-error" and result["level"] == "error"
        assert result["message"]["text"].startswith("E101")
        assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 15, "startColumn": 12}


def test_check_unknown_game_exits_2(capsys):
    code, _, err = run(capsys, "check", "no-such-game")
    assert code == 2 and "no spec called 'no-such-game'" in err


def test_check_refuted_invariant_exits_1_with_a_witness(tmp_path, capsys):
    checks = 'checks tiny\ninvariant nobody_draws "Nobody has drawn": drawn == 0\n'
    path = write_spec(tmp_path, TINY, checks=checks)
    code, out, _ = run(capsys, "check", str(path), *FAST, "--format", "json")
    assert code == 1
    findings = json.loads(out)["games"][0]["findings"]
    broken = next(f for f in findings if f["kind"] == "invariant")
    assert broken["verdict"] == "refuted" and broken["witness"]


def test_expected_finding_does_not_fail_the_run(tmp_path, capsys):
    checks = ('checks tiny\ninvariant nobody_draws: drawn == 0\n'
              'expect known "tiny/invariant/nobody_draws" because "drawing is the point"\n')
    path = write_spec(tmp_path, TINY, checks=checks)
    code, out, _ = run(capsys, "check", str(path), *FAST)
    assert code == 0
    assert "acknowledged" in out


def test_bad_quote_is_an_error_with_a_suggestion(tmp_path, capsys):
    path = write_spec(tmp_path, TINY.replace('quote "Each player draws one card."',
                                             'quote "Each player draws a card."'))
    code, out, _ = run(capsys, "check", str(path), *FAST, "--format", "json")
    assert code == 1
    quote = next(f for f in json.loads(out)["games"][0]["findings"] if f["kind"] == "quote")
    assert "Each player draws one card." in quote["message"] and quote["location"].endswith("tiny.rules:14:27")
    _, text, _ = run(capsys, "check", str(path), *FAST)
    assert "Each player draws a card." in text and "rulebook: “Each player draws a card.”" not in text  # not the rulebook's


def test_simulate_json(capsys):
    code, out, _ = run(capsys, "simulate", "chocobo", "--games", "20", "--players", "3", "--seed", "4", "--json")
    stats = json.loads(out)
    assert code == 0 and stats["finished"] + stats["unfinished"] == 20 and sum(stats["wins_per_seat"]) == stats["finished"]
    again = json.loads(run(capsys, "simulate", "chocobo", "--games", "20", "--players", "3", "--seed", "4", "--json")[1])
    assert again == stats


def test_simulate_table(capsys):
    code, out, _ = run(capsys, "simulate", "chocobo", "--games", "5")
    assert code == 0 and "win rate" in out


@pytest.mark.parametrize("argv, message", [
    (["simulate", "chocobo", "--option", "win_timing"], "--option takes NAME=VALUE"),
    (["simulate", "chocobo", "--option", "win_timing=soon"], "has no option 'soon'"),
    (["simulate", "chocobo", "--players", "9"], "3 to 5 players"),
    (["simulate", "chocobo", "--games", "0"], "at least 1"),
    (["play", "chocobo", "--seat", "7"], "--seat must be"),
])
def test_usage_errors_exit_2_without_traceback(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_play_reads_numbers_and_quits(monkeypatch, capsys):
    answers = iter(["x", "99", "1", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    code, out, _ = run(capsys, "play", "chocobo", "--players", "3", "--seed", "5")
    assert code == 0
    assert "you are P0" in out and "please type a number" in out and "bye" in out


def test_play_to_the_end(monkeypatch, capsys):
    monkeypatch.setattr("builtins.input", lambda prompt="": "1")
    code, out, _ = run(capsys, "play", "chocobo", "--players", "3", "--seed", "2")
    assert code == 0 and "Game over." in out


def test_games_lists_bundled_specs(capsys):
    code, out, _ = run(capsys, "games")
    assert code == 0 and "chocobo" in out


def test_help_explains_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    assert "exit codes" in capsys.readouterr().out


def test_module_entry_point_runs():
    done = subprocess.run([sys.executable, "-m", "rulekit", "games"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "chocobo" in done.stdout


def test_a_location_on_line_100_is_not_read_as_an_emoji(tmp_path, capsys):
    text = TINY.replace("card Two x 2", "\n" * 95 + 'card Two x 2 quote "Not in the rulebook at all."')
    code, out, err = run(capsys, "check", str(write_spec(tmp_path, text)), *FAST)
    line = text.split("\n").index('card Two x 2 quote "Not in the rulebook at all."') + 1
    assert line >= 100 and f"tiny.rules:{line}:" in out and "💯" not in out, out


def test_the_largest_check_starts_first(tmp_path):
    """Several specs are checked at once largest first, so the longest check does not start last."""
    from rulekit.checking import workload
    from rulekit.pipeline import Spec

    small = Spec(write_spec(tmp_path, TINY, name="small"))
    larger = Spec(write_spec(tmp_path, TINY, name="larger", checks="invariant few: drawn <= 3\n"))
    assert workload(larger) > workload(small) > 0
    assert workload(Spec(tmp_path / "gone" / "gone.rules")) == 0


def test_a_reader_that_stops_early_gets_no_traceback():
    # `rulekit simulate ... --json | head -c 0`: the pipe closes before the report is written
    run = subprocess.Popen([sys.executable, "-m", "rulekit", "simulate", "chicken", "--games", "20", "--jobs", "1",
                            "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    run.stdout.close()
    err = run.stderr.read().decode()
    run.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_a_one_player_game_is_said_in_the_singular(capsys):
    code, out, err = run(capsys, "simulate", "chicken", "--players", "1", "--games", "3", "--jobs", "1")
    assert code == 0, err
    assert "1 player, 3 games" in out and "1 players" not in out


def test_progress_where_stderr_is_no_terminal_is_a_few_plain_lines_and_quiet_silences_it():
    done = subprocess.run([sys.executable, "-m", "rulekit", "check", "chicken", "--games", "4", "--max-states", "100",
                           "--variant-games", "0", "--symbolic-time-limit", "0", "--jobs", "1"],
                          capture_output=True, text=True, check=False)
    lines = done.stderr.splitlines()
    assert any(line.endswith("chicken: random play") for line in lines), done.stderr
    assert all(line.startswith("[") and " s] " in line for line in lines) and len(lines) < 40, done.stderr
    quiet = subprocess.run([sys.executable, "-m", "rulekit", "check", "chicken", "--games", "4", "--max-states", "100",
                            "--variant-games", "0", "--symbolic-time-limit", "0", "--jobs", "1", "--quiet"],
                           capture_output=True, text=True, check=False)
    assert quiet.stderr == ""
