"""A study with its own rubric, end to end in a real browser (issue 34): the organizer creates it
(two questions, 1-10 and 1-7, one attention item, the rule "drop raters who fail any attention
item"), one rater rates on a laptop and follows the attention item's instruction, another rates on
a phone and does not, the organizer closes and publishes, Results and /present show the study's
questions and "1 of 2 raters excluded by the rule set at creation", and its export imports back
into a fresh store (on both databases where the app runs on PostgreSQL). On the run's live database
(tests/support/stores.py, live_backends): the shared dummy-engine app (live_app.DUMMY_ENGINE: what
the outputs say is not tested) on SQLite, or that configuration's app on a fresh PostgreSQL schema."""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path

import pytest
from playwright.sync_api import expect

from arena.files.export import export_to_path, import_file
from arena.store import Store
from tests.support.browser_helpers import open_app, panel, pick_option
from tests.support.live_app import DUMMY_ENGINE, ORGANIZER_PASSWORD, shared_app
from tests.support.stores import LIVE_BACKENDS, open_store

GENERATION_TIMEOUT_MS = 480_000
LAPTOP = {"width": 1400, "height": 1000}
PHONE = {"width": 390, "height": 844}
RUBRIC = {
    "dimensions": [
        {
            "name": "quality",
            "low": 1,
            "high": 10,
            "description": "How good is it?",
            "anchors": {"1": "bad", "10": "great"},
        },
        {"name": "creativity", "low": 1, "high": 7, "description": "How fresh is it?"},
    ]
}


@pytest.fixture
def rubric_app(request, tmp_path_factory):
    """(app, store URL): the shared dummy-engine app on the database asked for."""
    app = shared_app(tmp_path_factory.getbasetemp(), DUMMY_ENGINE, db=request.param)
    return app, app.db_url


def create_study(page, app, name: str) -> tuple[int, list[str]]:
    """The Organizer: a two-prompt study with the rubric, an attention item and the rule; two invite links."""
    open_app(page, app, "Organizer")
    org = panel(page)
    org.get_by_label("Organizer password").fill(ORGANIZER_PASSWORD)
    org.get_by_label("Organizer password").press("Enter")
    expect(org.get_by_text("Unlocked.")).to_be_visible()
    org.get_by_label("Study name").fill(name)
    org.get_by_label("Pasted list (one prompt per line)").check()
    org.get_by_label("Pasted prompts (one per line)").fill("Say hello to a friend.\nName a fruit.")
    org.get_by_label("BS-4", exact=True).uncheck()  # two sampling methods: generation stays short
    org.get_by_label("max_new_tokens").fill("4")
    org.get_by_label("max_new_tokens").blur()
    org.get_by_text("Questions and rater quality control (optional)").click()
    box = org.get_by_label("Rubric (JSON")
    box.fill('{"dimensions": []}')
    box.blur()
    expect(org.locator("#organizer-rubric-preview")).to_contain_text("error:")
    box.fill(json.dumps(RUBRIC))
    box.blur()
    expect(org.locator("#organizer-rubric-preview")).to_contain_text("1-10 (10 points)")
    org.get_by_label("Attention items").fill("1")
    org.get_by_label("Attention items").blur()
    org.get_by_label("Drop raters who fail any attention item").check()
    org.get_by_role("button", name="Create study and generate its outputs").click()
    created = org.get_by_text(re.compile(r"Study #\d+ created: 6 of 6 outputs stored"))
    expect(created).to_be_visible(timeout=GENERATION_TIMEOUT_MS)
    sid = int(re.search(r"Study #(\d+)", created.inner_text()).group(1))
    org.get_by_label("Invite raters (names, comma or line separated; display only)").fill(f"ana-{sid}, ben-{sid}")
    org.get_by_role("button", name="Create invite codes").click()
    grid = org.get_by_role("grid", name=re.compile(r"^New invite codes"))
    expect(grid).to_contain_text("?invite=")
    links = sorted(set(re.findall(r"/\?invite=[A-Za-z0-9_-]+", grid.inner_text())))
    assert len(links) == 2, links
    return sid, links


