"""A quick double tap on a phone stores one answer, for the item shown (issue 44), in a real browser at
390x844 with touch: on a pairwise vote and on a rubric Submit. Both rows are fixed to the bottom of a
phone's screen, so a double tap's second tap lands on the same button, and when the reply came back
between the two taps (190 ms after the first was measured) it used to be a vote, or a Submit, on the
next item, which the rater had not seen.

The worst case is played out as a state the test waits on, not a race: the page's settle timer (the
one `setTimeout` of SETTLE_MS that ui/rate/once.py starts when the reply is on screen) is held by the
test instead of the clock, however slow the machine; the first tap's reply is on screen with the next
item, and the second tap comes then, at the same spot. The buttons must still be held; once the test
lets the timer fire they come back, and a deliberate answer on the new item is stored. Every request the
page sends is recorded: exactly one per deliberate answer. (Playwright's paused clock would stop
Gradio's own request path.) The case where the second tap comes before the reply is
tests/e2e/test_vote_once_e2e.py."""

from __future__ import annotations

import json
import re
import secrets

from playwright.sync_api import expect

from arena.access import invites
from arena.store import Store
from common.rubric import Rubric
from tests.support.seeding import db_store
from ui.rate import once

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
PHONE = {"width": 390, "height": 844}
# Holds the page's timers of exactly SETTLE_MS while `window.arenaTestHold` is set, for the test to fire.
SETTLE_HOOK = f"""
(() => {{
  const real = window.setTimeout;
  window.arenaTestHeld = [];
  window.setTimeout = function (fn, ms, ...rest) {{
    if (window.arenaTestHold && ms === {once.SETTLE_MS}) {{ window.arenaTestHeld.push(() => fn(...rest)); return 0; }}
    return real.call(window, fn, ms, ...rest);
  }};
}})();
"""
RUBRIC = Rubric.from_dict(
    {"dimensions": [{"name": "quality", "low": 1, "high": 10}, {"name": "fun", "low": 1, "high": 7}]}
)


def study(store: Store, token: str, design: str, rubric: Rubric | None = None) -> tuple[int, list[int], str]:
    methods = list(METHODS[:2]) if rubric is not None else list(METHODS)  # two responses to answer on a phone
    sid = store.create_study(
        f"Double tap {design} {token}", model="m", methods=methods, settings={m: {} for m in methods},
        design=design, rubric=rubric,
    )  # fmt: skip
    iids = store.add_items(sid, [{"prompt": f"Tap prompt {k} {token}", "scenario": "seeded"} for k in range(2)])
    for iid in iids:
        for m in methods:
            store.add_output(iid, m, 0, text=f"{m} wrote {iid} {token}", settings={}, seed=1, model="m", new_tokens=4)
    [made] = invites.invite(store, sid, [f"tapper-{design}-{token}"])
    return sid, iids, made.code


