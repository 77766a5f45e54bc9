"""A real browser runs a comparison: prompt in, three outputs and a timing table out."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.support.browser_helpers import open_app, set_number, textbox_value

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")


def test_run_a_comparison_in_the_browser(page, app, artifacts_dir):
    open_app(page, app)
    page.get_by_role("textbox", name="Prompt").fill("Name one colour of the sky.")
    for name in METHODS:
        expect(page.get_by_role("checkbox", name=name, exact=True)).to_be_checked()
    page.get_by_text("Settings", exact=True).first.click()
    set_number(page, "max_new_tokens", 4)
    expect(page.get_by_label("number input for max_new_tokens")).to_have_value("4")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.get_by_text("Done: 3 methods.")).to_be_visible(timeout=240_000)
    for name in METHODS:
        assert textbox_value(page, name).strip(), f"{name} produced no text in the page"
    # One timing row per method, and the run really used the 4-token limit typed into the page.
    grid = page.get_by_role("grid", name="Timing")
    for name in METHODS:
        row = grid.get_by_role("row", name=re.compile(rf"^{re.escape(name)} \d+ "))
        expect(row).to_have_count(1)
        new_tokens = int(row.get_by_role("gridcell").nth(1).inner_text())
        assert 1 <= new_tokens <= 4, (name, new_tokens)
    page.screenshot(path=str(artifacts_dir / "e2e-compare.png"), full_page=True)
    assert not page.js_errors, page.js_errors
