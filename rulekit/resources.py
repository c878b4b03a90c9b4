"""Where the grammar and the bundled specs live, installed or in a checkout."""
from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_CHECKOUT = _PACKAGE.parent


def _first_existing(*candidates: Path) -> Path:
    for c in candidates:
        if c.exists():
            return c
    return candidates[-1]


def grammar_path() -> Path:
    return _first_existing(_PACKAGE / "grammar" / "rules.lark", _CHECKOUT / "grammar" / "rules.lark")


def grammar_text() -> str:
    return grammar_path().read_text(encoding="utf-8")


def specs_dir() -> Path:
    return _first_existing(_PACKAGE / "specs", _CHECKOUT / "specs")


def checks_dir() -> Path:
    return _first_existing(_PACKAGE / "checks", _CHECKOUT / "checks")


def bundled_games() -> list[str]:
    d = specs_dir()
    return sorted(p.name for p in d.iterdir() if p.is_dir() and any(p.glob("*.rules"))) if d.exists() else []


def spec_file(name_or_path: str) -> Path | None:
    """A bundled game's name, a spec folder, or a .rules file -> the .rules file, if any."""
    p = Path(name_or_path)
    if p.is_file():
        return p
    if p.is_dir():
        found = sorted(p.glob("*.rules"))
        return found[0] if found else None
    bundled = specs_dir() / name_or_path
    if bundled.is_dir():
        found = sorted(bundled.glob("*.rules"))
        return found[0] if found else None
    return None
