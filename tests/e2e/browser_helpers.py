"""Small steps the browser tests share; explicit waits on visible text, never sleeps."""

from __future__ import annotations

from live_app import LiveApp


def open_app(page, app: LiveApp, tab: str | None = None):
    """Load the app and wait until Gradio has rendered it; optionally switch to a tab by label."""
    page.goto(app.url, wait_until="domcontentloaded")
    page.get_by_role("tab", name="Compare").first.wait_for()
    if tab:
        page.get_by_role("tab", name=tab).first.click()
    return page


def set_number(page, label: str, value: int | float) -> None:
    """Type into a Gradio slider's number box (aria-label 'number input for LABEL') and commit it."""
    box = page.get_by_label(f"number input for {label}")
    box.fill(str(value))
    box.press("Enter")
    box.blur()


def textbox_value(page, label: str) -> str:
    return page.get_by_role("textbox", name=label, exact=True).input_value()
