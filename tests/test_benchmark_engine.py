"""benchmarks/engine.py: every loop measured against the hand-written engine, with the ceilings."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rulekit

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import engine as bench  # noqa: E402


def test_a_recorded_game_answers_as_the_engine_did_until_its_end():
    game = rulekit.load("chucky", players=2)
    recording = bench.Recording(game, auto_chance=False, games=3)
    for steps in recording.games:
        state = recording.new_initial_state()
        assert state.steps is steps and any(chance for chance, _ in steps) and not all(chance for chance, _ in steps)
        for chance, answer in steps:
            assert not state.is_terminal() and state.is_chance_node() == chance
            assert (state.chance_outcomes() if chance else state.legal_actions()) == answer
            state.apply_action(None)
        assert state.is_terminal()
    assert recording.new_initial_state().steps is recording.games[0]  # handed out in turn, round again


def test_the_table_as_json_has_each_loop_its_ratio_and_the_ceilings():
    command = [sys.executable, str(BENCHMARKS / "engine.py"), "chucky:2", "--seconds", "0.3", "--slices", "1", "--json"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    (row,) = json.loads(out)
    assert (row["game"], row["players"]) == ("chucky", 2) and row["baseline"] > 0
    for key in ("openspiel", "auto_chance", "batch", "openspiel_ceiling", "auto_chance_ceiling"):
        assert row[key] > 0 and row[f"{key}_ratio"] == row[key] / row["baseline"]


def git_checkout() -> bool:
    return shutil.which("git") is not None and (BENCHMARKS.parent / ".git").exists()


@pytest.mark.skipif(not git_checkout(), reason="needs a git checkout to export a revision from")
def test_another_revision_runs_beside_this_checkout_and_plays_the_same_games():
    command = [sys.executable, str(BENCHMARKS / "engine_revisions.py"), "HEAD", "chucky:2", "--seconds", "0.2",
               "--slices", "1", "--json"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    (row,) = json.loads(out)
    assert (row["game"], row["players"], row["same_games"]) == ("chucky", 2, True)
    for key in ("openspiel", "auto_chance", "batch"):
        figures = row[key]
        assert figures["before"] > 0 and figures["after"] > 0 and figures["ratio"] == figures["after"] / figures["before"]


@pytest.mark.skipif(not git_checkout(), reason="needs a git checkout to export a revision from")
def test_a_revision_git_does_not_know_is_a_clear_error():
    command = [sys.executable, str(BENCHMARKS / "engine_revisions.py"), "no-such-revision", "chucky:2"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 2 and "git archive no-such-revision" in done.stderr and "Traceback" not in done.stderr
