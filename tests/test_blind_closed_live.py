"""Issue 32's routes, attacked against a running app (`python app.py`) over HTTP, on the run's live
database (tests/support/stores.py, live_backends). Each attack worked on main b69a925; each must fail now, with a positive control where
the route itself is meant to work.

  1. A study created in the Organizer with the seed box as the page sends it gets a secret random
     base seed (it got 0, the public derivation, and a replay gave its sampled outputs).
  2. The organizer's blind export of an open study lists each (item, rater) by letter: its row
     order says nothing of the method (row k was the k-th method alphabetically).
  3. An outsider's flood of 2,000 queue joins is refused at its own door; /rate, /config and a
     rater's Submit keep answering (p95 under 2 s) during and after it.
  4. A link on another site cannot swap a rater's seat or sign them out; a code in a queue
     request's query string opens nothing.
  6. Compare refuses a study prompt disguised with look-alike letters, a diacritic or, under 20
     letters, one dropped letter.
(Route 5, the sandbox, is attacked in tests/test_task_checkers.py: it runs no app.)
"""

from __future__ import annotations

import json
import math
import secrets
import subprocess
import sys
import threading
import time
import uuid
from typing import Any

import httpx
import pytest

from arena.access import invites
from arena.rating.blind import LABELS
from arena.settings import Settings
from arena.store import Store
from tests.support.live_app import (
    API,
    ORGANIZER_PASSWORD,
    GradioHTTP,
    dep_by_api_name,
    dep_by_trigger,
    organizer_session,
    start_app,
)
from tests.support.seeding import seed_study
from tests.support.stores import LIVE_BACKENDS, fresh_pg_url
from ui.rate.view import form as rate_form

# `alone`: its latency bounds measure the app, so it runs after the other live tests, with no worker beside it
pytestmark = [pytest.mark.timeout(1500), pytest.mark.alone]

TOKEN = secrets.token_hex(4)
METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
TEXTS = {m: f"{m.lower()} closed answer {TOKEN}" for m in METHODS}
PROMPT = f"Describe the quiet harbour at dawn for visiting friends {TOKEN}."
SHORT = "Say hello to a friend."
RATERS = ["ann", "ben", "cat", "dan", "eve", "fox"]


def submit_values(n: int, score: int) -> list[Any]:
    """The Rate tab's Submit inputs after the code and the session: each response's rows, 8 comments."""
    return [*rate_form([[score] * 3] * n), None]  # no item named: the item on screen (ui/rate/once.py)


@pytest.fixture(scope="module", params=LIVE_BACKENDS)
def world(request, tmp_path_factory):
    workdir = tmp_path_factory.mktemp(f"closed-{request.param}")
    extra = {
        "ARENA_TRUSTED_PROXIES": "127.0.0.1",
        "GRADIO_TEMP_DIR": str(workdir / "gradio-tmp"),
        # The product's own limits (tests/support/live_app.py lifts them for the other live tests).
        "ARENA_JOINS_PER_SECOND": str(Settings().joins_per_second),
        "ARENA_SESSIONS_PER_MINUTE": str(Settings().sessions_per_minute),
        "ARENA_QUEUE_PER_CLIENT": str(Settings().queue_per_client),
        "ARENA_PAGES_PER_CLIENT": str(Settings().pages_per_client),
    }
    drop = None
    if request.param == "postgresql":
        url, drop = fresh_pg_url()
        extra["DATABASE_URL"] = url
        store = Store(url)
    else:
        store = Store(f"sqlite:///{workdir / 'arena.db'}")
    sid, _ = seed_study(store, f"Closed study {TOKEN}", [PROMPT, SHORT], [TEXTS, TEXTS])
    codes = {i.rater: i.code for i in invites.invite(store, sid, RATERS + ["flooded", "swapped", "other"])}
    app = start_app(workdir, extra)
    yield dict(app=app, store=store, sid=sid, codes=codes)
    app.stop()
    store.dispose()
    if drop:
        drop()


def behind_proxy(world, address: str) -> GradioHTTP:
    return GradioHTTP(world["app"].url, headers={"X-Forwarded-For": address})


# ---- route 1: a study made in the Organizer gets a secret random seed ------------------------------


