"""Pages written for a documentation project: one per game, so that a new spec gets its page."""
from __future__ import annotations

import re
from pathlib import Path

MARK = ".. This page is written by rulekit.sphinx.pages at every build: edit the spec, not this file."
_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def game_page(name: str) -> str:
    return f"{MARK}\n\n.. rulekit-game:: {name}\n"


def write_game_pages(folder: Path, games: list[str]) -> list[str]:
    """Write `folder/<game>.rst` for each game (only when its text changes, so that Sphinx does not
    re-read it needlessly) and remove pages of games that are gone. Returns the games written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in games:
        if not _SAFE.fullmatch(name):
            continue  # a folder name that cannot be a directive argument safely
        page = folder / f"{name}.rst"
        text = game_page(name)
        if not page.is_file() or page.read_text(encoding="utf-8") != text:
            page.write_text(text, encoding="utf-8")
        written.append(name)
    for page in folder.glob("*.rst"):
        if page.stem not in written and page.read_text(encoding="utf-8").startswith(MARK):
            page.unlink()
    return written
