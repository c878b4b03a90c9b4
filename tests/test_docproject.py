"""`rulekit docs SPEC...`: a rules site for any spec, from a Sphinx project written on the fly, with no
checkout (run here from a temporary folder that has no docs/); the slow test installs the wheel into a
fresh virtual environment and builds from there."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("matplotlib")

from rulekit.cli import main  # noqa: E402
from rulekit.docproject import write_project  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

RULEBOOK = """Lucky Six

Each player rolls one die.
Every player who rolls a 6 wins.
"""

SPEC = '''game lucky_six "Lucky Six"
rulebook "rules.txt" source "rules.txt"
players 2 to 4
payoff win 1 lose 0
unmodelled "Lucky Six" because "The title."

var sixes: int 0..4 = 0

flow {
  for p in players {
    random r in 1..6 quote "Each player rolls one die."
    if r == 6 {
      win p
      add 1 to sixes
    } quote "Every player who rolls a 6 wins."
  }
  end game
}
'''


def write_game(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "rules.txt").write_text(RULEBOOK, encoding="utf-8")
    spec = folder / "lucky_six.rules"
    spec.write_text(SPEC, encoding="utf-8")
    return spec


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_project_has_a_conf_an_index_and_a_page_per_spec(tmp_path):
    spec = write_game(tmp_path / "mine")
    pages = write_project(tmp_path, [str(spec), "chicken"])
    assert [p.docname for p in pages] == ["lucky_six", "chicken"]
    conf = (tmp_path / "conf.py").read_text(encoding="utf-8")
    assert '"rulekit.sphinx"' in conf and 'html_theme = "furo"' in conf and "sys.path" not in conf
    assert "lucky_six" in (tmp_path / "index.rst").read_text(encoding="utf-8")
    assert f".. rulekit-game:: {spec.resolve()}" in (tmp_path / "lucky_six.rst").read_text(encoding="utf-8")
    assert ".. rulekit-game:: chicken" in (tmp_path / "chicken.rst").read_text(encoding="utf-8")


def test_docs_of_a_spec_from_a_folder_without_docs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write_game(tmp_path / "mine")
    code, out, err = run(capsys, "docs", "mine", "--out", "site")
    assert code == 0, out + err
    page = (tmp_path / "site" / "lucky_six.html").read_text(encoding="utf-8")
    for section in ("Overview", "Turn structure", "Rules", "Ambiguity register", "Checks", "Simulated statistics"):
        assert section in page, section
    assert "Every player who rolls a 6 wins." in page  # a quote beside its rule
    assert "Lucky Six" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "site"]  # nothing else written here


def test_docs_of_a_broken_or_unknown_spec_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    spec = write_game(tmp_path / "mine")
    spec.write_text(SPEC.replace("var sixes", "var sixes sixes"), encoding="utf-8")
    code, _, err = run(capsys, "docs", "mine", "--out", "site")
    assert code == 2 and "mine/lucky_six.rules:7:" in err and "Traceback" not in err
    code, _, err = run(capsys, "docs", "no_such_game", "--out", "site")
    assert code == 2 and "no spec called 'no_such_game'" in err and "chicken" in err
    assert not (tmp_path / "site").exists()


def test_docs_without_the_docs_extra_says_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "furo", None)  # as if it were not installed
    code, _, err = run(capsys, "docs", "chicken", "--out", "site")
    assert code == 2 and 'furo is not installed: pip install "rulekit[docs]"' in err


@pytest.mark.slow
def test_docs_from_an_installed_wheel(tmp_path):
    """The wheel, installed into a fresh environment (its dependencies borrowed from this one), builds the
    site of a bundled game and of a spec of one's own from a folder that is no checkout."""
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
                   check=True, capture_output=True)
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  check=True, capture_output=True, text=True).stdout.strip())
    wheel = next(wheels.glob("rulekit-*.whl"))
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "-q", str(wheel)], check=True,
                   capture_output=True)
    # this environment's packages after the fresh one's: the wheel's rulekit comes first. Borrowed only
    # after the install, or pip would find this environment's rulekit there and install nothing.
    (purelib / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    work = tmp_path / "work"
    write_game(work / "mine")
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = subprocess.run([str(python), "-c", "import rulekit; print(rulekit.__file__)"], cwd=work, env=environ,
                           check=True, capture_output=True, text=True).stdout
    assert str(env_dir) in where and str(ROOT) not in where
    done = subprocess.run([str(env_dir / "bin" / "rulekit"), "docs", "chicken", "mine", "--out", "site"], cwd=work,
                          env=environ, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (work / "site" / "chicken.html").is_file() and (work / "site" / "lucky_six.html").is_file()
    plain = subprocess.run([str(env_dir / "bin" / "rulekit"), "docs"], cwd=work, env=environ, capture_output=True,
                           text=True)
    assert plain.returncode == 2 and "rulekit docs GAME" in plain.stderr
