"""Sphinx configuration of the rulekit site: `rulekit docs` or `sphinx-build -W -n docs docs/_build/html`.

One page per bundled game is written to docs/games/ (git-ignored) at every build, so that a new spec
gets its page without anyone editing the docs.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # document this checkout's rulekit, installed or not

import rulekit  # noqa: E402
from rulekit import resources  # noqa: E402
from rulekit.sphinx.pages import write_game_pages  # noqa: E402

project = "rulekit"
author = "the rulekit authors"
copyright = "the rulekit authors"  # noqa: A001
release = version = rulekit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
    "rulekit.sphinx",
]

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
nitpicky = True
# Names in signatures that autodoc cannot link (third-party or private types).
nitpick_ignore_regex = [
    (r"py:.*", r"(rich|lark|random|pathlib|argparse|collections)\..*"),
    (r"py:.*", r"(Path|Console|Node|Span|Type|Expr|Stmt|Binder|Iter|Selector|Action|Param|Option)"),
    (r"py:class", r"rulekit\.lower\.(layout\.Layout|actions\.ActionTable)"),
    (r"py:.*", r"(m|model)\..*"),
    (r"py:class", r"(optional|callable|_io\..*|T|Part|dict\[.*|list\[.*|tuple\[.*)"),
]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"

html_theme = "furo"
html_title = f"rulekit {release}"
html_static_path: list[str] = []
html_theme_options = {"navigation_with_keys": True}
pygments_style = "friendly"
pygments_dark_style = "monokai"

# Small bounds keep the build quick: the verdicts shown say which bounds they have.
# Names that this version's rulekit.checking.PlayBounds lacks are ignored.
rulekit_check_bounds = {"games": 10, "variant_games": 3, "max_steps": 500, "seed": 0, "max_states": 1000,
                        "time_limit": 0.2, "solver_timeout": 1.0, "shrink": False}
rulekit_simulation_games = 80
rulekit_simulation_max_steps = 1000
rulekit_simulation_seed = 0

GAMES = write_game_pages(HERE / "games", resources.bundled_games())
