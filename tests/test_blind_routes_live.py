"""Routes 1-9 of issue 21, attacked against a running app (`python app.py`) over HTTP, on the run's
live database (tests/support/stores.py, live_backends). Each attack worked on main 92ce062; each must fail now, and a positive control shows
the route itself still works for whom it is meant.

The app runs behind a pretend reverse proxy: `ARENA_TRUSTED_PROXIES=127.0.0.1`, so the test, which
connects from loopback, says who the client is in `X-Forwarded-For`, as a proxy would. (That an
untrusted peer's header counts for nothing is attacked in tests/test_blind_attacks_live.py, whose app
trusts no proxy.) Its outputs come from the dummy engine (live_app.DUMMY_ENGINE): no route here tests
what a model writes, and route 3's first run holds the generation slot by waiting, not computing.

  1. Compare and the trace tab refuse a study's prompt in disguise: control, format and zero-width
     characters, no-break spaces, full width, case, spacing, punctuation, the chat template typed
     out with Raw ticked, the prompt inside a longer raw text. An unrelated prompt runs.
  2. Forwarded headers from the proxy name the client; a forged left part changes nothing. One
     client's wrong codes never hold up another's valid code, nor the organizer's session; a valid
     code does not reset the guesser's record.
  3. With 256 Compare runs queued, raters still start and submit (and nothing waits for generation);
     one queued run per browser tab.
  4. The organizer is blind while a study is open: the export has no method, seed, settings or
     output id; the balance is pass/fail and reads the same before and after a rater opens an item.
  5. "Send these to the Rate tab" works only for the tab that ran the Compare, once per run, a few per client
     an hour; quick studies are not in the organizer's list and expire.
  6. Invite links become an HttpOnly cookie and a clean address; Referrer-Policy everywhere; the
     invite CSV comes in the organizer's answer, not as a file; no code in the app's log.
  7. No output id reaches a rater; uploads need the organizer session and are removed after import.
  8. The invite link opens a page with rating only, in full mode.
"""

from __future__ import annotations

import json
import re
import secrets
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

import decoders
from arena import studies
from arena.access import invites
from arena.store import Store
from arena.store.schema import outputs as output_table
from arena.studies import quick
from tests.support.live_app import (
    API,
    DUMMY_ENGINE,
    ORGANIZER_PASSWORD,
    GradioHTTP,
    dep_by_api_name,
    dep_by_output,
    dep_by_trigger,
    organizer_session,
    start_app,
    unmarked,
)
from tests.support.seeding import seed_study
from tests.support.stores import LIVE_BACKENDS, fresh_pg_url
from ui.rate.view import form as rate_form

pytestmark = pytest.mark.timeout(1500)

TOKEN = secrets.token_hex(4)
METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
TEXTS = {m: f"{m.lower()} routes answer {TOKEN}" for m in METHODS}
PROMPT = f"Describe the harbour at dawn for the visitors, please {TOKEN}."
PLANTED_IDS = [1_900_000_001 + 7919 * k for k in range(3)]  # the output ids of the "ids" study


def submit_values(n: int, score: int) -> list[Any]:
    """The Submit's inputs after the code and the session: n responses scored on the default rubric."""
    return [*rate_form([[score] * 3] * n), None]  # no item named: the item on screen (ui/rate/once.py)


def seed_with_ids(store: Store, name: str, prompt: str, ids: list[int]) -> int:
    """A one-item study whose outputs have the given (distinctive) ids, to look for in responses."""
    sid = store.create_study(
        name, model="seeded", methods=list(METHODS), settings={m: {} for m in METHODS}, base_seed=5
    )
    [item_id] = store.add_items(sid, [{"prompt": prompt, "scenario": "seeded", "language": "en"}])
    with store.write() as conn:
        for oid, method in zip(ids, METHODS):
            conn.execute(
                output_table.insert().values(
                    id=oid,
                    item_id=item_id,
                    method=method,
                    sample_index=0,
                    settings="{}",
                    seed=5,
                    model="seeded",
                    text=f"{method} planted {TOKEN}",
                    new_tokens=3,
                    created_at=datetime.now(UTC),
                )  # fmt: skip
            )
    return sid


