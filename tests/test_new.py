"""`rulekit new`: a spec started from a rulebook compiles, and check reports the sentences left to formalize."""
from __future__ import annotations

import json

import pytest

from rulekit import quotes
from rulekit.cli import main
from rulekit.pipeline import Spec

RULEBOOK = """Pig

Players take turns rolling one die. A roll of 1 ends the turn and scores nothing.
The first player to reach 20 points wins the "race".
"""

FAST = ["--games", "2", "--variant-games", "0", "--max-states", "200"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def coverage(capsys, spec) -> list[dict]:
    code, out, err = run(capsys, "check", str(spec), *FAST, "--format", "json")
    assert code == 0, err
    return [f for f in json.loads(out)["games"][0]["findings"] if f["kind"] == "coverage"]


@pytest.fixture
def rulebook(tmp_path):
    path = tmp_path / "pig-rules.txt"
    path.write_text(RULEBOOK, encoding="utf-8")
    return path


def test_new_spec_compiles_and_lists_every_sentence_as_coverage(tmp_path, rulebook, capsys):
    folder = tmp_path / "pig"
    code, out, err = run(capsys, "new", str(folder), "--rulebook", str(rulebook), "--players", "2-6")
    assert code == 0, err
    assert "4 rulebook sentences to formalize" in out
    assert (folder / "pig-rules.txt").read_bytes() == rulebook.read_bytes()
    game = Spec(folder / "pig.rules").model
    assert (game.name, game.min_players, game.max_players, game.title) == ("pig", 2, 6, "Pig")
    assert game.rulebook == "pig-rules.txt"
    assert Spec(folder / "pig.rules").checks_path == folder / "pig.checks"
    assert not game.properties
    findings = coverage(capsys, folder / "pig.rules")
    assert sorted(f["quotes"][0] for f in findings) == sorted(s.text for s in quotes.sentences(RULEBOOK))
    assert [f["id"] for f in findings] == ["pig/coverage/line-1", "pig/coverage/line-3", "pig/coverage/line-3.2",
                                           "pig/coverage/line-4"]  # one id per sentence
    second = RULEBOOK.splitlines()[2].index("A roll of 1") + 1
    assert [f["location"].rsplit(":", 2)[1:] for f in findings] == [["1", "1"], ["3", "1"], ["3", str(second)],
                                                                    ["4", "1"]]  # where each sentence starts


def test_the_count_goes_down_as_sentences_are_quoted(tmp_path, rulebook, capsys):
    folder = tmp_path / "pig"
    run(capsys, "new", str(folder), "--rulebook", str(rulebook))
    spec = folder / "pig.rules"
    text = spec.read_text(encoding="utf-8")
    listed = [line.split("quote ", 1)[1] for line in text.splitlines() if line.startswith("#   line ")]
    assert listed[-1] == '"The first player to reach 20 points wins the \\"race\\"."'  # pastable as a quote
    before = len(coverage(capsys, spec))
    spec.write_text(text.replace("players 2 to 4", f"players 2 to 4\nunmodelled {listed[0]} because \"Title.\"")
                    .replace("flow {", f"flow quote {listed[-1]} {{"), encoding="utf-8")
    assert len(coverage(capsys, spec)) == before - 2


def test_new_refuses_to_overwrite_and_explains_bad_input(tmp_path, rulebook, capsys):
    folder = tmp_path / "pig"
    folder.mkdir()
    code, _, err = run(capsys, "new", str(folder), "--rulebook", str(rulebook))
    assert code == 2 and "already exists" in err and not any(folder.iterdir())
    code, _, err = run(capsys, "new", str(tmp_path / "pig-game"), "--rulebook", str(rulebook))
    assert code == 2 and "cannot name a game" in err
    code, _, err = run(capsys, "new", str(tmp_path / "other"), "--rulebook", str(tmp_path / "missing.txt"))
    assert code == 2 and "no such file" in err and not (tmp_path / "other").exists()
    code, _, err = run(capsys, "new", str(tmp_path / "other"), "--rulebook", str(rulebook), "--players", "4-2")
    assert code == 2 and "--players" in err
    binary = tmp_path / "rules.pdf"
    binary.write_bytes(b"%PDF\xff\xfe")
    code, _, err = run(capsys, "new", str(tmp_path / "other"), "--rulebook", str(binary))
    assert code == 2 and "not UTF-8" in err and "Traceback" not in err


def test_a_game_for_exactly_n_players_is_declared_so(tmp_path, rulebook, capsys):
    folder = tmp_path / "duel"
    code, _, err = run(capsys, "new", str(folder), "--rulebook", str(rulebook), "--players", "2")
    text = (folder / "duel.rules").read_text(encoding="utf-8")
    assert code == 0, err
    assert "\nplayers 2\n" in text
    game = Spec(folder / "duel.rules").model
    assert (game.min_players, game.max_players) == (2, 2)
