"""Issue 46 in a real browser: a study asking a 1-10, a 1-7, a yes/no, a choice and a comment, rated on a
laptop with digit keys where the form offers them (a 1-7 row picks the button that shows the digit; yes/no
and a choice pick the k-th option), the 1-10 grid by click, the comment in the response's comment box;
the counter counts the required questions only, and the store holds each answer as its type keeps it.
And on a 390x844 phone: every option of every type a target of at least 44 px each way, nothing wider
than the screen, answered by taps."""

from __future__ import annotations

import json
import re
import secrets

from playwright.sync_api import expect

from common.rubric import Rubric
from tests.support.seeding import db_store, invite

METHODS = ("TS-Temp", "TS-Tilted")
RUBRIC = Rubric.from_dict(
    {
        "dimensions": [
            {"name": "quality", "low": 1, "high": 10},
            {"name": "style", "low": 1, "high": 7},
            {"name": "correct", "type": "yes-no", "description": "is it factually correct?"},
            {"name": "error", "type": "choice", "labels": ["repetition", "off-topic", "factual"]},
            {"name": "why", "type": "text", "description": "what made you decide"},
        ]
    }
)


def seeded(app) -> tuple[object, int, str, str]:
    """A one-item study asking RUBRIC: (store, study id, invite code, token)."""
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    sid = store.create_study(f"types {token}", model="m", methods=list(METHODS), settings={m: {} for m in METHODS},
                             rubric=RUBRIC)  # fmt: skip
    [iid] = store.add_items(sid, [{"prompt": f"types prompt {token}", "scenario": "seeded"}])
    for m in METHODS:
        store.add_output(iid, m, 0, text=f"{m} wrote {token}", settings={}, seed=1, model="m", new_tokens=4)
    return store, sid, invite(store, sid, f"types-{token}"), token


def test_every_question_type_rated_with_the_keyboard(page, app):
    store, sid, code, token = seeded(app)
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.get_by_text("Item 1 of 1")).to_be_visible(timeout=90_000)
    groups = page.locator("#rate-responses .rate-slot fieldset").filter(visible=True)
    expect(groups).to_have_count(2 * 4)  # four required questions per response; the comment is a text box
    expect(page.get_by_text("correct (yes/no): is it factually correct? (A)")).to_be_visible()
    counter = page.locator("#rate-counter")
    for slot, (style, yes_no, choice) in enumerate((("6", "1", "3"), ("2", "2", "1"))):
        first = groups.nth(4 * slot)
        first.get_by_label("8", exact=True).check()  # the 1-10 grid: by click
        groups.nth(4 * slot + 1).locator("input[type=radio]").first.focus()
        for key in (style, yes_no, choice):  # each key answers its row and moves on to the next
            page.keyboard.press(key)
    expect(groups.nth(1).get_by_label("6", exact=True)).to_be_checked()
    expect(groups.nth(2).get_by_label("Yes", exact=True)).to_be_checked()
    expect(groups.nth(3).get_by_label("factual", exact=True)).to_be_checked()
    expect(groups.nth(6).get_by_label("No", exact=True)).to_be_checked()
    expect(groups.nth(7).get_by_label("repetition", exact=True)).to_be_checked()
    expect(counter).to_contain_text("8 of 8 scored")  # the optional comment is not counted
    expect(page.get_by_text("why: what made you decide (A, optional)")).to_be_visible()  # the comment box asks it
    page.locator("#rate-responses .rate-slot textarea").filter(visible=True).first.fill("made up a date")
    page.get_by_role("button", name="Submit ratings").click()
    expect(page.get_by_text(re.compile(r"You have rated all 1 items"))).to_be_visible()
    frame = store.ratings_frame(sid).sort_values("position")
    got = frame[["quality", "style", "correct", "error"]].astype(int).values.tolist()
    assert got == [[8, 6, 1, 2], [8, 2, 0, 0]], json.dumps(got)
    assert frame["why"].tolist()[0] == "made up a date" and frame["why"].isna().tolist()[1]


def test_every_question_type_on_a_phone(browser, app):
    store, sid, code, _ = seeded(app)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
        expect(page.get_by_text("Item 1 of 1")).to_be_visible()
        groups = page.locator("#rate-responses .rate-slot fieldset").filter(visible=True)
        expect(groups).to_have_count(2 * 4)
        sizes = page.evaluate(
            """() => Array.from(document.querySelectorAll('#rate-responses .rate-slot'))
                .filter(slot => slot.offsetParent !== null)
                .flatMap((slot, k) => Array.from(slot.querySelectorAll('fieldset'))
                    .filter(f => f.offsetParent !== null)
                    .flatMap(f => Array.from(f.querySelectorAll('label')).map(l => {
                        const r = l.getBoundingClientRect(), dot = l.querySelector('input').getBoundingClientRect();
                        const range = document.createRange();
                        range.selectNodeContents(l.querySelector('span') || l);
                        const t = range.getBoundingClientRect();  // the words as drawn
                        const cut = t.left < dot.right - 1 || t.right > r.right + 1 || t.left < r.left - 1;
                        return [k, l.textContent.trim(), Math.round(r.width), Math.round(r.height),
                                Math.round(r.left), Math.round(r.right), cut];
                    })))"""
        )
        # 1-10: 11 buttons, 1-7: 8, yes/no: 3, the choice: 4 (each with "Can't judge"), for two responses
        assert len(sizes) == 2 * (11 + 8 + 3 + 4), sizes
        small = [s for s in sizes if s[2] < 44 or s[3] < 44]
        assert not small, f"targets under 44 px: {small}"
        assert not [s for s in sizes if s[6]], (
            f"words under the radio's dot or out of their button: {[s for s in sizes if s[6]]}"
        )
        # the phone shows one response at a time (the rest a swipe away): A's options all on screen
        assert all(0 <= s[4] and s[5] <= 390 for s in sizes if s[0] == 0), [s for s in sizes if s[0] == 0]
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        for slot, answers in enumerate((("9", "3", "No", "off-topic"), ("1", "7", "Yes", "factual"))):
            for row, value in enumerate(answers):
                groups.nth(4 * slot + row).get_by_label(value, exact=True).tap()
        expect(page.locator("#rate-counter")).to_contain_text("8 of 8 scored")
        page.get_by_role("button", name="Submit ratings").tap()
        expect(page.get_by_text(re.compile(r"You have rated all 1 items"))).to_be_visible()
        frame = store.ratings_frame(sid).sort_values("position")
        got = frame[["quality", "style", "correct", "error"]].astype(int).values.tolist()
        assert got == [[9, 3, 0, 1], [1, 7, 1, 2]], json.dumps(got)
    finally:
        context.close()
        store.dispose()
