"""The pieces that close issue 21's routes 1-9, in process: who a client is (arena/access/clients.py), the
reserved-prompt index (arena/studies/reserved.py), organizer sessions (arena/access/sessions.py), quick studies
(arena/studies/quick.py), the generation gate (ui/admission.py), the HTTP layer (ui/web.py), the organizer's
blind balance and export. The same routes attacked through a running app:
tests/test_blind_routes_live.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from arena import studies
from arena.access import clients, invites, sessions
from arena.files import export
from arena.rating import blind
from arena.runs.requests import MethodResult
from arena.settings import override
from arena.studies import quick, reserved
from common.errors import UserError
from tests.support.seeding import seed_study
from ui import admission, web

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
TEXTS = {m: f"{m} text" for m in METHODS}
PROMPT = "Describe the harbour at dawn for the visitors, please."


# ---- arena/access/clients.py ---------------------------------------------------------------------------


def test_a_forwarded_header_counts_only_from_a_trusted_proxy():
    none, proxy = clients.parse_proxies(""), clients.parse_proxies("10.0.0.0/8, 127.0.0.1")
    assert clients.client_address("198.51.100.4", "203.0.113.9", none) == "198.51.100.4"
    assert clients.client_address("10.1.2.3", "203.0.113.9", proxy) == "203.0.113.9"
    # read from the right; what the client wrote to the left of the proxy's entry is never read
    assert clients.client_address("10.1.2.3", "6.6.6.6, 203.0.113.9", proxy) == "203.0.113.9"
    assert clients.client_address("10.1.2.3", "203.0.113.9, 10.4.4.4", proxy) == "203.0.113.9"  # two proxies
    assert clients.client_address("127.0.0.1", None, proxy) == "127.0.0.1"  # the proxy itself asks
    assert clients.client_address("10.1.2.3", "203.0.113.9:5555", proxy) == "203.0.113.9"
    assert clients.client_address("10.1.2.3", "[2001:db8::1]:443", proxy) == "2001:db8::/64"
    assert clients.client_address("2001:db8::1", None, none) == clients.client_address("2001:db8::ffff", None, none)
    assert clients.client_address("::ffff:198.51.100.4", None, none) == "198.51.100.4"
    assert clients.client_address(None, "1.2.3.4", proxy) == clients.LOCAL
    with pytest.raises(UserError, match="ARENA_TRUSTED_PROXIES"):
        clients.parse_proxies("10.0.0.0/8, my-proxy")


def test_client_of_reads_a_request_through_the_setting():
    request = SimpleNamespace(client=SimpleNamespace(host="10.0.0.2"), headers={"x-forwarded-for": "203.0.113.1"})
    assert clients.client_of(request) == "10.0.0.2"
    with override(trusted_proxies="10.0.0.0/8"):
        assert clients.client_of(request) == "203.0.113.1"
    assert clients.client_of(None) == clients.LOCAL


# ---- arena/studies/reserved.py ------------------------------------------------------------------


def test_fold_drops_what_does_not_show_and_what_does_not_count():
    assert reserved.fold("Ｅxplain  the\u200b basic\u0001 principles, please!") == "explainthebasicprinciplesplease"
    assert reserved.fold("caf\u00e9") == reserved.fold("cafe\u0301") == "cafe"  # the accent comes off
    assert reserved.fold("h\u0430rbour \u3164") == "harbour"  # Cyrillic a, a Hangul filler
    zh = reserved.fold("解释一下量子计算的基本原理。")  # the skeleton maps 一 to its prototype ー: both sides alike
    assert len(zh) == 13 and zh == reserved.fold("解释 一下量子计算的基本原理") and "量子计算" in zh


def test_the_index_refuses_disguises_and_lets_other_prompts_through(lm):
    tok = lm.tokenizer
    index = reserved.ReservedIndex([(PROMPT, False), ("Hi there", False)], tok)
    template = reserved.model_input(tok, PROMPT, False)
    refused = {
        "exact": PROMPT,
        "control": PROMPT.replace("harbour", "har\u0001bour"),
        "zero width": PROMPT.replace(" ", " \u200b"),
        "no-break space": PROMPT.replace(" ", "\u00a0"),
        "full width": "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in PROMPT),
        "case": PROMPT.upper(),
        "spacing": PROMPT.replace(" ", "   "),
        "punctuation": PROMPT.replace(",", ";").replace(".", "!!"),
        "inside a longer text": f"Notes. {PROMPT} More notes.",
        "the template typed out": template,
        "a word changed": PROMPT.replace("dawn", "dusk"),
        "short prompt, disguised": "hi, THERE!",
    }
    for name, text in refused.items():
        raw = name in ("the template typed out", "inside a longer text")
        assert index.matches(text, reserved.model_input(tok, text, raw)), name
    assert reserved.model_input(tok, template, True) == template  # raw: the model gets the typed text
    for allowed in ("Write a haiku about autumn.", "Describe a harbour at night.", "Hi there, how was your day?"):
        assert not index.matches(allowed, reserved.model_input(tok, allowed, False)), allowed


SHORT = "Say hello to a friend."  # 16 letters: below the trigram rule's 20


def test_attack_look_alike_letters_and_one_dropped_letter_are_refused(lm):
    """Issue 32, route 6: on main b69a925 the check admitted a diacritic, dotless ı, a small capital,
    a Cherokee look-alike and, under 20 letters, one dropped letter."""
    tok = lm.tokenizer
    index = reserved.ReservedIndex([(PROMPT, False), (SHORT, False)], tok)
    attacks = {
        "a diacritic": PROMPT.replace("a", "á"),
        "combining diaeresis": PROMPT.replace("o", "o\u0308"),
        "dotless i": PROMPT.replace("i", "\u0131"),
        "small capital u": PROMPT.replace("u", "\u1d1c"),
        "Cherokee look-alikes": PROMPT.replace("D", "\u13a0").replace("T", "\u13a2"),
        "mathematical letters": PROMPT.replace("e", "\U0001d41e"),
        "short, one letter dropped": SHORT.replace("hello", "helo"),
        "short, one letter added": SHORT.replace("friend", "friends"),
        "short, one letter changed": SHORT.replace("hello", "hallo"),
        "short, a diacritic": SHORT.replace("a friend", "à friend"),
    }
    let_through = [
        name for name, text in attacks.items() if not index.matches(text, reserved.model_input(tok, text, False))
    ]
    assert not let_through, let_through
    for allowed in ("Say goodbye to a friend.", "Say hello to the family.", "Play a song."):
        assert not index.matches(allowed, reserved.model_input(tok, allowed, False)), allowed


def test_refusal_follows_the_studies_state_and_skips_quick_ratings(store):
    sid, _ = seed_study(store, "Reserved study", [PROMPT], [TEXTS])
    with pytest.raises(UserError) as refused:
        reserved.check_not_reserved(store, PROMPT.upper())
    assert str(refused.value) == reserved.RESERVED and "Reserved study" not in str(refused.value)
    reserved.check_not_reserved(store, "Something else entirely.")
    studies.close_study(store, sid)
    with pytest.raises(UserError):
        reserved.check_not_reserved(store, PROMPT)  # closed is not published
    studies.publish_study(store, sid)
    reserved.check_not_reserved(store, PROMPT)  # the index noticed the change
    results = [{"method": m, "text": t, "settings": {}, "seed": 0, "new_tokens": 1} for m, t in TEXTS.items()]
    studies.quick_item(store, "m", "A quick one about the sea.", results)
    reserved.check_not_reserved(store, "A quick one about the sea.")  # shown by name already


def test_admit_checks_only_when_the_app_protects_a_store(store):
    seed_study(store, "Guarded", [PROMPT], [TEXTS])
    reserved.admit(None, PROMPT)  # nothing protected: a CLI, a benchmark
    reserved.protect(lambda: store)
    try:
        with pytest.raises(UserError, match="reserved"):
            reserved.admit(None, PROMPT)
    finally:
        reserved.protect(None)


# ---- arena/access/sessions.py, arena/studies/quick.py ---------------------------------------------------


def test_a_ticket_is_traded_once_for_a_session_that_expires():
    now = [0.0]
    table = sessions.Sessions(clock=lambda: now[0])
    ticket = table.ticket()
    token = table.redeem(ticket)
    assert token and table.valid(token) and table.redeem(ticket) is None
    late = table.ticket()
    now[0] += sessions.TICKET_S + 1
    assert table.redeem(late) is None
    now[0] += sessions.SESSION_S
    assert not table.valid(token) and not table.valid("made-up") and not table.valid(None)


def test_quick_studies_have_an_hourly_limit_and_expire(store):
    now = [0.0]
    limit = quick.HourlyLimit(limit=lambda: 2, clock=lambda: now[0])
    real, quick.per_client = quick.per_client, limit
    results = [
        MethodResult(m, t, 1, 1.0, 1.0, 1.0, {"max_new_tokens": 4}, 0, 3) for m, t in zip(METHODS, TEXTS.values())
    ]
    try:
        made = [quick.create(store, "m", f"Quick prompt {k}", results, False, "198.51.100.1") for k in range(2)]
        with pytest.raises(UserError, match="an hour"):
            quick.create(store, "m", "Quick prompt 3", results, False, "198.51.100.1")
        quick.create(store, "m", "Another client's", results, False, "198.51.100.2")
        now[0] += quick.WINDOW_S + 1
        quick.create(store, "m", "Next hour", results, False, "198.51.100.1")
    finally:
        quick.per_client = real
    study_id, code = made[0]
    assert invites.resolve(store, code).study_id == study_id
    assert all(s.kind == "adhoc" for s in store.list_studies()) and len(store.list_studies()) == 4
    assert quick.expire(store) == 0  # none is a day old
    assert quick.expire(store, now=datetime.now(UTC) + timedelta(hours=25)) == 4
    assert store.list_studies() == []


# ---- ui/admission.py ------------------------------------------------------------------------------


class _Queue:
    """The parts of Gradio's queue the gate reads."""

    def __init__(self, events):
        self.events = events
        self.pending_event_ids_session = {}
        self.event_ids_to_events = {}
        for k, e in enumerate(events):
            self.pending_event_ids_session.setdefault(e.session_hash, set()).add(str(k))
            self.event_ids_to_events[str(k)] = e
        waiting = [e for e in events if e.waiting]
        self.event_queue_per_concurrency_id = {admission.GENERATION: SimpleNamespace(queue=waiting)}


