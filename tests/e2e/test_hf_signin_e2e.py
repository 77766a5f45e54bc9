"""Raters who sign in with Hugging Face, in a real browser (issue 49), with the sign-in mocked as off a
Space (ARENA_HF_MOCK_USER, ui/hf_signin.py): Gradio's own LoginButton, its login and logout routes and
its signed session cookie, only the Hub's answer stood in for. Two allowed accounts rate a study, an
account continues from a second browser where it stopped, and an account not on the list cannot open it.
"""

from __future__ import annotations

import secrets

import pytest
from playwright.sync_api import expect

from arena.access import accounts
from tests.support.live_app import start_app
from tests.support.seeding import db_store, seed_study

TOKEN = secrets.token_hex(4)
ALICE, BOB, MALLORY = f"alice-{TOKEN}", f"bob-{TOKEN}", f"mallory-{TOKEN}"
PROMPTS = [f"First signed-in prompt {TOKEN}", f"Second signed-in prompt {TOKEN}"]


@pytest.fixture(scope="module")
def signin_app(tmp_path_factory):
    app = start_app(
        tmp_path_factory.mktemp("hf-signin"),
        {"ARENA_HF_MOCK_USER": ALICE, "ARENA_ENGINE": "dummy", "ARENA_MODE": "rating"},
    )
    yield app
    app.stop()


@pytest.fixture(scope="module")
def study(signin_app):
    store = db_store(signin_app.workdir)
    texts = [{m: f"{m[:2].lower()} reply {k} {TOKEN}" for m in ("BS-4", "TS-Temp", "TS-Tilted")} for k in range(2)]
    sid, _ = seed_study(store, f"Signed-in study {TOKEN}", PROMPTS, texts)
    accounts.set_access(store, sid, f"{ALICE}, {BOB}")
    yield store, sid
    store.dispose()


def browser_page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(90_000)
    return context, page


def sign_in_as(page, app, user: str) -> None:
    """The mocked login route with the account to play (the button signs in as ARENA_HF_MOCK_USER)."""
    page.goto(f"{app.url}/login/huggingface?as={user}&_target_url=/rate", wait_until="domcontentloaded")


def rate_item_on_screen(page, prompt: str, score: str) -> None:
    expect(page.locator("#rate-prompt textarea")).to_have_value(prompt)
    radios = page.get_by_role("radio", name=score, exact=True)
    expect(radios.nth(8)).to_be_visible()
    for i in range(9):
        radios.nth(i).check()
    page.get_by_role("button", name="Submit ratings").click()


def test_two_accounts_rate_one_continues_elsewhere_and_one_not_on_the_list_is_refused(
    browser, signin_app, study, artifacts_dir
):
    store, sid = study
    first, page = browser_page(browser)
    try:  # alice signs in with the button, rates the first item, and signs out
        page.goto(f"{signin_app.url}/rate", wait_until="domcontentloaded")
        page.get_by_role("button", name="Sign in with Hugging Face").click()
        expect(page.get_by_text(f"hf:{ALICE}").first).to_be_visible()
        # the footer speaks to a signed-in rater: the account, and signing out as the way to leave
        expect(page.locator("#rate-signout-note")).to_contain_text(f"Signed in with Hugging Face as @{ALICE}")
        expect(page.get_by_text("Opened by your invite link")).to_have_count(0)
        expect(page.get_by_role("button", name="Leave this study on this browser")).to_be_hidden()
        rate_item_on_screen(page, PROMPTS[0], "4")
        expect(page.locator("#rate-prompt textarea")).to_have_value(PROMPTS[1])
        page.get_by_role("button", name=f"Sign out ({ALICE})").click()
        expect(page.get_by_role("button", name="Sign in with Hugging Face")).to_be_visible()
        expect(page.locator("#rate-prompt textarea")).to_be_hidden()
    finally:
        first.close()
    second, page = browser_page(browser)
    try:  # alice again, on another browser: the second item, where she stopped
        sign_in_as(page, signin_app, ALICE)
        expect(page.get_by_text(f"hf:{ALICE}").first).to_be_visible()
        rate_item_on_screen(page, PROMPTS[1], "2")
        page.get_by_text("You have rated all 2 items").first.wait_for()
        page.screenshot(path=str(artifacts_dir / "e2e-hf-signin-rated.png"), full_page=True)
    finally:
        second.close()
    third, page = browser_page(browser)
    try:  # bob, the other allowed account, starts at the first item with his own seat
        sign_in_as(page, signin_app, BOB)
        expect(page.get_by_text(f"hf:{BOB}").first).to_be_visible()
        assert ALICE not in page.content()  # no other rater's account name on a rater's page
        rate_item_on_screen(page, PROMPTS[0], "3")
        expect(page.locator("#rate-prompt textarea")).to_have_value(PROMPTS[1])
    finally:
        third.close()
    fourth, page = browser_page(browser)
    try:  # mallory is signed in, but not on the list: one line, no item
        sign_in_as(page, signin_app, MALLORY)
        expect(page.get_by_text(f"@{MALLORY} is not on the list of raters").first).to_be_visible()
        page.get_by_role("button", name="Start / continue").click()
        expect(page.get_by_text(f"@{MALLORY} is not on the list of raters").first).to_be_visible()
        expect(page.locator("#rate-prompt textarea")).to_be_hidden()
        assert PROMPTS[0] not in page.content()
    finally:
        fourth.close()
    seats = {e.rater: e.rater_index for e in store.enrolments(sid)}
    assert seats == {f"hf:{ALICE}": 0, f"hf:{BOB}": 1}
    ratings = store.ratings_frame(sid)
    assert len(ratings) == 9  # alice: 2 items x 3 responses; bob: 1 item x 3