@pytest.fixture(scope="module", params=LIVE_BACKENDS)
def world(request, tmp_path_factory):
    workdir = tmp_path_factory.mktemp(f"routes-{request.param}")
    extra = {
        **DUMMY_ENGINE,
        # Route 3's first run (512-1,024 words) holds the slot 51-102 s while 255 runs join and a rater
        # starts and submits; its cancel ends it at the next word, so the wait costs nothing after.
        "ARENA_DUMMY_TOKEN_DELAY": "0.1",
        "ARENA_TRUSTED_PROXIES": "127.0.0.1",
        "ARENA_AUTH_FREE_ATTEMPTS": "3",
        "ARENA_COMPARE_QUEUE": "512",
        "ARENA_QUICK_STUDIES_PER_HOUR": "2",
        "GRADIO_TEMP_DIR": str(workdir / "gradio-tmp"),
    }
    drop = None
    if request.param == "postgresql":
        url, drop = fresh_pg_url()
        extra["DATABASE_URL"] = url
        store = Store(url)
    else:
        store = Store(f"sqlite:///{workdir / 'arena.db'}")
    sid, _ = seed_study(store, f"Routes study {TOKEN}", [PROMPT, f"Second routes prompt {TOKEN}"], [TEXTS, TEXTS])
    ids_sid = seed_with_ids(store, f"Ids study {TOKEN}", f"Ids prompt {TOKEN}", PLANTED_IDS)
    names = ["alice", "bob", "carol", "dave", "erin", "fay"]
    codes = {i.rater: i.code for i in invites.invite(store, sid, names)}
    codes["ids"] = invites.invite(store, ids_sid, ["ida"])[0].code
    app = start_app(workdir, extra)
    client = GradioHTTP(app.url)
    yield dict(
        app=app, client=client, store=store, sid=sid, ids_sid=ids_sid, codes=codes, workdir=workdir, db=request.param
    )
    client.close()
    app.stop()
    # Route 6: no invite code was written to the app's log, whatever the tests above did.
    log = app.log_path.read_text(errors="replace")
    assert not [name for name, code in codes.items() if code in log], "an invite code is in the app's log"
    store.dispose()
    if drop:
        drop()


def behind_proxy(world, address: str) -> GradioHTTP:
    """A client whose requests reach the app through the (trusted) proxy from `address`."""
    return GradioHTTP(world["app"].url, headers={"X-Forwarded-For": address})


def compare_inputs(client: GradioHTTP, prompt: str, raw: bool = False, methods=("TS-Temp",), tokens: int = 1):
    run = dep_by_api_name(client, "compare")
    comps = client.components()
    controls = [comps[c]["props"].get("value") for c in client.dependencies()[run]["inputs"][5:]]
    return run, [prompt, list(methods), raw, 0, tokens, *controls]


# ---- route 1: the reserved-prompt check, on what the model sees ---------------------------------------


def disguises(chat_template_text: str) -> dict[str, tuple[str, bool]]:
    full_width = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in PROMPT)
    return {
        "U+0001 inside a word": (PROMPT.replace("harbour", "har\u0001bour"), False),
        "U+200B between words": (PROMPT.replace(" ", " \u200b"), False),
        "no-break spaces": (PROMPT.replace(" ", "\u00a0"), False),
        "full width": (full_width, False),
        "upper case": (PROMPT.upper(), False),
        "doubled spaces": (PROMPT.replace(" ", "  "), False),
        "punctuation changed": (PROMPT.replace(",", ";").replace(".", "!?"), False),
        "the chat template typed out, Raw ticked": (chat_template_text, True),
        "inside a longer raw text": (f"Notes from the trip. {PROMPT} Then we went home for lunch.", True),
        "look-alike letters": (PROMPT.replace("a", "\u0430"), False),
    }


