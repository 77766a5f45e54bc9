"""A rater's whole visit in a real browser: the invite link opens the study, an item is rated with
the mouse, and afterwards nothing of theirs is left in the browser (attack 6: Gradio's run history
kept invite codes and scores in localStorage)."""

from __future__ import annotations

import secrets

from playwright.sync_api import expect

from arena.access import invites
from tests.support.seeding import db_store, seed_study

TOKEN = secrets.token_hex(4)


def browser_storage(page) -> str:
    return page.evaluate("""() => {
        const dump = s => Object.keys(s).map(k => k + '=' + s.getItem(k)).join('\\n');
        return dump(window.localStorage) + '\\n' + dump(window.sessionStorage) + '\\n' + document.cookie;
    }""")


def test_invite_link_rate_and_nothing_kept_in_the_browser(page, app, artifacts_dir):
    store = db_store(app.workdir)
    texts = {"BS-4": f"alpha reply {TOKEN}", "TS-Temp": f"beta reply {TOKEN}", "TS-Tilted": f"gamma reply {TOKEN}"}
    sid, _ = seed_study(store, f"Browser invite {TOKEN}", [f"Prompt in the browser {TOKEN}"], [texts])
    [inv] = invites.invite(store, sid, [f"rater {TOKEN}"])
    page.goto(f"{app.url}/?invite={inv.code}")
    page.get_by_text(f"rater {TOKEN}").first.wait_for()  # "Rating as …": the link opened the Rate tab
    expect(page.locator("#rate-prompt textarea")).to_have_value(f"Prompt in the browser {TOKEN}")
    radios = page.get_by_role("radio", name="4")  # responses A, B, C x three dimensions
    n = radios.count()
    assert n >= 9, n
    for i in range(9):
        radios.nth(i).check()
    page.get_by_role("button", name="Submit ratings").click()
    page.get_by_text("You have rated all 1 items").first.wait_for()
    page.screenshot(path=str(artifacts_dir / "e2e-invite-rated.png"), full_page=True)
    ratings = store.ratings_frame(sid)
    assert len(ratings) == 3 and set(ratings["coherence"]) == {4}
    kept = browser_storage(page)
    assert inv.code not in kept, "the invite code is kept in the browser"
    assert "run" not in kept.lower() or "history" not in kept.lower()
    page.reload()
    kept = browser_storage(page)
    assert inv.code not in kept
