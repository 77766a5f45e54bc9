"""Skip with a reason, flag, and "can't judge", as a rater uses them in the browser: a dimension
marked can't-judge lets the item be submitted and is stored as no score; a flag keeps every score
on screen; a skip moves on and counts as done. Everything ends up in the database, nothing is lost."""

from __future__ import annotations

import math
import re
import secrets

from playwright.sync_api import expect

from tests.support.browser_helpers import pick_option, response_text
from tests.support.seeding import db_store, invite, seed_study

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")


def test_skip_flag_and_cant_judge_are_stored_and_nothing_is_lost(page, app, artifacts_dir):
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    texts = [{m: f"feedback {token} item {k} answer {m[-1]} with **bold** words" for m in METHODS} for k in range(3)]
    sid, item_ids = seed_study(
        store, f"Feedback study {token}", [f"feedback prompt {k} {token}" for k in range(3)], texts
    )
    code = invite(store, sid, f"feedback-{token}")
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.get_by_text("Item 1 of 3")).to_be_visible(timeout=90_000)
    rate = page.locator("body")  # the invite link opens the rating-only page: no tabs
    assert response_text(rate, "A").endswith("with bold words")  # rendered Markdown, read by its region name
    groups = page.locator("#rate-responses fieldset").filter(visible=True)
    expect(groups).to_have_count(9)

    # Item 1: A's naturalness can't be judged, everything else gets a 4; B is flagged before submitting.
    for g in range(9):
        if g == 2:
            groups.nth(g).get_by_label("Can't judge", exact=True).check()
        else:
            groups.nth(g).get_by_label("4", exact=True).check()
    expect(page.get_by_text("9 of 9 scored")).to_be_visible()
    page.get_by_text("Skip this item, or flag a problem").click()
    pick_option(page, rate, "Flag", "Response B")
    pick_option(page, rate, "Flag reason", "Broken or empty output")
    rate.get_by_label("Flag note (optional; needed for Other)").fill("repeats itself")
    rate.get_by_role("button", name="Flag", exact=True).click()
    expect(page.locator("#rate-status")).to_contain_text("Flagged response B")
    page.screenshot(path=str(artifacts_dir / "e2e-rating-feedback-item.png"), full_page=True)
    for g in range(9):  # the flag changed nothing on screen
        expect(groups.nth(g).get_by_label("Can't judge" if g == 2 else "4", exact=True)).to_be_checked()
    page.get_by_role("button", name="Submit ratings").click()
    expect(page.get_by_text("Item 2 of 3")).to_be_visible()
    expect(page.locator("#rate-status")).to_contain_text("Saved")

    # Item 2: skipped, with a reason; a score entered before skipping is not saved.
    groups.nth(0).get_by_label("5", exact=True).check()
    if not rate.get_by_label("Reason to skip this item").is_visible():
        page.get_by_text("Skip this item, or flag a problem").click()
    pick_option(page, rate, "Reason to skip this item", "I can't read the language")
    rate.get_by_role("button", name="Skip this item", exact=True).click()
    expect(page.get_by_text("Item 3 of 3")).to_be_visible()
    expect(page.get_by_text(re.compile(r"you have rated 2 of 3 \(1 skipped\)"))).to_be_visible()

    # Item 3: rated in full.
    for g in range(9):
        groups.nth(g).get_by_label("3", exact=True).check()
    page.get_by_role("button", name="Submit ratings").click()
    expect(page.get_by_text("You have rated all 3 items")).to_be_visible()
    page.screenshot(path=str(artifacts_dir / "e2e-rating-feedback.png"), full_page=True)

    frame = store.ratings_frame(sid)
    assert len(frame) == 6 and set(frame["item_id"]) == {item_ids[0], item_ids[2]}
    first = frame[frame["item_id"] == item_ids[0]].sort_values("position")
    assert math.isnan(first["naturalness"].iloc[0]) and first["naturalness"].iloc[1:].tolist() == [4, 4]
    assert first["coherence"].tolist() == [4, 4, 4] and first["informativeness"].tolist() == [4, 4, 4]
    assert (
        frame[frame["item_id"] == item_ids[2]][["coherence", "informativeness", "naturalness"]].values.tolist()
        == [[3, 3, 3]] * 3
    )
    [skip] = store.skips(sid)
    assert skip.item_id == item_ids[1] and skip.reason == "language"
    [flag] = store.flags(sid)
    assert flag.item_id == item_ids[0] and flag.position == 1 and flag.reason == "broken"
    assert flag.note == "repeats itself" and flag.output_id == first["output_id"].iloc[1]
    assert not page.js_errors, page.js_errors
    store.dispose()