def test_route1_compare_and_trace_refuse_a_study_prompt_in_disguise(world, lm):
    client = world["client"]
    template = lm.tokenizer.apply_chat_template(
        [{"role": "user", "content": PROMPT}], add_generation_prompt=True, tokenize=False
    )
    assert "<|im_start|>" in template and PROMPT in template
    let_through = []
    for name, (typed, raw) in disguises(template).items():
        run, data = compare_inputs(client, typed, raw)
        result = client.call(run, data)
        if result.ok or "reserved" not in (result.error or ""):
            let_through.append(f"{name}: {result.error or 'it ran'}")
        assert TOKEN not in (result.error or "") and "Routes study" not in result.raw
    assert not let_through, "\n".join(let_through)
    # A typed-out template with a system prompt of the attacker's own still holds the study prompt.
    other_system = template.replace("You are a helpful AI assistant named SmolLM", "You answer briefly")
    run, data = compare_inputs(client, other_system, True)
    assert "reserved" in (client.call(run, data).error or "")
    # The trace tab goes through the same check.
    traced = client.call(dep_by_api_name(client, "multiarm_trace"), [PROMPT.replace(" ", "\u200b "), False, 0, 1])
    assert not traced.ok and "reserved" in (traced.error or "")
    # Positive control: an unrelated prompt runs, and so does the study prompt once it is published.
    run, data = compare_inputs(client, f"Write one line about autumn {TOKEN}")
    ran = client.call(run, data)
    assert ran.ok, ran.error
    other = seed_study(world["store"], f"Published routes study {TOKEN}", [f"Tell me a tale {TOKEN}."], [TEXTS])[0]
    run, data = compare_inputs(client, f"tell me a TALE {TOKEN}")
    assert "reserved" in (client.call(run, data).error or "")  # the index saw the new study at once
    studies.close_study(world["store"], other)
    studies.publish_study(world["store"], other)
    assert client.call(run, data).ok


# ---- route 2: who the client is, and who waits ----------------------------------------------------


def logged_count(world, address: str, what: str = "invite code") -> int:
    """The highest "N wrong attempts from ADDRESS" the app has logged (0: none yet)."""
    found = re.findall(rf"{what}: (\d+) wrong attempts from {re.escape(address)};", world["app"].log_tail(2_000_000))
    return max(map(int, found), default=0)


def guess_until_told_to_wait(client: GradioHTTP, fn: int, secret: str = "wrong", limit: int = 40) -> str:
    for k in range(limit):
        error = client.call(fn, [f"{secret}-{k}-{secrets.token_hex(8)}", None]).error or ""
        if "wait" in error:
            return error
    raise AssertionError("no wait after many wrong attempts")


def test_route2_a_forged_forwarded_header_does_not_make_a_new_client(world):
    start = dep_by_api_name(world["client"], "rate_start")
    for k in range(8):  # the proxy appends the real address; whatever the client wrote is to its left
        forged = behind_proxy(world, f"10.{k}.{k}.{k}, 198.51.100.{k}, 203.0.113.7")
        error = forged.call(start, [f"guess-{k}-{secrets.token_hex(8)}", None]).error or ""
        assert invites.INVALID in error or "wait" in error, error
        forged.close()
    # All eight counted against the one real client (3 free, so at least the 4th was logged), none
    # against an address the client made up.
    assert logged_count(world, "203.0.113.7") >= 4
    assert not any(logged_count(world, f"{part}.{k}.{k}.{k}") for k in range(8) for part in ("10",))
    assert not any(logged_count(world, f"198.51.100.{k}") for k in range(8))