def create_inputs(client: GradioHTTP, name: str) -> tuple[int, list[Any]]:
    """The create button's inputs as the page sends them, the seed box untouched."""
    from ui.organizer.forms import SOURCE_KEYS

    create = dep_by_trigger(client, "Create study and generate its outputs")
    comps = client.components()
    values: list[Any] = []
    for cid in client.dependencies()[create]["inputs"]:
        props = comps[cid]["props"]
        label, value = str(props.get("label") or ""), props.get("value")
        values.append(
            {
                "Organizer password": ORGANIZER_PASSWORD,
                "Study name": name,
                "Prompts": SOURCE_KEYS[1],  # the radio sends a key (ui/organizer/forms.py): "pasted"
                "Pasted prompts (one per line)": f"Tell a short story about {name}.",
                "max_new_tokens": 2,
            }.get(label, value)
        )
    return create, values


def test_route1_a_study_made_in_the_organizer_gets_a_secret_random_seed(world):
    organizer = behind_proxy(world, "198.51.100.10")
    session = organizer_session(organizer)
    seeds, answers = [], []
    for k in range(2):
        name = f"Seed check {k} {TOKEN}"
        create, data = create_inputs(organizer, name)
        made = organizer.call(create, data, session_hash=session)
        assert made.ok, made.error
        answers.append(made.raw)
        [study] = [s for s in world["store"].list_studies() if s.name == name]
        seeds.append(study.base_seed)
    assert all(s >= 2**20 for s in seeds) and seeds[0] != seeds[1], seeds
    config = organizer.http.get(f"{organizer.url}/config").text
    assert not [s for s in seeds if str(s) in config or any(str(s) in a for a in answers)]
    organizer.close()


# ---- route 2: the blind export's row order ------------------------------------------------------------


def test_route2_the_blind_exports_row_order_carries_no_method(world):
    store, sid, codes = world["store"], world["sid"], world["codes"]
    for k, name in enumerate(RATERS):
        rater = behind_proxy(world, f"198.51.100.{20 + k}")
        tab = uuid.uuid4().hex[:11]
        rater.http.cookies.set("arena_invite", codes[name])
        assert rater.call(dep_by_api_name(rater, "rate_start"), ["", None], session_hash=tab).ok
        submitted = rater.call(
            dep_by_api_name(rater, "rate_submit"), ["", None, *submit_values(3, 4)], session_hash=tab
        )
        assert submitted.ok, submitted.error
        rater.close()
    organizer = behind_proxy(world, "198.51.100.30")
    session = organizer_session(organizer)
    done = organizer.call(
        dep_by_trigger(organizer, "Export ratings (JSONL)"), [ORGANIZER_PASSWORD], session_hash=session
    )
    assert done.ok, done.error
    rows = [json.loads(x) for x in done.data[0].splitlines() if x.strip()]
    rows = [r for r in rows if r["study_id"] == sid and r["row_kind"] == "rating"]
    groups: dict[tuple[Any, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["item_id"], r["rater"]), []).append(r)
    assert len(groups) == len(RATERS)
    # The attack: row k of each group is the k-th method alphabetically. Scored against the truth.
    truth = {
        (r["item_id"], r["rater"], r["position"]): r
        for r in store.rating_records(["item_id", "rater", "position", "method"], sid)
    }
    exact = 0
    for (item, rater), group in groups.items():
        assert [r["position"] for r in group] == sorted(r["position"] for r in group)  # by letter, A first
        guessed = dict(zip((r["position"] for r in group), sorted(METHODS)))
        exact += all(truth[(item, rater, p)]["method"] == m for p, m in guessed.items())
    # Rows by method (the old order) give every rater's mapping; by the secret positions the guess is
    # right only where a rater's positions happen to be alphabetical (chance: 1/3 to 1/6 per rater, so
    # all six at once about 1 in 700 at most). The sorted-by-letter assertion above is the exact check.
    assert exact < len(RATERS), exact
    assert {LABELS[r["position"]] for r in rows} == set("ABC")
    organizer.close()


# ---- route 3: a flood of queue joins ------------------------------------------------------------------


def join_raw(url: str, fn: int, http: httpx.Client, query: str = "") -> int:
    body = {"data": [], "fn_index": fn, "session_hash": uuid.uuid4().hex[:11], "event_data": None, "trigger_id": None}
    try:
        return http.post(f"{url}{API}/queue/join{query}", json=body).status_code
    except httpx.HTTPError:
        return 0


