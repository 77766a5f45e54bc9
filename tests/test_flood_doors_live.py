"""Issue 44, "every door under the same gate", against a running app (`python app.py`, the dummy
engine) in full and in rating-only mode, with the product's own limits.

On main 4f21df0 the gate guarded the queue's join and /present only: 600 of 600 requests to
`/gradio_api/run/*` and 300 of 300 to `/gradio_api/call/*` from one address were served, the app
grew from 1.17 to 2.97 GB, a rater's Start waited up to 58.6 s and a page load 10 s. Here one
outsider process sends 1,000 requests through each door in turn (the handler routes, their event
streams, the heartbeat, uploads, files, the pages, the config, the API's description, /present, a
shipped file, and the doors that are closed), each door from an address of its own (a full bucket
each: the worst case), while a rater presses Start again and again and another visitor loads
pages. The requests served through each door stay within what the client's bucket allows; the
page loads and the rater's Start keep a p95 under 2 s over the floods (each door's median under
2 s: a door's own window holds a few samples only); the app's memory stays within 200 MB of where
it started. Start's p95 was 3.35-6.56 s before a flooder's page line rested between its pages and
the GIL was handed over every 0.5 ms (its tail during the page floods, docs/security.md section 12);
1.47-2.11 s after, at load average 10-12. The numbers go to artifacts/flood-doors-<mode>.json.
"""

from __future__ import annotations

import json
import math
import secrets
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from arena.access import invites
from arena.settings import Settings
from arena.store import Store
from tests.support.live_app import API, GradioHTTP, dep_by_api_name, start_app
from tests.support.seeding import seed_study
from ui import doors, join_gate

# `alone`: its latency bounds measure the app, so it runs after the other live tests, with no worker beside it
pytestmark = [pytest.mark.timeout(1800), pytest.mark.alone]

TOKEN = secrets.token_hex(4)
METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
TEXTS = {m: f"{m.lower()} flooded answer {TOKEN}" for m in METHODS}
N = 1000
HELD_S = 0.5  # the flooder gives up on a stream after this: one it was let into is held open
P95_S = 2.0
RSS_MB = 200
LIMITS = Settings()

# (name, method, path, body, kind). The handler is the one the attack used (public Results).
DOORS = [
    ("queue join", "POST", f"{API}/queue/join", "join", doors.Kind.HANDLER),
    ("run", "POST", f"{API}/run/results_studies", "run", doors.Kind.HANDLER),
    ("call", "POST", f"{API}/call/results_studies", "call", doors.Kind.HANDLER),
    # /call/v2 runs only the Python API's named endpoints (ui/api/; Gradio answers 500 for another name)
    ("call v2", "POST", f"{API}/call/v2/start_rating", "v2", doors.Kind.HANDLER),
    ("call's stream", "GET", f"{API}/call/results_studies/EVENT", None, doors.Kind.STREAM),
    ("queue data", "GET", f"{API}/queue/data?session_hash=SESSION", None, doors.Kind.STREAM),
    ("heartbeat", "GET", f"{API}/heartbeat/SESSION", None, doors.Kind.STREAM),
    ("upload", "POST", f"{API}/upload", "file", doors.Kind.LIGHT),
    ("file", "GET", f"{API}/file=/etc/hostname", None, doors.Kind.LIGHT),
    ("cancel", "POST", f"{API}/cancel", "cancel", doors.Kind.LIGHT),
    ("main page", "GET", "/", None, doors.Kind.PAGE),
    ("rate page", "GET", "/rate", None, doors.Kind.PAGE),
    ("config", "GET", "/config", None, doors.Kind.PAGE),
    ("info", "GET", f"{API}/info", None, doors.Kind.PAGE),
    ("present", "GET", "/present?study=STUDY", None, doors.Kind.PAGE),
    ("shipped file", "GET", "/favicon.ico", None, doors.Kind.FILE),
    ("old run (closed)", "POST", f"{API}/api/results_studies", "run", doors.Kind.CLOSED),
    ("component server (closed)", "POST", f"{API}/component_server", "cancel", doors.Kind.CLOSED),
]

