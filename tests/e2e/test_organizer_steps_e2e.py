"""The organizer, step by step, in a browser (issue 24): no error toast on unlocking, the pasted box
wins over "Built-in scenarios" (the preview quotes it), full invite links with a working Copy
button, the invited rater in "Progress per rater" as "not started", times to the second, and progress
with the time left from the first output. On the dummy engine at a model's pace (live_app.DUMMY_ENGINE):
each output takes real time, so the time left is measured, and what it says is not tested."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import expect

from tests.support.browser_helpers import open_app, panel
from tests.support.live_app import ORGANIZER_PASSWORD

GENERATION_TIMEOUT_MS = 480_000  # three 4-token outputs, beam search included, on two busy cores
# Every toast that ever shows (they fade, so they are recorded as they appear).
WATCH_TOASTS = """() => {
  window.__toasts = [];
  new MutationObserver(() => {
    document.querySelectorAll('[data-testid=toast-body]').forEach((t) => {
      if (!t.__seen) { t.__seen = true; window.__toasts.push(t.innerText); }
    });
  }).observe(document.body, {childList: true, subtree: true});
}"""
# Every text the page shows while generating that gives outputs done and the time left (arena/runs/eta.py).
WATCH_ETA = """() => {
  window.__eta = [];
  new MutationObserver(() => {
    const found = document.body.innerText.match(/\\d+ of \\d+ outputs · [^\\n]*/g) || [];
    found.forEach((t) => { if (!window.__eta.includes(t)) window.__eta.push(t); });
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


def test_organizer_step_by_step(page, dummy_app):
    token = secrets.token_hex(3)
    rater = f"steps-rater-{token}"
    open_app(page, dummy_app, "Organizer")
    page.evaluate(WATCH_TOASTS)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=dummy_app.url)
    org = panel(page)
    org.get_by_label("Organizer password").fill(ORGANIZER_PASSWORD)
    org.get_by_label("Organizer password").press("Enter")
    expect(org.get_by_text("Unlocked.")).to_be_visible(timeout=60_000)

    # The pasted box has content, the radio is put back on the built-ins: the content wins.
    org.get_by_label("Study name").fill(f"Steps study {token}")
    org.get_by_label("Pasted prompts (one per line)").fill(f"Say hello to a neighbour {token}.")
    org.get_by_label("Built-in scenarios", exact=True).check()
    org.get_by_label("max_new_tokens").fill("4")
    org.get_by_label("max_new_tokens").blur()
    preview = page.locator("#organizer-preview")
    expect(preview).to_contain_text("1 prompt × 3 methods = 3 outputs", timeout=60_000)
    expect(preview).to_contain_text(f"Say hello to a neighbour {token}.")
    page.evaluate(WATCH_ETA)
    org.get_by_role("button", name="Create study and generate its outputs").click()
    expect(org.get_by_text(re.compile(r"Study #\d+ created: 3 of 3 outputs stored"))).to_be_visible(
        timeout=GENERATION_TIMEOUT_MS
    )
    expect(org.get_by_text(re.compile(r"3 of 3 outputs · took \d+ (s|min)"))).to_be_visible()
    seen = page.evaluate("window.__eta")
    # From the first output on, the progress bar gives the time left as measured on this run.
    assert any(
        re.match(r"[12] of 3 outputs · about \d+ (s|min) left \(\d+(\.\d+)? tokens/s measured", t) for t in seen
    ), seen
    studies = org.get_by_role("grid", name=re.compile(r"^Studies"))
    expect(studies).to_contain_text(re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"))  # created, to the second

    org.get_by_label("Invite raters (names, comma or line separated; display only)").fill(rater)
    org.get_by_role("button", name="Create invite codes").click()
    links = page.locator("#organizer-invite-links")
    expect(links).to_contain_text(f"{dummy_app.url}/?invite=")  # a full address, ready to mail
    link = re.search(r"https?://\S+/\?invite=[A-Za-z0-9_-]+", links.inner_text()).group(0)
    copy = links.get_by_role("button", name=f"Copy the invite link of {rater}")
    copy.click()
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == link

    progress = org.get_by_role("grid", name=re.compile(r"^Progress per rater"))
    expect(progress).to_contain_text(rater)
    expect(progress).to_contain_text("not started")
    toasts = page.evaluate("window.__toasts")
    assert not [t for t in toasts if "error" in t.lower()], toasts