def rate_all(browser, app, link: str, viewport: dict, follow: bool, artifacts_dir: Path, tag: str) -> None:
    """One rater rates every item; on the attention item they follow its instruction or not."""
    phone = viewport is PHONE
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(90_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{app.url}{link}", wait_until="domcontentloaded")
        for n in range(1, 4):  # two prompts and the attention item
            expect(page.get_by_text(f"Item {n} of 3")).to_be_visible()
            rows = page.locator(".rate-rubric fieldset, fieldset.rate-rubric").filter(visible=True)
            expect(rows).to_have_count(4)  # two responses x two questions; the rows past them are hidden
            expect(page.get_by_text("quality (1-10): How good is it? (A)")).to_be_visible()
            expect(page.get_by_text("1 = bad · 10 = great").first).to_be_visible()
            asked = "attention check" in page.locator("#rate-responses").inner_text()
            for k in range(4):
                quality = k % 2 == 0
                score = 2 if asked and follow else (9 if quality else 5)
                if not quality and n == 1 and not phone:  # a short scale: a digit key picks the button
                    rows.nth(k).get_by_label("1", exact=True).focus()
                    page.keyboard.press(str(score))
                    expect(rows.nth(k).get_by_label(str(score), exact=True)).to_be_checked()
                else:
                    rows.nth(k).get_by_label(str(score), exact=True).check()
            if n == 1:
                page.screenshot(path=str(artifacts_dir / f"e2e-rubric-form-{tag}.png"), full_page=True)
            page.get_by_role("button", name="Submit ratings").click()
            expect(page.get_by_text(re.compile(r"^Saved\b")).first).to_be_visible()
        expect(page.get_by_text(re.compile(r"You have rated all 3 items"))).to_be_visible()
        page.screenshot(path=str(artifacts_dir / f"e2e-rubric-rated-{tag}.png"), full_page=True)
        assert not errors, errors
    except Exception:
        page.screenshot(path=str(artifacts_dir / f"e2e-FAILED-rubric-{tag}.png"), full_page=True)
        raise
    finally:
        context.close()


def publish_and_check(page, app, sid: int, name: str) -> None:
    """Close and publish in the Organizer; then Results and /present show the rubric and the exclusion."""
    org = panel(page)
    page.get_by_role("button", name="Close rating").click()
    expect(org.get_by_text(f"Study #{sid} is now closed.")).to_be_visible()
    page.get_by_role("button", name="Publish results").click()
    expect(org.get_by_text(f"Study #{sid} is now published.")).to_be_visible()
    page.get_by_role("tab", name="Results").click()
    res = panel(page)
    pick_option(page, res, "Study", re.compile(re.escape(f"{name} (#{sid})")))
    res.get_by_role("button", name="Show results").click()
    expect(res.get_by_text(re.compile(r"1 of 2 raters excluded by the rule set at creation"))).to_be_visible(
        timeout=240_000
    )
    expect(res.get_by_text("With every rater and without the excluded, side by side")).to_be_visible()
    table = res.get_by_role("grid", name="Per method")
    expect(table).to_contain_text("quality (1-10)")
    expect(table).to_contain_text("creativity (1-7)")
    page.goto(f"{app.url}/present?study={sid}", wait_until="load")
    expect(page.locator("#takeaway")).to_be_visible()
    expect(page.get_by_text("1 of 2 raters excluded by the rule set at creation")).to_be_visible()
    expect(page.get_by_role("region", name="Per method")).to_contain_text("quality (1-10)")
    expect(page.locator("#sensitivity")).to_contain_text("TS-Temp vs TS-Tilted")


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("rubric_app", LIVE_BACKENDS, indirect=True)
def test_a_rubric_study_from_creation_to_present_and_back(browser, rubric_app, artifacts_dir, tmp_path):
    app, url = rubric_app
    name = f"Own questions {secrets.token_hex(3)}"
    context = browser.new_context(viewport=LAPTOP, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        sid, (first, second) = create_study(page, app, name)
        rate_all(browser, app, first, LAPTOP, True, artifacts_dir, "laptop")
        rate_all(browser, app, second, PHONE, False, artifacts_dir, "phone")
        publish_and_check(page, app, sid, name)
    except Exception:
        page.screenshot(path=str(artifacts_dir / "e2e-FAILED-rubric-organizer.png"), full_page=True)
        raise
    finally:
        context.close()
    store = Store(url)
    frame = store.ratings_frame(sid)
    assert len(frame) == 8 and set(frame["quality"]) == {9}  # 2 prompts x 2 responses x 2 raters; no attention item
    assert set(frame["creativity"]) == {5}
    outcomes = store.attention_of(sid)  # one rater followed the attention item, the other did not
    assert sorted(outcomes.values()) == [False, True] and set(outcomes) == {f"ana-{sid}", f"ben-{sid}"}
    exported = tmp_path / "rubric.jsonl"
    assert export_to_path(store, exported, study_id=sid) == 12  # with the attention item's ratings
    store.dispose()
    for backend in ("sqlite", "postgresql") if url.startswith("postgresql") else ("sqlite",):
        target, close = open_store(backend, tmp_path / backend)
        try:
            assert import_file(target, exported)["ratings"] == 12
            [copy] = target.list_studies()
            assert copy.rubric.names == ("quality", "creativity") and copy.exclusion_rules == ("attention",)
            again = target.ratings_frame(copy.id)
            assert len(again) == 8 and set(again["quality"]) == {9}
            assert target.attention_of(copy.id) == outcomes
        finally:
            close()
