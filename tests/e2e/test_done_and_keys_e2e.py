"""Issue 47, in a real browser: after the last item there is nothing left to submit or vote (the 1-5
form, a study with its own rubric, a pairwise study: no Submit or vote on screen, and Ctrl+Enter or the
vote keys send nothing), and Ctrl+Enter moves the keyboard where docs/studies.md promises: "after a
submit the next prompt comes into view with focus"."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import expect

from common.rubric import Rubric
from tests.support.seeding import db_store, invite
from ui.rate import SUBMITS, once

METHODS = ("TS-Temp", "TS-Tilted")
RUBRIC = '{"dimensions": [{"name": "clarity", "low": 1, "high": 5}]}'
ANSWERS = "#rate-submit, #rate-next, #pair-votes button"


def study(app, tag: str, n_items: int, **design) -> tuple[object, int, str]:
    """An open study of `n_items` two-response items (`design`: create_study's design arguments)."""
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    sid = store.create_study(f"{tag} {token}", model="m", methods=list(METHODS), settings={m: {} for m in METHODS},
                             **design)  # fmt: skip
    prompts = [{"prompt": f"{tag} prompt {k} {token}", "scenario": "seeded"} for k in range(n_items)]
    for iid in store.add_items(sid, prompts):
        for m in METHODS:
            store.add_output(iid, m, 0, text=f"{m} wrote {iid} {token}", settings={}, seed=1, model="m", new_tokens=4)
    return store, sid, invite(store, sid, f"{tag}-{token}")


def visible_answers(page) -> list[str]:
    """The ids of the buttons that answer an item and are on screen (not hidden, not zero-sized)."""
    return page.evaluate(
        "(sel) => Array.from(document.querySelectorAll(sel)).filter(b => b.offsetParent !== null)"
        ".map(b => b.id || b.textContent.trim())",
        ANSWERS,
    )


def score_on_screen(page, questions: int) -> None:
    """Score every response on screen (two responses x `questions`), once the form is laid out."""
    groups = page.locator("#rate-responses .rate-slot fieldset").filter(visible=True)
    expect(groups).to_have_count(2 * questions)
    for group in groups.all():
        group.locator("input[type=radio]").nth(2).check()
    expect(page.locator("#rate-counter")).to_contain_text(f"{2 * questions} of {2 * questions} scored")


def nothing_more_to_send(page, store, sid, saved: int, table: str = "ratings") -> None:
    """No answer button on screen; Ctrl+Enter and the vote keys write nothing and raise no error."""
    expect(page.locator(ANSWERS).filter(visible=True)).to_have_count(0)
    assert visible_answers(page) == []
    page.locator("body").click(position={"x": 5, "y": 5})
    for key in ("Control+Enter", "1", "2"):
        page.keyboard.press(key)
    page.wait_for_timeout(1500)  # a sent request would be answered by now; nothing may arrive
    rows = store.ratings_frame(sid) if table == "ratings" else store.votes(sid)
    assert len(rows) == saved
    assert page.get_by_text(re.compile("no item on screen")).count() == 0


def test_ctrl_enter_submits_and_the_next_prompt_takes_the_focus(page, app):
    store, sid, code = study(app, "ctrlenter", 2)
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.get_by_text("Item 1 of 2")).to_be_visible(timeout=90_000)
    score_on_screen(page, 3)
    page.locator("#rate-responses .rate-slot fieldset input[type=radio]:checked").last.focus()
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("Item 2 of 2")).to_be_visible()
    expect(page.locator("#rate-prompt")).to_be_focused()
    assert page.locator("#rate-prompt textarea").input_value().startswith("ctrlenter prompt 1")
    score_on_screen(page, 3)
    # Submit is held for a moment after each reply (ui/rate/once.py: a double tap's second tap sends
    # nothing); a rater who scores six rows takes longer than that, this test may not
    expect(page.locator("#rate-submit")).to_be_enabled()
    page.locator("#rate-responses .rate-slot textarea").filter(visible=True).first.focus()  # from a comment box too
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("You have rated all 2 items")).to_be_visible()
    assert len(store.ratings_frame(sid)) == 4
    nothing_more_to_send(page, store, sid, 4)
    store.dispose()


def test_no_submit_after_the_last_item_of_a_study_with_its_own_rubric(page, app):
    store, sid, code = study(app, "rubricdone", 1, rubric=Rubric.from_json(RUBRIC))
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.get_by_text("clarity (1-5) (A)")).to_be_visible(timeout=90_000)
    score_on_screen(page, 1)
    page.locator("#rate-submit").click()
    expect(page.get_by_text("You have rated all 1 items")).to_be_visible()
    assert len(store.ratings_frame(sid)) == 2
    nothing_more_to_send(page, store, sid, 2)
    store.dispose()


