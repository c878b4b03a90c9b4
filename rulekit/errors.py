"""One error hierarchy for every stage, with stable codes.

User errors (a broken spec, an illegal action, a bad state file) derive from
:class:`RulekitError` and render like a compiler's diagnostics. A construct that a
backend does not cover is :class:`Unsupported`, which its caller turns into an
honest `unknown`. A rulekit bug is an :class:`InternalError` (or any other
exception): it is never shown as `unknown`.

Every error pickles, so parallel `rulekit check` passes real errors between processes.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Span:
    """A source range: 1-based lines and columns; `end_*` is exclusive."""

    file: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class RulekitError(Exception):
    """Base of every error that rulekit reports to its users."""

    code = "E000"

    def __reduce__(self):
        # Subclasses take other constructor arguments than their message; rebuild from the state.
        return (_rebuild, (type(self), self.args, self.__dict__))


def _rebuild(cls, args, state):
    error = Exception.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class InternalError(Exception):
    """A rulekit bug: the two semantics disagree, or a backend met a model it should know.

    Never reported as a verdict; it fails the tests and reaches the user as a bug to report.
    """

    def __reduce__(self):
        return (_rebuild, (type(self), self.args, self.__dict__))


class WitnessError(InternalError):
    """A witness found by one backend that the engine does not replay (the semantics disagree)."""


class Unsupported(RulekitError):
    """A construct that a backend does not cover, named with where it is; the caller says `unknown`.

    Raised only explicitly, for a construct; anything else escaping a backend is a bug.
    """

    code = "E600"


@dataclass
class Diagnostic:
    code: str
    message: str
    span: Span | None = None
    hint: str | None = None
    source_line: str | None = None

    def render(self) -> str:
        where = f"{self.span}: " if self.span else ""
        lines = [f"{where}{self.code} {self.message}"]
        if self.span and self.source_line is not None:
            text = self.source_line.rstrip("\n").expandtabs(1)
            width = 1
            if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
                width = self.span.end_column - self.span.column
            lines.append(f"    {text}")
            lines.append("    " + " " * (self.span.column - 1) + "^" * max(1, width))
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        """The diagnostic for machines (`rulekit check --format json`): its code, message, hint and place."""
        out = {"code": self.code, "message": self.message, "hint": self.hint}
        if self.span is not None:
            out.update(file=self.span.file, line=self.span.line, column=self.span.column,
                       end_line=self.span.end_line or None, end_column=self.span.end_column or None)
        return out


class SpecError(RulekitError):
    """A spec that does not compile: one or more diagnostics, in source order."""

    code = "E100"

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(
            diagnostics, key=lambda d: (d.span.file, d.span.line, d.span.column) if d.span else ("", 0, 0)
        )
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)


@dataclass
class DiagnosticSink:
    """Collects diagnostics for one or more source texts, so a stage can report them all at once."""

    file: str
    text: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    others: dict[str, str] = field(default_factory=dict)

    def error(self, code: str, message: str, span: Span | None, hint: str | None = None) -> None:
        line = None
        if span is not None:
            text = self.text if span.file == self.file else self.others.get(span.file)
            lines = text.split("\n") if text is not None else []  # as Lark counts lines
            if 0 < span.line <= len(lines):
                line = lines[span.line - 1]
        self.diagnostics.append(Diagnostic(code, message, span, hint, line))

    def raise_if_any(self) -> None:
        if self.diagnostics:
            raise SpecError(self.diagnostics)


class GameNotFoundError(RulekitError):
    code = "E001"


class OptionError(RulekitError):
    """An unknown ambiguity or option, or a player count the game does not allow."""

    code = "E002"


class IllegalActionError(RulekitError):
    """An action that is not legal in the state it was applied to; the state is unchanged."""

    code = "E300"

    def __init__(self, action, legal: list[int], describe):
        self.action = action
        self.legal = legal
        shown = ", ".join(f"{a} ({describe(a)})" for a in legal[:12])
        more = f" and {len(legal) - 12} more" if len(legal) > 12 else ""
        super().__init__(f"illegal action {action!r}; legal actions are: {shown}{more}" if legal
                         else f"illegal action {action!r}; no action is legal here")


class SeatError(RulekitError, ValueError):
    """A player that is no seat of the game, asked what it observes."""

    code = "E301"

    def __init__(self, player, players: int):
        self.player = player
        super().__init__(f"no player {player!r} in this game: its seats are 0 to {players - 1}")


class StateFormatError(RulekitError):
    """A serialized state that is malformed, truncated, or was altered."""

    code = "E400"


class RuleRuntimeError(RulekitError):
    """A rule that cannot be carried out (a card that is not there, a value out of its range).

    This is a fault of the spec, found while playing; `rulekit check` reports it.
    """

    code = "E500"

    def __init__(self, message: str, span: Span | None = None):
        self.span = span
        super().__init__(f"{span}: {message}" if span else message)


class EndlessRun(RuleRuntimeError):
    """Rules that go round for ever with no decision and no chance event to end it: the same state
    came back (`period` steps apart, first at step `start` of the run), so nothing can ever change."""

    code = "E501"

    def __init__(self, message: str, span: Span | None = None, start: int = 0, period: int = 0):
        super().__init__(message, span)
        self.start, self.period = start, period


class LongRun(RuleRuntimeError):
    """Rules that ran the engine's step limit with no decision and no chance event, without a state
    coming back: endless perhaps (a count that grows for ever), perhaps only very long."""

    code = "E502"
