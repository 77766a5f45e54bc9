"""Names from an imported ratings file render as text in a real browser (issue 44): a file whose every
name field carries markup is imported (the code of `python -m arena.export --import-ratings`) and
published, then the stakeholder page and the Results tab are opened in Chromium. A payload that ran
sets `window.__xss`; one that rendered leaves a live image, script, link to evil or bold "b" in the
page, plotly's charts included (plotly reads <a href> in a label as a link)."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import expect

from arena.files.long_import import import_long_file
from tests.support.browser_helpers import open_app, panel, pick_option
from tests.support.seeding import db_store, publish
from tests.test_escape_names import METHODS, write_file

RAN = "<img src=x onerror=\"window.__xss='name'\">"  # quotes: not in a dimension, but in a study name
LIVE_MARKUP = "img[src='x'], img[src*='evil'], a[href*='evil'], [onerror], strong:text-is('b'), em:text-is('b')"


def imported_study(app, tmp_path, token: str) -> tuple[int, str]:
    store = db_store(app.workdir)
    name = f"Escapes {token} {RAN} [x](http://evil) **b**"
    [made] = import_long_file(store, write_file(tmp_path / "survey.csv"), name, {"": (1, 10)})
    publish(store, int(made["study_id"]))
    store.dispose()
    return int(made["study_id"]), name


def markup_in(page, scope) -> list[str]:
    problems = [] if page.evaluate("window.__xss") is None else [f"a payload ran: {page.evaluate('window.__xss')}"]
    live = scope.locator(LIVE_MARKUP)
    problems += [live.nth(i).evaluate("e => e.outerHTML") for i in range(live.count())]
    links = scope.locator("svg a")  # plotly draws a <a href> from a label as an SVG link
    problems += [links.nth(i).evaluate("e => e.outerHTML") for i in range(links.count())]
    return problems


def test_imported_names_render_as_text_on_present_and_results(page, app, tmp_path):
    token = secrets.token_hex(3)
    sid, name = imported_study(app, tmp_path, token)

    page.goto(f"{app.url}/present?study={sid}", wait_until="load")
    page.locator("figure.chart .main-svg").first.wait_for()
    expect(page.locator("h1")).to_have_text(name)  # the name, character for character, as text
    body = page.locator("body")
    for method in METHODS:
        expect(body).to_contain_text(method)
    legend = page.locator("figure.chart .legendtext").evaluate_all("els => els.map(e => e.textContent)")
    assert set(METHODS) <= set(legend), legend  # plotly shows the names, not their markup
    problems = markup_in(page, body)

    open_app(page, app, "Results")
    tab = panel(page)
    pick_option(page, tab, "Study", re.compile(f"Escapes {token}"))
    tab.get_by_label("Perplexity under the loaded model").uncheck()
    tab.get_by_role("button", name="Show results").click()
    expect(tab.get_by_text(re.compile(r"12 prompts · 144 ratings by 4 raters"))).to_be_visible(timeout=240_000)
    page.locator("#results-story").get_by_text("Presentation view").wait_for()
    for method in METHODS:
        expect(tab.locator(".prose").filter(has_text=method).first).to_be_visible()
    problems += markup_in(page, tab)
    assert not problems, "\n".join(problems)
    assert not page.js_errors, page.js_errors
