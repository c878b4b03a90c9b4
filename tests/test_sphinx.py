"""The Sphinx extension (rulekit.sphinx), built with Sphinx's own testing fixtures on a small spec.

The spec's rulebook and quotes contain HTML and reST markup on purpose: it must come out as text.
"""
from __future__ import annotations

import dataclasses
import html as htmllib
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

sphinx = pytest.importorskip("sphinx")
pytest.importorskip("matplotlib")

from pygments.token import Error, String  # noqa: E402

from rulekit import model as m  # noqa: E402
from rulekit.pipeline import Spec  # noqa: E402
from rulekit.sphinx.diagram import FlowGraph, turn_structure_svg  # noqa: E402
from tests.helpers import compile_text  # noqa: E402
from rulekit.sphinx.english import English, Line, translation  # noqa: E402
from rulekit.sphinx.lexer import RulekitLexer  # noqa: E402
from rulekit.sphinx.pages import write_game_pages  # noqa: E402

pytest_plugins = ("sphinx.testing.fixtures",)

ROOT = Path(__file__).resolve().parents[1]

RULEBOOK = """\
Tiny Game
Players: 2 to 3
Each player draws a card on their turn.
The player who holds the <script>alert("x")</script> card wins *at once*.
If the deck is empty, `nobody` wins. .. raw:: html
"""

SPEC = r'''
game tiny "Tiny <b>Game</b>"
rulebook "rulebook.txt" source "tiny.txt"

players 2 to 3 quote "Players: 2 to 3"
order clockwise
payoff win 1 lose -1

unmodelled "Tiny Game" because "The title."

card Star x 1 quote "The player who holds the <script>alert(\"x\")</script> card wins *at once*."
card Blank x 5

zone box: set, public, initial
zone deck: stack, hidden
zone hand per player: set, owner

ambiguity empty_deck "What if the deck is empty?" {
  quote "If the deck is empty, `nobody` wins. .. raw:: html"
  question "Does the game end without a winner <i>at once</i>?"
  option nobody "Nobody wins."
  option last "The last player to draw wins."
  default nobody because "The rulebook says so."
}

procedure draw_one {
  move top from deck to hand(current)
}

flow {
  move all from box to deck
  shuffle deck
  turns from seat(0) {
    rule draw "Draw" quote "Each player draws a card on their turn." {
      if size(deck) == 0 {
        if empty_deck is last { win previous(current) }
        end game
      }
      do draw_one
      if count(c in hand(current) where c == Star) > 0 {
        win current
        end game
      }
      choose by current {
        action pass "Pass." { end turn }
      }
    }
  }
}
'''

CHECKS = """checks tiny

example first_draw "The first player draws a blank card." players 2
  do "chance: Blank"
  expect size(hand(seat(0))) == 1
  quote "Each player draws a card on their turn."
"""

CONF = """
extensions = ["rulekit.sphinx"]
exclude_patterns = ["_build"]
nitpicky = True
rulekit_check_bounds = {"games": 3, "variant_games": 1, "max_steps": 200, "seed": 0, "max_states": 200,
                        "time_limit": 0.1, "solver_timeout": 1.0, "shrink": False}
rulekit_simulation_games = 12
rulekit_simulation_max_steps = 200
"""

INDEX = """
Tiny docs
=========

.. toctree::

   game
   parts
   register

.. code-block:: rulekit

   card Star x 1 quote "A <em>star</em>"
"""

PARTS = """
Parts
=====

.. rulekit-overview:: spec/tiny.rules

.. rulekit-turns:: spec/tiny.rules

.. rulekit-rules:: spec/tiny.rules

.. rulekit-checks:: spec/tiny.rules

.. rulekit-statistics:: spec/tiny.rules
"""


