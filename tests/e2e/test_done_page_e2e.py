"""What a rater sees around the items (issue 35): the done page offers Previous only (no Submit or Next,
no "0 of 9 scored") and does not count a skipped item as rated; Gradio's raw queue text does not show
while a Submit saves; the live "k of n scored" count is in Chinese on a Chinese browser."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import expect

from tests.support.browser_helpers import pick_option, score_all
from tests.support.seeding import db_store, invite, seed_study

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")


def one_item(app, tag: str) -> tuple[object, int, str]:
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    texts = [{m: f"{m} {tag} answer {token}" for m in METHODS}]
    sid, _ = seed_study(store, f"{tag} {token}", [f"{tag} prompt {token}"], texts)
    return store, sid, invite(store, sid, f"{tag}-{token}")


def test_the_done_page_after_a_skip(page, app, artifacts_dir):
    store, sid, code = one_item(app, "done")
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.get_by_text("Item 1 of 1")).to_be_visible(timeout=90_000)
    page.get_by_text("Skip this item, or flag a problem").click()
    pick_option(page, page.locator("body"), "Reason to skip this item", "The prompt is unclear")
    page.get_by_role("button", name="Skip this item", exact=True).click()
    done = page.get_by_text(re.compile(r"You have gone through all 1 items of this study: 0 rated, 1 skipped"))
    expect(done).to_be_visible(timeout=60_000)
    expect(page.get_by_text(re.compile(r"You have rated all"))).to_have_count(0)
    expect(page.locator("#rate-submit")).to_be_hidden()
    expect(page.get_by_role("button", name="Next →")).to_be_hidden()
    expect(page.get_by_role("button", name="← Previous")).to_be_visible()
    expect(page.get_by_text(re.compile(r"\d+ of \d+ scored"))).to_have_count(0)
    page.screenshot(path=str(artifacts_dir / "e2e-done-page.png"))
    page.get_by_role("button", name="← Previous").click()  # back to the item: the form returns
    expect(page.locator("#rate-submit")).to_be_visible(timeout=60_000)


def test_no_raw_queue_text_while_a_submit_saves(page, app):
    store, sid, code = one_item(app, "queue")
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.get_by_text("Item 1 of 1")).to_be_visible(timeout=90_000)
    score_all(page, page.locator("body"), 3, [3, 4, 5])
    held: list = []
    page.route(re.compile(r".*/queue/join.*"), lambda route: held.append(route))  # the submit waits
    page.locator("#rate-submit").click()
    page.wait_for_function("() => document.querySelector('.meta-text, .progress-text, .meta-text-center') !== null")
    shown = page.locator(".meta-text, .progress-text, .meta-text-center").filter(visible=True)
    expect(shown).to_have_count(0)
    for route in held:
        route.continue_()
    page.unroute(re.compile(r".*/queue/join.*"))


def test_the_scored_count_is_chinese_on_a_chinese_browser(browser, app, artifacts_dir):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="zh-CN")
    page = context.new_page()
    try:
        store, sid, code = one_item(app, "zh")
        page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
        expect(page.locator("#rate-responses .rate-slot fieldset").first).to_be_visible(timeout=90_000)
        page.locator("#rate-responses .rate-slot fieldset").first.locator("input[type=radio]").first.check()
        expect(page.locator("#rate-counter")).to_contain_text("已评 1 / 9")
        expect(page.get_by_text(re.compile(r"of 9 scored"))).to_have_count(0)
        page.screenshot(path=str(artifacts_dir / "e2e-zh-counter.png"))
    finally:
        context.close()
