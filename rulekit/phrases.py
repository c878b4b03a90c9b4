"""Phrases: a declaration's English (`phrase "{x} is in line with {y}"`), with placeholders for its
parameters; and the phrase said when a spec gives none, derived from the declaration's name.

The resolver checks a phrase with :func:`problems`; the docs fill one in with :func:`fill`.
"""
from __future__ import annotations

import re

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def problems(text: str, params: list[str]):
    """(what is wrong, offset in the text, length, hint) for each bad placeholder or brace of a phrase."""
    allowed = ", ".join("{" + p + "}" for p in params) if params else "none: this declaration has no parameters"
    hint = f"the placeholders this phrase may use: {allowed}"
    ends = set()
    for match in _PLACEHOLDER.finditer(text):
        name = match.group(1)
        ends.update((match.start(), match.end() - 1))
        if name not in params:
            yield (f"names '{{{name}}}', which is not one of its parameters", match.start(),
                   match.end() - match.start(), hint)
    for i, ch in enumerate(text):
        if ch in "{}" and i not in ends:
            yield f"has an unmatched '{ch}'", i, 1, "a placeholder is a parameter's name in braces, such as {x}"


def pieces(text: str):
    """The phrase as a list of literal strings and ('param', name) holes, in order."""
    out: list = []
    last = 0
    for match in _PLACEHOLDER.finditer(text):
        if match.start() > last:
            out.append(text[last:match.start()])
        out.append(("param", match.group(1)))
        last = match.end()
    if last < len(text):
        out.append(text[last:])
    return out


def words(name: str) -> str:
    """`end_of_turn` -> "end of turn", `RedCard` -> "red card" (a spec name read as words)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name.replace("_", " "))
    return " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in spaced.split())


# First words by which a condition's name is already a predicate: `can_play(p)` reads "p can play", not
# "p is can play".
VERB_STARTS = frozenset({"can", "could", "may", "might", "must", "should", "will", "would", "is", "are", "was", "were",
                         "has", "have", "had", "does", "do", "did", "needs", "holds", "owns", "sees", "knows", "matches",
                         "beats", "wins", "loses", "covers", "fits", "reaches", "shows", "gets", "plays", "takes"})


def default_define(name: str, params: list[str], boolean: bool) -> str:
    """A definition said from its name: a condition about its first parameter, or a noun phrase."""
    said = words(name)
    holes = ["{" + p + "}" for p in params]
    if boolean:
        if not holes:
            return said
        rest = f" {and_list(holes[1:])}" if len(holes) > 1 else ""
        verb = "" if said.split(" ", 1)[0] in VERB_STARTS else "is "
        return f"{holes[0]} {verb}{said}{rest}"
    return f"the {said}" + (f" of {and_list(holes)}" if holes else "")


def default_procedure(name: str, params: list[str]) -> str:
    """A procedure said from its name, as an instruction: "turn over {x}"."""
    said = words(name)
    return said + (f" for {and_list(['{' + p + '}' for p in params])}" if params else "")


def default_zone(name: str, per_player: bool, per_board: bool) -> str:
    said = words(name)
    if per_player:
        return "{player}'s " + said
    if per_board:
        return f"the {said} at {{position}}"
    return f"the {said}"


def default_var(name: str, per_player: bool) -> str:
    said = words(name)
    return ("{player}'s " + said) if per_player else f"the {said}"


def default_board(name: str) -> str:
    return f"the {words(name)}"


def and_list(items: list[str], word: str = "and") -> str:
    """`a`, `a and b`, `a, b and c` (or another `word`: `a, b or c`)."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {word} " + items[-1]


def seat(p: int) -> str:
    """A seat as the engine, its observations and every report name it: "P0" moves first."""
    return f"P{p}"


def counted(n: int, noun: str) -> str:
    """A count with its noun: "1 step", "3 steps", "0 steps", "2 ambiguities"."""
    return f"{n:,} {noun if n == 1 else plural(noun)}"


def plural(noun: str) -> str:
    """The regular plural of a noun: "step" -> "steps", "property" -> "properties", "match" -> "matches"."""
    if re.search(r"[^aeiou]y$", noun):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    return noun + "s"