def _project(root: Path, game_page: str = ".. rulekit-game:: spec/tiny.rules\n") -> Path:
    (root / "spec").mkdir(parents=True)
    (root / "spec" / "tiny.rules").write_text(SPEC, encoding="utf-8")
    (root / "spec" / "rulebook.txt").write_text(RULEBOOK, encoding="utf-8")
    (root / "spec" / "tiny.checks").write_text(CHECKS, encoding="utf-8")
    (root / "conf.py").write_text(CONF, encoding="utf-8")
    (root / "index.rst").write_text(INDEX, encoding="utf-8")
    (root / "game.rst").write_text(game_page, encoding="utf-8")
    (root / "parts.rst").write_text(PARTS, encoding="utf-8")
    (root / "register.rst").write_text("Register\n========\n\n.. rulekit-ambiguity-index:: spec/tiny.rules\n",
                                       encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory, make_app_module):
    src = _project(tmp_path_factory.mktemp("tiny") / "src")
    app = make_app_module("html", srcdir=src)
    app.build()
    return app


@pytest.fixture(scope="module")
def make_app_module(request):
    """Sphinx's make_app, for a module-scoped build (the fixture itself is function-scoped)."""
    from sphinx.testing.util import SphinxTestApp

    apps = []

    def make(*args, **kwargs):
        app = SphinxTestApp(*args, **kwargs)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.cleanup()


def _html(app, page: str) -> str:
    return (Path(app.outdir) / f"{page}.html").read_text(encoding="utf-8")


def test_builds_without_warnings(built):
    assert built.statuscode == 0
    assert built._warning.getvalue() == ""


def test_game_page_has_every_section(built):
    html = _html(built, "game")
    for section in ("Overview", "Turn structure", "Rules", "Ambiguity register", "Checks", "Simulated statistics"):
        assert f">{section}<" in html, section
    assert "rulekit-rules" in html and "rulekit-components" in html and "rulekit-checks" in html
    assert "Move the top card of the deck to your hand." in html  # English from the model
    assert ">How to play<" in html and "The game ends if" in html  # the summary at the top
    assert "Each player draws a card on their turn." in html  # the quote beside it


def test_counts_agree_with_their_nouns(built):
    game = _html(built, "game")
    assert "1 procedure, 1 ambiguity, 0 properties claimed" in game
    assert "1 place where the rulebook is ambiguous" in game
    assert "1 ambiguity in 1 game." in _html(built, "register")


def test_counted_says_regular_plurals():
    from rulekit.phrases import counted

    assert [counted(1, "ambiguity"), counted(2, "ambiguity"), counted(0, "property"), counted(3, "day"),
            counted(2, "match"), counted(1, "step")] == ["1 ambiguity", "2 ambiguities", "0 properties", "3 days",
                                                          "2 matches", "1 step"]


def _page_text(html: str) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S)
    return htmllib.unescape(re.sub(r"<[^>]+>", "", body))


def _no_repr(text: str) -> None:
    for python in ("Span(", "{'", "['", "<rulekit."):
        assert python not in text, (python, text[max(0, text.find(python) - 200):text.find(python) + 200])


def test_examples_are_laid_out_not_dumped(built):
    text = _page_text(_html(built, "game"))
    _no_repr(text)
    assert "Examples from the rulebook" in text and "The first player draws a blank card." in text
    assert "First draw" in text
    assert "With 2 players." in text and "chance: Blank" in text
    assert "the number of cards in the first player's hand is 1" in text
    assert "Other declarations" not in text


def test_no_declaration_is_dumped_on_the_pages_of_bundled_games(tmp_path, make_app):
    """Every kind of declaration is laid out, or said field by field: never as Python prints it."""
    from rulekit import resources

    games = resources.bundled_games()
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    (tmp_path / "index.rst").write_text("Games\n=====\n\n" + "".join(
        f".. rulekit-game:: {g}\n   :sections: howto,overview,rules\n\n" for g in games), encoding="utf-8")
    app = make_app("html", srcdir=tmp_path)
    app.build()
    text = _page_text(_html(app, "index"))
    _no_repr(text)
    english = English(Spec.find("chuche").model)
    for example in english.game.examples:
        _no_repr(english.generic(example))


