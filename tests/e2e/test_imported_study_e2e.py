"""The stakeholder page of an imported survey, served by the running app to a real browser, says where
its ratings came from instead of "double-blind" (issue 46; the handlers and words are checked without a
browser in tests/test_imported_study.py)."""

from __future__ import annotations

import secrets

from playwright.sync_api import expect

from arena import studies
from tests.support.seeding import db_store
from tests.test_imported_study import FROM, import_survey
from ui.organizer import handlers as h


def test_the_present_page_of_an_imported_survey_names_its_provenance(page, app):
    store = db_store(app.workdir)
    try:
        sid = import_survey(store, f"Survey {secrets.token_hex(3)}")
        h.set_state(store, studies.publish_study, sid)  # through the Organizer's handler
    finally:
        store.dispose()
    page.goto(f"{app.url}/present?study={sid}", wait_until="load")
    expect(page.locator("p.sub")).to_contain_text(f"Study #{sid} · 1 prompt · 192 ratings by 48 raters, {FROM}")
    expect(page.locator("#takeaway")).to_contain_text("N = 1 prompt, 192 ratings by 48 raters")
    expect(page.get_by_text("double-blind")).to_have_count(0)
