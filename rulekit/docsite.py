"""`rulekit docs`: build the documentation site (Sphinx) from the specs, warnings as errors."""
from __future__ import annotations

import io
import tempfile
import time
from pathlib import Path

from . import resources
from .errors import RulekitError


def docs_dir() -> Path:
    """The project's docs/ folder: the checkout's that rulekit runs from, else ./docs (the site is not
    shipped in the wheel, so an installed rulekit builds the checkout it is run in)."""
    for candidate in (resources._CHECKOUT / "docs", Path.cwd() / "docs"):
        if (candidate / "conf.py").is_file():
            return candidate
    return Path.cwd() / "docs"


def build_specs(targets: list[str], out_dir: str, console, title: str | None = None, quiet: bool = False) -> int:
    """Build a site of the given specs (bundled names, folders, .rules files) into `out_dir`, from a Sphinx
    project written to a temporary folder: no checkout needed."""
    for module in ("sphinx", "furo", "matplotlib"):
        try:
            __import__(module)
        except ImportError:
            raise RulekitError(f'{module} is not installed: pip install "rulekit[docs]"') from None
    from .docproject import write_project

    with tempfile.TemporaryDirectory(prefix="rulekit-docs-") as tmp:
        project = Path(tmp) / "source"
        project.mkdir()
        pages = write_project(project, targets, title)
        console.print(f"documenting {', '.join(p.title for p in pages)}")
        return build_site(out_dir, console, project, quiet, doctrees_dir=Path(tmp) / "doctrees")


def build_site(out_dir: str, console, source_dir: str | Path | None = None, quiet: bool = False,
               doctrees_dir: str | Path | None = None) -> int:
    """Build the HTML site into `out_dir` as `sphinx-build -W -n --keep-going` would; 0 on success,
    1 when Sphinx reported warnings (they are printed), 2 when the build cannot start."""
    src = Path(source_dir) if source_dir is not None else docs_dir()
    if not (src / "conf.py").is_file():
        raise RulekitError(f"no Sphinx project at {src} (docs/conf.py) to build the rulekit site from; to "
                           "document specs, name them: rulekit docs GAME|FOLDER|FILE.rules ... --out DIR")
    try:
        from sphinx.application import Sphinx
        from sphinx.errors import SphinxError
        from sphinx.util.docutils import docutils_namespace, patch_docutils
    except ImportError:
        raise RulekitError('Sphinx is not installed: pip install "rulekit[docs]"') from None
    out = Path(out_dir)
    if doctrees_dir is not None:
        doctrees = Path(doctrees_dir)
    else:
        doctrees = out.parent / (out.name + ".doctrees") if out.name else out / ".doctrees"
    warnings = io.StringIO()
    status = io.StringIO()
    started = time.monotonic()
    console.print(f"building the docs into {out} (warnings are errors) ...")
    try:
        with patch_docutils(src), docutils_namespace():
            app = Sphinx(str(src), str(src), str(out), str(doctrees), "html", status=status, warning=warnings,
                         freshenv=False, warningiserror=True, keep_going=True, verbosity=0)
            app.config.nitpicky = True
            _progress(app, console, quiet)
            app.build()
            code = app.statuscode
    except SphinxError as exc:
        console.print(warnings.getvalue(), markup=False, highlight=False, end="")
        console.print(f"[red]the docs could not be built:[/] {exc}", highlight=False)
        return 1
    text = warnings.getvalue()
    if text:
        console.print(text, markup=False, highlight=False, end="")
    seconds = time.monotonic() - started
    if code or text:
        console.print(f"[red]the docs have warnings[/] ({seconds:.1f} s); fix them: the build treats them as errors")
        return 1
    console.print(f"built {out / 'index.html'} in {seconds:.1f} s")
    return 0


def _progress(app, console, quiet: bool) -> None:
    if quiet:
        return
    seen = {"read": 0, "write": 0}

    def reading(app_, docname, source):
        seen["read"] += 1
        console.print(f"  reading {docname}", highlight=False)

    def writing(app_, pagename, templatename, context, doctree):
        seen["write"] += 1

    app.connect("source-read", reading)
    app.connect("html-page-context", writing)
