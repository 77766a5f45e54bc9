"""Results opens on the newest published study (no "choose a study", no error badges), and the
stakeholder page fits a 390x844 phone: nothing scrolls sideways, and axe-core finds no serious or
critical violation there either."""

from __future__ import annotations

import secrets

import pytest
from playwright.sync_api import expect

from tests.e2e.test_a11y_e2e import axe_problems, published_study
from tests.support.browser_helpers import open_app, panel

PHONE = {"width": 390, "height": 844}


def test_results_opens_on_the_newest_published_study(page, app):
    token = secrets.token_hex(3)
    sid = published_study(app, token)
    open_app(page, app, "Results")
    tab = panel(page)
    expect(tab.get_by_label("Study", exact=True)).to_have_value(f"Sea study {token} (#{sid})")
    page.locator("#results-story").get_by_text("Presentation view").wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    expect(page.get_by_role("grid", name="Per method")).to_be_visible()
    expect(page.get_by_text("Error", exact=True)).to_have_count(0)
    assert page.locator('[aria-label="Empty value"]').count() == 0


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_stakeholder_page_on_a_phone_has_no_sideways_scroll(browser, app, artifacts_dir, locale):
    sid = published_study(app, secrets.token_hex(3))
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale=locale)
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(f"{app.url}/present?study={sid}", wait_until="load")
        page.locator("#takeaway").wait_for()
        page.locator("figure.chart .main-svg").first.wait_for()
        # issue 24: a Chinese browser gets the page in Chinese (Accept-Language), in the same layout
        expect(page.locator("html")).to_have_attribute("lang", "zh-CN" if locale == "zh-CN" else "en")
        expect(page.locator("h2").first).to_have_text("每种方法" if locale == "zh-CN" else "Per method")
        widths = page.evaluate(
            "() => ({doc: document.documentElement.scrollWidth, body: document.body.scrollWidth,"
            " view: window.innerWidth})"
        )
        assert widths["view"] == PHONE["width"]
        assert widths["doc"] <= widths["view"] and widths["body"] <= widths["view"], widths
        page.screenshot(path=str(artifacts_dir / f"e2e-present-phone-{locale}.png"), full_page=True)
        problems = axe_problems(page, "stakeholder page at 390x844")
        assert not problems, "\n".join(problems)
    finally:
        context.close()
