"""The compiler pipeline: each stage's result computed once, on demand.

    text --parse--> syntax tree --resolve--> model --lower(players, options)--> core IR --> engine

The model is the whole game under every option; each configuration (a player count and one option
per ambiguity) is lowered once and cached here, and so is the engine compiled from it: `rulekit.load`,
`rulekit check`, the docs and the adapters all get configurations and engines from this one cache.
"""
from __future__ import annotations

import difflib
import hashlib
from functools import cached_property
from pathlib import Path

from . import model as m
from . import resources
from .errors import GameNotFoundError, OptionError, SpecError
from .lower import Config, instantiate
from .parse import parse
from .resolve import resolve
from .syntax import Node


class Spec:
    """One spec file and everything derived from it."""

    def __init__(self, path: Path, text: str | None = None, display_path: str | None = None):
        self.path = Path(path)
        self._text = text
        self.display_path = display_path or _display(self.path)

    @classmethod
    def find(cls, name_or_path: str) -> Spec:
        """The spec for a bundled game's name, a spec folder or a .rules file; compiled once per version."""
        path = resources.spec_file(str(name_or_path))
        if path is None:
            games = ", ".join(resources.bundled_games()) or "none"
            raise GameNotFoundError(f"no spec called {name_or_path!r}: give a bundled game ({games}), "
                                    "a spec folder or a .rules file")
        key = (str(path.resolve()), *_stamp(path), *_stamp(path.with_suffix(".checks")),
               *_stamp(resources.checks_dir() / f"{path.parent.name}.checks"))
        if key not in _SPECS:
            _SPECS[key] = cls(path)
        return _SPECS[key]

    @cached_property
    def text(self) -> str:
        if self._text is not None:
            return self._text
        try:
            return self.path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            raise GameNotFoundError(f"{self.display_path}: not UTF-8 text ({exc.reason})") from None

    @cached_property
    def syntax(self) -> Node:
        return parse(self.text, self.display_path)

    @cached_property
    def checks_path(self) -> Path | None:
        """`<spec>.checks` beside the spec, or checks/<folder>.checks for a bundled spec."""
        for candidate in (self.path.with_suffix(".checks"), resources.checks_dir() / f"{self.folder.name}.checks"):
            if candidate.is_file():
                return candidate
        return None

    @cached_property
    def checks_text(self) -> str | None:
        return self.checks_path.read_text(encoding="utf-8-sig") if self.checks_path else None

    @cached_property
    def digest(self) -> str:
        return hashlib.sha256((self.text + "\0" + (self.checks_text or "")).encode()).hexdigest()[:16]

    @cached_property
    def model(self) -> m.Game:
        checks = None
        texts = {}
        if self.checks_path is not None:
            shown = _display(self.checks_path)
            checks = parse(self.checks_text, shown)
            texts[shown] = self.checks_text
        return resolve(self.syntax, self.display_path, self.text, checks, texts)

    @property
    def folder(self) -> Path:
        return self.path.parent

    @cached_property
    def rulebook_path(self) -> Path:
        return self.folder / self.model.rulebook

    @cached_property
    def rulebook_text(self) -> str | None:
        try:
            return self.rulebook_path.read_text(encoding="utf-8")
        except OSError:
            return None

    def compile(self) -> m.Game:
        """The model, or SpecError with every diagnostic found."""
        return self.model

    # ---- configurations
    def options_for(self, options: dict[str, str] | None = None) -> dict[str, str]:
        """Every ambiguity's option: the defaults, with `options` picked instead; OptionError for a name
        or option that does not exist."""
        model = self.model
        chosen = model.default_options()
        for name, value in (options or {}).items():
            if name not in chosen:
                close = difflib.get_close_matches(name, list(chosen), n=1)
                raise OptionError(f"{model.name} has no ambiguity {name!r}"
                                  + (f"; did you mean {close[0]!r}?" if close
                                     else f"; it has: {', '.join(chosen) or 'none'}"))
            allowed = model.ambiguity(name).option_names()
            if value not in allowed:
                raise OptionError(f"ambiguity {name!r} has no option {value!r}; its options are: {', '.join(allowed)}")
            chosen[name] = value
        return chosen

    def players_for(self, players: int | None) -> int:
        """`players`, checked against the rulebook's range; the fewest allowed when None."""
        model = self.model
        if players is None:
            return model.min_players
        if isinstance(players, bool) or not isinstance(players, int) or not model.min_players <= players <= model.max_players:
            raise OptionError(f"{model.name} is for {model.min_players} to {model.max_players} players, not {players!r}")
        return players

    def config(self, players: int | None = None, options: dict[str, str] | None = None) -> Config:
        """The core IR of one configuration, lowered once (SpecError if it does not lower)."""
        players, chosen = self.players_for(players), self.options_for(options)
        key = (players, tuple(sorted(chosen.items())))
        if key not in self._configs:
            texts = {self.display_path: self.text}
            if self.checks_path is not None:
                texts[_display(self.checks_path)] = self.checks_text
            self._configs[key] = instantiate(self.model, players, chosen, texts)
        return self._configs[key]

    def engine(self, players: int | None = None, options: dict[str, str] | None = None, probes: bool = False):
        """The engine of one configuration (a `rulekit.Game`), compiled once from its core IR; with
        `probes`, the build that records silent-case sites (`lower.sites`) as it plays. That build
        plays exactly as the other, so once `rulekit check` has compiled it, it serves every request
        for the configuration: the check compiles each configuration once."""
        config = self.config(players, options)
        key = (*config.key, "probes")
        if not probes and key not in self._engines:
            key = config.key
        if key not in self._engines:
            from .engine import Game  # the engine is a backend of the pipeline, loaded when asked for

            self._engines[key] = Game(config, self, probes=probes)
        return self._engines[key]

    @cached_property
    def _configs(self) -> dict[tuple, Config]:
        return {}

    @cached_property
    def _engines(self) -> dict[tuple, object]:
        return {}


_SPECS: dict[tuple, Spec] = {}


def _stamp(path: Path) -> tuple:
    try:
        st = path.stat()
        return (st.st_mtime_ns, st.st_size)
    except OSError:
        return (None, None)


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


__all__ = ["Spec", "SpecError"]
