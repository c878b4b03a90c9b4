"""docs/tutorial.rst is run: its files are written and its commands run in a fresh folder, in order, and
each command's output must be the one the page shows (times masked), so the tutorial cannot go stale.

The page marks its steps with reST comments (not shown in the built docs):

``.. rulekit-tutorial: file PATH``
   the next ``literalinclude`` is written to PATH in the folder;
``.. rulekit-tutorial: run`` (or ``run slow``)
   the next ``code-block:: console`` holds commands (``$ ...``), each followed by its output; ``cat FILE``
   shows a file; ``slow`` steps run only in the slow suite (the docs build).

After an intended change to rulekit's output, refresh the page's outputs (and review the diff):

    RULEKIT_UPDATE_TUTORIAL=1 python -m pytest tests/test_tutorial.py -m "slow or not slow"
"""
from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rulekit.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "tutorial.rst"
UPDATE = os.environ.get("RULEKIT_UPDATE_TUTORIAL") == "1"
_MARK = re.compile(r"^\.\. rulekit-tutorial: (file (?P<path>\S+)|run(?P<slow> slow)?)\s*$")
_TIME = re.compile(r"\d+(\.\d+)? s\b")


@dataclass
class Command:
    line: str
    output: list[str] = field(default_factory=list)


@dataclass
class Step:
    kind: str  # "file" or "run"
    first: int  # index of the first line of the block's content, for updates
    last: int
    path: str | None = None  # file: where it goes
    source: Path | None = None  # file: the literalinclude
    slow: bool = False
    commands: list[Command] = field(default_factory=list)


def steps(lines: list[str]) -> list[Step]:
    out = []
    for i, line in enumerate(lines):
        mark = _MARK.match(line)
        if not mark:
            continue
        j = i + 1
        while not lines[j].strip():
            j += 1
        directive = lines[j]
        if mark.group("path"):
            assert directive.startswith(".. literalinclude:: "), f"line {j + 1}: a file step needs a literalinclude"
            source = (PAGE.parent / directive.split("::", 1)[1].strip()).resolve()
            out.append(Step("file", j, j, path=mark.group("path"), source=source))
            continue
        assert directive.strip() == ".. code-block:: console", f"line {j + 1}: a run step needs a console block"
        k = j + 1
        while k < len(lines) and not lines[k].startswith("   "):
            k += 1  # the blank line after the directive
        first = k
        while k < len(lines) and (lines[k].startswith("   ") or not lines[k].strip()):
            k += 1
        while not lines[k - 1].strip():
            k -= 1
        step = Step("run", first, k, slow=bool(mark.group("slow")))
        for text in lines[first:k]:
            text = text[3:]
            if text.startswith("$ "):
                step.commands.append(Command(text[2:]))
            else:
                assert step.commands, f"line {first + 1}: output before the first command"
                step.commands[-1].output.append(text)
        out.append(step)
    return out


def run(command: str, folder: Path, capsys) -> list[str]:
    words = shlex.split(command)
    if words[0] == "cat":
        return (folder / words[1]).read_text(encoding="utf-8").rstrip("\n").split("\n")
    assert words[0] == "rulekit", f"the tutorial runs rulekit and cat only, not {command!r}"
    capsys.readouterr()
    main(words[1:])
    out, err = capsys.readouterr()
    # in a terminal the progress is a bar that goes when the work is done: the page shows what stays
    err = "".join(line for line in err.splitlines(keepends=True) if not _PROGRESS.match(line))
    return (out + err).rstrip("\n").split("\n")


_PROGRESS = re.compile(r"\[\s*\d+ s\] ")


def masked(lines: list[str]) -> list[str]:
    return [_TIME.sub("N s", line.rstrip()) for line in lines]


def play(tmp_path, monkeypatch, capsys, with_slow: bool) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    lines = PAGE.read_text(encoding="utf-8").split("\n")
    found = steps(lines)
    assert any(s.kind == "run" for s in found) and any(s.kind == "file" for s in found)
    edits = []
    for step in found:
        if step.kind == "file":
            target = tmp_path / step.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(step.source.read_bytes())
            continue
        if step.slow and not with_slow:
            break  # later steps may depend on it
        new_block = []
        for command in step.commands:
            actual = run(command.line, tmp_path, capsys)
            new_block += [f"   $ {command.line}"] + [f"   {x}".rstrip() for x in actual]
            if not UPDATE:
                assert masked(actual) == masked(command.output), f"`{command.line}` printed:\n" + "\n".join(actual)
        edits.append((step.first, step.last, new_block))
    if UPDATE:
        for first, last, block in reversed(edits):
            lines[first:last] = block
        PAGE.write_text("\n".join(lines), encoding="utf-8")


def test_tutorial_commands_print_what_the_page_shows(tmp_path, monkeypatch, capsys):
    play(tmp_path, monkeypatch, capsys, with_slow=False)


@pytest.mark.slow
def test_tutorial_to_the_rules_page(tmp_path, monkeypatch, capsys):
    pytest.importorskip("sphinx")
    play(tmp_path, monkeypatch, capsys, with_slow=True)
    assert (tmp_path / "site" / "pig.html").is_file()


def test_tutorial_files_are_the_shipped_example():
    found = [s for s in steps(PAGE.read_text(encoding="utf-8").split("\n")) if s.kind == "file"]
    for step in found:
        assert step.source.is_file() and (ROOT / "examples") in step.source.parents, step.source
    assert {"pig/pig.rules", "pig/pig.checks", "rulebook.txt"} <= {s.path for s in found}