FLOOD = """
import json, sys, uuid
from concurrent.futures import ThreadPoolExecutor
import httpx
url, fn, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
http = httpx.Client(timeout=60, trust_env=False, headers={"X-Forwarded-For": "203.0.113.66"})
def join(_):
    body = {"data": [], "fn_index": fn, "session_hash": uuid.uuid4().hex[:11], "event_data": None, "trigger_id": None}
    try:
        return http.post(url + "/gradio_api/queue/join", json=body).status_code
    except httpx.HTTPError:
        return 0
print("ready", flush=True)
sys.stdin.readline()
with ThreadPoolExecutor(16) as pool:
    print(json.dumps(list(pool.map(join, range(n)))))
"""


def p95(values: list[float]) -> float:
    """The nearest-rank 95th percentile (with under 20 values, the largest but one where there are 2+)."""
    ranked = sorted(values)
    return ranked[max(0, math.ceil(0.95 * len(ranked)) - 1)] if ranked else 0.0


def test_route3_a_flood_of_joins_leaves_raters_and_pages_answering(world):
    app, codes = world["app"], world["codes"]
    probe = GradioHTTP(app.url)
    results_fn = dep_by_api_name(probe, "results_studies")
    submit_fn = dep_by_api_name(probe, "rate_submit")
    start_fn = dep_by_api_name(probe, "rate_start")
    previous_fn = dep_by_api_name(probe, "rate_previous")
    timings: dict[str, list[tuple[float, float]]] = {"config": [], "rate": [], "submit": []}
    stop = threading.Event()
    failures: list[str] = []

    def rate() -> None:
        rater = behind_proxy(world, "198.51.100.40")
        rater.http.cookies.set("arena_invite", codes["flooded"])
        tab = uuid.uuid4().hex[:11]
        assert rater.call(start_fn, ["", None], session_hash=tab).ok
        while not stop.is_set():
            t = time.monotonic()
            done = rater.call(submit_fn, ["", None, *submit_values(3, 3)], session_hash=tab)
            timings["submit"].append((time.monotonic(), time.monotonic() - t))
            back = rater.call(previous_fn, ["", None], session_hash=tab)  # back to it: the next Submit re-rates
            if not (done.ok and back.ok):
                failures.append(f"submit: {done.error} / previous: {back.error}")
            time.sleep(0.3)  # a quick rater: about three clicks a second
        rater.close()

    def pages() -> None:
        http = httpx.Client(timeout=60, trust_env=False, headers={"X-Forwarded-For": "198.51.100.41"})
        while not stop.is_set():
            for name, path in (("config", "/config"), ("rate", "/rate")):
                t = time.monotonic()
                status = http.get(f"{app.url}{path}").status_code
                timings[name].append((time.monotonic(), time.monotonic() - t))
                if status != 200:
                    failures.append(f"{path}: HTTP {status}")
            time.sleep(0.1)
        http.close()

    watchers = [threading.Thread(target=rate, daemon=True), threading.Thread(target=pages, daemon=True)]
    for w in watchers:
        w.start()
    while not (timings["submit"] and timings["rate"]) and all(w.is_alive() for w in watchers):
        time.sleep(0.2)  # the rater and the pages are there before the flood starts
    # The outsider is another process (another machine, really): its threads do not slow this one's.
    # It starts (imports) first and floods when told, so that only the flood is in the window.
    flooder = subprocess.Popen(
        [sys.executable, "-c", FLOOD, app.url, str(results_fn), "2000"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert flooder.stdout.readline().strip() == "ready"
    began = time.monotonic()
    out, err = flooder.communicate("go\n", timeout=600)
    flood_end = time.monotonic()
    assert flooder.returncode == 0, err[-2000:]
    codes_seen = json.loads(out)
    time.sleep(20)  # and after it
    stop.set()
    for w in watchers:
        w.join(timeout=300)
        assert not w.is_alive()
    assert not failures, failures[:5]
    refused = sum(c == 429 for c in codes_seen)
    assert refused >= 1500, {c: codes_seen.count(c) for c in set(codes_seen)}
    assert 503 not in codes_seen  # the queue never filled
    for name, series in timings.items():
        during = [d for t, d in series if began <= t <= flood_end]
        after = [d for t, d in series if t > flood_end]
        assert during and after, (name, len(during), len(after))
        assert p95(during) < 2.0 and p95(after) < 2.0, (name, sorted(during), sorted(after))
    # A rater behind the flooder's own address still gets in: a valid invite is a client of its own.
    same = behind_proxy(world, "203.0.113.66")
    same.http.cookies.set("arena_invite", codes["other"])
    assert same.call(start_fn, ["", None]).ok
    same.close()
    probe.close()


# ---- route 4: seats, sign-out, codes in query strings -------------------------------------------------


def test_route4_another_site_cannot_swap_a_seat_and_a_query_string_opens_nothing(world):
    app, codes = world["app"], world["codes"]
    mine, other = codes["swapped"], codes["other"]
    http = httpx.Client(timeout=60, trust_env=False)
    http.cookies.set("arena_invite", mine)
    for site in ("cross-site", "same-site"):
        page = http.get(f"{app.url}/?invite={other}", headers={"Sec-Fetch-Site": site}, follow_redirects=False)
        assert page.status_code == 200 and "set-cookie" not in page.headers
        forged = http.post(
            f"{app.url}/arena/invite", data={"code": other, "confirm": "1"}, headers={"Sec-Fetch-Site": site}
        )
        assert forged.status_code == 403 and "set-cookie" not in forged.headers
        assert http.post(f"{app.url}/arena/signout", headers={"Sec-Fetch-Site": site}).status_code == 403
        left = http.get(f"{app.url}/?signout=1", headers={"Sec-Fetch-Site": site}, follow_redirects=False)
        assert "set-cookie" not in left.headers
    asked = http.post(f"{app.url}/arena/invite", data={"code": other}, headers={"Sec-Fetch-Site": "same-origin"})
    assert asked.status_code == 200 and "another invitation" in asked.text and http.cookies.get("arena_invite") == mine
    http.close()
    # A code in the query string of a queue join, with no cookie: no handler opens the study with it.
    client = GradioHTTP(app.url)
    config = client.config()
    loads = [
        i
        for i, d in enumerate(config["dependencies"])
        if any(t[1] == "load" for t in d.get("targets", []) if isinstance(t, (list, tuple)))
    ]
    assert loads
    session = uuid.uuid4().hex[:11]  # one page, as a browser loads it
    for fn in loads:
        inputs = [client.components()[c]["props"].get("value") for c in config["dependencies"][fn]["inputs"]]
        body = {"data": inputs, "fn_index": fn, "session_hash": session, "event_data": None, "trigger_id": None}
        joined = client.http.post(f"{app.url}{API}/queue/join?invite={other}", json=body)
        assert joined.status_code == 200
        with client.http.stream("GET", f"{app.url}{API}/queue/data", params={"session_hash": session}) as stream:
            text = ""
            for chunk in stream.iter_text():
                text += chunk
                if "process_completed" in text or "close_stream" in text:
                    break
        assert "Rating as" not in text and "swapped" not in text and "other" not in text.replace("another", "")
    client.close()


# ---- route 6: look-alike letters ------------------------------------------------------------------------


def test_route6_compare_refuses_look_alikes_and_one_dropped_letter(world):
    client = behind_proxy(world, "198.51.100.60")
    run = dep_by_api_name(client, "compare")
    comps = client.components()
    controls = [comps[c]["props"].get("value") for c in client.dependencies()[run]["inputs"][5:]]
    disguised = {
        "a diacritic on every a": PROMPT.replace("a", "á"),
        "dotless i": PROMPT.replace("i", "ı"),
        "small capital u": PROMPT.replace("u", "ᴜ"),
        "Cherokee D and T": PROMPT.replace("D", "Ꭰ").replace("t", "Ꭲ"),
        "short, one letter dropped": SHORT.replace("hello", "helo"),
    }
    let_through = []
    tab = uuid.uuid4().hex[:11]  # one browser tab, as a person trying disguises would use
    for name, text in disguised.items():
        result = client.call(run, [text, ["TS-Temp"], False, 0, 1, *controls], session_hash=tab)
        if result.ok or "reserved" not in (result.error or ""):
            let_through.append(name)
    assert not let_through, let_through
    ran = client.call(
        run, [f"Say goodbye to a stranger {TOKEN}.", ["TS-Temp"], False, 0, 1, *controls], session_hash=tab
    )
    assert ran.ok, ran.error  # the positive control
    client.close()
