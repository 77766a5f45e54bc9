"""Small steps the browser tests share; explicit waits on visible text, never sleeps."""

from __future__ import annotations

import os

from tests.support.live_app import LiveApp

# Debian's headless shell (what Playwright runs headless), else the full browser: the shell took
# 8-12% less CPU for the same browser test on two cores (scripts/services/chromium.sh installs the shell).
CHROMIUMS = ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")


def default_chromium() -> str:
    """The Chromium the browser tests drive when ARENA_CHROMIUM does not name one."""
    return next((c for c in CHROMIUMS if os.access(c, os.X_OK)), CHROMIUMS[-1])


def open_app(page, app: LiveApp, tab: str | None = None):
    """Load the app and wait until Gradio has rendered it; optionally switch to a tab by label."""
    page.goto(app.url, wait_until="domcontentloaded")
    page.get_by_role("tab", name="Compare").first.wait_for()
    if tab:
        page.get_by_role("tab", name=tab).first.click()
    return page


def set_number(page, label: str, value: int | float, tries: int = 5) -> None:
    """Type into a Gradio slider's number box (aria-label 'number input for LABEL') and commit it.

    A box that has just appeared (its accordion opened a moment ago) can take the typed text and then
    be re-rendered with its old value before its handlers are attached; so the value is read back after
    a short wait and typed again if it did not hold, as a person would."""
    box = page.get_by_label(f"number input for {label}")
    for _ in range(tries):
        box.fill(str(value))
        box.press("Enter")
        box.blur()
        page.wait_for_timeout(300)
        if box.input_value() == str(value):
            return


def textbox_value(page, label: str) -> str:
    return page.get_by_role("textbox", name=label, exact=True).input_value()


def panel(page):
    """The open tab's panel (Gradio renders only the selected tab's content)."""
    return page.get_by_role("tabpanel")


def pick_option(page, container, label: str, option: str | object) -> None:
    """Choose `option` (exact text or a compiled regex) in the Gradio dropdown labelled `label`."""
    container.get_by_label(label, exact=True).click()
    page.get_by_role("option", name=option).first.click()


def score_all(page, container, n_responses: int, scores: list[int]) -> None:
    """Tick one score per dimension for each of the first `n_responses` responses. The score radio
    groups are fieldsets, three per response, in page order."""
    groups = container.locator("fieldset").filter(visible=True)
    groups.nth(3 * n_responses - 1).wait_for()
    for k in range(n_responses):
        for d in range(3):
            groups.nth(3 * k + d).get_by_label(str(scores[d]), exact=True).check()


def response_region(container, label: str):
    """Response `label` of the rating form: a region named "Response A" (Markdown rendered safely)."""
    return container.get_by_role("region", name=f"Response {label}", exact=True)


def response_text(container, label: str) -> str:
    """The text of response `label` as the rater reads it (rendered, without its heading)."""
    return response_region(container, label).locator(".rate-response-body").inner_text().strip()
