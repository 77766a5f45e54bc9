"""The curious rater's attacks, replayed against a running app (`python app.py`) over HTTP, on the
run's live database (tests/support/stores.py, live_backends). Each one worked on the first version;
each must fail now.

  1. public Results unblinding a study still being rated (per-method means, per-rater filter);
  2. replaying a study's prompt in Compare (seed 0) to read the outputs with method names;
  5. a name used as a password: typing "alice" opened alice's ratings; junk names made raters;
  6. Gradio's run history keeping rater inputs (codes, scores) in the browser and at /runs;
plus the limits: guesses of codes and of the organizer password are throttled per client (a
forwarded header from a peer that is not a trusted proxy counts for nothing), and uploads need the
organizer's session and have a size limit. Routes 1-9 of issue 21: tests/test_blind_routes_live.py.
Attacks 3 and 4 (predicting orders, shared seeds) need no server: tests/test_blind_attacks.py.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from typing import Any

import httpx
import pytest

from arena import studies
from arena.access import invites
from arena.store import Store
from tests.support.live_app import (
    API,
    ORGANIZER_PASSWORD,
    GradioHTTP,
    dep_by_api_name,
    organizer_session,
    start_app,
)
from tests.support.seeding import seed_study
from tests.support.stores import LIVE_BACKENDS, fresh_pg_url
from ui.rate.view import form as rate_form

pytestmark = pytest.mark.timeout(900)

TOKEN = secrets.token_hex(4)
TEXTS = {"BS-4": f"beam answer {TOKEN}", "TS-Temp": f"temp answer {TOKEN}", "TS-Tilted": f"tilted answer {TOKEN}"}
PROMPT = f"Describe the harbour at dawn, please {TOKEN}."


def submit_values(n: int, score: int) -> list[Any]:
    """The Submit's inputs after the code and the session: n responses scored on the default rubric."""
    return [*rate_form([[score] * 3] * n), None]  # no item named: the item on screen (ui/rate/once.py)


@pytest.fixture(scope="module", params=LIVE_BACKENDS)
def world(request, tmp_path_factory):
    workdir = tmp_path_factory.mktemp(f"attack-{request.param}")
    extra = {"ARENA_AUTH_FREE_ATTEMPTS": "3"}
    drop = None
    if request.param == "postgresql":
        url, drop = fresh_pg_url()
        extra["DATABASE_URL"] = url
        store = Store(url)
    else:
        store = Store(f"sqlite:///{workdir / 'arena.db'}")
    sid, _ = seed_study(store, f"Harbour study {TOKEN}", [PROMPT, f"second prompt {TOKEN}"], [TEXTS, TEXTS])
    codes = {i.rater: i.code for i in invites.invite(store, sid, ["alice", "bob"])}
    app = start_app(workdir, extra)
    client = GradioHTTP(app.url)
    yield dict(app=app, client=client, store=store, sid=sid, codes=codes)
    client.close()
    app.stop()
    store.dispose()
    if drop:
        drop()


def test_attack1_results_say_nothing_about_an_unpublished_study(world):
    client, sid, store = world["client"], world["sid"], world["store"]
    session = uuid.uuid4().hex[:11]
    opened = client.call(dep_by_api_name(client, "rate_start"), [world["codes"]["alice"], None], session_hash=session)
    assert opened.ok, opened.error
    saved = client.call(
        dep_by_api_name(client, "rate_submit"),
        [world["codes"]["alice"], None, *submit_values(3, 5)],
        session_hash=session,
    )
    assert saved.ok and "Saved" in saved.raw, saved.error
    listed = client.call(dep_by_api_name(client, "results_studies"), [])
    assert listed.ok and str(sid) not in json.dumps(listed.data) and TOKEN not in listed.raw
    shown = client.call(dep_by_api_name(client, "results_show"), [sid, None, None, False])
    missing = client.call(dep_by_api_name(client, "results_show"), [987654, None, None, False])
    # not even "it exists": the same refusal as for an id no study has
    assert (
        not shown.ok and not missing.ok and shown.error.replace(str(sid), "N") == missing.error.replace("987654", "N")
    )
    for method in TEXTS:
        assert method not in shown.raw
    # positive control: once closed and published, the same calls show the study
    studies.close_study(store, sid)
    studies.publish_study(store, sid)
    try:
        viewer = uuid.uuid4().hex[:11]
        listed = client.call(dep_by_api_name(client, "results_studies"), [], session_hash=viewer)
        assert str(sid) in json.dumps(listed.data)
        shown = client.call(dep_by_api_name(client, "results_show"), [sid, None, None, False], session_hash=viewer)
        assert shown.ok and "TS-Tilted" in shown.raw, shown.error
    finally:
        store.set_study_state(sid, "open", allowed_from=("published",))


