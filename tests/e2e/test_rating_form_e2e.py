"""The rating form as raters use it (issue: a form that can't lose work): a missing score marks its
row and loses nothing; a whole item rated with the keyboard only; rating on a 390x844 phone."""

from __future__ import annotations

import secrets

from playwright.sync_api import expect

from tests.support.seeding import db_store, invite, seed_study


def new_study(app, tag: str, n_items: int = 2):
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    texts = [
        {m: f"{tag} {token} item {k} answer from {m[-1]} " + "words " * 20 for m in ("BS-4", "TS-Temp", "TS-Tilted")}
        for k in range(n_items)
    ]
    sid, _ = seed_study(store, f"{tag} study {token}", [f"{tag} prompt {k} {token}" for k in range(n_items)], texts)
    code = invite(store, sid, f"{tag}-{token}")
    return store, sid, code


def open_invite(page, app, code):
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.get_by_text("Item 1 of")).to_be_visible(timeout=90_000)
    return page.locator("#rate-responses fieldset").filter(visible=True)


def test_a_missing_score_is_marked_in_place_and_nothing_is_lost(page, app, artifacts_dir):
    store, sid, code = new_study(app, "missing")
    groups = open_invite(page, app, code)
    expect(groups).to_have_count(9)
    for g in range(8):  # all but the last row
        groups.nth(g).get_by_label("4", exact=True).check()
    expect(page.get_by_text("8 of 9 scored")).to_be_visible()
    page.get_by_role("button", name="Submit ratings").click()
    expect(page.get_by_text("Not saved yet")).to_be_visible()
    expect(page.locator("#rate-status")).to_contain_text("C · naturalness")
    expect(page.locator(".rate-missing")).to_have_count(1)
    page.screenshot(path=str(artifacts_dir / "e2e-missing-score.png"), full_page=True)
    assert len(store.ratings_frame(sid)) == 0  # nothing half-saved (the shared app has other studies)
    for g in range(8):  # every score entered is still there
        expect(groups.nth(g).get_by_label("4", exact=True)).to_be_checked()
    assert page.get_by_text("Error", exact=True).filter(visible=True).count() == 0  # no red badges
    groups.nth(8).get_by_label("2", exact=True).check()
    page.get_by_role("button", name="Submit ratings").click()
    expect(page.get_by_text("Item 2 of 2")).to_be_visible()
    expect(page.locator(".rate-missing")).to_have_count(0)
    assert len(store.ratings_frame(sid)) == 3
    # the next item's prompt is brought into view and focused
    expect(page.locator("#rate-prompt")).to_be_focused()
    store.dispose()


def test_a_whole_item_rated_with_the_keyboard_only(page, app):
    store, sid, code = new_study(app, "keys", n_items=1)
    groups = open_invite(page, app, code)
    expect(groups).to_have_count(9)
    page.get_by_label("Invite code or link").focus()
    scored = 0
    for _ in range(80):  # Tab through the page; in each score group press a number key
        inside = page.evaluate(
            "() => { const f = document.activeElement.closest('.rate-slot fieldset');"
            " return f ? Array.from(document.querySelectorAll('.rate-slot fieldset')).indexOf(f) : -1; }"
        )
        if inside != scored:  # a key moves on to the next group itself; else Tab (one stop per group)
            page.keyboard.press("Tab")
            continue
        if inside == scored:
            page.keyboard.press(str(1 + scored % 5))
            scored += 1
            if scored == 9:
                break
    assert scored == 9, f"reached {scored} score groups with Tab"
    expect(page.get_by_text("9 of 9 scored")).to_be_visible()
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("You have rated all 1 items")).to_be_visible()
    given = store.ratings_frame(sid).sort_values("position")
    assert sorted(given[["coherence", "informativeness", "naturalness"]].to_numpy().ravel().tolist()) == sorted(
        1 + k % 5 for k in range(9)
    )
    store.dispose()


def test_rating_on_a_phone(browser, app, artifacts_dir):
    store, sid, code = new_study(app, "phone", n_items=1)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        groups = open_invite(page, app, code)
        expect(groups).to_have_count(9)
        # each 1-5 scale sits on one line: its five buttons share a top edge ("Can't judge" has a line of
        # its own since issue 46, so that every button is a 44 px target)
        tops = page.evaluate(
            "() => Array.from(Array.from(document.querySelectorAll('.rate-slot fieldset'))[0]"
            ".querySelectorAll('label')).map(l => Math.round(l.getBoundingClientRect().top))"
        )
        assert len(tops) == 6 and len(set(tops[:5])) == 1 and tops[5] > tops[0], tops
        submit = page.get_by_role("button", name="Submit ratings")
        box = submit.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844, "Submit is pinned on screen"
        for g in range(9):
            groups.nth(g).get_by_label("5", exact=True).check()
        page.screenshot(path=str(artifacts_dir / "e2e-phone-rating.png"))
        submit.click()
        expect(page.get_by_text("You have rated all 1 items")).to_be_visible()
        assert len(store.ratings_frame(sid)) == 3
    finally:
        context.close()
        store.dispose()
