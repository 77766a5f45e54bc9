"""Submit sends plain values only; the page's layout (which response slots show) follows through the
rating tab's private layout event. In a real browser: after a submit the next item's responses
show, after the last one they are hidden, and Previous brings them back with the scores given.
The rater gets in with an invite code typed into the code box."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import expect

from tests.support.browser_helpers import open_app, panel, response_region, score_all
from tests.support.seeding import db_store, invite, seed_study


def test_submit_keeps_the_layout_in_step(page, app):
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    texts = [
        {m: f"layout {token} item {k} response {m[-1]}" for m in ("BS-4", "TS-Temp", "TS-Tilted")} for k in range(2)
    ]
    study_name = f"Layout study {token}"
    sid, _ = seed_study(store, study_name, [f"Layout prompt {k} {token}" for k in range(2)], texts)
    code = invite(store, sid, f"layout-rater-{token}")
    store.dispose()

    open_app(page, app, "Rate (blind)")
    rate = panel(page)
    rate.get_by_label("Invite code or link").fill(code)
    rate.get_by_role("button", name="Start / continue").click()
    expect(rate.get_by_text("Item 1 of 2")).to_be_visible()
    expect(rate.get_by_text(f"Rating as layout-rater-{token} in {study_name}")).to_be_visible()
    response = {label: response_region(rate, label) for label in "ABCD"}
    expect(response["D"]).to_be_hidden()

    score_all(page, rate, 3, [4, 3, 5])
    rate.get_by_role("button", name="Submit ratings").click()
    expect(rate.get_by_text(re.compile(r"Item 2 of 2"))).to_be_visible()
    prompt = rate.get_by_role("textbox", name="Prompt")
    expect(prompt).to_have_value(f"Layout prompt 1 {token}")
    for label in "ABC":
        expect(response[label]).to_be_visible()
        expect(response[label]).to_contain_text(re.compile(rf"layout {token} item 1 "))
    expect(response["D"]).to_be_hidden()

    score_all(page, rate, 3, [2, 2, 2])
    rate.get_by_role("button", name="Submit ratings").click()
    expect(rate.get_by_text(re.compile(r"You have rated all 2 items"))).to_be_visible()
    expect(response["A"]).to_be_hidden()  # the layout event hid the slots
    expect(prompt).to_be_hidden()

    rate.get_by_role("button", name="← Previous").click()
    expect(rate.get_by_text(re.compile(r"Item 2 of 2"))).to_be_visible()
    for label in "ABC":
        expect(response[label]).to_be_visible()
        expect(response[label]).to_contain_text(re.compile(rf"layout {token} item 1 "))
    checked = rate.locator("fieldset").filter(visible=True).nth(0).get_by_label("2", exact=True)
    expect(checked).to_be_checked()