def _request(session: str, address: str, queue=None):
    inner = SimpleNamespace(
        client=SimpleNamespace(host=address),
        headers={},
        app=SimpleNamespace(get_blocks=lambda: SimpleNamespace(_queue=queue)),
    )
    return SimpleNamespace(request=inner, session_hash=session)


def _event(session: str, address: str, waiting: bool = True):
    return SimpleNamespace(
        session_hash=session,
        concurrency_id=admission.GENERATION,
        request=_request(session, address).request,
        waiting=waiting,
    )


def test_the_gate_allows_one_run_per_tab_a_few_per_address_and_a_bounded_wait():
    busy = _Queue([_event("tab1", "198.51.100.1", waiting=False)])
    assert "this tab" in admission.refusal(_request("tab1", "198.51.100.1", busy))
    with override(compare_per_address=2, compare_queue=3):
        first = _request("tab2", "198.51.100.1", busy)
        assert admission.refusal(first) is None
        # sent at once: the first is not in the queue yet, and still counts
        assert "from your address" in admission.refusal(_request("tab3", "198.51.100.1", busy))
        admission.started(first)
        full = _Queue([_event(f"t{k}", f"203.0.113.{k}") for k in range(3)])
        assert "busy" in admission.refusal(_request("tab9", "198.51.100.9", full))
        assert admission.refusal(_request("tab9", "198.51.100.9", _Queue([]))) is None
    admission._admitted.clear()


