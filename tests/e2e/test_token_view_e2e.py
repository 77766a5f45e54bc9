"""The token view in a real browser: tick "Record why each token was chosen", run TS-Tilted, and the
panel shows each step's candidates before and after every processor, with the token drawn."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.support.browser_helpers import open_app, set_number


def test_why_this_token_after_a_recorded_run(page, app, artifacts_dir):
    open_app(page, app)
    page.get_by_role("textbox", name="Prompt").fill("Describe the river in the city.")
    for name in ("BS-4", "TS-Temp"):
        page.get_by_role("checkbox", name=name, exact=True).uncheck()
    page.get_by_role("checkbox", name="Record why each token was chosen").check()
    page.get_by_text("Settings", exact=True).first.click()
    set_number(page, "max_new_tokens", 4)
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.get_by_text("Done: 1 methods.")).to_be_visible(timeout=240_000)
    page.get_by_text("Why this token?", exact=True).click()
    expect(page.get_by_text(re.compile(r"TS-Tilted, step 0"))).to_be_visible()
    grid = page.get_by_role("grid", name="Candidates", exact=True)
    expect(grid).to_be_visible()
    for stage in ("model", "tilt λ=0.15", "temperature 0.8", "top-k 50"):
        expect(grid.get_by_role("columnheader", name=stage)).to_have_count(1)
    expect(grid.get_by_role("row", name=re.compile("◀ drawn"))).to_have_count(1)  # one token drawn
    set_number(page, "Step (generated token number, from 0)", 2)
    expect(page.get_by_text(re.compile(r"TS-Tilted, step 2"))).to_be_visible()
    expect(page.get_by_role("grid", name=re.compile("“the” and “的”"))).to_be_visible()
    page.screenshot(path=str(artifacts_dir / "e2e-token-view.png"), full_page=True)
    assert not page.js_errors, page.js_errors
