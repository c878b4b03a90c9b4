"""The words the English renderer is made of: its output (lines of parts and links), the small
grammar it needs (agreement with "you", articles, relative clauses) and the aggregation of
consecutive sentences. Nothing here knows a game."""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from .. import model as m

# ---- output ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """A piece of text that links to another part of the page: `target` is (kind, name), where kind is
    procedure, define, ambiguity, reading (an option of an ambiguity, shown as such) or rule."""

    text: str
    target: tuple[str, str]


Part = str | Ref


@dataclass
class Line:
    """One rule in English, the rulebook quotes that it formalizes, and the rules nested in it."""

    parts: list[Part]
    quotes: tuple = ()
    children: list[Line] = field(default_factory=list)
    span: object = None
    kind: str = ""

    @property
    def text(self) -> str:
        return "".join(p.text if isinstance(p, Ref) else p for p in self.parts)


def plain(parts) -> str:
    return "".join(p.text if isinstance(p, Ref) else p for p in parts)


def humanize(name: str) -> str:
    """`end_of_turn` -> "end of turn", `RedCard` -> "Red Card" (spec names read as words)."""
    words = name.replace("_", " ")
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", words)
    return " ".join(words.split())


# The value a binder's condition is about, while that condition is said: it becomes "that ...",
# "whose ...", "it" or "its" once the condition is rendered.
SELF = "\x00self\x00"
# A flag with no phrase of its own, read as a condition: "the skip next flag is on" / "... is off".
FLAG_ON, FLAG_OFF = " flag is on", " flag is off"

COMPARE = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
            ">=": "is at least"}
ARITH = {"+": "plus", "-": "minus", "*": "times", "/": "divided by", "%": "modulo"}
PRECEDENCE = {"or": 1, "and": 2, **{op: 3 for op in COMPARE}, "+": 4, "-": 4, "*": 5, "/": 5, "%": 5}
SYMMETRIC = ("==", "!=")
ORDINALS = ("", "other ", "third ", "fourth ", "fifth ")
NOUNS = {"card": "card", "player": "player", "pos": "space", "int": "number", "bool": "value", "cards": "cards",
          "set": "cards",
          "players": "players", "zone": "place", "token": "token"}
NOT_NOUNS = ("card", "player", "space", "who", "what", "which", "that", "this", "its", "one", "any", "all", "each",
              "again", "here", "there", "up", "down", "below", "above")
ADJECTIVES = ("first", "second", "third", "last", "next", "other", "new", "old", "chosen")
AGREE = {"is": "are", "has": "have", "was": "were", "does": "do"}


def agree(literal: str) -> tuple[str, bool]:
    """The words after "you" in a phrase made to agree ("you has" -> "you have"); True when it was a
    possessive "'s" that the caller turns into "your"."""
    if literal.startswith("'s"):
        return literal[2:], True
    match = re.match(r"(\s+)([a-z]+)\b", literal)
    if not match:
        return literal, False
    word = match.group(2)
    if word in AGREE:
        new = AGREE[word]
    elif re.search(r"(ss|sh|ch|x)es$", word):
        new = word[:-2]
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        new = word[:-1]
    else:
        return literal, False
    return match.group(1) + new + literal[match.end():], False


def is_you(parts) -> bool:
    return bool(parts) and plain(parts).strip().lower() == "you"



def reads_option(e) -> bool:
    return any(isinstance(n, m.OptionIs) for n in walk_expr(e))


def walk_expr(e):
    stack = [e]
    while stack:
        node = stack.pop()
        if isinstance(node, (tuple, list)):
            stack.extend(node)
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            yield node
            stack.extend(getattr(node, f.name, None) for f in dataclasses.fields(node) if f.name not in ("span", "type"))


def short_referent(ref: list[Part]) -> bool:
    """"the card drawn", "you", "the other space": a value's name, not a description."""
    text = plain(ref)
    return all(isinstance(p, str) for p in ref) and SELF not in text and \
        (text == "you" or (text.startswith(("the ", "that ")) and len(text.split()) <= 4 and " of " not in text))


