"""Compare for a newcomer (issue 35, item 7), in a real browser at 1280×800: the article's three
methods and Run on the first screen with a time line beside it, every other decoder behind one
"More methods" control, and a method chosen there really runs. Fails on the old layout (30 method
boxes pushed Run below the fold and no line said how long a run would take)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.support.browser_helpers import open_app, set_number, textbox_value

ARTICLE = ("BS-4", "TS-Temp", "TS-Tilted")


def test_a_newcomer_sees_three_methods_run_and_a_time_line_on_the_first_screen(browser, app, artifacts_dir):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_app(page, app)
        run = page.get_by_role("button", name="Run", exact=True)
        run.wait_for()
        box = run.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 800, f"Run is below the fold: {box}"
        methods = page.locator("#compare-methods")
        expect(methods.get_by_role("checkbox")).to_have_count(len(ARTICLE))
        for name in ARTICLE:
            expect(methods.get_by_role("checkbox", name=name, exact=True)).to_be_checked()
        # "More methods" are labelled with their group and a hint: "Greedy · standard sampler: …"
        greedy = page.get_by_role("checkbox", name=re.compile(r"^Greedy · standard sampler: "))
        expect(greedy).to_be_hidden()  # behind "More methods" until asked for
        estimate = page.locator("#compare-estimate")
        expect(estimate).to_contain_text(re.compile(r"3 methods × up to \d+ new tokens"))
        line = estimate.bounding_box()
        assert line is not None and line["y"] + line["height"] <= 800, f"the time line is below the fold: {line}"
        page.screenshot(path=str(artifacts_dir / "e2e-compare-newcomer.png"))

        # One more method from under "More methods", two article ones off: Greedy's column appears and runs.
        page.locator("#compare-more-methods").get_by_text("More methods", exact=True).click()
        greedy.check()
        for name in ("BS-4", "TS-Tilted"):
            methods.get_by_role("checkbox", name=name, exact=True).uncheck()
        expect(estimate).to_contain_text("2 methods")
        page.get_by_text("Settings", exact=True).first.click()
        set_number(page, "max_new_tokens", 3)
        expect(estimate).to_contain_text("up to 3 new tokens")
        run.click()  # with no prompt: one line by Run, as for any refused run
        expect(page.locator("#compare-status")).to_contain_text("the prompt is empty")
        page.get_by_role("textbox", name="Prompt").fill("The harbour at dawn was")
        run.click()
        expect(page.get_by_text("Done: 2 methods.")).to_be_visible(timeout=240_000)
        assert textbox_value(page, "Greedy").strip() and textbox_value(page, "TS-Temp").strip()
        # Measured now: the line gives a time from this machine's own rate.
        expect(estimate).to_contain_text(re.compile(r"About \d+ (s|min).*measured here: [\d.]+ tokens/s"))
        # A preset names an article method: it is ticked in its box, and Greedy stays chosen.
        page.get_by_label("Precise").check()
        expect(methods.get_by_role("checkbox", name="BS-4", exact=True)).to_be_checked()
        expect(greedy).to_be_checked()
        expect(estimate).to_contain_text("3 methods")
        assert not errors, errors
    except Exception:
        page.screenshot(path=str(artifacts_dir / "e2e-FAILED-compare-newcomer.png"), full_page=True)
        raise
    finally:
        context.close()
