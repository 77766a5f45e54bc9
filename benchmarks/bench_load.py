"""Many raters at once against one app process: submit latency, and every rating stored once.

Each simulated rater is its own `gradio_client.Client` (its own session, as a browser tab would
be) with its own invite code (the raters are enrolled in the study first, as an organizer would):
it opens the study with its code, waits until every rater is ready, then all submit together; each rates
every item, and some submit an item a second time (as after "Previous"), which must update, not
duplicate. Afterwards the database is read directly and compared with what was sent.

The app is `python app.py` in its own process (tests/support/live_app.py). The raters run in `--procs`
worker processes (threads within each), not as 50 threads of this process: gradio_client spends
about as much CPU per call as the server does (a fresh httpx client per request, a 50 ms polling
thread per job), and 50 of them behind one GIL measured the client, not the server. Clients use
`ssl_verify=False`: the URL is plain http on loopback, so this only skips loading the CA bundle,
which httpx otherwise did for every request. The machine's cores are still shared with the server,
so the benchmark also reports the server's own CPU time per submit (from /proc, during the submit
phase), which does not depend on how fast the clients are.

    python benchmarks/bench_load.py                    # 50 raters, 2 items, own app on loopback
    python benchmarks/bench_load.py --raters 20 --items 1 --procs 1
    python benchmarks/bench_load.py --mode human    # 50 raters, each every 10-20 s, for 3 minutes
    python benchmarks/bench_load.py --mode burst    # 2, 3, 4.5 ... submits/s until p95 passes 1 s

Prints p50/p95/max submit latency, server CPU per submit, ratings sent and stored. `--mode human`
also prints p99 and the target p95 <= 150 ms with PASS/FAIL; `--mode burst` prints each step and the
burst capacity (the highest rate whose p95 stayed within 1 s). Loopback only; loops are bounded.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import queue
import re
import statistics
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The app's packages come from the editable install, but tests/ is not installed: run as a script
# (`python benchmarks/bench_load.py`, from any folder), only the repository root on the path lets it
# import the test helpers it shares with tests/test_load.py.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena.rating.dimensions import SCORE_COLUMNS  # noqa: E402  # after the path set-up above
from tests.support.live_app import GradioHTTP, dep_by_api_name, start_app  # noqa: E402
from tests.support.seeding import db_store, seed_study  # noqa: E402
from ui.rate.view import RateView, form  # noqa: E402  # the Rate tab's wire format

DIMENSIONS = SCORE_COLUMNS
CALL_TIMEOUT_S = 600


def score(rater: int, item: int, slot: int, dim: int) -> int:
    """The score rater `rater` gives; varied so a mixed-up row cannot match by chance often."""
    return (rater * 7 + item * 3 + slot * 2 + dim) % 5 + 1


def comment(name: str, item: int, slot: int) -> str:
    return f"{name}|{item}|{slot}"


def parse_comment(text: str) -> tuple[str, int, int]:
    name, item, slot = text.rsplit("|", 2)
    return name, int(item), int(slot)


@dataclass
class RaterResult:
    name: str
    submit_s: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    sent: int = 0  # ratings (one per response) in acknowledged submits, resubmits included
    first_submit_at: float | None = None  # wall clock (time.time) when the first submit was sent
    last_reply_at: float | None = None  # ... and when the last one was answered


def _submit_args(name: str, code: str, index: int, item: int, shown: int) -> list[Any]:
    rows = [[score(index, item, slot, d) for d in range(len(DIMENSIONS))] for slot in range(shown)]
    values = form(rows, [comment(name, item, slot) for slot in range(shown)])  # the rows of the default rubric
    # 0: no item named (the one on screen); sent, as the page's handlers are not in the API description
    # from which gradio_client fills defaults (ui/api/)
    return [code, *values, 0]


def _shown(view: tuple) -> int:
    """How many responses the view shows (gradio_client returns no gr.State values)."""
    return RateView.parse(list(view), states=False).shown


_connecting = threading.Semaphore(8)  # clients connect a few at a time; they submit all at once


def _rater(
    url: str, index: int, name: str, code: str, n_items: int, resubmit: bool, ready: Any, connecting: Any = _connecting
) -> RaterResult:
    from gradio_client import Client

    out = RaterResult(name)
    client = None
    try:
        with connecting:
            client = Client(
                url,
                verbose=False,
                download_files=False,
                analytics_enabled=False,
                max_workers=2,
                ssl_verify=False,
                httpx_kwargs={"timeout": CALL_TIMEOUT_S},
            )
        # rate_start answers "Rating as <name> in <study>" first, then the view
        view = client.submit(code, api_name="/rate_start").result(timeout=CALL_TIMEOUT_S)
        if name not in re.sub(r"\\(.)", r"\1", str(view[0])):  # Markdown-escaped: load\-x\-001
            raise AssertionError(f"{name}'s code opened the study as someone else: {view[0]!r}")
        shown = _shown(view[1:])
        ready.wait(timeout=CALL_TIMEOUT_S)  # everyone submits at once
        out.first_submit_at = time.time()
        for item in range(n_items):
            started = time.perf_counter()
            view = client.submit(*_submit_args(name, code, index, item, shown), api_name="/rate_submit").result(
                timeout=CALL_TIMEOUT_S
            )
            out.submit_s.append(time.perf_counter() - started)
            out.sent += shown
            if item + 1 < n_items:
                shown = _shown(view)
        if resubmit:  # back to the last item, submit the same scores again: an update, not a new row
            view = client.submit(code, api_name="/rate_previous").result(timeout=CALL_TIMEOUT_S)
            started = time.perf_counter()
            client.submit(*_submit_args(name, code, index, n_items - 1, _shown(view)), api_name="/rate_submit").result(
                timeout=CALL_TIMEOUT_S
            )
            out.submit_s.append(time.perf_counter() - started)
            out.sent += shown
        out.last_reply_at = time.time()
    except BaseException as exc:  # reported, never swallowed: the caller asserts on errors
        out.errors.append(f"{type(exc).__name__}: {exc}")
        ready.abort()
    finally:
        if client is not None:
            try:
                client.close()
            except Exception:
                pass
    return out


@dataclass
class LoadReport:
    raters: int
    items: int
    results: list[RaterResult]
    wall_s: float
    procs: int = 1
    server_cpu_s: float | None = None  # the app process's CPU time during the submit phase
    phase_s: float | None = None  # first submit sent .. last reply received

    @property
    def latencies(self) -> list[float]:
        return sorted(s for r in self.results for s in r.submit_s)

    @property
    def errors(self) -> list[str]:
        return [f"{r.name}: {e}" for r in self.results for e in r.errors]

    def percentile(self, q: float) -> float:
        lat = self.latencies
        if not lat:
            return float("nan")
        return lat[min(len(lat) - 1, max(0, round(q / 100 * len(lat) + 0.5) - 1))]

    @property
    def server_ms_per_submit(self) -> float | None:
        """Server CPU in the submit phase per submit (the phase also holds the few Previous calls)."""
        n = len(self.latencies)
        return None if self.server_cpu_s is None or not n else self.server_cpu_s / n * 1000


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _CpuSampler:
    """Samples a process's CPU time every `every_s` (wall clock, CPU seconds) in a thread."""

    def __init__(self, pid: int | None, every_s: float = 0.05):
        self.pid, self.every_s = pid, every_s
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.samples.append((time.time(), process_cpu_s(self.pid)))
            except (OSError, ValueError, IndexError):
                return
            self._stop.wait(self.every_s)

    def __enter__(self) -> _CpuSampler:
        if self.pid is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def between(self, t0: float, t1: float) -> float | None:
        """CPU seconds used between wall-clock t0 and t1 (linear between samples)."""
        if len(self.samples) < 2 or not self.samples[0][0] <= t0 < t1 <= self.samples[-1][0]:
            return None

        def at(t: float) -> float:
            for (ta, ca), (tb, cb) in zip(self.samples, self.samples[1:]):
                if ta <= t <= tb:
                    return ca + (cb - ca) * ((t - ta) / (tb - ta) if tb > ta else 0)
            return self.samples[-1][1]

        return at(t1) - at(t0)


