"""Raters who sign in with Hugging Face (issue 49): arena/access/accounts.py under the Rate tab's handlers
(ui/rate/session.py, ui/rate/handlers.py) and the server-side reading of the sign-in (ui/hf_signin.py).

A stand-in request carries what Gradio's OAuth session middleware puts in a request's scope: the
signed session, `{"oauth_info": {"userinfo": PROFILE, ...}}`. A browser cannot write that (the cookie
is signed with the Space's OAuth secret); the attacks below send what a page can write instead.
The browser side, with the mocked sign-in, is tests/e2e/test_hf_signin_e2e.py. Each test runs on
SQLite and PostgreSQL (the `store` fixture of tests/conftest.py).
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import gradio as gr
import pytest

from arena import settings, studies
from arena.access import accounts, invites
from arena.files.export import export_rows
from arena.store import Store
from common.errors import UserError
from common.messages import english
from ui import hf_signin
from ui.handler import handler
from ui.rate import handlers as h
from ui.rate.view import form as rate_form

METHODS = ["BS-4", "TS-Temp", "TS-Tilted"]


@pytest.fixture(autouse=True)
def signin_on():
    """The mocked sign-in, as off a Space with ARENA_HF_MOCK_USER set (the handlers' path is the real one)."""
    with settings.override(hf_mock_user="tester", oauth_client_id=""):
        yield


def study(store: Store, name: str = "accounts", n_items: int = 2, design: str = "scores", state: str = "open") -> int:
    sid = store.create_study(name, methods=METHODS, max_new_tokens=8, design=design, state=state)
    iids = store.add_items(sid, [{"prompt": f"{name} prompt {k}", "scenario": "s"} for k in range(n_items)])
    for iid in iids:
        for k, m in enumerate(METHODS):  # the texts name no method: a page that did would be the leak
            store.add_output(iid, m, 0, text=f"{name} {iid} reply {k}", settings={}, seed=1, model="m", new_tokens=4)
    return sid


def signed_in(user: str | None, orgs: tuple[str, ...] = (), cookies: dict | None = None, expires_in: float = 3600):
    """A request from a browser signed in as `user` (None: signed in as nobody)."""
    session = {}
    if user is not None:
        profile = hf_signin.mock_profile(user + ("@" + "+".join(orgs) if orgs else ""))
        session["oauth_info"] = {"userinfo": profile, "expires_at": int(time.time() + expires_in)}
    return SimpleNamespace(
        headers={"accept-language": "en-US"},
        client=SimpleNamespace(host="203.0.113.9"),
        cookies=cookies or {},
        scope={"session": session},
    )


def form(score: int) -> list:
    return rate_form([[score] * 3] * 3)


def test_the_organizers_list_takes_users_organisations_anyone_and_pseudonyms():
    access = accounts.parse_access("Alice, acme-org\nbob = R07,  *")
    assert access is not None and access.names == ("alice", "acme-org", "bob") and access.anyone
    assert access.pseudonyms == {"bob": "R07"}
    assert accounts.parse_access(access.text()) == access
    assert accounts.parse_access("  ,\n") is None and accounts.parse_access(None) is None
    for bad, why in (
        ("alice smith", "not a Hugging Face username"),
        ("../admin", "not a Hugging Face username"),
        ("alice = hf:bob", "cannot start with 'hf:'"),
        ("alice = R1, bob = r1", "given twice"),
    ):
        with pytest.raises(UserError, match=why):
            accounts.parse_access(bad)


def test_an_account_on_the_list_takes_one_seat_on_first_visit_and_finds_it_from_another_browser(store):
    sid = study(store)
    accounts.set_access(store, sid, "alice, bob")
    assert store.enrolments(sid) == []  # nobody is enrolled before their first visit
    opened = h.on_start(store, "", {}, signed_in("alice"))
    assert opened.who == "Rating as **hf\\:alice** in **accounts**."
    first = opened.rate
    after = h.on_submit(store, signed_in("alice"), "", first.session, *form(4), first.item_for)
    assert after.item_for == 2
    # Another browser (a new request, no state carried over) continues where alice stopped.
    again = h.on_start(store, "", {}, signed_in("alice")).rate
    assert again.item_for == 2 and again.prompt == after.prompt
    bob = h.on_start(store, "", {}, signed_in("bob"))
    seats = {e.rater: e.rater_index for e in store.enrolments(sid)}
    assert seats == {"hf:alice": 0, "hf:bob": 1}  # one seat each, Latin-square rows in arrival order
    assert bob.rate.item_for == 1


def test_an_account_not_on_the_list_is_refused_with_one_line_and_gets_no_seat(store):
    sid = study(store)
    accounts.set_access(store, sid, "alice")
    with pytest.raises(UserError) as refused:
        h.on_start(store, "", {}, signed_in("mallory"))
    assert (
        str(refused.value) == "your Hugging Face account @mallory is not on the list of raters of any open study here"
    )
    assert "\n" not in str(refused.value) and store.enrolments(sid) == []
    # Through the wiring, the one inline line and no traceback.
    with pytest.raises(gr.Error) as inline:
        handler(h.on_start, store)("", {}, signed_in("mallory"))
    assert "mallory" in inline.value.message and "Traceback" not in inline.value.message


def test_organisations_and_anyone_signed_in(store):
    by_org, open_to_all = study(store, "org study"), study(store, "open study")
    accounts.set_access(store, by_org, "acme")
    assert h.on_start(store, "", {}, signed_in("carol", ("acme",))).who.endswith("**org study**.")
    accounts.set_access(store, open_to_all, "*")
    # Both admit carol now: the newest open study first; dave (no organisation) gets the open one.
    assert h.on_start(store, "", {}, signed_in("dave")).who == "Rating as **hf\\:dave** in **open study**."
    with pytest.raises(UserError, match="not on the list"):
        accounts.set_access(store, open_to_all, "")
        h.on_start(store, "", {}, signed_in("dave"))


def test_a_pseudonym_is_the_raters_name_everywhere_and_the_account_name_in_no_export(store):
    sid = study(store, n_items=1)
    accounts.set_access(store, sid, "alice = R07")
    first = h.on_start(store, "", {}, signed_in("alice")).rate
    assert h.on_start(store, "", {}, signed_in("alice")).who == "Rating as **R07** in **accounts**."
    h.on_submit(store, signed_in("alice"), "", first.session, *form(3), first.item_for)
    studies.close_study(store, sid)
    rows = export_rows(store, sid)
    assert rows and {r["rater"] for r in rows} == {"R07"}
    assert "alice" not in repr(rows)


def test_a_study_not_open_yet_or_closed_answers_an_account_as_it_answers_a_code(store):
    draft = study(store, "draft", state="draft")
    accounts.set_access(store, draft, "alice")
    [code] = invites.invite(store, draft, ["ann"])
    with pytest.raises(UserError) as by_code:
        h.on_start(store, code.code, {}, signed_in(None))
    with pytest.raises(UserError) as by_account:
        h.on_start(store, "", {}, signed_in("alice"))
    assert str(by_account.value) == str(by_code.value) == english("rater_study_not_open_yet")
    assert [e.rater for e in store.enrolments(draft)] == ["ann"]  # no seat where nobody can rate
    opened = study(store, "closing")
    accounts.set_access(store, opened, "alice")
    h.on_start(store, "", {}, signed_in("alice"))
    studies.close_study(store, opened)
    with pytest.raises(UserError) as closed:
        h.on_start(store, "", {}, signed_in("alice"))
    assert str(closed.value) == english("rater_study_closed")


def test_codes_keep_working_beside_accounts_and_a_code_in_the_box_wins(store):
    sid = study(store)
    accounts.set_access(store, sid, "bob")
    [ann] = invites.invite(store, sid, ["ann"])
    assert h.on_start(store, ann.code, {}, signed_in("bob")).who.startswith("Rating as **ann**")
    cookie = {"arena_invite": ann.code}
    assert h.on_start(store, "", {}, signed_in("bob", cookies=cookie)).who.startswith("Rating as **ann**")
    assert h.on_start(store, "", {}, signed_in("bob")).who.startswith("Rating as **hf\\:bob**")
    assert {e.rater: e.rater_index for e in store.enrolments(sid)} == {"ann": 0, "hf:bob": 1}


def test_attack_nothing_a_page_can_send_opens_an_accounts_seat(store):
    """The account comes only from the server's signed session: not from the code box, a cookie the
    page writes, or the seat's key (which no typed code can hash to)."""
    sid = study(store)
    accounts.set_access(store, sid, "alice")
    h.on_start(store, "", {}, signed_in("alice"))
    key = accounts.seat_key(sid, "alice")
    for forged in ("alice", "hf:alice", f"hf-account:{sid}:alice", key, f"?invite={key}"):
        with pytest.raises(UserError, match="not valid"):
            h.on_start(store, forged, {}, signed_in(None))
    page_cookies = {"session": "alice", "oauth_info": "alice", "arena_invite": key}
    with pytest.raises(UserError):
        h.on_start(store, "", {}, signed_in(None, cookies=page_cookies))
    with pytest.raises(UserError, match="belongs to a Hugging Face account"):
        invites.invite(store, sid, ["hf:alice"])  # a code cannot take an account's seat over


def test_a_revoked_or_delisted_account_is_shut_out_and_its_ratings_stay(store):
    sid = study(store)
    accounts.set_access(store, sid, "alice")
    first = h.on_start(store, "", {}, signed_in("alice")).rate
    h.on_submit(store, signed_in("alice"), "", first.session, *form(5), first.item_for)
    assert invites.revoke(store, sid, "hf:alice")
    with pytest.raises(UserError, match="closed by the organizer"):
        h.on_start(store, "", {}, signed_in("alice"))
    with pytest.raises(UserError, match="closed by the organizer"):  # a tab opened before: every handler checks
        h.on_move(store, +1, "", first.session, signed_in("alice"))
    accounts.set_access(store, sid, None)
    with pytest.raises(UserError, match="not on the list"):
        h.on_start(store, "", {}, signed_in("alice"))
    assert len(store.ratings_frame(sid)) == 3


def test_signing_out_expiry_and_a_sign_in_that_is_off_give_no_account(store, monkeypatch):
    sid = study(store)
    accounts.set_access(store, sid, "alice")
    session = h.on_start(store, "", {}, signed_in("alice")).rate.session
    with pytest.raises(UserError, match="sign in with Hugging Face"):  # signed out in another tab
        h.on_move(store, +1, "", session, signed_in(None))
    assert hf_signin.account_of(signed_in("alice", expires_in=-5)) is None
    with settings.override(hf_mock_user=""):  # off a Space with no mock: no sign-in, whatever a scope holds
        assert hf_signin.account_of(signed_in("alice")) is None
        with pytest.raises(UserError, match="not valid"):
            h.on_start(store, "", {}, signed_in("alice"))
    monkeypatch.setenv("SPACE_ID", "owner/space")  # what Gradio takes for a Space needs SYSTEM=spaces too
    assert not hf_signin.on_space() and hf_signin.enabled()
    monkeypatch.setenv("SYSTEM", "spaces")
    assert hf_signin.on_space()
    with settings.override(hf_mock_user="tester"):  # the mock is ignored on a Space
        assert not hf_signin.enabled() and hf_signin.account_of(signed_in("alice")) is None
    monkeypatch.setattr(hf_signin.gradio_oauth, "OAUTH_CLIENT_SECRET", "client-secret")
    with settings.override(oauth_client_id="client-id"):  # hf_oauth: true (Hugging Face sets both)
        assert hf_signin.account_of(signed_in("alice")) == accounts.Account("alice")


def test_an_accounts_page_load_opens_its_study_and_a_refused_one_stays_where_it_was(store):
    sid = study(store)
    accounts.set_access(store, sid, "alice")
    loaded = h.on_load(store, True, {}, signed_in("alice"))
    assert loaded[1] == "Rating as **hf\\:alice** in **accounts**."
    assert isinstance(loaded[-1], gr.Tabs) and loaded[-1].selected == "rating"
    refused = h.on_load(store, True, {}, signed_in("mallory"))
    assert refused[1] == "" and "not on the list" in repr(refused) and refused[-1] == gr.update()
    nobody = h.on_load(store, True, {}, signed_in(None))
    assert all(v == gr.update() for v in nobody)


def test_what_an_account_rater_sees_names_no_method(store):
    sid = study(store, n_items=1)
    accounts.set_access(store, sid, "*")
    seen = repr(h.on_start(store, "", {}, signed_in("zoe")).values())
    assert "reply 0" in seen and not any(m in seen for m in METHODS)


def test_a_pairwise_study_opens_its_panel_for_an_account(store):
    sid = study(store, "pairs", design="pairwise")
    accounts.set_access(store, sid, "alice")
    opened = h.on_start(store, "", {}, signed_in("alice"))
    assert opened.form is False and opened.who.endswith("**pairs**.")


def test_the_profile_as_the_hub_sends_it():
    profile = {"preferred_username": "alice", "orgs": [{"preferred_username": "acme", "name": "ACME Corp"}]}
    assert accounts.account_of_profile(profile) == accounts.Account("alice", ("acme",))
    assert accounts.account_of_profile({"preferred_username": "a b"}) is None
    assert accounts.account_of_profile(None) is None
    assert hf_signin.mock_profile("bob@x+y")["orgs"] == [
        {"preferred_username": "x", "name": "x"},
        {"preferred_username": "y", "name": "y"},
    ]


def test_the_studies_cli_sets_and_clears_a_studys_accounts(store, tmp_path, capsys):
    from arena.studies.__main__ import main

    sid = study(store)
    url = store.engine.url.render_as_string(hide_password=False)
    assert main(["accounts", "--study", str(sid), "--allow", "alice, acme = A1", "--database", url]) == 0
    assert '"accounts": ["alice", "acme = A1"]' in capsys.readouterr().out
    assert accounts.access_of(store, sid) == accounts.parse_access("alice, acme = A1")
    assert main(["accounts", "--study", str(sid), "--allow", "bad name", "--database", url]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["accounts", "--study", str(sid), "--allow", "", "--database", url]) == 0
    assert accounts.access_of(store, sid) is None


def test_the_organizer_panel_saves_and_shows_the_chosen_studys_list(store):
    from ui.organizer import accounts as panel

    sid = study(store)
    kept, line = panel.save(store, str(sid), "Alice\nacme-org, *")
    assert kept == "*\nalice\nacme-org" and "anyone signed in" in line and "MOCKED" not in line
    assert panel.shown(store, str(sid)) == kept
    assert panel.save(store, str(sid), "") == (
        "",
        f"Study #{sid}: no Hugging Face account may sign in; invite codes only.",
    )
    with settings.override(hf_mock_user=""):
        assert "Sign-in is off on this server" in panel.save(store, str(sid), "alice")[1]
    with pytest.raises(UserError, match="there is no study"):
        panel.save(store, "999", "alice")


def test_deleting_a_study_deletes_its_list(store):
    sid = study(store)
    accounts.set_access(store, sid, "alice")
    store.delete_study(sid)
    assert store.account_access() == {}


def test_a_tab_goes_on_in_its_own_study_when_another_study_admits_the_account_too(store):
    older = study(store, "older")
    accounts.set_access(store, older, "alice")
    tab = h.on_start(store, "", {}, signed_in("alice")).rate
    newer = study(store, "newer")
    accounts.set_access(store, newer, "*")  # Start would open the newer one now
    after = h.on_submit(store, signed_in("alice"), "", tab.session, *form(2), tab.item_for)
    assert after.session["study_id"] == older and after.item_for == 2 and len(store.ratings_frame(older)) == 3
    assert h.on_start(store, "", {}, signed_in("alice")).who.endswith("**newer**.")


def test_attack_a_space_without_its_oauth_secret_takes_no_cookie_for_an_account(store, monkeypatch):
    """Gradio signs the session cookie with SHA-256(OAUTH_CLIENT_SECRET + "-v4"): on a Space whose secret
    is missing that key is public, so a cookie naming any account can be written by anyone. The sign-in
    is then off, and such a cookie (here, what the middleware would decode from it) names nobody."""
    sid = study(store)
    accounts.set_access(store, sid, "alice")
    monkeypatch.setattr(hf_signin, "on_space", lambda: True)
    forged = signed_in("alice")
    with settings.override(oauth_client_id="space-client", hf_mock_user=""):
        monkeypatch.setattr(hf_signin.gradio_oauth, "OAUTH_CLIENT_SECRET", "")
        assert not hf_signin.enabled() and hf_signin.account_of(forged) is None
        monkeypatch.setattr(hf_signin.gradio_oauth, "OAUTH_CLIENT_SECRET", None)
        assert not hf_signin.enabled() and hf_signin.account_of(forged) is None
        # positive control: with the secret, the same session names alice
        monkeypatch.setattr(hf_signin.gradio_oauth, "OAUTH_CLIENT_SECRET", "the-space-secret")
        assert hf_signin.enabled() and hf_signin.account_of(forged).username == "alice"


def test_attack_on_a_space_the_mock_is_never_used(monkeypatch):
    """ARENA_HF_MOCK_USER left in a Space's settings must not let anyone be anyone: on a Space only
    Hugging Face's OAuth (client id and secret) turns the sign-in on."""
    monkeypatch.setattr(hf_signin, "on_space", lambda: True)
    monkeypatch.setattr(hf_signin.gradio_oauth, "OAUTH_CLIENT_SECRET", "the-space-secret")
    with settings.override(oauth_client_id="", hf_mock_user="alice"):
        assert not hf_signin.enabled() and hf_signin.login_button() is None
        assert hf_signin.account_of(signed_in("alice")) is None


@pytest.mark.parametrize(
    "target", ["//evil.example/x", "////evil.example", "https://evil.example/", "/\\evil.example", "\\\\evil.example"]
)
def test_attack_the_mocked_sign_in_and_out_redirect_only_inside_the_app(target):
    """The login and logout routes send the browser on to `_target_url`: never to another site."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient
    from starlette.middleware.sessions import SessionMiddleware

    app = FastAPI()
    hf_signin.mock_routes(app)
    app.add_middleware(SessionMiddleware, secret_key="test")
    client = TestClient(app, follow_redirects=False)
    for route in ("/login/huggingface", "/login/callback", "/logout"):
        answer = client.get(route, params={"_target_url": target})
        location = answer.headers["location"]
        assert answer.status_code in (302, 307) and location.startswith("/"), (route, location)
        assert not location.startswith(("//", "/\\")), location


def test_the_rate_pages_footer_says_how_this_browser_got_in_and_how_to_leave():
    from arena.access import sessions
    from ui.rate import footer

    note, leave = footer.on_load(signed_in("alice"))
    assert "Signed in with Hugging Face as **@alice**" in note and "sign out" in note
    assert "invite link" not in note and leave["visible"] is False  # forgetting a cookie would not sign her out
    note, leave = footer.on_load(signed_in("alice", cookies={sessions.RATER_COOKIE: "code-1"}))
    assert note.startswith("Opened by your invite link") and leave["visible"] is True  # the cookie opened the study
    note, leave = footer.on_load(signed_in(None))
    assert note == "" and leave["visible"] is False  # a typed code: nothing is kept, nothing to leave
    chinese = signed_in("bob")
    chinese.headers = {"accept-language": "zh-CN"}
    assert "**@bob**" in footer.on_load(chinese)[0] and "退出登录" in footer.on_load(chinese)[0]
    with settings.override(hf_mock_user=""):  # sign-in off: a session left in a scope is nobody
        assert footer.on_load(signed_in("alice"))[0] == ""
