"""Compare never shows a wall of red (issue 24), in a browser: a reserved prompt is refused in one
line by Run with no error badge anywhere; Run shows it is busy and the status is by it; beam search's
wait is explained; Stop ends the run on screen with "Stopped" and the finished method's timing. On the
dummy engine at a model's pace (live_app.DUMMY_ENGINE): beam search takes its time, as a model's does."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import expect

from arena.store import Store
from tests.support.browser_helpers import open_app, set_number

RUN_TIMEOUT_MS = 240_000
WATCH_ERRORS = """() => {
  window.__errors = [];
  new MutationObserver(() => {
    document.querySelectorAll('[data-testid=toast-body], .error').forEach((t) => {
      if (!t.__seen) { t.__seen = true; window.__errors.push(t.className + ': ' + t.innerText); }
    });
  }).observe(document.body, {childList: true, subtree: true});
}"""


def test_a_refusal_is_one_line_and_stop_ends_the_run_on_screen(page, dummy_app):
    token = secrets.token_hex(3)
    reserved_prompt = f"Describe the moon over a harbour in winter, note {token}."
    store = Store(f"sqlite:///{dummy_app.env['ARENA_DB_PATH']}")
    try:
        sid = store.create_study(f"calm {token}", methods=["TS-Temp", "Greedy"])
        store.add_items(sid, [{"prompt": reserved_prompt}])
    finally:
        store.dispose()

    open_app(page, dummy_app)
    page.evaluate(WATCH_ERRORS)
    status = page.locator("#compare-status")
    run = page.get_by_role("button", name="Run", exact=True)
    page.get_by_role("textbox", name="Prompt").fill(reserved_prompt)
    run.click()
    expect(status).to_contain_text("reserved for a blind rating study", timeout=60_000)
    expect(run).to_be_enabled()
    assert page.evaluate("window.__errors") == []  # no toast, no red badge over any box

    # A run that is stopped while beam search, last, is generating.
    page.get_by_role("textbox", name="Prompt").fill(f"Tell a long story about a lighthouse keeper {token}.")
    page.get_by_role("checkbox", name="TS-Tilted", exact=True).uncheck()
    page.get_by_text("Settings", exact=True).first.click()
    set_number(page, "max_new_tokens", 160)
    run.click()
    busy = page.get_by_role("button", name="Running…", exact=True)
    expect(busy).to_be_disabled(timeout=60_000)
    expect(status).to_contain_text("BS-4: beam search runs last and arrives whole", timeout=RUN_TIMEOUT_MS)
    expect(status).to_contain_text(re.compile(r"Running\s+BS-4"), timeout=RUN_TIMEOUT_MS)
    page.get_by_role("button", name="Stop", exact=True).click()
    expect(status).to_contain_text("Stopped after 1 of 2 methods", timeout=60_000)
    expect(status).to_contain_text("timing of TS-Temp is kept")
    expect(run).to_be_enabled()
    grid = page.get_by_role("grid", name="Timing")
    expect(grid.get_by_role("row", name=re.compile(r"^TS-Temp \d+ "))).to_have_count(1)
    expect(page.locator("#compare-timing-caveat")).to_contain_text("One run on this machine")
    assert page.evaluate("window.__errors") == []
    assert not page.js_errors, page.js_errors