def test_images_written(built):
    html = _html(built, "game")
    images = re.findall(r'<img src="(_images/rulekit-[^"]+\.svg)"', html)
    assert len(images) == 3  # the diagram and two plots
    for src in images:
        svg = (Path(built.outdir) / src).read_text(encoding="utf-8")
        ET.fromstring(svg)  # well-formed
        assert "<script" not in svg


def test_untrusted_text_is_escaped(built):
    for page in ("game", "parts", "register"):
        html = _html(built, page)
        assert "<script>alert" not in html
        assert "<b>Game</b>" not in html and "<i>at once</i>" not in html
    game = _html(built, "game")
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in game or "&lt;script&gt;alert(\"x\")&lt;/script&gt;" in game
    assert "Tiny &lt;b&gt;Game&lt;/b&gt;" in game
    assert "*at once*" in game  # reST markup in a quote stays literal
    assert "`nobody` wins. .. raw:: html" in game


def test_ambiguity_register_and_index(built):
    game = _html(built, "game")
    assert "What if the deck is empty?" in game
    assert "because the rulebook says so." in game and "The last player to draw wins." in game
    register = _html(built, "register")
    assert re.search(r'href="game.html#rk-tiny-ambiguity-empty-deck"', register)
    assert re.search(r'href="game.html#rk-tiny-game"', register)


def test_separate_directives(built):
    parts = _html(built, "parts")
    assert parts.count('class="rulekit-figure') == 3
    assert "rulekit-rules" in parts and "rulekit-stats" in parts


def test_rulekit_code_is_highlighted(built):
    index = _html(built, "index")
    assert 'class="highlight-rulekit' in index
    assert "&lt;em&gt;star&lt;/em&gt;" in index


def test_broken_spec_is_a_warning_not_a_traceback(tmp_path, make_app):
    src = _project(tmp_path / "src")
    (src / "spec" / "tiny.rules").write_text(SPEC.replace("zone deck: stack, hidden", ""), encoding="utf-8")
    app = make_app("html", srcdir=src)
    app.build()
    warnings = app._warning.getvalue()
    assert "does not compile" in warnings and "tiny.rules:" in warnings
    assert "Traceback" not in warnings


def test_unknown_game_is_a_warning(tmp_path, make_app):
    src = _project(tmp_path / "src", ".. rulekit-game:: no_such_game\n")
    app = make_app("html", srcdir=src)
    app.build()
    assert "no spec called 'no_such_game'" in app._warning.getvalue()


# ---- the parts, without Sphinx -----------------------------------------------------------------

def _chocobo():
    return Spec.find("chocobo").model


def test_english_covers_every_statement_of_bundled_specs():
    from rulekit import resources

    for name in resources.bundled_games():
        game = Spec.find(name).model
        english = English(game)
        for proc in (game.flow, *game.procedures):
            for line in english.block(proc.body):
                assert line.text and "Traceback" not in line.text


def test_english_has_a_generic_fallback():
    @dataclasses.dataclass(frozen=True)
    class Juggle(m.Stmt):
        balls: m.Expr
        body: tuple
        span: object = None
        quotes: tuple = ()

    @dataclasses.dataclass(frozen=True)
    class Wobble(m.Expr):
        amount: int

    english = English(_chocobo())
    inner = m.End("turn")
    lines = english.stmt(Juggle(m.Const(3, m.INT), (inner,), quotes=(m.QuoteRef("Juggle three balls."),)))
    assert lines[0].text.startswith("Juggle") and "balls 3" in lines[0].text
    assert lines[0].children[0].text == "Your turn ends."
    assert lines[0].quotes[0].text == "Juggle three balls."
    assert "wobble" in english.text(Wobble(2))
    assert english.text(m.Binary("==", Wobble(2), m.Const(1, m.INT), m.BOOL)).endswith("is 1")