# ---- ui/web.py ---------------------------------------------------------------------------------------


@pytest.fixture
def web_client():
    async def page(request):
        return PlainTextResponse(f"page {request.url.path}")

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/rate", page),
            Route("/gradio_api/upload", page, methods=["POST"]),
            *web.routes(),
        ]
    )
    app.add_middleware(web.ArenaMiddleware)
    with TestClient(app, base_url="https://arena.example") as client:
        yield client
    sessions.organizer.reset()


TYPED = {"Sec-Fetch-Site": "none"}  # what a browser sends for an address typed, pasted or opened from mail
OWN_PAGE = {"Sec-Fetch-Site": "same-origin"}
OTHER_SITE = {"Sec-Fetch-Site": "cross-site"}


def test_an_invite_link_becomes_a_strict_http_only_cookie_and_a_clean_address(web_client):
    r = web_client.get("/?invite=Abc-123_x&__theme=dark", headers=TYPED, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/rate?__theme=dark"
    cookie = r.headers["set-cookie"]
    for part in ("arena_invite=Abc-123_x", "HttpOnly", "SameSite=Strict", "Secure", "Path=/"):
        assert part in cookie
    assert r.headers["referrer-policy"] == "no-referrer"
    web_client.cookies.clear()
    bad = web_client.get("/?invite=<script>", headers=TYPED, follow_redirects=False)
    assert "arena_invite=-;" in bad.headers["set-cookie"]  # no markup in a cookie; the page says "not valid"
    web_client.cookies.clear()
    web_client.get("/?invite=Abc-123_x", headers=TYPED, follow_redirects=False)
    home = web_client.get("/", follow_redirects=False)  # the cookie is held now: the rating page
    assert home.status_code == 303 and home.headers["location"] == "/rate"
    out = web_client.post(web.SIGNOUT_PATH, headers=OWN_PAGE, follow_redirects=False)
    assert "Max-Age=0" in out.headers["set-cookie"] and out.headers["location"] == "/"
    assert web_client.get("/rate").headers["x-content-type-options"] == "nosniff"


def test_attack_a_link_on_another_site_cannot_swap_a_raters_seat(web_client):
    """Issue 32, route 4: on main b69a925 a top-level link to `/?invite=OTHER` from anywhere replaced the
    rater's cookie, and `/?signout=1` signed them out."""
    web_client.get("/?invite=seat-A", headers=TYPED, follow_redirects=False)
    assert web_client.cookies.get("arena_invite") == "seat-A"
    # From another site, or from an unknown sender: a page of this site, no cookie.
    for headers in (OTHER_SITE, {"Sec-Fetch-Site": "same-site"}, {}):
        page = web_client.get("/?invite=seat-B", headers=headers, follow_redirects=False)
        assert page.status_code == 200 and "set-cookie" not in page.headers, headers
        assert web.INVITE_PATH in page.text and "frame-ancestors 'none'" in page.headers["content-security-policy"]
    # Typed or pasted while holding another seat: asked too.
    asked = web_client.get("/?invite=seat-B", headers=TYPED, follow_redirects=False)
    assert asked.status_code == 200 and "set-cookie" not in asked.headers
    # The page posts the code back: this site sees the seat it holds and asks before switching.
    confirm = web_client.post(web.INVITE_PATH, data={"code": "seat-B"}, headers=OWN_PAGE, follow_redirects=False)
    assert confirm.status_code == 200 and "set-cookie" not in confirm.headers and "confirm" in confirm.text
    # Another site posting the form, or the confirmation, itself: refused.
    for headers in (OTHER_SITE, {"Origin": "https://evil.example"}, {}):
        forged = web_client.post(
            web.INVITE_PATH, data={"code": "seat-B", "confirm": "1"}, headers=headers, follow_redirects=False
        )
        assert forged.status_code == 403 and "set-cookie" not in forged.headers, headers
        assert web_client.post(web.SIGNOUT_PATH, headers=headers, follow_redirects=False).status_code == 403
    assert web_client.cookies.get("arena_invite") == "seat-A"
    # A link can no longer sign anybody out.
    left = web_client.get("/?signout=1", headers=OTHER_SITE, follow_redirects=False)
    assert "set-cookie" not in left.headers and web_client.cookies.get("arena_invite") == "seat-A"
    # The rater's own choice on this site's page switches; an Origin that matches the host counts as own.
    switched = web_client.post(
        web.INVITE_PATH,
        data={"code": "seat-B", "confirm": "1"},
        headers={"Origin": "https://arena.example"},
        follow_redirects=False,
    )
    assert switched.status_code == 303 and "arena_invite=seat-B" in switched.headers["set-cookie"]


def test_a_fresh_browser_from_another_site_gets_its_seat_after_one_post(web_client):
    page = web_client.get("/?invite=seat-C", headers=OTHER_SITE, follow_redirects=False)
    assert page.status_code == 200 and 'name="code" value="seat-C"' in page.text and "submit()" in page.text
    done = web_client.post(web.INVITE_PATH, data={"code": "seat-C"}, headers=OWN_PAGE, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "/rate"
    assert "arena_invite=seat-C" in done.headers["set-cookie"]


def test_uploads_need_the_organizer_session(web_client):
    refused = web_client.post("/gradio_api/upload", files={"files": ("a.txt", b"x")})
    assert refused.status_code == 403 and "organizer password" in refused.text
    assert web_client.post(web.SESSION_PATH, content="made-up").status_code == 403
    traded = web_client.post(web.SESSION_PATH, content=sessions.organizer.ticket())
    assert traded.status_code == 204 and "HttpOnly" in traded.headers["set-cookie"]
    assert web_client.post("/gradio_api/upload", files={"files": ("a.txt", b"x")}).status_code == 200


# ---- the organizer is blind while a study is open --------------------------------------------------


def test_balance_is_pass_or_fail_while_open_and_counts_once_closed(store):
    sid, _ = seed_study(store, "Balance", [f"prompt {k}" for k in range(6)], [TEXTS] * 6)
    [code] = invites.invite(store, sid, ["ann"])
    for index in range(1, 7):
        blind.open_with_code(store, code.code, index)
    summary, per_rater = blind.position_balance(store, sid)
    assert list(summary["result"]) == ["pass"] and "1 complete block" in summary["detail"][0]
    assert not set(METHODS) & set(summary.to_string().split())
    assert per_rater["complete blocks"].tolist() == [1]
    studies.close_study(store, sid)
    counts, _ = blind.position_balance(store, sid)
    assert set(counts["method"]) == set(METHODS) and (counts[["A", "B", "C"]] == 2).all().all()


def test_the_organizers_export_of_an_open_study_is_blind_and_says_it_does_not_import(store, tmp_path):
    sid, _ = seed_study(store, "Blind export", ["a prompt"], [TEXTS])
    [code] = invites.invite(store, sid, ["ann"])
    view, _ = blind.open_with_code(store, code.code)
    blind.submit_slots_with_code(store, code.code, view.item, [[4, 4, 4]] * 3 + [[None] * 3] * 5, [None] * 8)
    rows = export.export_rows(store, sid, blind=True)
    assert rows and all(r[c] is None for r in rows for c in export.BLINDED_COLUMNS)
    # Every door seals it (issue 44: the CLI's export was whole but for the seeds); the deletion's server copy keeps the mapping.
    assert all(r[c] is None for r in export.export_rows(store, sid) for c in export.SEALED_COLUMNS)
    assert {r["method"] for r in export.export_rows(store, sid, server_copy=True)} == set(METHODS)
    text, n = export.export_text(store, "csv", sid, blind=True)
    path = tmp_path / "blind.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError, match="written blind"):
        export.import_file(store, path)
    studies.close_study(store, sid)
    assert {r["method"] for r in export.export_rows(store, sid, blind=True)} == set(METHODS)


def test_a_large_index_finds_its_one_entry_among_many_alike():
    index = reserved.ReservedIndex([(f"Prompt {k}: about topic {k * 7} in style {k % 13}", False) for k in range(2000)])
    assert not index.matches("Write a haiku about autumn leaves and the wind")
    assert index.matches("prompt 1234: about TOPIC 8638 in style 12")
    assert not index.matches("prompt 1234 about topic")  # a part of one is not a copy
