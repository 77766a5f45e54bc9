"""Many raters at once against one app process: submit latency, and every rating stored once.

Each simulated rater is its own `gradio_client.Client` (its own session, as a browser tab would
be) with its own invite code (the raters are enrolled in the study first, as an organizer would):
it opens the study with its code, waits until every rater is ready, then all submit together; each rates
every item, and some submit an item a second time (as after "Previous"), which must update, not
duplicate. Afterwards the database is read directly and compared with what was sent.

The app is `python app.py` in its own process (tests/live_app.py). The raters run in `--procs`
worker processes (threads within each), not as 50 threads of this process: gradio_client spends
about as much CPU per call as the server does (a fresh httpx client per request, a 50 ms polling
thread per job), and 50 of them behind one GIL measured the client, not the server. Clients use
`ssl_verify=False`: the URL is plain http on loopback, so this only skips loading the CA bundle,
which httpx otherwise did for every request. The machine's cores are still shared with the server,
so the benchmark also reports the server's own CPU time per submit (from /proc, during the submit
phase), which does not depend on how fast the clients are.

    python benchmarks/bench_load.py                    # 50 raters, 2 items, own app on loopback
    python benchmarks/bench_load.py --raters 20 --items 1 --procs 1

Prints p50/p95/max submit latency, server CPU per submit, ratings sent and stored. Loopback only;
loops are bounded.
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

ROOT = Path(__file__).resolve().parents[1]
for extra in (ROOT, ROOT / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

SLOTS = 8  # response slots in the rating tab (A..H)
DIMENSIONS = ("coherence", "informativeness", "naturalness")
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
    radios: list[Any] = [None] * (SLOTS * len(DIMENSIONS))
    notes: list[Any] = [None] * SLOTS
    for slot in range(shown):
        for d in range(len(DIMENSIONS)):
            radios[slot * len(DIMENSIONS) + d] = score(index, item, slot, d)
        notes[slot] = comment(name, item, slot)
    return [code, *radios, *notes]


def _shown(view: tuple) -> int:
    """How many responses the view shows. gradio_client returns, after progress and prompt, five
    values per slot (text, three radios, comment; the slot's box is layout and not returned);
    a hidden slot's text is empty."""
    count = 0
    for k in range(SLOTS):
        text = view[2 + 5 * k]
        value = text.get("value") if isinstance(text, dict) else text
        if value:
            count += 1
    return count


_connecting = threading.Semaphore(8)  # clients connect a few at a time; they submit all at once


def _rater(url: str, index: int, name: str, code: str, n_items: int, resubmit: bool,
           ready: Any, connecting: Any = _connecting) -> RaterResult:
    from gradio_client import Client

    out = RaterResult(name)
    client = None
    try:
        with connecting:
            client = Client(url, verbose=False, download_files=False, analytics_enabled=False, max_workers=2,
                            ssl_verify=False, httpx_kwargs={"timeout": CALL_TIMEOUT_S})
        # rate_start answers "Rating as <name> in <study>" first, then the view
        view = client.submit(code, api_name="/rate_start").result(timeout=CALL_TIMEOUT_S)
        if name not in re.sub(r"\\(.)", r"\1", str(view[0])):  # Markdown-escaped: load\-x\-001
            raise AssertionError(f"{name}'s code opened the study as someone else: {view[0]!r}")
        shown = _shown(view[1:])
        ready.wait(timeout=CALL_TIMEOUT_S)  # everyone submits at once
        out.first_submit_at = time.time()
        for item in range(n_items):
            started = time.perf_counter()
            view = client.submit(*_submit_args(name, code, index, item, shown), api_name="/rate_submit").result(timeout=CALL_TIMEOUT_S)
            out.submit_s.append(time.perf_counter() - started)
            out.sent += shown
            if item + 1 < n_items:
                shown = _shown(view)
        if resubmit:  # back to the last item, submit the same scores again: an update, not a new row
            view = client.submit(code, api_name="/rate_previous").result(timeout=CALL_TIMEOUT_S)
            started = time.perf_counter()
            client.submit(*_submit_args(name, code, index, n_items - 1, _shown(view)), api_name="/rate_submit").result(timeout=CALL_TIMEOUT_S)
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

    def __enter__(self) -> "_CpuSampler":
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


def _run_threads(url: str, jobs: list[tuple[int, str, str, bool]], items: int, ready: Any,
                 connecting: Any) -> list[RaterResult]:
    with ThreadPoolExecutor(max_workers=max(1, len(jobs))) as pool:
        futures = [pool.submit(_rater, url, i, name, code, items, resubmit, ready, connecting)
                   for i, name, code, resubmit in jobs]
        return [f.result(timeout=CALL_TIMEOUT_S * (items + 3)) for f in futures]


def _worker(url: str, jobs: list[tuple[int, str, str, bool]], items: int, ready: Any,
            connect_slots: int, results: Any) -> None:
    """One worker process: its share of the raters, as threads; results go back on a queue."""
    try:
        out = _run_threads(url, jobs, items, ready, threading.Semaphore(connect_slots))
    except BaseException as exc:  # reported as every job's error, never swallowed
        ready.abort()
        out = [RaterResult(name, errors=[f"worker: {type(exc).__name__}: {exc}"]) for _, name, _, _ in jobs]
    results.put(out)


def run_raters(url: str, study_id: int, raters: int = 50, items: int = 2, resubmit_every: int = 5,
               prefix: str | None = None, procs: int = 5, server_pid: int | None = None, *,
               store: Any) -> LoadReport:
    """`raters` simulated raters rate all `items` of a study at once; returns their timings.

    The raters are first enrolled in the study through `store` (a Store on the app's database), each
    with its own invite code. They are spread over `procs` worker processes (1: threads of this
    process, as before). With `server_pid`, the app process's CPU time during the submit phase is
    measured too."""
    from arena import invites

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
            workers = [ctx.Process(target=_worker, args=(url, share, items, ready, max(1, 8 // procs), box),
                                   daemon=True) for share in shares]
            for w in workers:
                w.start()
            results = []
            try:
                for _ in workers:
                    results += box.get(timeout=CALL_TIMEOUT_S * (items + 4))
            except queue.Empty:
                ready.abort()
                got = {r.name for r in results}
                results += [RaterResult(name, errors=["no result from its worker process"])
                            for _, name, _, _ in jobs if name not in got]
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
    """Compare the study's stored ratings with what the raters sent. Returns counts; raises on a
    missing, duplicated or altered rating."""
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
        got = (row.coherence, row.informativeness, row.naturalness)
        if name != row.rater or want != got:
            wrong += 1
    return dict(expected=expected, stored=len(mine), duplicates=duplicates, wrong=wrong,
                distinct_comments=len(seen_comments))


def summary(report: LoadReport, counts: dict[str, int]) -> str:
    lat = report.latencies
    sent = sum(r.sent for r in report.results)
    return (f"raters={report.raters} items={report.items} submits={len(lat)} ratings sent={sent} "
            f"(distinct {counts['expected']}) stored={counts['stored']} duplicates={counts['duplicates']} "
            f"wrong={counts['wrong']} errors={len(report.errors)}\n"
            f"submit latency: p50={report.percentile(50):.3f} s  p95={report.percentile(95):.3f} s  "
            f"max={max(lat) if lat else float('nan'):.3f} s  mean={statistics.fmean(lat) if lat else float('nan'):.3f} s  "
            f"wall={report.wall_s:.1f} s  client processes={report.procs}"
            + (f"\nsubmit phase {report.phase_s:.1f} s: server CPU {report.server_cpu_s:.1f} s = "
               f"{report.server_ms_per_submit:.0f} ms per submit" if report.server_cpu_s is not None else ""))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--raters", type=int, default=50)
    p.add_argument("--items", type=int, default=2)
    p.add_argument("--resubmit-every", type=int, default=5, help="every k-th rater submits its last item twice (0: none)")
    p.add_argument("--procs", type=int, default=5, help="client worker processes (1: all raters as threads of this one)")
    args = p.parse_args(argv)
    if not 1 <= args.raters <= 200 or not 1 <= args.items <= 20 or not 1 <= args.procs <= 16:
        p.error("--raters must be 1..200, --items 1..20 and --procs 1..16")

    from live_app import start_app
    from seeding import db_store, seed_study

    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        workdir = Path(tmp)
        store = db_store(workdir)
        texts = [{m: f"response {m[-1]} to item {k}" for m in ("BS-4", "TS-Temp", "TS-Tilted")} for k in range(args.items)]
        sid, _ = seed_study(store, "Load study", [f"Load prompt {k}" for k in range(args.items)], texts)
        print("starting the app on loopback ...", flush=True)
        app = start_app(workdir)
        try:
            report = run_raters(app.url, sid, args.raters, args.items, args.resubmit_every, procs=args.procs,
                                server_pid=app.proc.pid, store=store)
        finally:
            app.stop()
        counts = check_stored(store.ratings_frame(sid), report, n_responses=3)
        store.dispose()
    print(summary(report, counts))
    for line in report.errors[:10]:
        print("error:", line)
    ok = not report.errors and counts["stored"] == counts["expected"] and not counts["duplicates"] and not counts["wrong"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
