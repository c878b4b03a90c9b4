"""Every example in docs/language.rst is extracted and checked.

The reference marks each ``code-block`` with a reST comment directly before it:

    .. rulekit: KIND [error CODE]

KIND is spec, prelude, declarations, statements, expression, checks, output,
python or layout; ``error CODE`` (alone it means a complete spec) says the
example must raise :class:`rulekit.SpecError` whose first diagnostic has that
code. The conventions are documented at the top of the reference itself.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

import rulekit
from rulekit import SpecError
from rulekit.errors import RuleRuntimeError
from rulekit.pipeline import Spec

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "language.rst"
GRAMMAR = ROOT / "grammar" / "rules.lark"
DISPLAY = "example.rules"

KINDS = ("spec", "prelude", "declarations", "statements", "expression", "checks", "output", "python", "layout")
RULE_LANGUAGE = ("spec", "prelude", "declarations", "statements", "expression", "checks")
MARK = re.compile(r"^\.\. rulekit:\s*(.*?)\s*$")
CODE_BLOCK = re.compile(r"^\.\. code-block::\s*(\S+)\s*$")


@dataclass
class Example:
    line: int  # 1-based line of the code block's first content line
    kind: str
    error: str | None
    language: str
    text: str
    spec: Example | None = None  # for checks: the nearest complete spec above
    previous: Example | None = None  # for output: the example it renders

    @property
    def id(self) -> str:
        return f"line{self.line}-{self.kind}" + (f"-{self.error}" if self.error else "")


def _parse_mark(args: str, where: int) -> tuple[str, str | None]:
    words = args.split()
    if words and words[0] == "error":
        words = ["spec", *words]
    if not words or words[0] not in KINDS:
        raise AssertionError(f"{DOC.name}:{where}: unknown rulekit example kind {args!r}; use one of {KINDS}")
    kind, rest = words[0], words[1:]
    if not rest:
        return kind, None
    if len(rest) == 2 and rest[0] == "error" and re.fullmatch(r"E\d{3}", rest[1]):
        return kind, rest[1]
    raise AssertionError(f"{DOC.name}:{where}: malformed marker {args!r}; expected KIND [error CODE]")


def extract(text: str) -> list[Example]:
    """The examples of the reference, in order; fails on a code block without a marker."""
    lines = text.splitlines()
    examples: list[Example] = []
    pending: tuple[str, str | None, int] | None = None
    last_spec: Example | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        mark = MARK.match(line)
        if mark:
            if pending is not None:
                raise AssertionError(f"{DOC.name}:{pending[2]}: marker without a code block after it")
            kind, error = _parse_mark(mark.group(1), i + 1)
            pending = (kind, error, i + 1)
            i += 1
            continue
        block = CODE_BLOCK.match(line)
        if block:
            if pending is None:
                raise AssertionError(f"{DOC.name}:{i + 1}: code block without a `.. rulekit: KIND` marker before it")
            kind, error, _ = pending
            pending = None
            i += 1
            while i < len(lines) and re.match(r"^\s+:\w[\w-]*:", lines[i]):  # directive options
                i += 1
            body: list[str] = []
            start = None
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
                if lines[i].strip() and start is None:
                    start = i + 1
                body.append(lines[i])
                i += 1
            content = textwrap.dedent("\n".join(body)).strip("\n") + "\n"
            if start is None:
                raise AssertionError(f"{DOC.name}:{i}: empty code block")
            ex = Example(start, kind, error, block.group(1), content)
            if kind == "checks":
                ex.spec = last_spec
            if kind == "output":
                ex.previous = examples[-1] if examples else None
            if kind == "spec" and error is None:
                last_spec = ex
            examples.append(ex)
            continue
        if pending is not None and line.strip():
            raise AssertionError(f"{DOC.name}:{pending[2]}: a `.. rulekit:` marker must be followed by a code block")
        i += 1
    if pending is not None:
        raise AssertionError(f"{DOC.name}:{pending[2]}: marker without a code block after it")
    return examples


EXAMPLES = extract(DOC.read_text(encoding="utf-8"))
PRELUDES = [e for e in EXAMPLES if e.kind == "prelude"]


def _prelude() -> str:
    assert len(PRELUDES) == 1, "the reference must have exactly one `.. rulekit: prelude` block"
    return PRELUDES[0].text


def source_of(ex: Example) -> str:
    """The complete spec text an example of the rule language is compiled as."""
    if ex.kind == "spec":
        return ex.text
    if ex.kind == "prelude":
        return ex.text + "\nflow { }\n"
    if ex.kind == "declarations":
        return _prelude() + "\n" + ex.text + "\nflow { }\n"
    if ex.kind == "statements":
        return _prelude() + "\nflow {\n" + ex.text + "}\n"
    if ex.kind == "expression":
        return _prelude() + "\nflow {\n  let value =\n" + ex.text + "}\n"
    raise AssertionError(f"no spec text for a {ex.kind} example")


def compile_example(ex: Example, folder: Path):
    """Compile an example of the rule language; returns (spec, model). Raises SpecError."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / DISPLAY
    if ex.kind == "checks":
        assert ex.spec is not None, f"line {ex.line}: a checks example needs a complete spec above it"
        path.write_text(ex.spec.text, encoding="utf-8")
        path.with_suffix(".checks").write_text(ex.text, encoding="utf-8")
        spec = Spec(path, text=ex.spec.text, display_path=DISPLAY)
    else:
        spec = Spec(path, text=source_of(ex), display_path=DISPLAY)
    assert spec.checks_path == (path.with_suffix(".checks") if ex.kind == "checks" else None)
    return spec, spec.model


