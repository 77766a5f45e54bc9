"""Route 7 of issue 21 in a real browser: an invite link clicked on another site (a mail, a chat)
opens the rating page at a clean address. The code is in no address, history entry or script-readable
cookie afterwards; SameSite=Strict still lets the page's own requests carry it; the page has rating
only (route 9); and the Organizer's unlock gives the browser the session that uploads need."""

from __future__ import annotations

import http.server
import secrets
import socketserver
import threading
from pathlib import Path

import httpx
from playwright.sync_api import expect

from tests.support.live_app import API, ORGANIZER_PASSWORD
from tests.support.seeding import db_store, invite, seed_study

TOKEN = secrets.token_hex(4)


def serve_link_page(folder: Path, href: str) -> tuple[socketserver.TCPServer, str]:
    """Another site ("localhost", not the app's "127.0.0.1"): one page with the invite link."""
    (folder / "mail.html").write_text(f'<a id="invite" href="{href}">Your invite</a>', encoding="utf-8")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(folder), **kwargs)

        def log_message(self, *args):
            pass

    server = socketserver.TCPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://localhost:{server.server_address[1]}/mail.html"


def test_an_invite_link_from_another_site_opens_a_clean_rating_only_page(page, app, tmp_path):
    store = db_store(app.workdir)
    texts = {m: f"{m} cookie reply {TOKEN}" for m in ("BS-4", "TS-Temp", "TS-Tilted")}
    sid, _ = seed_study(store, f"Cookie study {TOKEN}", [f"Cookie prompt {TOKEN}"], [texts])
    code = invite(store, sid, f"cookie-rater-{TOKEN}")
    server, mail = serve_link_page(tmp_path, f"{app.url}/?invite={code}")
    try:
        page.goto(mail)
        page.click("#invite")
        expect(page.get_by_text(f"cookie-rater-{TOKEN}").first).to_be_visible()
        expect(page.locator("#rate-prompt textarea")).to_have_value(f"Cookie prompt {TOKEN}")
        assert page.url == f"{app.url}/rate"
        assert code not in page.evaluate("document.cookie + location.href + document.body.innerHTML")
        assert page.get_by_role("tab", name="Compare").count() == 0
        assert page.get_by_text("Organizer password").count() == 0
        assert page.locator("#invite").count() == 0  # no going back to the link: it was the other site's page
        assert page.get_by_label("Invite code or link").input_value() == ""
    finally:
        server.shutdown()
        server.server_close()
        store.dispose()


def test_attack_a_link_on_another_site_cannot_swap_the_raters_seat(page, app, tmp_path):
    """Issue 32, route 4: a link elsewhere to `/?invite=OTHER` replaced the rater's cookie on main
    b69a925, so their next ratings went to another seat. Now this site asks the rater first."""
    store = db_store(app.workdir)
    texts = {m: f"{m} seat reply {TOKEN}" for m in ("BS-4", "TS-Temp", "TS-Tilted")}
    sid, _ = seed_study(store, f"Seat study {TOKEN}", [f"Seat prompt {TOKEN}"], [texts])
    mine, other = invite(store, sid, f"seat-mine-{TOKEN}"), invite(store, sid, f"seat-other-{TOKEN}")
    server, mail = serve_link_page(tmp_path, f"{app.url}/?invite={other}")
    try:
        page.goto(f"{app.url}/?invite={mine}", wait_until="domcontentloaded")
        expect(page.get_by_text(f"seat-mine-{TOKEN}").first).to_be_visible()
        page.goto(mail)
        page.click("#invite")
        expect(page.get_by_text("already taking part in a rating study with another invitation")).to_be_visible()
        assert other not in page.url and page.context.cookies()[0]["value"] == mine
        page.get_by_role("link", name="Keep the one I have").click()
        expect(page.get_by_text(f"seat-mine-{TOKEN}").first).to_be_visible()
        # The rater's own choice switches; leaving is the page's button (a same-origin POST).
        page.goto(mail)
        page.click("#invite")
        page.get_by_role("button", name="Use the new invitation").click()
        expect(page.get_by_text(f"seat-other-{TOKEN}").first).to_be_visible()
        page.get_by_role("button", name="Leave this study on this browser").click()
        expect(page.get_by_role("tab", name="Compare")).to_be_visible()
        assert not [c for c in page.context.cookies() if c["name"] == "arena_invite" and c["value"]]
    finally:
        server.shutdown()
        server.server_close()
        store.dispose()


def test_the_organizers_unlock_gives_the_browser_its_upload_session(page, app):
    page.goto(f"{app.url}/")
    page.get_by_role("tab", name="Organizer").click()
    box = page.get_by_label("Organizer password")
    box.fill(ORGANIZER_PASSWORD)
    box.press("Enter")
    expect(page.get_by_text("Unlocked").first).to_be_visible()
    cookies: dict = {}
    for _ in range(120):  # the page trades its ticket just after the unlock answered
        cookies = {c["name"]: c for c in page.context.cookies()}
        if "arena_organizer" in cookies:
            break
        page.wait_for_timeout(500)
    session = cookies["arena_organizer"]
    assert session["httpOnly"] and session["sameSite"] == "Strict"
    up = httpx.post(
        f"{app.url}{API}/upload",
        files={"files": ("prompts.txt", b"one prompt\n", "text/plain")},
        cookies={"arena_organizer": session["value"]},
        timeout=60,
        trust_env=False,
    )
    assert up.status_code == 200, up.text