# After each door the flooder waits this long, and the door's window takes it in: the rater's Start and
# the page loads are sampled every 0.3 s, so a door's window holds several of each. It was 2 s; at 1 s
# the run is 36 s shorter (two modes x 18 doors) and a late effect of a door still falls in the next
# door's window, and in the p95 over all of them.
SETTLE_S = 1.0
CALM_S = 5.0  # the calm samples before the first door: where the memory starts (20 samples)

FLOOD = """
import json, sys, time, uuid
from concurrent.futures import ThreadPoolExecutor
import httpx
url, fn, n, held, study = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
settle = float(sys.argv[6])

def body(kind):
    session = uuid.uuid4().hex[:11]
    if kind == "join":
        return {"json": {"data": [], "fn_index": fn, "session_hash": session, "event_data": None, "trigger_id": None}}
    if kind == "run":
        return {"json": {"data": [], "fn_index": fn, "session_hash": session}}
    if kind == "call":
        return {"json": {"data": []}}
    if kind == "v2":
        return {"json": {"invite_code": "flood-" + session}}
    if kind == "cancel":
        return {"json": {"session_hash": session, "fn_index": fn, "event_id": session}}
    if kind == "file":
        return {"files": {"files": ("a.txt", b"x" * 1000, "text/plain")}}
    return {}

print("ready", flush=True)
doors = json.loads(sys.stdin.readline())
for k, (name, method, path, kind, stream) in enumerate(doors):
    http = httpx.Client(timeout=httpx.Timeout(120, read=held if stream else 120), trust_env=False,
                        headers={"X-Forwarded-For": f"203.0.113.{10 + k}"})
    def one(_):
        where = path.replace("EVENT", uuid.uuid4().hex).replace("SESSION", uuid.uuid4().hex[:11]).replace("STUDY", study)
        try:
            return http.request(method, url + where, **body(kind)).status_code
        except httpx.ReadTimeout:
            return "held"
        except httpx.RemoteProtocolError:
            return "dropped"  # let in, then Gradio ended the stream of an unknown session
        except httpx.HTTPError as exc:
            return type(exc).__name__
    began = time.time()
    with ThreadPoolExecutor(16) as pool:
        got = list(pool.map(one, range(n)))
    ended = time.time()
    http.close()
    print(json.dumps({"door": name, "began": began, "ended": ended, "codes": {str(c): got.count(c) for c in set(got)}}), flush=True)
    time.sleep(settle)  # the watchers see the app settle between doors
"""


@pytest.fixture(scope="module", params=["full", "rating"])
def world(request, tmp_path_factory):
    workdir = tmp_path_factory.mktemp(f"flood-{request.param}")
    store = Store(f"sqlite:///{workdir / 'arena.db'}")
    sid, _ = seed_study(store, f"Flooded study {TOKEN}", [f"Describe a harbour at dawn {TOKEN}."], [TEXTS])
    code = invites.invite(store, sid, ["rater"])[0].code
    extra = {
        "ARENA_ENGINE": "dummy",
        "ARENA_MODE": request.param,
        "ARENA_TRUSTED_PROXIES": "127.0.0.1",
        "GRADIO_TEMP_DIR": str(workdir / "gradio-tmp"),
        # The product's own limits (tests/support/live_app.py lifts them for the other live tests).
        "ARENA_JOINS_PER_SECOND": str(LIMITS.joins_per_second),
        "ARENA_SESSIONS_PER_MINUTE": str(LIMITS.sessions_per_minute),
        "ARENA_QUEUE_PER_CLIENT": str(LIMITS.queue_per_client),
        "ARENA_PAGES_PER_CLIENT": str(LIMITS.pages_per_client),
    }
    app = start_app(workdir, extra)
    yield dict(app=app, sid=sid, code=code, mode=request.param)
    app.stop()
    store.dispose()


