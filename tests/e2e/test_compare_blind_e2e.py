"""Compare's "Run blind" in a browser (issue 24, quick rating Arena style): the outputs are rated as
A and B while the named boxes stay empty, and the methods are revealed once the scores are saved."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import expect

from tests.support.browser_helpers import open_app, score_all, set_number

RUN_TIMEOUT_MS = 240_000


def test_run_blind_rates_a_and_b_then_reveals(page, app):
    open_app(page, app)
    page.get_by_role("textbox", name="Prompt").fill(f"Name a colour of the sea, note {secrets.token_hex(3)}.")
    for name in ("TS-Tilted", "BS-4"):
        page.get_by_role("checkbox", name=name, exact=True).uncheck()
    page.get_by_role("checkbox", name="Greedy", exact=True).check()
    page.get_by_text("Settings", exact=True).first.click()
    set_number(page, "max_new_tokens", 6)
    page.get_by_role("button", name="Run blind", exact=True).click()
    panel = page.locator("#compare-blind")
    expect(panel).to_contain_text("Rate blind", timeout=RUN_TIMEOUT_MS)
    expect(panel.get_by_role("region", name="Response A", exact=True)).to_be_visible()
    expect(panel.get_by_role("region", name="Response B", exact=True)).to_be_visible()
    for name in ("TS-Temp", "Greedy"):  # the named boxes hold nothing yet
        assert page.get_by_role("textbox", name=name, exact=True).input_value() == ""
    expect(panel).not_to_contain_text("TS-Temp")
    page.get_by_role("button", name="Submit and reveal", exact=True).click()  # nothing scored: refused
    expect(page.locator("#compare-blind-message")).to_contain_text("⚠", timeout=60_000)
    assert page.get_by_role("textbox", name="TS-Temp", exact=True).input_value() == ""

    score_all(page, panel, 2, [4, 3, 5])
    page.get_by_role("button", name="Submit and reveal", exact=True).click()
    message = page.locator("#compare-blind-message")
    expect(message).to_contain_text("Revealed", timeout=60_000)
    expect(message.get_by_role("row", name=re.compile(r"^A (TS-Temp|Greedy) 4 3 5$"))).to_have_count(1)
    expect(message.get_by_role("row", name=re.compile(r"^B (TS-Temp|Greedy) 4 3 5$"))).to_have_count(1)
    expect(page.get_by_role("textbox", name="TS-Temp", exact=True)).not_to_have_value("", timeout=30_000)
    expect(page.get_by_role("grid", name="Timing")).to_be_visible()
    assert not page.js_errors, page.js_errors