def phone_page(browser, app, code: str, sent: list[dict]):
    """A phone's page on the invite link, its clock installed (running), every queue join recorded."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(90_000)
    page.add_init_script(SETTLE_HOOK)

    def record(route) -> None:
        sent.append(json.loads(route.request.post_data or "{}"))
        route.continue_()

    page.route(re.compile(r".*/queue/join.*"), record)
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    return context, page


def double_tap_over_the_reply(page, button: str) -> None:
    """Tap `button`; with the clock standing still, wait for the reply's next item, then tap the same
    spot again. The second tap must meet a held button."""
    target = page.locator(button)
    box = target.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.evaluate("() => { window.arenaTestHold = true; }")
    page.touchscreen.tap(x, y)
    expect(page.get_by_text(re.compile(r"Item 2 of 2")).first).to_be_visible()
    # the reply is in: the settle started (or, without one, the button came back at once)
    page.wait_for_function(
        "(sel) => window.arenaTestHeld.length > 0 || !document.querySelector(sel).disabled", arg=button
    )
    expect(target).to_be_disabled()  # the next item is on screen, its buttons still held
    page.touchscreen.tap(x, y)  # the double tap's second tap, at the same spot
    page.evaluate("() => { window.arenaTestHold = false; for (const fire of window.arenaTestHeld.splice(0)) fire(); }")
    expect(target).to_be_enabled()  # the settle ran out: the buttons are back


def vote_fns(sent: list[dict], fn_ids: set[int]) -> int:
    return sum(1 for body in sent if body.get("fn_index") in fn_ids)


def fn_ids(page, names: tuple[str, ...]) -> set[int]:
    """The fn indexes (what a queue join names) of the page's handlers registered under `names`; on the
    rating-only page `/rate` that an invite link opens, Gradio numbers a second registration `NAME_1`."""
    wanted = re.compile(rf"^({'|'.join(map(re.escape, names))})(_\d+)?$")
    deps = page.evaluate("() => window.gradio_config.dependencies.map((d, k) => [d.id ?? k, d.api_name || ''])")
    found = {int(i) for i, name in deps if wanted.match(name)}
    assert len(found) >= len(names), deps
    return found


def test_a_double_tap_on_a_pairwise_vote_stores_one_vote_for_the_pair_shown(browser, app, artifacts_dir):
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    sid, iids, code = study(store, token, "pairwise")
    sent: list[dict] = []
    context, page = phone_page(browser, app, code, sent)
    try:
        expect(page.get_by_text("Item 1 of 2").first).to_be_visible()
        votes = fn_ids(page, ("pair_vote_a", "pair_vote_b", "pair_vote_tie", "pair_vote_bothbad"))
        double_tap_over_the_reply(page, "#pair-vote-a")
        assert vote_fns(sent, votes) == 1, "the second tap sent a vote"
        assert [(v.item_id, v.winner) for v in store.votes(sid)] == [(iids[0], "a")]
        page.locator("#pair-vote-b").tap()  # a deliberate vote on the pair now shown
        expect(page.get_by_text(re.compile(r"You have judged all 2 items"))).to_be_visible()
        page.screenshot(path=str(artifacts_dir / "e2e-double-tap-pairwise.png"), full_page=True)
        assert vote_fns(sent, votes) == 2
        assert sorted((v.item_id, v.winner) for v in store.votes(sid)) == [(iids[0], "a"), (iids[1], "b")]
    finally:
        context.close()
        store.dispose()


def answer_rubric(page, quality: int, fun: int) -> None:
    rows = page.locator(".rate-rubric fieldset, fieldset.rate-rubric").filter(visible=True)
    expect(rows).to_have_count(4)  # two responses x two questions
    for k in range(4):
        rows.nth(k).get_by_label(str(quality if k % 2 == 0 else fun), exact=True).tap()
    for k in range(4):
        expect(rows.nth(k).get_by_label(str(quality if k % 2 == 0 else fun), exact=True)).to_be_checked()


def test_a_double_tap_on_a_rubric_submit_stores_one_answer_for_the_item_shown(browser, app, artifacts_dir):
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    sid, iids, code = study(store, token, "scores", RUBRIC)
    sent: list[dict] = []
    context, page = phone_page(browser, app, code, sent)
    try:
        expect(page.get_by_text("Item 1 of 2").first).to_be_visible()
        submits = fn_ids(page, ("rate_submit",))
        answer_rubric(page, 9, 6)
        double_tap_over_the_reply(page, "#rate-submit")
        assert vote_fns(sent, submits) == 1, "the second tap sent a Submit"
        frame = store.ratings_frame(sid)
        assert len(frame) == 2 and set(frame.item_id) == {iids[0]}
        answer_rubric(page, 3, 2)  # a deliberate Submit of the item now shown
        page.locator("#rate-submit").tap()
        expect(page.get_by_text(re.compile(r"You have rated all 2 items"))).to_be_visible()
        page.screenshot(path=str(artifacts_dir / "e2e-double-tap-rubric.png"), full_page=True)
        assert vote_fns(sent, submits) == 2
        frame = store.ratings_frame(sid)
        assert len(frame) == 4 and sorted(frame.item_id) == sorted([iids[0]] * 2 + [iids[1]] * 2)
    finally:
        context.close()
        store.dispose()