def test_route2_one_clients_guesses_never_hold_up_another_or_a_valid_code(world):
    codes = world["codes"]
    guesser, rater = behind_proxy(world, "203.0.113.20"), behind_proxy(world, "203.0.113.21")
    start = dep_by_api_name(guesser, "rate_start")
    assert "wait" in guess_until_told_to_wait(guesser, start)
    # Another client is not held up, and neither is a valid code from the guesser's own address (a
    # rater in the same office): codes have 192 bits, knowing that a code is valid gives nothing away.
    assert rater.call(start, [codes["carol"], None]).ok
    same_address = uuid.uuid4().hex[:11]
    opened = guesser.call(start, [codes["dave"], None], session_hash=same_address)
    assert opened.ok, opened.error
    saved = guesser.call(
        dep_by_api_name(guesser, "rate_submit"), [codes["dave"], None, *submit_values(3, 4)], session_hash=same_address
    )
    assert saved.ok and "Saved" in saved.raw, saved.error
    # A valid code does not reset the guesser's record: the next wrong code that is heard counts on.
    counted = logged_count(world, "203.0.113.20")
    deadline = time.monotonic() + 120
    while logged_count(world, "203.0.113.20") == counted:
        assert time.monotonic() < deadline
        guesser.call(start, [f"wrong-after-valid-{secrets.token_hex(8)}", None])
        time.sleep(0.3)
    assert logged_count(world, "203.0.113.20") == counted + 1  # a reset would have started again at 1
    guesser.close()
    rater.close()


def test_route2_the_organizer_keeps_working_through_a_guessers_wait(world):
    office = "203.0.113.30"
    organizer = behind_proxy(world, office)
    session = organizer_session(organizer)  # the organizer unlocked before the guessing started
    guesser = behind_proxy(world, office)
    refresh = dep_by_trigger(guesser, "Refresh")
    while True:  # guess until the wait is long enough to try the right password inside it
        error = guesser.call(refresh, [f"guess-{secrets.token_hex(4)}", None]).error or ""
        waiting = re.search(r"wait (\d+) s", error)
        if waiting and int(waiting.group(1)) >= 8:
            break
        if waiting:
            time.sleep(int(waiting.group(1)))
        else:
            assert "wrong organizer password" in error, error
    held = guesser.call(refresh, [ORGANIZER_PASSWORD, None])  # even the right password waits, unheard
    assert not held.ok and "wait" in (held.error or "")
    worked = organizer.call(refresh, [ORGANIZER_PASSWORD, None], session_hash=session)
    assert worked.ok, worked.error  # the organizer's browser proved the password before
    elsewhere = behind_proxy(world, "203.0.113.31")
    assert elsewhere.call(refresh, [ORGANIZER_PASSWORD, None]).ok  # another client: not held up at all
    for c in (organizer, guesser, elsewhere):
        c.close()


# ---- route 3: rating never waits behind generation ------------------------------------------------