def join_text(parts: list[Part]) -> list[Part]:
    """Adjacent strings joined (SELF kept apart), so that a pattern can match across them."""
    out: list[Part] = []
    for p in parts:
        if isinstance(p, str) and p != SELF and out and isinstance(out[-1], str) and out[-1] != SELF:
            out[-1] = out[-1] + p
        else:
            out.append(p)
    return out


def uses(stmts, slot: int) -> bool:
    """Whether a statement list reads the local `slot`."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, m.Local) and node.slot == slot:
            return True
        if isinstance(node, (tuple, list)):
            stack.extend(node)
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            stack.extend(getattr(node, f.name, None) for f in dataclasses.fields(node)
                         if f.name not in ("span", "quotes", "type"))
    return False


def lower_first(parts: list[Part], names) -> list[Part]:
    """A sentence made part of a longer one: its first word loses its capital, unless it is a name."""
    if not parts:
        return parts
    first = parts[0]
    text = first.text if isinstance(first, Ref) else first
    if not text or any(text.startswith(n) for n in names if n) or re.match(r"[A-Z]{2}", text):
        return parts
    text = text[:1].lower() + text[1:]
    return [Ref(text, first.target) if isinstance(first, Ref) else text, *parts[1:]]


def upper_first(text: str) -> str:
    """The text with a capital first letter, the rest as it is ("the deck's top card" -> "The deck's ...")."""
    return text[:1].upper() + text[1:]


def sentence(parts: list[Part]) -> list[Part]:
    """Capitalize the first word and tidy the spaces."""
    out = [p for p in parts if p != ""]
    if out and isinstance(out[0], str) and out[0]:
        out[0] = upper_first(out[0])
    elif out and isinstance(out[0], Ref) and out[0].text:
        out[0] = Ref(upper_first(out[0].text), out[0].target)
    return out


class Join(str):
    """The " and " that merging inserts, told apart from any other " and " by its type."""


JOIN = Join(" and ")


def mergeable(a: Line, b: Line) -> bool:
    return a.kind == b.kind and not a.children and not b.children and a.kind in ("Move", "Assign")


def aggregate(lines: list[Line]) -> list[Line]:
    """Consecutive moves to one place, and consecutive sets, become one sentence."""
    out: list[Line] = []
    for line in lines:
        prev = out[-1] if out else None
        if prev is not None and mergeable(prev, line):
            merged = merge(prev, line)
            if merged is not None:
                out[-1] = merged
                continue
        out.append(line)
    return out


def merge(a: Line, b: Line) -> Line | None:
    """"Move X to D." + "Move Y to D." -> "Move X and Y to D."; "Set A to 1." + "Set B to 2." ->
    "Set A to 1 and B to 2."""
    ta, tb = a.text, b.text
    if a.kind == "Move":
        ia, ib = last(a.parts, " to "), last(b.parts, " to ")
        if ia is None or ib is None or plain(a.parts[ia:]) != plain(b.parts[ib:]):
            return None
        what_a = a.parts[1:ia]
        what_b = b.parts[1:ib]
        if any(isinstance(p, Join) for p in what_a):
            joined = relist(what_a, what_b)  # already a list: X, Y and Z
        else:
            joined = [*what_a, JOIN, *what_b]
        parts = [a.parts[0], *joined, *a.parts[ia:]]
    elif a.kind == "Assign" and ta.startswith("Set ") and tb.startswith("Set "):
        body_b = list(b.parts)
        body_b[0] = body_b[0][len("Set "):] if isinstance(body_b[0], str) else body_b[0]
        head = list(a.parts)
        head[-1] = head[-1][:-1] if isinstance(head[-1], str) and head[-1].endswith(".") else head[-1]
        parts = [*head, " and ", *body_b]
    else:
        return None
    return Line(parts, tuple(a.quotes) + tuple(b.quotes), [], a.span, a.kind)


def relist(first: list[Part], more: list[Part]) -> list[Part]:
    """`X and Y` + `Z` -> `X, Y and Z`."""
    parts = list(first)
    for i in range(len(parts) - 1, -1, -1):
        if isinstance(parts[i], Join):
            parts[i] = ", "
            break
    return [*parts, JOIN, *more]


def last(parts: list[Part], word: str) -> int | None:
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == word:
            return i
    return None