def p95(values: list[float]) -> float:
    """The nearest-rank 95th percentile."""
    ranked = sorted(values)
    return ranked[max(0, math.ceil(0.95 * len(ranked)) - 1)] if ranked else 0.0


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


# The flooder times its window on its side; the gate refills by the server's clock, over the same
# window plus the requests' time in flight. One second of refill covers that (CI once saw a stream door
# let 122 through where the window measured on the client allowed 117.8).
WINDOW_SLACK_S = 1.0


def most_served(kind: doors.Kind, seconds: float) -> float:
    """What one client's bucket lets through in `seconds` of flooding from a full bucket (plus one)."""
    seconds += WINDOW_SLACK_S
    if kind is doors.Kind.CLOSED:
        return 0
    if kind is doors.Kind.HANDLER:  # each a new Gradio session: the session bucket is the tighter one
        per_s = LIMITS.sessions_per_minute / 60
        return per_s * 20 + per_s * seconds + 1
    cost = doors.COST[kind]
    return (LIMITS.joins_per_second * (join_gate.BURST_S + seconds)) / cost + 1


class Watchers:
    """A rater pressing Start, a visitor loading pages, and the app's memory, sampled until stopped."""

    def __init__(self, world):
        self.world, self.stop = world, threading.Event()
        self.starts: list[tuple[float, float]] = []
        self.pages: list[tuple[float, float]] = []
        self.rss: list[tuple[float, float]] = []
        self.failures: list[str] = []
        self.threads = [threading.Thread(target=f, daemon=True) for f in (self._rater, self._visitor, self._memory)]

    def __enter__(self) -> Watchers:
        for t in self.threads:
            t.start()
        while not (self.starts and self.pages and self.rss) and all(t.is_alive() for t in self.threads):
            time.sleep(0.2)  # each is there before the flood starts
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=300)

    def _rater(self) -> None:
        rater = GradioHTTP(self.world["app"].url, headers={"X-Forwarded-For": "198.51.100.40"})
        rater.http.cookies.set("arena_invite", self.world["code"])
        start_fn, tab = dep_by_api_name(rater, "rate_start"), uuid.uuid4().hex[:11]
        while not self.stop.is_set():
            t = time.time()
            done = rater.call(start_fn, ["", None], session_hash=tab)
            self.starts.append((t, time.time() - t))
            if not done.ok:
                self.failures.append(f"Start: {done.status} {done.error}")
            time.sleep(0.3)
        rater.close()

    def _visitor(self) -> None:
        visitor = GradioHTTP(self.world["app"].url, headers={"X-Forwarded-For": "198.51.100.41"})
        while not self.stop.is_set():
            for path in ("/rate", "/"):
                t = time.time()
                status = visitor.http.get(f"{visitor.url}{path}").status_code
                self.pages.append((t, time.time() - t))
                if status != 200:
                    self.failures.append(f"{path}: HTTP {status}")
            time.sleep(0.3)
        visitor.close()

    def _memory(self) -> None:
        while not self.stop.is_set():
            self.rss.append((time.time(), rss_mb(self.world["app"].proc.pid)))
            time.sleep(0.25)

    @staticmethod
    def within(series: list[tuple[float, float]], began: float, ended: float) -> list[float]:
        return [d for t, d in series if began <= t <= ended]


