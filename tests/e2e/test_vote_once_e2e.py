"""A pairwise vote in a real browser is applied once (issue 35): the vote buttons are disabled from the
tap until the reply is on screen, so a second tap or key press while a vote saves sends nothing (the
server would ignore a copy anyway: tests/test_submit_once_live.py), and after the last pair there is no
vote row to tap and no red "Error". The vote's reply is held back (Playwright holds the queue request)
so that "while it saves" is a state the test waits on, not a race."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import expect

from tests.support.browser_helpers import score_all
from tests.support.seeding import db_store, invite, seed_study

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")


def pairwise_study(app, token: str, items: int) -> tuple[object, int, str]:
    store = db_store(app.workdir)
    sid = store.create_study(
        f"Vote once {token}", model="m", methods=list(METHODS), settings={m: {} for m in METHODS}, design="pairwise"
    )
    iids = store.add_items(sid, [{"prompt": f"Vote prompt {k} {token}", "scenario": "seeded"} for k in range(items)])
    for iid in iids:
        for m in METHODS:
            store.add_output(iid, m, 0, text=f"{m} wrote {iid} {token}", settings={}, seed=1, model="m", new_tokens=4)
    return store, sid, invite(store, sid, f"vote-once-{token}")


def hold_first_join(page) -> tuple[list, list]:
    """Queue joins from the page: the first waits in `held` until the test lets it go; any later one
    goes through and is counted in `sent`."""
    held: list = []
    sent: list = []

    def hold_first(route) -> None:
        if held:
            sent.append(route)
            route.continue_()
        else:
            held.append(route)

    page.route(re.compile(r".*/queue/join.*"), hold_first)
    return held, sent


def test_a_second_tap_while_a_vote_saves_is_not_a_vote_on_the_next_pair(page, app, artifacts_dir):
    token = secrets.token_hex(3)
    store, sid, code = pairwise_study(app, token, items=2)
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.get_by_text("Item 1 of 2")).to_be_visible(timeout=90_000)

    held, sent = hold_first_join(page)
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("1")
    expect(page.locator("#pair-vote-b")).to_be_disabled()  # while the vote is on its way
    expect(page.locator("#pair-vote-a")).to_be_disabled()
    page.keyboard.press("1")  # the rater taps again: nothing is sent
    page.locator("#pair-vote-a").click(force=True)
    assert len(held) == 1 and not sent, "a second vote was sent while the first one saved"
    held[0].continue_()
    expect(page.get_by_text("Item 2 of 2")).to_be_visible(timeout=60_000)
    expect(page.locator("#pair-vote-a")).to_be_enabled()
    assert len(store.votes(sid)) == 1
    page.unroute(re.compile(r".*/queue/join.*"))

    page.keyboard.press("2")
    expect(page.get_by_text(re.compile(r"You have judged all 2 items"))).to_be_visible(timeout=60_000)
    expect(page.locator("#pair-votes")).to_be_hidden()  # nothing left to vote on
    page.keyboard.press("2")
    expect(page.get_by_text("Error")).to_have_count(0)
    page.screenshot(path=str(artifacts_dir / "e2e-vote-once-done.png"), full_page=True)
    assert len(store.votes(sid)) == 2


def test_a_second_tap_on_submit_while_it_saves_sends_nothing(page, app):
    token = secrets.token_hex(3)
    texts = [{m: f"{m} rated {k} {token}" for m in METHODS} for k in range(2)]
    store = db_store(app.workdir)
    sid, items = seed_study(store, f"Submit once {token}", [f"Rate prompt {k} {token}" for k in range(2)], texts)
    code = invite(store, sid, f"submit-once-{token}")
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.get_by_text("Item 1 of 2")).to_be_visible(timeout=90_000)
    score_all(page, page.locator("body"), 3, [4, 4, 4])
    held, sent = hold_first_join(page)
    page.locator("#rate-submit").click()
    expect(page.locator("#rate-submit")).to_be_disabled()
    page.locator("#rate-submit").click(force=True)  # the second tap
    assert len(held) == 1 and not sent, "a second submit was sent while the first one saved"
    held[0].continue_()
    expect(page.get_by_text("Item 2 of 2")).to_be_visible(timeout=60_000)
    expect(page.locator("#rate-submit")).to_be_enabled()
    page.unroute(re.compile(r".*/queue/join.*"))
    frame = store.ratings_frame(sid)
    assert len(frame) == 3 and set(frame.item_id) == {items[0]}
