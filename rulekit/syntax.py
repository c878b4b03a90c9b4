"""The syntax tree: what the parser saw, with spans, before any name is resolved."""
from __future__ import annotations

from dataclasses import dataclass

from .errors import Span


@dataclass(slots=True)
class Node:
    """A syntax node: `kind` names the construct, `fields` its parts by name."""

    kind: str
    span: Span
    fields: dict

    def __getattr__(self, name):
        try:
            return self.fields[name]
        except KeyError:
            raise AttributeError(name) from None

    def get(self, name, default=None):
        return self.fields.get(name, default)


@dataclass(slots=True)
class Name:
    """An identifier as written, with its span."""

    text: str
    span: Span

    def __str__(self) -> str:
        return self.text


@dataclass(slots=True)
class Quote:
    text: str
    span: Span
    translation: str | None = None  # ours, for a rulebook in another language


@dataclass(slots=True)
class Text:
    """A string literal that is not a rulebook quote (a title, a label, a reason)."""

    text: str
    span: Span


class Block(list):
    """The statements of a `{ ... }` block."""


class Params(list):
    """A declared parameter list."""