def test_attack2_compare_refuses_a_study_prompt_however_it_is_typed(world):
    client = world["client"]
    run = dep_by_api_name(client, "compare")
    comps = client.components()
    controls = [comps[c]["props"].get("value") for c in client.dependencies()[run]["inputs"][5:]]
    for typed in (PROMPT, "  " + PROMPT.upper().replace(" ", "   ") + "\n"):
        result = client.call(run, [typed, ["TS-Temp"], False, 0, 4, *controls])
        assert not result.ok and "reserved" in (result.error or "")
        assert "Harbour" not in (result.error or "") and TOKEN not in (result.error or "")


def test_attack2_the_trace_tab_refuses_a_study_prompt_too(world):
    client = world["client"]
    result = client.call(dep_by_api_name(client, "multiarm_trace"), [PROMPT.lower(), False, 0, 4])
    assert not result.ok and "reserved" in (result.error or "") and TOKEN not in (result.error or "")


def test_attack5_a_name_is_not_a_password_and_guesses_are_throttled(world):
    client, store, sid = world["client"], world["store"], world["sid"]
    start = dep_by_api_name(client, "rate_start")
    enrolled = len(store.enrolments(sid))
    errors = set()
    for guess in ("alice", "ａｌｉｃｅ", "alice\u200b"):
        result = client.call(start, [guess, None])
        assert not result.ok
        errors.add(result.error)
    assert errors == {invites.INVALID}
    assert len(store.enrolments(sid)) == enrolled  # junk names make no raters
    # The 4th wrong attempt (3 free ones above) starts the wait: the next wrong code is told to wait,
    # while bob's right code, from the same address, still opens (192-bit codes: a wait that held up
    # valid codes would lock real raters out and protect nothing).
    assert not client.call(start, ["not-a-code", None]).ok
    held = client.call(start, ["still-not-a-code", None])
    assert not held.ok and "wait" in held.error
    assert "invite code: 4 wrong attempts from 127.0.0.1" in world["app"].log_tail(20000)
    assert client.call(start, [world["codes"]["bob"], None]).ok


def test_attack2b_a_forwarded_header_from_an_untrusted_peer_counts_for_nothing(world):
    """No proxy is trusted here (ARENA_TRUSTED_PROXIES unset): a made-up X-Forwarded-For per request
    does not make a new client (on main 92ce062, 40 of 40 code guesses sent that way were answered).
    Every guess below lands on 127.0.0.1's record, which the guesses above put into a wait."""
    start = dep_by_api_name(world["client"], "rate_start")
    answers = []
    for k in range(12):
        forged = GradioHTTP(world["app"].url, headers={"X-Forwarded-For": f"198.51.100.{k}"})
        answers.append(forged.call(start, [f"forged-{k}-{secrets.token_hex(8)}", None]).error or "")
        forged.close()
    assert any("wait" in a for a in answers), answers
    assert "from 198.51.100." not in world["app"].log_tail(200_000)


def test_organizer_password_guesses_are_throttled(world):
    client = world["client"]
    deps = client.dependencies()
    comps = client.components()
    # the organizer's "Refresh" button: [password, study] -> overview
    idx = next(
        d.get("id", i)
        for i, d in enumerate(deps)
        for t in d.get("targets", [])
        if comps.get(t[0], {}).get("props", {}).get("value") == "Refresh"
    )
    for _ in range(4):
        assert "wrong organizer password" in (client.call(idx, ["guess", None]).error or "")
    held = client.call(idx, [ORGANIZER_PASSWORD, None])
    assert not held.ok and "wait" in held.error
    time.sleep(1.2)
    assert client.call(idx, [ORGANIZER_PASSWORD, None]).ok


def test_attack6_no_run_history_and_an_upload_limit(world):
    app = world["app"]
    config = httpx.get(f"{app.url}/config", timeout=30, trust_env=False).json()
    assert config.get("run_history") is False
    runs = httpx.get(f"{app.url}{API}/runs", timeout=30, trust_env=False)
    assert runs.status_code != 200 or "run history" not in runs.text.lower() or "disabled" in runs.text.lower()
    big = b"x" * (11 * 1024 * 1024)
    up = httpx.post(
        f"{app.url}{API}/upload", files={"files": ("big.csv", big, "text/csv")}, timeout=60, trust_env=False
    )
    assert up.status_code == 403  # no organizer session: refused before a byte is stored
    organizer = GradioHTTP(app.url)
    organizer_session(organizer)
    up = organizer.http.post(f"{app.url}{API}/upload", files={"files": ("big.csv", big, "text/csv")})
    assert up.status_code == 413
    organizer.close()
