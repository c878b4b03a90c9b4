"""The project's site: `rulekit docs` builds docs/ warning-free (-W -n), and the pages render in a real
browser (headless Chromium, Debian's package, driven by Selenium): a game page shows its tables, its
turn-structure diagram and its plots, and loads nothing from the network.

Slow (the site checks and simulates every bundled game). Without chromium and chromedriver the browser
test is skipped, except in CI, where .ci/run installs them.
"""
from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("matplotlib")

from rich.console import Console  # noqa: E402

from rulekit import resources  # noqa: E402
from rulekit.docsite import build_site  # noqa: E402

# slow; and one build of the site for the whole module, on one worker
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("site")]

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "html"
    log = io.StringIO()
    code = build_site(str(out), Console(file=log, width=200, color_system=None), source_dir=DOCS, quiet=True)
    assert code == 0, log.getvalue()
    return out


def test_site_has_every_page(site):
    for page in ("index", "getting-started", "cli", "language", "api", "ambiguities"):
        assert (site / f"{page}.html").is_file(), page
    for game in resources.bundled_games():
        assert (site / "games" / f"{game}.html").is_file(), game
    assert "rulekit check" in (site / "cli.html").read_text(encoding="utf-8")
    assert "rulekit.load" in (site / "api.html").read_text(encoding="utf-8")


def test_game_pages_carry_no_machine_path_and_say_how_to_play(site):
    import re

    root = str(Path(__file__).resolve().parents[1])
    for game in resources.bundled_games():
        html = (site / "games" / f"{game}.html").read_text(encoding="utf-8")
        for machine in (root, "site-packages", str(Path.home())):
            assert machine not in html, (game, machine)
        howto = html.split(f'id="rk-{game}-howto"', 1)[1].split(f'id="rk-{game}-overview"', 1)[0]
        assert "How the game ends" in howto and "_" not in re.sub(r"<[^>]+>", "", howto), game


def _browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    binary = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
    driver = shutil.which("chromedriver")
    if binary is None or driver is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have chromium and chromedriver (.ci/run installs them)")
        pytest.skip("chromium or chromedriver is not installed")
    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                "--window-size=1400,1000"):
        options.add_argument(arg)
    options.binary_location = binary
    return webdriver.Chrome(options=options, service=Service(driver))


@pytest.fixture(scope="module")
def browser():
    driver = _browser()
    yield driver
    driver.quit()


def _screenshot(driver, name: str, folder: Path) -> Path:
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1400, min(height + 100, 16000))
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    driver.set_window_size(1400, 1000)
    return path


LOADED = "return Array.from(document.querySelectorAll(arguments[0])).map(i => i.complete && i.naturalWidth > 0 " \
         "&& i.getBoundingClientRect().width > 100)"


@pytest.mark.parametrize("game", resources.bundled_games())
def test_game_page_in_chromium(site, browser, game, tmp_path_factory):
    browser.get((site / "games" / f"{game}.html").as_uri())
    assert browser.title
    visible = "return Array.from(document.querySelectorAll(arguments[0])).filter(t => t.offsetHeight > 0).length"
    for table in ("table.rulekit-components", "table.rulekit-rules", "table.rulekit-checks", "table.rulekit-stats"):
        assert browser.execute_script(visible, table) >= 1, table
    if browser.execute_script("return document.querySelectorAll('section[id^=rk-%s-ambiguity-]').length" % game):
        assert browser.execute_script(visible, "table.rulekit-options") >= 1
    diagram = browser.execute_script(LOADED, "figure.rulekit-diagram img")
    assert diagram == [True], "the turn-structure diagram did not render"
    plots = browser.execute_script(LOADED, "figure.rulekit-plot img")
    assert plots == [True, True], "the plots did not render"
    # a witness opens and shows its steps
    opened = browser.execute_script(
        "const d = document.querySelector('details.rulekit-details'); if (!d) return null; d.open = true;"
        "return d.querySelector('table, pre') ? d.querySelector('table, pre').offsetHeight : 0")
    assert opened is None or opened > 0
    # nothing is fetched from the network: no CDN
    remote = browser.execute_script(
        "return performance.getEntriesByType('resource').map(r => r.name).filter(n => !n.startsWith('file:'))")
    assert remote == []
    folder = Path(os.environ.get("RULEKIT_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    assert _screenshot(browser, f"game-{game}", folder).stat().st_size > 10_000


def test_ambiguity_index_links_to_the_registers(site, browser, tmp_path_factory):
    browser.get((site / "ambiguities.html").as_uri())
    links = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.rulekit-ambiguity-index a')).map(a => a.href)")
    assert links and all("#rk-" in href for href in links)
    browser.get(links[0])
    target = links[0].split("#", 1)[1]
    assert browser.execute_script("return document.getElementById(arguments[0]) !== null", target)
    folder = Path(os.environ.get("RULEKIT_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    browser.get((site / "ambiguities.html").as_uri())
    _screenshot(browser, "ambiguities", folder)


def test_game_pages_print_no_python_value(site):
    """Every section, the checks' bounds and the examples included, is said in words."""
    import html as htmllib
    import re

    for game in resources.bundled_games():
        page = (site / "games" / f"{game}.html").read_text(encoding="utf-8")
        page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)
        text = htmllib.unescape(re.sub(r"<[^>]+>", "", page))
        for python in ("Span(", "{'", "['"):
            assert python not in text, (game, python, text[max(0, text.find(python) - 200):text.find(python) + 200])


def test_a_register_names_the_definitions_that_depend_on_a_reading_as_the_rules_say_them(site):
    """"the definition of six crystals" named a definition by its spec name, which a reader never sees."""
    import html as htmllib
    import re

    page = (site / "games" / "chocobo.html").read_text(encoding="utf-8")
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", page))
    assert "the definition of “the player holds 6 Crystal cards of any type”" in text
