"""Organizer dashboard in a browser: the preview counts what "Create" would generate, and the
progress bar moves during generation (Gradio shows the gr.Progress ticks of arena/studies/generate.py:
"k/n outputs"), not only at the end. The outputs come from the dummy engine at a model's pace
(live_app.DUMMY_ENGINE): each takes real time, what it says is not tested."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import expect

from tests.support.browser_helpers import open_app, panel
from tests.support.live_app import ORGANIZER_PASSWORD

WATCH = """() => {
  window.__progress = [];
  new MutationObserver(() => {
    const m = document.body.innerText.match(/(\\d+)\\s*\\/\\s*(\\d+)\\s*outputs/);
    if (m && window.__progress[window.__progress.length - 1] !== m[0]) window.__progress.push(m[0]);
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


def test_preview_then_a_progress_bar_that_moves(page, dummy_app):
    token = secrets.token_hex(3)
    open_app(page, dummy_app, "Organizer")
    org = panel(page)
    org.get_by_label("Organizer password").fill(ORGANIZER_PASSWORD)
    org.get_by_label("Organizer password").press("Enter")
    expect(org.get_by_text("Unlocked.")).to_be_visible(timeout=60_000)
    org.get_by_label("Study name").fill(f"Progress study {token}")
    org.get_by_label("Pasted list (one prompt per line)").check()
    org.get_by_label("Pasted prompts (one per line)").fill("\n".join(f"Name a colour, {k} {token}." for k in range(4)))
    org.get_by_label("max_new_tokens").fill("4")
    org.get_by_label("max_new_tokens").blur()
    preview = page.locator("#organizer-preview")
    expect(preview).to_contain_text("4 prompts × 3 methods = 12 outputs", timeout=60_000)
    page.evaluate(WATCH)
    org.get_by_role("button", name="Create study and generate its outputs").click()
    expect(org.get_by_text(re.compile(r"Study #\d+ created: 12 of 12 outputs stored"))).to_be_visible(timeout=600_000)
    seen = page.evaluate("window.__progress")
    print("progress seen:", seen)
    assert len(seen) >= 2, f"the progress bar showed {seen}"
    counts = [int(re.match(r"(\d+)", s).group(1)) for s in seen]
    # the bar moves forward until the run is complete (a late repaint after that is not progress)
    upto = counts[: counts.index(12) + 1] if 12 in counts else counts
    assert upto == sorted(upto) and 0 < max(counts) <= 12 and min(counts) < 12, seen