def test_route3_with_256_compare_runs_queued_raters_start_and_submit(world):
    app, codes = world["app"], world["codes"]
    probe = GradioHTTP(app.url)
    # A long raw count: the first run holds the generation slot for a while.
    run, long_run = compare_inputs(probe, "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,", raw=True, tokens=1024)
    _, short_run = compare_inputs(probe, f"Say hi {TOKEN}")
    joined: list[tuple[str, str]] = []

    def join(k: int) -> tuple[int, Any]:
        body = {
            "data": long_run if k == 0 else short_run,
            "fn_index": run,
            "session_hash": f"flood{k:04d}{TOKEN}",
            "event_data": None,
            "trigger_id": None,
        }
        r = httpx.post(
            f"{app.url}{API}/queue/join",
            json=body,
            headers={"X-Forwarded-For": f"192.0.{k // 250}.{k % 250 + 1}"},
            timeout=120,
            trust_env=False,
        )
        return r.status_code, (r.json().get("event_id") if r.status_code == 200 else r.text)

    status, first = join(0)
    assert status == 200, first
    joined.append((f"flood0000{TOKEN}", first))
    # One run per tab: the same tab cannot queue a second run while its first one waits or runs.
    again = httpx.post(
        f"{app.url}{API}/queue/join",
        json={"data": short_run, "fn_index": run, "session_hash": f"flood0000{TOKEN}", "event_data": None},
        headers={"X-Forwarded-For": "192.0.0.1"},
        timeout=120,
        trust_env=False,
    )
    assert again.status_code == 422 and "this tab has a run" in again.text, again.text
    t_join = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        for k, (status, event) in enumerate(pool.map(join, range(1, 256)), start=1):
            assert status == 200, event
            joined.append((f"flood{k:04d}{TOKEN}", event))
    try:
        waiting = httpx.get(f"{app.url}{API}/queue/status", timeout=30, trust_env=False).json()["queue_size"]
        assert waiting >= 250, waiting  # the first one runs (1024 tokens), the others wait behind it
        rater = behind_proxy(world, "198.51.100.40")
        session = uuid.uuid4().hex[:11]
        t0 = time.perf_counter()
        opened = rater.call(dep_by_api_name(rater, "rate_start"), [codes["erin"], None], session_hash=session)
        t1 = time.perf_counter()
        saved = rater.call(
            dep_by_api_name(rater, "rate_submit"), [codes["erin"], None, *submit_values(3, 3)], session_hash=session
        )
        t2 = time.perf_counter()
        assert opened.ok and saved.ok and "Saved" in saved.raw, (opened.error, saved.error)
        still = httpx.get(f"{app.url}{API}/queue/status", timeout=30, trust_env=False).json()["queue_size"]
        # The rater did not wait for generation: the backlog is still there (working it off takes minutes).
        assert still >= 200, still
        # At most ARENA_COMPARE_PER_ADDRESS (4) runs per address, whatever the tabs.
        _, short = compare_inputs(probe, f"Say hi again {TOKEN}")
        same = [
            httpx.post(
                f"{app.url}{API}/queue/join",
                json={"data": short, "fn_index": run, "session_hash": f"addr{k}{TOKEN}", "event_data": None},
                headers={"X-Forwarded-For": "192.0.9.9"},
                timeout=120,
                trust_env=False,
            )
            for k in range(5)
        ]
        joined += [(f"addr{k}{TOKEN}", r.json()["event_id"]) for k, r in enumerate(same) if r.status_code == 200]
        assert [r.status_code for r in same] == [200] * 4 + [422] and "from your address" in same[4].text
        print(
            f"\njoins {t0 - t_join:.1f} s; with {waiting} Compare runs waiting: rater Start {t1 - t0:.2f} s, "
            f"Submit {t2 - t1:.2f} s"
        )
        rater.close()
    finally:
        t_cancel = time.perf_counter()

        def cancel(joined_event: tuple[str, str]) -> None:
            session_hash, event_id = joined_event
            httpx.post(
                f"{app.url}{API}/cancel",
                json={"session_hash": session_hash, "fn_index": run, "event_id": event_id},
                timeout=120,
                trust_env=False,
            )

        with ThreadPoolExecutor(8) as pool:  # the waiting ones first, the running one last
            list(pool.map(cancel, joined[1:]))
        cancel(joined[0])
        probe.close()
    t_drain = time.perf_counter()
    deadline = time.monotonic() + 300
    while httpx.get(f"{app.url}{API}/queue/status", timeout=30, trust_env=False).json()["queue_size"]:
        assert time.monotonic() < deadline, "the cancelled runs are still queued"
        time.sleep(0.5)
    print(f"cancel {t_drain - t_cancel:.1f} s, drain {time.perf_counter() - t_drain:.1f} s")


# ---- route 4: the organizer is blind until the study is closed ------------------------------------


def export_rows(client: GradioHTTP, session: str) -> list[dict[str, Any]]:
    done = client.call(dep_by_trigger(client, "Export ratings (JSONL)"), [ORGANIZER_PASSWORD], session_hash=session)
    assert done.ok, done.error
    return [json.loads(line) for line in done.data[0].splitlines() if line.strip()]


