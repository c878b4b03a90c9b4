"""rulekit's Sphinx extension: document games from their specs.

Add ``"rulekit.sphinx"`` to ``extensions`` in a Sphinx project's conf.py, then::

    .. rulekit-game:: mygame             (a whole page: every section below)

    .. rulekit-overview:: mygame         players, components with counts, zones, set-up
    .. rulekit-turns:: mygame            the turn structure as a diagram (SVG, made offline)
    .. rulekit-rules:: mygame            the rules in English beside the rulebook quotes
    .. rulekit-ambiguities:: mygame      the ambiguity register and what the checks report per option
    .. rulekit-checks:: mygame           verdicts with method and bound, witnesses step by step
    .. rulekit-statistics:: mygame       simulated game length and outcomes per seat, with plots
    .. rulekit-ambiguity-index::         every ambiguity of every bundled game (or of the games named)

GAME is a bundled game's name, a spec folder or a .rules file (relative to the document). Code blocks
in the ``rulekit`` language are highlighted by :class:`rulekit.sphinx.lexer.RulekitLexer`.

Settings (conf.py): ``rulekit_check_bounds`` (a dict of :class:`rulekit.checking.PlayBounds` fields),
``rulekit_simulation_games``, ``rulekit_simulation_max_steps``, ``rulekit_simulation_seed``.
"""
from __future__ import annotations

from pathlib import Path

from .. import __version__
from .directives import DIRECTIVES
from .lexer import RulekitLexer
from .nodes import add_nodes

STATIC = Path(__file__).parent / "static"


def _add_static(app, config) -> None:
    static = [str(p) for p in config.html_static_path]
    if str(STATIC) not in static:
        config.html_static_path.append(str(STATIC))


def setup(app):
    app.add_config_value("rulekit_check_bounds", {"games": 20, "variant_games": 5, "max_steps": 1000, "seed": 0},
                         "env", types=[dict])
    app.add_config_value("rulekit_simulation_games", 200, "env", types=[int])
    app.add_config_value("rulekit_simulation_max_steps", 1000, "env", types=[int])
    app.add_config_value("rulekit_simulation_seed", 0, "env", types=[int])
    app.add_lexer("rulekit", RulekitLexer)
    add_nodes(app)
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.connect("config-inited", _add_static)
    app.add_css_file("rulekit.css")
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 1}