def test_attack_a_flood_through_every_door_leaves_raters_pages_and_memory_as_they_were(world, artifacts_dir):
    app = world["app"]
    probe = GradioHTTP(app.url)
    fn = dep_by_api_name(probe, "results_studies")
    probe.close()
    flooder = subprocess.Popen(
        [sys.executable, "-c", FLOOD, app.url, str(fn), str(N), str(HELD_S), str(world["sid"]), str(SETTLE_S)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert flooder.stdout.readline().strip() == "ready"
    with Watchers(world) as watch:
        time.sleep(CALM_S)  # calm samples: where the memory starts, and the machine's own pace without a flood
        rss_start, calm_until = max(m for _, m in watch.rss), time.time()
        out, err = flooder.communicate(
            json.dumps([[n, m, p, b, k is doors.Kind.STREAM] for n, m, p, b, k in DOORS]) + "\n", timeout=1500
        )
        time.sleep(3)
    assert flooder.returncode == 0, err[-2000:]
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert [r["door"] for r in rows] == [d[0] for d in DOORS]
    calm_starts, calm_pages = watch.within(watch.starts, 0, calm_until), watch.within(watch.pages, 0, calm_until)
    report: dict = {
        "mode": world["mode"],
        "rss_start_mb": round(rss_start),
        "calm": {"start_p95_s": round(p95(calm_starts), 2), "page_p95_s": round(p95(calm_pages), 2)},
        "doors": [],
    }
    flooding: dict[str, list[float]] = {"starts": [], "pages": []}
    for (name, _, _, _, kind), row in zip(DOORS, rows, strict=True):
        began, ended = row["began"], row["ended"] + SETTLE_S  # and while it settles
        codes = row["codes"]
        refused = codes.get("429", 0)
        starts, pages = watch.within(watch.starts, began, ended), watch.within(watch.pages, began, ended)
        rss = [m for t, m in watch.rss if began <= t <= ended]
        flooding["starts"] += starts
        flooding["pages"] += pages
        report["doors"].append(
            {
                "door": name,
                "kind": kind.value,
                "codes": codes,
                "refused": refused,
                "seconds": round(row["ended"] - row["began"], 1),
                "start_p95_s": round(p95(starts), 2),
                "start_median_s": round(statistics.median(starts), 2) if starts else None,
                "page_p95_s": round(p95(pages), 2),
                "page_median_s": round(statistics.median(pages), 2) if pages else None,
                "starts": len(starts),
                "pages": len(pages),
                "rss_growth_mb": round(max(rss) - rss_start) if rss else None,
            }
        )
    report["start_p95_s"] = round(p95(flooding["starts"]), 2)
    report["page_p95_s"] = round(p95(flooding["pages"]), 2)
    report["rss_growth_mb"] = round(max(m for _, m in watch.rss) - rss_start)
    (artifacts_dir / f"flood-doors-{world['mode']}.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))
    assert not watch.failures, watch.failures[:5]
    for (name, _, _, _, kind), row, seen in zip(DOORS, rows, report["doors"], strict=True):
        if kind is doors.Kind.CLOSED:
            assert row["codes"] == {"404": N}, (name, row["codes"])
            continue
        served = N - seen["refused"]  # a stream it was let into counts ("held"), as does Gradio's own answer
        assert served <= most_served(kind, row["ended"] - row["began"]), (name, row["codes"])
        # A door's window holds a few samples only (its p95 is their largest): each door's median
        # stays under the line, and the p95 over every door's flood below.
        assert seen["starts"] and seen["pages"], seen
        assert seen["start_median_s"] < P95_S and seen["page_median_s"] < P95_S, seen
    assert report["start_p95_s"] < P95_S and report["page_p95_s"] < P95_S, report
    assert report["rss_growth_mb"] < RSS_MB, report


def test_compare_stays_callable_from_a_python_client_within_the_limits(world):
    """gradio_client reads /config and the API's description, then joins the queue and reads its
    stream, as a browser does: all open doors, under the same product limits."""
    if world["mode"] != "full":
        pytest.skip("rating-only mode registers no Compare")
    from gradio_client import Client

    client = Client(world["app"].url, verbose=False, headers={"X-Forwarded-For": "198.51.100.60"})
    result = client.predict(prompt=f"Write one line about a kettle {TOKEN}.", api_name="/compare_methods")
    # plain data (the Python API, ui/api/): one text and one timing row per method
    assert result["status"].startswith("Done: 3 methods"), result["status"]
    assert len(result["texts"]) == len(result["timing"]) == 3
    client.close()