def test_route4_the_organizer_sees_no_method_per_rating_until_the_study_is_closed(world):
    store, sid, codes = world["store"], world["sid"], world["codes"]
    organizer = behind_proxy(world, "198.51.100.50")
    session = organizer_session(organizer)
    rater = behind_proxy(world, "198.51.100.51")
    rater_session = uuid.uuid4().hex[:11]
    assert rater.call(dep_by_api_name(rater, "rate_start"), [codes["alice"], None], session_hash=rater_session).ok
    assert rater.call(
        dep_by_api_name(rater, "rate_submit"), [codes["alice"], None, *submit_values(3, 5)], session_hash=rater_session
    ).ok
    rows = [r for r in export_rows(organizer, session) if r["study_id"] == sid and r["row_kind"] == "rating"]
    assert rows, "the export has the study's ratings"
    for column in ("method", "settings", "seed", "output_id", "latency_ms", "new_tokens", "output_created_at"):
        assert all(r[column] in (None, "") for r in rows), column
    # (The study's list of methods is a study-level fact the organizer set; no row says which one it is.)
    # The balance, read before and after a rater opens an item: the same pass/fail line. (A study of
    # 6 items: one balanced block for three methods.)
    bal_sid, _ = seed_study(
        store, f"Balance study {TOKEN}", [f"Balance prompt {k} {TOKEN}" for k in range(6)], [TEXTS] * 6
    )
    first, second = (invites.invite(store, bal_sid, [n])[0].code for n in ("hal", "ivy"))
    design = dep_by_output(organizer, "Position balance", n_inputs=2)  # [password, study]

    def balance(study: int) -> str:
        read = organizer.call(design, [ORGANIZER_PASSWORD, study], session_hash=session)
        assert read.ok, read.error
        return json.dumps(read.data[1], ensure_ascii=False)

    hal = uuid.uuid4().hex[:11]
    assert rater.call(dep_by_api_name(rater, "rate_start"), [first, None], session_hash=hal).ok
    for _ in range(5):
        assert rater.call(dep_by_api_name(rater, "rate_next"), [first, None], session_hash=hal).ok
    before = balance(bal_sid)
    assert "pass" in before and "1 complete block" in before and not any(m in before for m in METHODS), before
    assert rater.call(dep_by_api_name(rater, "rate_start"), [second, None], session_hash=uuid.uuid4().hex[:11]).ok
    assert balance(bal_sid) == before  # ivy opened an item: nothing to diff
    # Positive control: once closed, the export and the balance say everything.
    studies.close_study(store, sid)
    studies.close_study(store, bal_sid)
    try:
        closed = [r for r in export_rows(organizer, session) if r["study_id"] == sid and r["row_kind"] == "rating"]
        assert {r["method"] for r in closed} == set(METHODS) and all(r["output_id"] for r in closed)
        counts = balance(bal_sid)
        assert all(m in counts for m in METHODS), counts
    finally:
        store.set_study_state(sid, "open", allowed_from=("closed",))
    organizer.close()
    rater.close()


# ---- route 5: quick studies --------------------------------------------------------------------------


def test_route5_rate_these_blind_is_for_the_tab_that_ran_the_compare(world):
    store = world["store"]
    me = behind_proxy(world, "198.51.100.60")
    quick_rate = dep_by_trigger(me, "Send these to the Rate tab")
    before = {s.id for s in store.list_studies(kind="adhoc")}
    # A tab that ran nothing gets nothing (the API call of the attack in the issue).
    stranger = me.call(quick_rate, [PROMPT, False, None])
    assert not stranger.ok and "run at least two methods" in (stranger.error or "")
    made = []
    for k in range(3):  # a limit of 2 an hour per client (ARENA_QUICK_STUDIES_PER_HOUR=2 here)
        session = uuid.uuid4().hex[:11]
        run, data = compare_inputs(me, f"Quick prompt {k} {TOKEN}", methods=("TS-Temp", "Greedy"))
        assert me.call(run, data, session_hash=session).ok
        first = me.call(quick_rate, [data[0], False, None], session_hash=session)
        made.append(first)
        if k < 2:
            assert first.ok, first.error
            again = me.call(quick_rate, [data[0], False, None], session_hash=session)
            assert again.ok  # the same run again: the same quick study, not a new one
        else:
            assert not first.ok and "an hour" in (first.error or ""), first.error
    quick_ids = {s.id for s in store.list_studies(kind="adhoc")} - before
    assert len(quick_ids) == 2
    for result in made:  # the code stays on the server, in the tab's state
        assert not re.search(r'"code"', result.raw)
    # Not in the organizer's lists.
    organizer = behind_proxy(world, "198.51.100.61")
    session = organizer_session(organizer)
    listed = organizer.call(dep_by_trigger(organizer, "Refresh"), [ORGANIZER_PASSWORD, None], session_hash=session)
    assert listed.ok and not any(f"#{i} Quick rating" in listed.raw for i in quick_ids)
    assert "quick rating" in listed.raw.lower()  # but counted, with when they go
    # They expire: a day later they are gone, and their prompts were never reserved.
    assert quick.expire(store, now=datetime.now(UTC) + timedelta(hours=25)) >= 2
    assert not quick_ids & {s.id for s in store.list_studies()}
    organizer.close()
    me.close()


