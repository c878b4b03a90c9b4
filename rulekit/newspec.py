"""`rulekit new`: start a spec from a rulebook, the first step of the formalization method.

The new folder holds the rulebook (copied byte for byte, never edited), a spec with the header and an empty
flow, and a checks file with no properties yet. Every rulebook sentence, by the segmentation that coverage
uses, is listed in the spec as a comment ready to become a quote. Comments are not quotes, so `rulekit check`
reports each of those sentences as a coverage finding until a quote (or an `unmodelled` line) accounts for it:
the count of coverage findings is the work left.
"""
from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import quotes
from .errors import RulekitError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLAYERS = re.compile(r"\s*(\d+)\s*(?:(?:-|to|\.\.)\s*(\d+))?\s*")


@dataclass(frozen=True)
class NewSpec:
    folder: Path
    spec: Path
    checks: Path
    rulebook: Path
    sentences: int


def parse_players(text: str) -> tuple[int, int]:
    """"3" or "2-4" (also "2 to 4", "2..4") -> (low, high)."""
    match = _PLAYERS.fullmatch(text or "")
    if not match:
        raise RulekitError(f"--players takes a count or a range such as 2-4, not {text!r}")
    low = int(match.group(1))
    high = int(match.group(2) or low)
    if not 1 <= low <= high:
        raise RulekitError(f"--players {text}: the counts must satisfy 1 <= low <= high")
    return low, high


def default_title(name: str) -> str:
    return " ".join(word.capitalize() for word in name.split("_") if word) or name


def _string(text: str) -> str:
    """A rule-language string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def spec_text(name: str, title: str, rulebook_name: str, source: str, players: tuple[int, int],
              rulebook: str) -> str:
    found = quotes.sentences(rulebook)
    lines = [
        f"game {name} {_string(title)}",
        f"rulebook {_string(rulebook_name)} source {_string(source)}",
        f"players {players[0]}" if players[0] == players[1] else f"players {players[0]} to {players[1]}",
        "",
        "# Still to be formalized: every sentence of the rulebook, by rulebook line. `rulekit check` reports",
        "# each one as a coverage finding until a quote or an `unmodelled` line accounts for it. Formalize a",
        "# sentence by pasting it as a quote on the rule it gives (or on `unmodelled ... because \"...\"`), then",
        "# delete its line here.",
    ]
    lines += [f"#   line {s.line}: quote {_string(s.text)}" for s in found]
    if not found:
        lines.append("#   (the rulebook has no sentences)")
    lines += ["", "flow {", "}", ""]
    return "\n".join(lines)


def checks_text(name: str) -> str:
    return (f"checks {name}\n\n"
            "# The properties claimed about the game: `invariant NAME \"...\": EXPR`, `reachable NAME \"...\": EXPR`\n"
            "# and `expect NAME \"FINDING-ID\" because \"...\"` to acknowledge a finding the rulebook accepts\n"
            "# (see the language reference, the checks file).\n")


def create(folder: str | Path, rulebook_file: str | Path, players: tuple[int, int] = (2, 4),
           title: str | None = None) -> NewSpec:
    """Create `folder/` with the rulebook, `<name>.rules` and `<name>.checks`; refuses an existing folder."""
    folder = Path(folder)
    name = folder.name
    if not _NAME.fullmatch(name):
        raise RulekitError(f"{name!r} cannot name a game: use letters, digits and underscores, starting with a "
                           "letter (for example my_game)")
    source = Path(rulebook_file)
    if not source.is_file():
        raise RulekitError(f"--rulebook {rulebook_file}: no such file")
    try:
        rulebook = source.read_bytes().decode("utf-8")
    except OSError as exc:
        raise RulekitError(f"--rulebook {rulebook_file}: cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise RulekitError(f"--rulebook {rulebook_file}: not UTF-8 text; quotes are checked against the text "
                           "of the rulebook, so save it as plain UTF-8 text first") from None
    if folder.exists():
        raise RulekitError(f"{folder} already exists; `rulekit new` never overwrites: choose another name or "
                           "remove the folder")
    rulebook_name = source.name if not source.name.endswith((".rules", ".checks")) else "rulebook.txt"
    spec = folder / f"{name}.rules"
    checks = folder / f"{name}.checks"
    copied = folder / rulebook_name
    folder.mkdir(parents=True)
    shutil.copyfile(source, copied)
    spec.write_text(spec_text(name, title or default_title(name), rulebook_name, source.name, players, rulebook),
                    encoding="utf-8")
    checks.write_text(checks_text(name), encoding="utf-8")
    return NewSpec(folder, spec, checks, copied, len(quotes.sentences(rulebook)))