TRANSLATED = """game t "T"
rulebook "rulebook.txt" source "t.txt"
players 2 to 2
zone box: set, public, initial
flow {
  end game quote "Jeder Spieler zieht." translation "Each player draws."
}
"""


def test_translated_quotes_are_shown_as_ours(tmp_path):
    model = compile_text(TRANSLATED)
    quote = model.flow.body[0].quotes[0]
    assert quote == m.QuoteRef("Jeder Spieler zieht.") and translation(quote) == "Each player draws."
    assert translation(m.QuoteRef("Each player draws.")) is None
    from rulekit.sphinx.directives import quote_nodes

    block = quote_nodes([quote])[0]
    assert "Jeder Spieler zieht." in block.astext() and "Our translation: Each player draws." in block.astext()


def test_lexer_on_bundled_specs():
    lexer = RulekitLexer()
    text = (ROOT / "specs" / "chocobo" / "chocobo.rules").read_text(encoding="utf-8")
    tokens = list(lexer.get_tokens(text))
    assert not [t for t in tokens if t[0] is Error]
    assert (String.Doc, '"43 game cards"') in tokens


def test_lexer_is_registered_with_pygments():
    from pygments.lexers import get_lexer_by_name

    try:
        lexer = get_lexer_by_name("rulekit")
    except Exception:  # noqa: BLE001 - the entry point exists only once the package is installed
        pytest.skip("rulekit is not installed (no Pygments entry point)")
    assert type(lexer).__name__ == "RulekitLexer"


def test_diagram_structure_and_escaping():
    game = _chocobo()
    flow = FlowGraph(game)
    labels = [d["label"] for _, d in flow.graph.nodes(data=True)]
    assert "Start" in labels and "Game over" in labels and "Round" in labels
    chooses = [label for label in labels if " choose" in label]
    assert chooses and not any(label.startswith("You chooses") for label in chooses)  # "You choose"
    assert any(d["style"] == "back" for _, _, d in flow.graph.edges(data=True))
    svg = turn_structure_svg(dataclasses.replace(game, title='A <"game"> & more'))
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert "A &lt;&quot;game&quot;&gt; &amp; more" in svg or "A &lt;\"game\"&gt; &amp; more" in svg


def test_game_pages_written_and_removed(tmp_path):
    write_game_pages(tmp_path, ["alpha", "beta", "bad name\n.. raw:: html"])
    assert sorted(p.name for p in tmp_path.glob("*.rst")) == ["alpha.rst", "beta.rst"]
    (tmp_path / "mine.rst").write_text("Hand-written\n", encoding="utf-8")
    write_game_pages(tmp_path, ["alpha"])
    assert sorted(p.name for p in tmp_path.glob("*.rst")) == ["alpha.rst", "mine.rst"]


def test_docs_command_without_a_project(tmp_path):
    from rich.console import Console

    from rulekit.docsite import build_site
    from rulekit.errors import RulekitError

    with pytest.raises(RulekitError, match="no Sphinx project"):
        build_site(str(tmp_path / "out"), Console(file=None, quiet=True), source_dir=tmp_path)


def test_line_text():
    assert Line(["a", "b"]).text == "ab"


def test_pages_carry_no_machine_path(built):
    root = str(Path(built.srcdir).resolve())
    for page in ("game", "parts", "register"):
        html = _html(built, page)
        assert root not in html and str(built.srcdir) not in html, page
    game = _html(built, "game")
    assert "spec/tiny.rules" in game  # a spec is named by its folder and file


def test_readings_link_to_the_register(built):
    game = _html(built, "game")
    assert re.search(r'class="[^"]*rulekit-reading-ref[^"]*" href="#rk-tiny-ambiguity-empty-deck"><em>the last',
                     game)
