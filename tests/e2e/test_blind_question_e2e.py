"""The blind question after Submit takes the responses' place (issue 35): on the first screen at laptop
1280x800 and phone 390x844, the keyboard on its first choice, keys 1-3 and 0 (don't know) answering it;
and every radio group is one Tab stop, arrow keys inside (the ARIA radio-group pattern)."""

from __future__ import annotations

import secrets

import pytest
from playwright.sync_api import expect

from tests.support.browser_helpers import score_all
from tests.support.seeding import db_store, invite

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
SCREENS = {"laptop": (1280, 800), "phone": (390, 844)}


def guessing_study(app, token: str, methods=METHODS, n_items: int = 2, **design) -> tuple[object, int, str]:
    """An open study asking the blind question about BS-4 (`design`: create_study's design arguments)."""
    store = db_store(app.workdir)
    sid = store.create_study(
        f"Question {token}", model="m", methods=list(methods), settings={m: {} for m in methods},
        guess_methods=["BS-4"], **design,
    )  # fmt: skip
    prompts = [{"prompt": f"Question prompt {k} {token}", "scenario": "seeded"} for k in range(n_items)]
    for iid in store.add_items(sid, prompts):
        for m in methods:
            store.add_output(iid, m, 0, text=f"{m} wrote {iid} {token} " * 30, settings={}, seed=1, model="m",
                             new_tokens=4)  # fmt: skip
    return store, sid, invite(store, sid, f"question-{token}")


def focused_in(page, selector: str) -> bool:
    return page.evaluate(f"() => !!(document.activeElement && document.activeElement.closest({selector!r}))")


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_question_takes_the_responses_place_with_focus_and_keys(browser, app, screen, artifacts_dir):
    width, height = SCREENS[screen]
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = context.new_page()
    try:
        token = secrets.token_hex(3)
        store, sid, code = guessing_study(app, token)
        page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
        expect(page.get_by_text("Item 1 of 2")).to_be_visible(timeout=90_000)
        score_all(page, page.locator("body"), 3, [4, 3, 5])
        page.locator("#rate-submit").click()
        question = page.locator("#rate-guess")
        expect(question).to_be_visible(timeout=60_000)
        expect(page.locator("#rate-responses")).to_be_hidden()  # the question stands in their place
        page.wait_for_function("() => document.activeElement && document.activeElement.closest('#rate-guess')")
        box = question.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + 120 <= height, box  # on the first screen
        page.screenshot(path=str(artifacts_dir / f"e2e-blind-question-{screen}.png"))
        page.keyboard.press("0")  # don't know
        expect(page.locator("#rate-guess-send")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.get_by_text("Item 2 of 2")).to_be_visible(timeout=60_000)
        expect(page.locator("#rate-responses")).to_be_visible()
        assert len(store.guesses(sid)) == 1
    finally:
        context.close()


def test_a_radio_group_is_one_tab_stop_with_arrows_inside(page, app):
    token = secrets.token_hex(3)
    _, _, code = guessing_study(app, token)
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.get_by_text("Item 1 of 2")).to_be_visible(timeout=90_000)
    groups = page.locator(".rate-slot fieldset").filter(visible=True)
    first = groups.nth(0).locator("input[type=radio]").first
    page.wait_for_function(
        "() => { const f = document.querySelector('.rate-slot fieldset'); const r = f && f.querySelectorAll('input[type=radio]');"
        " return r && r.length > 1 && r[1].getAttribute('tabindex') === '-1'; }"
    )
    first.focus()
    page.keyboard.press("ArrowRight")  # picks the second option of the same group
    expect(groups.nth(0).locator("input[type=radio]").nth(1)).to_be_checked()
    expect(groups.nth(0).locator("input[type=radio]").nth(1)).to_be_focused()
    page.keyboard.press("Tab")  # one stop per group: on to the next group, not the third option
    assert page.evaluate(
        "() => document.activeElement.closest('fieldset') === document.querySelectorAll('.rate-slot fieldset')[1]"
    )


PAIR = ("BS-4", "TS-Temp")  # every pair holds the question's target, so every answer is stored


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_pairwise_question_comes_first_with_focus_and_keys(browser, app, screen, artifacts_dir):
    """Issue 35, item 2 on a pairwise study: after a vote the question stands above the pair, on the
    first screen, the keyboard on its first choice; 2 answers B, Enter sends it and the next pair comes."""
    width, height = SCREENS[screen]
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = context.new_page()
    try:
        token = secrets.token_hex(3)
        store, sid, code = guessing_study(app, token, PAIR, 3, design="pairwise", state="open")
        page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
        expect(page.locator("#pair-progress")).to_contain_text("Item 1 of 3", timeout=90_000)
        page.locator("#pair-vote-a").focus()
        page.keyboard.press("1")  # A is better
        question = page.locator("#pair-guess")
        expect(question).to_be_visible(timeout=60_000)
        page.wait_for_function("() => document.activeElement && document.activeElement.closest('#pair-guess')")
        box = question.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + 120 <= height, box  # on the first screen
        page.screenshot(path=str(artifacts_dir / f"e2e-pair-question-{screen}.png"))
        page.keyboard.press("2")  # B
        expect(question.locator("fieldset").filter(visible=True).first.get_by_label("B", exact=True)).to_be_checked()
        expect(page.locator("#pair-guess-send")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.locator("#pair-progress")).to_contain_text("Item 2 of 3", timeout=60_000)
        expect(question).to_be_hidden()
        [guess] = store.guesses(sid)
        assert guess.target_method == "BS-4" and guess.guessed_position == 1  # B, the second of the pair
    finally:
        context.close()