def test_no_vote_after_the_last_pair(page, app):
    store, sid, code = study(app, "pairdone", 1, design="pairwise")
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.locator("#pair-vote-a")).to_be_visible(timeout=90_000)
    page.locator("#pair-vote-a").click()
    expect(page.locator("#pair-status")).to_contain_text("Saved")
    assert len(store.votes(sid)) == 1
    nothing_more_to_send(page, store, sid, 1, table="votes")
    store.dispose()


TEN = '{"dimensions": [{"name": "quality", "low": 1, "high": 10}, {"name": "fun", "low": 1, "high": 7}]}'


def test_a_keyboard_rater_scores_a_1_to_10_row_with_digit_keys(page, app):
    """Issue 46: digit keys did nothing on a 1-10 row (arrows only). Now a digit picks its point on any
    scale and moves on; a two-digit point takes its two digits (1 then 0: 10); a lone 1 stands once no
    second digit follows; 0 is "can't judge" where the scale has no 0. The key line says so."""
    store, sid, code = study(app, "tenkeys", 1, rubric=Rubric.from_json(TEN))
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.get_by_text("quality (1-10) (A)")).to_be_visible(timeout=90_000)
    expect(page.get_by_text("1 then 0 for 10")).to_be_visible()
    rows = page.locator("#rate-responses .rate-slot fieldset").filter(visible=True)
    expect(rows).to_have_count(4)  # A quality, A fun, B quality, B fun
    rows.nth(0).locator("input[type=radio]").first.focus()
    page.keyboard.press("1")
    page.keyboard.press("0")
    expect(rows.nth(0).get_by_label("10", exact=True)).to_be_checked()
    expect(rows.nth(1).locator("input[type=radio]").first).to_be_focused()  # moved on to A fun
    page.keyboard.press("7")
    expect(rows.nth(1).get_by_label("7", exact=True)).to_be_checked()
    expect(rows.nth(2).locator("input[type=radio]").first).to_be_focused()  # on to response B
    page.keyboard.press("1")  # and nothing after it: 1 stands, and the keyboard moves on by itself
    expect(rows.nth(3).locator("input[type=radio]").first).to_be_focused()
    expect(rows.nth(2).get_by_label("1", exact=True)).to_be_checked()
    # The last row answered while Submit is held (a fast keyboard rater on an item that just came: the
    # hold lasts until it has been on screen SETTLE_MS): the keyboard still reaches Submit once given back.
    page.evaluate(once.hold_js(SUBMITS))
    page.keyboard.press("0")
    expect(rows.nth(3).get_by_label("Can't judge", exact=True)).to_be_checked()
    expect(page.locator("#rate-submit")).to_be_disabled()
    page.evaluate(once.release_js(SUBMITS))
    expect(page.locator("#rate-submit")).to_be_focused()
    expect(page.locator("#rate-counter")).to_contain_text("4 of 4 scored")
    expect(page.locator("#rate-submit")).to_be_enabled()
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("You have rated all 1 items")).to_be_visible()
    frame = store.ratings_frame(sid).sort_values("position")
    assert frame["quality"].tolist() == [10, 1] and frame["fun"].tolist()[0] == 7 and frame["fun"].isna().tolist()[1]
    store.dispose()


def test_every_point_is_a_44_px_target_on_a_phone(browser, app, artifacts_dir):
    """Issue 46: a phone's 1-7 row had 29 px buttons with their circles over the digits. Every button of
    the default rows and of 1-10 and 1-7 rows is now at least 44 px each way on a 390 px screen."""
    for rubric, first in ((None, "Coherence: logical, consistent, on topic (A)"), (TEN, "quality (1-10) (A)")):
        design = {} if rubric is None else {"rubric": Rubric.from_json(rubric)}
        store, _, code = study(app, "phonetargets", 1, **design)
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                      locale="en-US")  # fmt: skip  # a browser of its own: one invitation each
        phone = context.new_page()
        try:
            phone.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
            expect(phone.get_by_text(first)).to_be_visible(timeout=90_000)
            sizes = phone.evaluate(
                "() => Array.from(document.querySelectorAll('#rate-responses .rate-slot fieldset label'))"
                ".filter(l => l.offsetParent !== null && l.closest('.rate-slot').getBoundingClientRect().left < 390)"
                ".map(l => [l.textContent.trim(), l.getBoundingClientRect().width, l.getBoundingClientRect().height])"
            )
            assert len(sizes) >= (12 if rubric is None else 19), sizes
            small = [s for s in sizes if s[1] < 44 or s[2] < 44]
            assert not small, small
            phone.screenshot(path=str(artifacts_dir / f"e2e-phone-targets-{'ten' if rubric else 'default'}.png"))
        except AssertionError:
            phone.screenshot(path=str(artifacts_dir / "e2e-FAILED-phone-targets.png"), full_page=True)
            raise
        finally:
            context.close()
            store.dispose()