# ---- route 6: invite codes out of addresses, files and logs ---------------------------------------


def test_route6_the_invite_link_becomes_a_cookie_and_a_clean_address(world):
    app, code = world["app"], world["codes"]["bob"]
    http = httpx.Client(timeout=60, trust_env=False, headers={"Sec-Fetch-Site": "none"})  # a pasted link
    r = http.get(f"{app.url}/?invite={code}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/rate"
    cookie = r.headers["set-cookie"]
    assert f"arena_invite={code}" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert code not in r.headers["location"] and r.headers["referrer-policy"] == "no-referrer"
    for path in ("/", "/rate", "/config", f"{API}/info", "/present?study=1", f"{API}/queue/status"):
        assert httpx.get(f"{app.url}{path}", timeout=60, trust_env=False).headers.get("referrer-policy") == (
            "no-referrer"
        ), path
    # The page's requests carry the cookie, not the code: Start with an empty code box opens the study.
    browser = GradioHTTP(app.url)
    browser.http.cookies.set("arena_invite", code)
    opened = browser.call(dep_by_api_name(browser, "rate_start"), ["", None])
    assert opened.ok and TEXTS["BS-4"] in opened.raw and code not in opened.raw, opened.error
    browser.close()
    http.close()


def test_route6_the_invite_csv_is_in_the_organizers_answer_and_nowhere_on_disk(world):
    organizer = behind_proxy(world, "198.51.100.70")
    session = organizer_session(organizer)
    create = dep_by_trigger(organizer, "Create invite codes")
    outsider = organizer.call(create, ["wrong", world["sid"], "frank"])
    assert not outsider.ok and "password" in (outsider.error or "")
    made = organizer.call(create, [ORGANIZER_PASSWORD, world["sid"], f"grace-{TOKEN}"], session_hash=session)
    assert made.ok, made.error
    # The answer holds the table, the links with their copy buttons and the CSV the browser downloads.
    [csv_text] = [v for v in made.data if isinstance(v, str) and v.startswith("rater,code,link")]
    assert csv_text.startswith("rater,code,link") and f"grace-{TOKEN}" in csv_text
    new_code = csv_text.splitlines()[1].split(",")[1]
    assert invites.resolve(world["store"], new_code).rater == f"grace-{TOKEN}"
    assert "gradio_api/file" not in made.raw and "/tmp" not in made.raw
    found = [p for p in Path(world["workdir"]).rglob("*") if p.is_file() and new_code.encode() in p.read_bytes()]
    assert not found, f"the code is on disk: {found}"
    world["codes"][f"grace-{TOKEN}"] = new_code  # the fixture checks the log for it too
    organizer.close()


# ---- route 7: ids and uploads -------------------------------------------------------------------------


def test_route7_no_output_id_reaches_a_rater(world):
    app, code = world["app"], world["codes"]["ids"]
    rater = GradioHTTP(app.url)
    session = uuid.uuid4().hex[:11]
    seen = []
    for name, data in [
        ("rate_start", [code, None]),
        ("rate_next", [code, None]),
        ("rate_previous", [code, None]),
        ("rate_flag", [code, None, "The whole item", "broken", "x", None]),
        ("rate_submit", [code, None, *submit_values(3, 2)]),
    ]:
        seen.append(rater.call(dep_by_api_name(rater, name), data, session_hash=session).raw)
    assert f"planted {TOKEN}" in seen[0], "positive control: the rater sees the texts"
    seen += [rater.call(dep_by_api_name(rater, "results_studies"), []).raw]
    for path in ("/config", "/rate", f"{API}/info", "/present?study=" + str(world["ids_sid"])):
        seen.append(httpx.get(f"{app.url}{path}", timeout=60, trust_env=False).text)
    blob = "\n".join(seen)
    assert not [oid for oid in PLANTED_IDS if str(oid) in blob]
    rater.close()


def test_route7_uploads_need_the_organizer_session_and_are_removed_after_import(world, tmp_path):
    app = world["app"]
    payload = {"files": ("prompts.txt", b"a prompt\n", "text/plain")}
    outsider = httpx.post(f"{app.url}{API}/upload", files=payload, timeout=60, trust_env=False)
    assert outsider.status_code == 403 and "/" not in outsider.text.replace("http", "")
    organizer = behind_proxy(world, "198.51.100.80")
    session = organizer_session(organizer)
    big = organizer.http.post(
        f"{app.url}{API}/upload", files={"files": ("big.csv", b"x" * (11 * 1024 * 1024), "text/csv")}
    )
    assert big.status_code == 413
    export = organizer.call(
        dep_by_trigger(organizer, "Export ratings (CSV)"), [ORGANIZER_PASSWORD], session_hash=session
    )
    assert export.ok
    uploaded = organizer.http.post(
        f"{app.url}{API}/upload", files={"files": ("ratings.csv", export.data[0].encode(), "text/csv")}
    )
    assert uploaded.status_code == 200, uploaded.text
    path = uploaded.json()[0]
    assert Path(path).is_file()
    file_data = {"path": path, "orig_name": "ratings.csv", "meta": {"_type": "gradio.FileData"}}
    imported = organizer.call(
        dep_by_trigger(organizer, "Import"), [ORGANIZER_PASSWORD, file_data], session_hash=session
    )
    # a blind export of an open study does not import (it has no methods), and says so
    assert not imported.ok and "blind" in (imported.error or ""), imported.error
    assert not Path(path).exists(), "the upload was left on the server"
    organizer.close()


# ---- route 8: an invited rater's page has rating only ---------------------------------------------


def test_route8_the_invite_link_opens_a_page_with_rating_only(world):
    app, code = world["app"], world["codes"]["carol"]
    http = httpx.Client(timeout=60, trust_env=False, follow_redirects=True, headers={"Sec-Fetch-Site": "none"})
    page = http.get(f"{app.url}/?invite={code}")
    assert page.status_code == 200 and str(page.url).endswith("/rate")
    found = re.search(r"window\.gradio_config = (\{.*?\});\s*</script>", page.text, re.S)
    config = json.loads(found.group(1))
    # The English/Chinese table (ui/i18n.py) is one static dictionary for every page of the app: it
    # names the other tabs, but says nothing about a study, and no method's name is in it.
    translations = json.dumps(config.pop("i18n_translations", None) or {}, ensure_ascii=False)
    assert not [m for m in decoders.names() if m in translations]
    shown = page.text[: found.start()] + json.dumps(config) + page.text[found.end() :]
    labels = {str(c["props"].get("label")) for c in unmarked(config)["components"]}
    names = {str(d.get("api_name")) for d in config["dependencies"]}
    assert "Invite code or link" in labels
    assert not [x for x in labels if x.startswith(("Methods", "Organizer password", "Prompt file", "Study"))], labels
    assert not [n for n in names if n.startswith(("compare", "multiarm", "results"))], names
    named = {w: shown[max(0, shown.find(w) - 120) : shown.find(w) + 40] for w in ("Compare", "Organizer", "Multi-arm")}
    assert not {w: around for w, around in named.items() if w in shown}, "the page names another tab"
    # The main page sends a browser holding an invite back to its rating page, in full mode.
    again = http.get(f"{app.url}/")
    assert str(again.url).endswith("/rate")
    left = http.post(f"{app.url}/arena/signout", headers={"Sec-Fetch-Site": "same-origin"})
    assert str(left.url).rstrip("/") == app.url and "Organizer" in left.text
    http.close()