def _random_game(spec: Spec, model, seed: int = 0, max_steps: int = 300) -> None:
    """Load a complete spec in the engine and play one seeded random game (bounded)."""
    import random

    game = spec.engine(model.min_players)
    state = game.new_initial_state(seed=seed, auto_chance=True)
    rng = random.Random(seed)
    for _ in range(max_steps):
        if state.is_terminal() or state.is_stuck():
            break
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("ex", [e for e in EXAMPLES if e.kind in RULE_LANGUAGE], ids=lambda e: e.id)
def test_rule_language_example(ex: Example, tmp_path: Path):
    if ex.error is not None:
        with pytest.raises(SpecError) as info:
            compile_example(ex, tmp_path)
        codes = [d.code for d in info.value.diagnostics]
        assert codes[0] == ex.error, f"expected {ex.error} first, got:\n{info.value}"
        return
    try:
        spec, model = compile_example(ex, tmp_path)
    except SpecError as err:
        pytest.fail(f"example at {DOC.name}:{ex.line} does not compile:\n{err}\n--- compiled text ---\n"
                    f"{source_of(ex) if ex.kind != 'checks' else ex.text}")
    assert model.name
    if ex.kind == "spec":
        try:
            _random_game(spec, model)
        except RuleRuntimeError as err:
            pytest.fail(f"example at {DOC.name}:{ex.line} fails while played: {err}")


@pytest.mark.parametrize("ex", [e for e in EXAMPLES if e.kind == "output"], ids=lambda e: e.id)
def test_rendered_output(ex: Example, tmp_path: Path):
    before = ex.previous
    assert before is not None and before.error is not None, \
        f"line {ex.line}: an output block must follow an error example"
    with pytest.raises(SpecError) as info:
        compile_example(before, tmp_path)
    assert str(info.value).rstrip() == ex.text.rstrip()


@pytest.mark.parametrize("ex", [e for e in EXAMPLES if e.kind == "python"], ids=lambda e: e.id)
def test_python_example(ex: Example, monkeypatch, capsys):
    assert ex.language == "python"
    monkeypatch.chdir(ROOT)
    exec(compile(ex.text, f"{DOC.name}:{ex.line}", "exec"), {"__name__": "docs_example"})  # noqa: S102


@pytest.mark.parametrize("ex", [e for e in EXAMPLES if e.kind == "layout"], ids=lambda e: e.id)
def test_layout_example(ex: Example):
    for line in ex.text.splitlines():
        if line.strip():
            path = line.split()[0]
            assert (ROOT / path).exists(), f"{DOC.name}:{ex.line}: {path} does not exist"


def test_examples_found():
    kinds = {e.kind for e in EXAMPLES}
    assert {"spec", "prelude", "declarations", "statements", "expression", "checks", "output"} <= kinds
    assert any(e.error for e in EXAMPLES)


def _grammar_keywords() -> set[str]:
    """Every literal string of the grammar (keywords and punctuation)."""
    words = set()
    for line in GRAMMAR.read_text(encoding="utf-8").splitlines():
        line = line.split("//", 1)[0]
        if re.search(r"(^|\s)/\S", line):  # a regular-expression terminal
            continue
        words.update(re.findall(r'"([^"\\]+)"', line))
    return words


def test_every_keyword_has_an_example():
    examples = "\n".join(re.sub(r'"([^"\\]|\\.)*"', '""', e.text) for e in EXAMPLES
                         if e.kind in RULE_LANGUAGE)
    missing = []
    for word in sorted(_grammar_keywords()):
        pattern = rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])" if word[0].isalpha() else re.escape(word)
        if not re.search(pattern, examples):
            missing.append(word)
    assert not missing, f"grammar keywords with no example in {DOC.name}: {missing}"


def test_every_builtin_has_an_example():
    examples = "\n".join(e.text for e in EXAMPLES if e.kind in RULE_LANGUAGE)
    for name in ("size", "next", "previous", "supply", "min", "max", "abs", "count", "exists", "the", "forall",
                 "sum"):
        assert re.search(rf"\b{name}\(", examples), f"no example calls {name}(...)"


def test_every_diagnostic_code_has_an_example():
    from rulekit.parse import SYNTAX_EXAMPLES

    shown = {e.error for e in EXAMPLES if e.error}
    codes = {"E101", *SYNTAX_EXAMPLES, *(f"E20{i}" for i in range(8))}
    assert codes <= shown, f"diagnostic codes without an example: {sorted(codes - shown)}"


def test_rulekit_is_importable():
    assert rulekit.SpecError is SpecError