def _run_threads(
    url: str, jobs: list[tuple[int, str, str, bool]], items: int, ready: Any, connecting: Any
) -> list[RaterResult]:
    with ThreadPoolExecutor(max_workers=max(1, len(jobs))) as pool:
        futures = [
            pool.submit(_rater, url, i, name, code, items, resubmit, ready, connecting)
            for i, name, code, resubmit in jobs
        ]
        return [f.result(timeout=CALL_TIMEOUT_S * (items + 3)) for f in futures]


def _worker(
    url: str, jobs: list[tuple[int, str, str, bool]], items: int, ready: Any, connect_slots: int, results: Any
) -> None:
    """One worker process: its share of the raters, as threads; results go back on a queue."""
    try:
        out = _run_threads(url, jobs, items, ready, threading.Semaphore(connect_slots))
    except BaseException as exc:  # reported as every job's error, never swallowed
        ready.abort()
        out = [RaterResult(name, errors=[f"worker: {type(exc).__name__}: {exc}"]) for _, name, _, _ in jobs]
    results.put(out)


def run_raters(
    url: str,
    study_id: int,
    raters: int = 50,
    items: int = 2,
    resubmit_every: int = 5,
    prefix: str | None = None,
    procs: int = 5,
    server_pid: int | None = None,
    *,
    store: Any,
) -> LoadReport:
    """`raters` simulated raters rate all `items` of a study at once; returns their timings.

    The raters are first enrolled in the study through `store` (a Store on the app's database), each
    with its own invite code. They are spread over `procs` worker processes (1: threads of this
    process, as before). With `server_pid`, the app process's CPU time during the submit phase is
    measured too."""
    from arena.access import invites

    prefix = prefix or f"load-{uuid.uuid4().hex[:6]}"
    names = [f"{prefix}-{i:03d}" for i in range(raters)]
    codes = {inv.rater: inv.code for inv in invites.invite(store, study_id, names)}
    jobs = [(i, name, codes[name], resubmit_every > 0 and i % resubmit_every == 0) for i, name in enumerate(names)]
    procs = max(1, min(procs, raters))
    started = time.perf_counter()
    with _CpuSampler(server_pid) as sampler:
        if procs == 1:
            results = _run_threads(url, jobs, items, threading.Barrier(raters), _connecting)
        else:
            ctx = multiprocessing.get_context("spawn")  # no fork of a process that may hold threads
            ready, box = ctx.Barrier(raters), ctx.Queue()
            shares = [jobs[k::procs] for k in range(procs)]
            workers = [
                ctx.Process(target=_worker, args=(url, share, items, ready, max(1, 8 // procs), box), daemon=True)
                for share in shares
            ]
            for w in workers:
                w.start()
            results = []
            try:
                for _ in workers:
                    results += box.get(timeout=CALL_TIMEOUT_S * (items + 4))
            except queue.Empty:
                ready.abort()
                got = {r.name for r in results}
                results += [
                    RaterResult(name, errors=["no result from its worker process"])
                    for _, name, _, _ in jobs
                    if name not in got
                ]
            finally:
                for w in workers:
                    w.join(timeout=30)
                    if w.is_alive():
                        w.kill()
            order = {name: k for k, (_, name, _, _) in enumerate(jobs)}
            results.sort(key=lambda r: order.get(r.name, len(order)))
    wall = time.perf_counter() - started
    firsts = [r.first_submit_at for r in results if r.first_submit_at is not None]
    lasts = [r.last_reply_at for r in results if r.last_reply_at is not None]
    report = LoadReport(raters, items, results, wall, procs)
    if firsts and lasts:
        report.phase_s = max(lasts) - min(firsts)
        report.server_cpu_s = sampler.between(min(firsts), max(lasts))
    return report


def check_stored(frame, report: LoadReport, n_responses: int) -> dict[str, int]:
    """Compare the study's stored ratings with what the raters sent. Returns counts (expected, stored,
    duplicates, wrong, distinct_comments) and never raises on a bad rating: the caller (`main`) turns
    a missing, duplicated or altered rating into exit code 1."""
    names = {r.name: i for i, r in enumerate(report.results)}
    mine = frame[frame["rater"].isin(names)]
    expected = report.raters * report.items * n_responses
    keys = list(zip(mine["rater"], mine["output_id"]))
    duplicates = len(keys) - len(set(keys))
    wrong = 0
    seen_comments = set()
    for row in mine.itertuples():
        name, item, slot = parse_comment(row.comment)
        seen_comments.add(row.comment)
        index = names[name]
        want = tuple(score(index, item, slot, d) for d in range(len(DIMENSIONS)))
        got = tuple(getattr(row, d) for d in DIMENSIONS)
        if name != row.rater or want != got:
            wrong += 1
    return dict(
        expected=expected, stored=len(mine), duplicates=duplicates, wrong=wrong, distinct_comments=len(seen_comments)
    )


def summary(report: LoadReport, counts: dict[str, int]) -> str:
    lat = report.latencies
    sent = sum(r.sent for r in report.results)
    return (
        f"raters={report.raters} items={report.items} submits={len(lat)} ratings sent={sent} "
        f"(distinct {counts['expected']}) stored={counts['stored']} duplicates={counts['duplicates']} "
        f"wrong={counts['wrong']} errors={len(report.errors)}\n"
        f"submit latency: p50={report.percentile(50):.3f} s  p95={report.percentile(95):.3f} s  "
        f"max={max(lat) if lat else float('nan'):.3f} s  mean={statistics.fmean(lat) if lat else float('nan'):.3f} s  "
        f"wall={report.wall_s:.1f} s  client processes={report.procs}"
        + (
            f"\nsubmit phase {report.phase_s:.1f} s: server CPU {report.server_cpu_s:.1f} s = "
            f"{report.server_ms_per_submit:.0f} ms per submit"
            if report.server_cpu_s is not None
            else ""
        )
    )


# --- Paced load: raters at a human pace (--mode human), and rising bursts (--mode burst) -------------
#
# These modes speak Gradio's queue protocol directly (POST /queue/join, then the SSE stream of
# /queue/data: `tests.support.live_app.GradioHTTP`), as the Rate tab's page does, against the same registered
# handler (`rate_submit`); each rater is its own session_hash, so the server keeps each one's place in
# the study as it does for a browser tab. A submit's latency runs from the join request to the
# completion message: what a rater waits for after pressing Submit. The raters are threads in a few
# worker processes (a thread mostly sleeps between its submits); the server's CPU time per submit is
# measured from /proc as in the all-at-once mode.

HUMAN_TARGET_P95_S = 0.150
BURST_LIMIT_P95_S = 1.0
RESPONSES = 3  # outputs per item in the study the script seeds (BS-4, TS-Temp, TS-Tilted)


@dataclass
class Submit:
    rater: str
    due: float  # wall clock (time.time) the schedule asked for
    sent: float  # when the join request went out (later than due if the rater's previous submit was slow)
    latency_s: float
    ok: bool
    error: str | None = None


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def human_schedule(raters: int, duration_s: float, min_s: float, max_s: float, seed: int) -> list[list[float]]:
    """Per rater, submit times (seconds from the start): the first within one interval, then every
    `min_s`..`max_s` seconds (uniform jitter) until `duration_s`."""
    import random

    rng = random.Random(seed)
    plans = []
    for _ in range(raters):
        t, times = rng.uniform(0, max_s), []
        while t < duration_s:
            times.append(t)
            t += rng.uniform(min_s, max_s)
        plans.append(times)
    return plans


def burst_schedule(raters: int, rate: float, step_s: float, seed: int) -> list[list[float]]:
    """`rate` submits per second for `step_s` seconds, evenly spaced with a little jitter, dealt to the
    raters in turn (so each rater's submits are `raters / rate` seconds apart)."""
    import random

    rng = random.Random(seed)
    n = max(1, round(rate * step_s))
    gap = 1 / rate
    plans: list[list[float]] = [[] for _ in range(raters)]
    for k in range(n):
        plans[k % raters].append(max(0.0, k * gap + rng.uniform(-gap / 2, gap / 2)))
    return plans


def burst_rates(start: float, factor: float, max_rate: float) -> list[float]:
    rates, r = [], start
    while r <= max_rate + 1e-9:
        rates.append(round(r, 2))
        r *= factor
    return rates


@dataclass
class Session:
    name: str
    index: int
    code: str
    session_hash: str
    submitted: int = 0  # submits so far: the item number used in scores and comments


def _submit_data(s: Session, item: int) -> list[Any]:
    rows = [[score(s.index, item, slot, d) for d in range(len(DIMENSIONS))] for slot in range(RESPONSES)]
    values = form(rows, [comment(s.name, item, slot) for slot in range(RESPONSES)])  # the default rubric's rows
    return [s.code, None, *values, None]  # no item named: the one on screen (ui/rate/once.py)


def open_sessions(url: str, store: Any, study_id: int, raters: int, prefix: str) -> list[Session]:
    """Enrol `raters` raters and open the study in one session each (rate_start), as the page does
    when a rater types their code; not timed."""
    from arena.access import invites

    names = [f"{prefix}-{i:03d}" for i in range(raters)]
    codes = {inv.rater: inv.code for inv in invites.invite(store, study_id, names)}
    sessions = [Session(name, i, codes[name], uuid.uuid4().hex[:11]) for i, name in enumerate(names)]
    client = GradioHTTP(url, timeout_s=CALL_TIMEOUT_S)
    try:
        start = dep_by_api_name(client, "rate_start")

        def one(s: Session) -> None:
            opened = client.call(start, [s.code, None], session_hash=s.session_hash)
            if not opened.ok:
                raise RuntimeError(f"{s.name} could not open the study: {opened.error}")

        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(one, sessions))
    finally:
        client.close()
    return sessions


def _paced_rater(client: Any, submit_fn: int, s: Session, due: list[float], t0: float) -> list[Submit]:
    out = []
    for offset in due:
        when = t0 + offset
        wait = when - time.time()
        if wait > 0:
            time.sleep(wait)
        sent = time.time()
        started = time.perf_counter()
        try:
            r = client.call(submit_fn, _submit_data(s, s.submitted), session_hash=s.session_hash)
            ok, error = r.ok and "Saved" in r.raw, r.error
        except Exception as exc:  # counted as a failed submit, never swallowed
            ok, error = False, f"{type(exc).__name__}: {exc}"
        out.append(Submit(s.name, when, sent, time.perf_counter() - started, ok, error))
        if ok:
            s.submitted += 1
    return out


def _paced_worker(
    url: str, submit_fn: int, jobs: list[tuple[Session, list[float]]], ready: Any, go: Any, start_at: Any, box: Any
) -> None:
    """One worker process: its raters as threads. It makes its HTTP clients, reports ready, and waits
    for the common start time, so a slow process start (a loaded machine) never bunches submits up."""
    t0 = time.time()
    clients: list[Any] = []
    try:
        clients = [GradioHTTP(url, timeout_s=CALL_TIMEOUT_S) for _ in jobs]
        ready.wait(timeout=CALL_TIMEOUT_S)
        go.wait(timeout=CALL_TIMEOUT_S)
        t0 = start_at.value
        with ThreadPoolExecutor(max_workers=max(1, len(jobs))) as pool:
            futures = [pool.submit(_paced_rater, c, submit_fn, s, due, t0) for c, (s, due) in zip(clients, jobs)]
            result = ([f.result() for f in futures], {s.name: s.submitted for s, _ in jobs})
    except BaseException as exc:  # reported as one failed submit per job, never swallowed
        result = (
            [[Submit(s.name, t0, t0, 0.0, False, f"worker: {type(exc).__name__}: {exc}")] for s, _ in jobs],
            {s.name: s.submitted for s, _ in jobs},
        )
    finally:
        for c in clients:
            c.close()
    box.put(result)


def drive(
    url: str, sessions: list[Session], plans: list[list[float]], procs: int = 2, lead_s: float = 0.5
) -> list[Submit]:
    """Every session submits at its planned times, in seconds from a common start `lead_s` after every
    worker process is ready (starting them is not counted). Returns every submit, in time order."""
    probe = GradioHTTP(url, timeout_s=60)
    try:
        submit_fn = dep_by_api_name(probe, "rate_submit")
    finally:
        probe.close()
    procs = max(1, min(procs, len(sessions)))
    jobs = list(zip(sessions, plans))
    shares = [jobs[k::procs] for k in range(procs)]
    ctx = multiprocessing.get_context("spawn")
    box, ready, go, start_at = ctx.Queue(), ctx.Barrier(procs + 1), ctx.Event(), ctx.Value("d", 0.0)
    workers = [
        ctx.Process(target=_paced_worker, args=(url, submit_fn, share, ready, go, start_at, box), daemon=True)
        for share in shares
    ]
    for w in workers:
        w.start()
    submits: list[Submit] = []
    by_name = {s.name: s for s in sessions}
    try:
        ready.wait(timeout=CALL_TIMEOUT_S)
        start_at.value = time.time() + lead_s
        go.set()
        horizon = max((p[-1] for p in plans if p), default=0.0) + lead_s + CALL_TIMEOUT_S
        for _ in shares:  # in whichever order the workers finish
            per_rater, counts = box.get(timeout=horizon)
            for rows in per_rater:
                submits += rows
            for name, n in counts.items():  # the item counters moved on in the worker process
                by_name[name].submitted = n
    except (queue.Empty, threading.BrokenBarrierError) as exc:
        submits.append(Submit("?", time.time(), time.time(), 0.0, False, f"a worker process did not answer: {exc!r}"))
    finally:
        go.set()
        for w in workers:
            w.join(timeout=30)
            if w.is_alive():
                w.kill()
    return sorted(submits, key=lambda x: x.sent)


@dataclass
class Phase:
    """One paced phase: what was asked, what came back, and the server's CPU meanwhile."""

    label: str
    planned: int
    submits: list[Submit]
    span_s: float  # first submit sent .. last reply
    server_cpu_s: float | None

    @property
    def ok_latencies(self) -> list[float]:
        return [x.latency_s for x in self.submits if x.ok]

    @property
    def failed(self) -> list[Submit]:
        return [x for x in self.submits if not x.ok]

    @property
    def late(self) -> int:
        """Submits sent more than 100 ms after their planned time (their rater was still waiting)."""
        return sum(1 for x in self.submits if x.sent - x.due > 0.1)

    def p(self, q: float) -> float:
        # a failed submit counts as never answered: it can only raise the percentiles
        return percentile([x.latency_s if x.ok else float("inf") for x in self.submits], q)

    @property
    def achieved_per_s(self) -> float:
        return len(self.ok_latencies) / self.span_s if self.span_s > 0 else float("nan")

    def line(self) -> str:
        cpu = (
            f"; server CPU {self.server_cpu_s / max(1, len(self.submits)) * 1000:.1f} ms per submit"
            if self.server_cpu_s is not None
            else ""
        )
        return (
            f"{self.label}: {len(self.submits)}/{self.planned} submits, {len(self.failed)} failed, {self.late} late; "
            f"p50={self.p(50) * 1000:.0f} ms p95={self.p(95) * 1000:.0f} ms p99={self.p(99) * 1000:.0f} ms "
            f"max={self.p(100) * 1000:.0f} ms; {self.achieved_per_s:.2f} submits/s over {self.span_s:.1f} s{cpu}"
        )


def run_phase(
    label: str, url: str, sessions: list[Session], plans: list[list[float]], procs: int, server_pid: int | None
) -> Phase:
    with _CpuSampler(server_pid) as sampler:
        submits = drive(url, sessions, plans, procs)
        time.sleep(0.1)  # one more CPU sample after the last reply
    sent = [x.sent for x in submits]
    ends = [x.sent + x.latency_s for x in submits]
    span = (max(ends) - min(sent)) if submits else 0.0
    cpu = sampler.between(min(sent), max(ends)) if submits else None
    return Phase(label, sum(len(p) for p in plans), submits, span, cpu)


def run_human(
    url: str,
    store: Any,
    study_id: int,
    raters: int = 50,
    duration_s: float = 180,
    min_s: float = 10,
    max_s: float = 20,
    procs: int = 2,
    seed: int = 0,
    server_pid: int | None = None,
    prefix: str | None = None,
) -> Phase:
    """`raters` raters, each submitting every `min_s`..`max_s` s (jittered) for `duration_s`."""
    sessions = open_sessions(url, store, study_id, raters, prefix or f"human-{uuid.uuid4().hex[:6]}")
    plans = human_schedule(raters, duration_s, min_s, max_s, seed)
    return run_phase(
        f"{raters} raters every {min_s:g}-{max_s:g} s for {duration_s:g} s", url, sessions, plans, procs, server_pid
    )


@dataclass
class BurstReport:
    phases: list[tuple[float, Phase]]
    limit_s: float
    warmup: Phase | None = None

    def passed(self, phase: Phase) -> bool:
        """Within the limit: p95 at most `limit_s`, no failed submit, and the server kept up (at least
        90% of the asked rate came back as saved submits)."""
        return phase.p(95) <= self.limit_s and not phase.failed and len(phase.ok_latencies) >= 0.9 * phase.planned

    @property
    def capacity(self) -> float | None:
        """The highest asked rate (submits/s) that stayed within the limit, before the first that did not."""
        best = None
        for rate, phase in self.phases:
            if not self.passed(phase):
                break
            best = rate
        return best


def run_burst(
    url: str,
    store: Any,
    study_id: int,
    raters: int = 50,
    start_rate: float = 2,
    factor: float = 1.5,
    max_rate: float = 80,
    step_s: float = 15,
    procs: int = 2,
    seed: int = 0,
    server_pid: int | None = None,
    limit_s: float = BURST_LIMIT_P95_S,
    prefix: str | None = None,
    log: Any = print,
) -> BurstReport:
    """Raise the submit rate step by step (`start_rate`, ×`factor`, … up to `max_rate`), `step_s` seconds
    each, until a step's p95 passes `limit_s` (or a submit fails or the server falls behind)."""
    sessions = open_sessions(url, store, study_id, raters, prefix or f"burst-{uuid.uuid4().hex[:6]}")
    # Untimed: one submit per rater at 2/s first, so the steps measure a server that has served
    # submits before (its first ones pay for lazy imports and first-use caches), not a cold start.
    warm = run_phase(
        "warm-up (not counted)", url, sessions, burst_schedule(raters, 2.0, raters / 2.0, seed - 1), procs, None
    )
    log(warm.line(), flush=True)
    report = BurstReport([], limit_s, warm)
    for k, rate in enumerate(burst_rates(start_rate, factor, max_rate)):
        phase = run_phase(
            f"{rate:g}/s", url, sessions, burst_schedule(raters, rate, step_s, seed + k), procs, server_pid
        )
        report.phases.append((rate, phase))
        log(phase.line(), flush=True)
        if not report.passed(phase):
            break
    return report


def items_needed(mode: str, args: argparse.Namespace) -> int:
    """Items the seeded study needs so that no rater runs out of items to rate."""
    if mode == "human":
        return int(args.duration // args.min_interval) + 2
    total = sum(round(r * args.step_seconds) for r in burst_rates(args.start_rate, args.factor, args.max_rate))
    return -(-total // args.raters) + 3  # + the warm-up submit


def stored_check(store: Any, study_id: int, submits: list[Submit]) -> dict[str, int]:
    """Stored ratings against acknowledged submits: each acknowledged submit is RESPONSES rows."""
    frame = store.ratings_frame(study_id)
    keys = list(zip(frame["rater"], frame["output_id"]))
    acked = sum(1 for x in submits if x.ok)
    return dict(expected=acked * RESPONSES, stored=len(frame), duplicates=len(keys) - len(set(keys)))


def machine_load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def paced_main(args: argparse.Namespace, app: Any = None) -> int:
    """Seed a study, start the app on it (or use `app`, a running `live_app.LiveApp`: the tests' shared
    one), run the mode, print the figures. Exit code 0 when every acknowledged rating is stored once."""
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        workdir = Path(tmp) if app is None else app.workdir
        store = db_store(workdir)
        n_items = items_needed(args.mode, args)
        tag = uuid.uuid4().hex[:6]  # a shared app's database holds other studies and raters
        texts = [
            {m: f"response {m[-1]} to item {k} {tag}" for m in ("BS-4", "TS-Temp", "TS-Tilted")} for k in range(n_items)
        ]
        sid, _ = seed_study(store, f"Load study {tag}", [f"Load prompt {k} {tag}" for k in range(n_items)], texts)
        own = app is None
        if own:
            print(f"{n_items} items seeded; starting the app on loopback ...", flush=True)
            app = start_app(workdir)
        try:
            print(f"before: {machine_load()}", flush=True)
            if args.mode == "human":
                phase = run_human(
                    app.url,
                    store,
                    sid,
                    args.raters,
                    args.duration,
                    args.min_interval,
                    args.max_interval,
                    args.procs,
                    args.seed,
                    app.proc.pid,
                )
                submits = phase.submits
            else:
                burst = run_burst(
                    app.url,
                    store,
                    sid,
                    args.raters,
                    args.start_rate,
                    args.factor,
                    args.max_rate,
                    args.step_seconds,
                    args.procs,
                    args.seed,
                    app.proc.pid,
                )
                submits = [x for ph in [burst.warmup] + [ph for _, ph in burst.phases] if ph for x in ph.submits]
            print(f"after: {machine_load()}", flush=True)
        finally:
            if own:
                app.stop()
        counts = stored_check(store, sid, submits)
        store.dispose()
    print(f"stored {counts['stored']} ratings for {counts['expected']} acknowledged; duplicates {counts['duplicates']}")
    stored_ok = counts["stored"] == counts["expected"] and not counts["duplicates"]
    for x in [x for x in submits if not x.ok][:5]:
        print(f"failed: {x.rater}: {x.error}")
    if args.mode == "human":
        print(phase.line())
        p95 = phase.p(95)
        verdict = "PASS" if p95 <= HUMAN_TARGET_P95_S and not phase.failed else "FAIL"
        print(f"target p95 <= {HUMAN_TARGET_P95_S * 1000:.0f} ms: p95 {p95 * 1000:.0f} ms -> {verdict}")
        return 0 if stored_ok and not phase.failed else 1
    cap = burst.capacity
    last_rate, last = burst.phases[-1]
    if cap is None:
        print(
            f"burst capacity: below {burst.phases[0][0]:g} submits/s (the first step already passed p95 "
            f"{BURST_LIMIT_P95_S:g} s or failed)"
        )
    elif burst.passed(last):
        print(f"burst capacity: at least {cap:g} submits/s (p95 stayed <= {BURST_LIMIT_P95_S:g} s up to --max-rate)")
    else:
        print(f"burst capacity: {cap:g} submits/s (at {last_rate:g}/s p95 was {last.p(95):.2f} s)")
    return 0 if stored_ok else 1


def main(argv: list[str] | None = None, app: Any = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--raters", type=int, default=50)
    p.add_argument("--items", type=int, default=2)
    p.add_argument(
        "--resubmit-every", type=int, default=5, help="every k-th rater submits its last item twice (0: none)"
    )
    p.add_argument(
        "--procs",
        type=int,
        help="client worker processes (1: all raters as threads of this one; "
        "default 5 for at-once, 2 for the paced modes, whose raters mostly sleep)",
    )
    p.add_argument(
        "--mode",
        choices=["at-once", "human", "burst"],
        default="at-once",
        help="at-once: every rater submits together; human: each every 10-20 s; burst: rising rates",
    )
    p.add_argument("--duration", type=float, default=180, help="human: seconds of rating")
    p.add_argument("--min-interval", type=float, default=10, help="human: shortest gap between a rater's submits (s)")
    p.add_argument("--max-interval", type=float, default=20, help="human: longest gap (s)")
    p.add_argument("--start-rate", type=float, default=2, help="burst: first step's submits per second")
    p.add_argument("--factor", type=float, default=1.5, help="burst: each step's rate over the last's")
    p.add_argument("--max-rate", type=float, default=80, help="burst: stop raising here (submits/s)")
    p.add_argument("--step-seconds", type=float, default=15, help="burst: seconds per step")
    p.add_argument("--seed", type=int, default=0, help="human/burst: seed of the jittered schedule")
    args = p.parse_args(argv)
    args.procs = args.procs or (5 if args.mode == "at-once" else 2)
    if args.mode != "at-once":
        if not (
            1 <= args.raters <= 200
            and 0 < args.min_interval <= args.max_interval
            and 0 < args.duration <= 3600
            and 0 < args.start_rate <= args.max_rate <= 1000
            and args.factor > 1
            and 0 < args.step_seconds <= 600
            and 1 <= args.procs <= 16
        ):
            p.error(
                "paced modes: --raters 1..200, 0 < --min-interval <= --max-interval, --duration <= 3600, "
                "0 < --start-rate <= --max-rate <= 1000, --factor > 1, --step-seconds <= 600, --procs 1..16"
            )
        return paced_main(args, app)
    if not 1 <= args.raters <= 200 or not 1 <= args.items <= 20 or not 1 <= args.procs <= 16:
        p.error("--raters must be 1..200, --items 1..20 and --procs 1..16")

    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        workdir = Path(tmp)
        store = db_store(workdir)
        texts = [
            {m: f"response {m[-1]} to item {k}" for m in ("BS-4", "TS-Temp", "TS-Tilted")} for k in range(args.items)
        ]
        sid, _ = seed_study(store, "Load study", [f"Load prompt {k}" for k in range(args.items)], texts)
        print("starting the app on loopback ...", flush=True)
        app = start_app(workdir)
        try:
            report = run_raters(
                app.url,
                sid,
                args.raters,
                args.items,
                args.resubmit_every,
                procs=args.procs,
                server_pid=app.proc.pid,
                store=store,
            )
        finally:
            app.stop()
        counts = check_stored(store.ratings_frame(sid), report, n_responses=3)
        store.dispose()
    print(summary(report, counts))
    for line in report.errors[:10]:
        print("error:", line)
    ok = (
        not report.errors
        and counts["stored"] == counts["expected"]
        and not counts["duplicates"]
        and not counts["wrong"]
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
