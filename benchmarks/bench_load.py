"""Many raters at once against one app process: submit latency, and every rating stored once.

Each simulated rater is its own `gradio_client.Client` (its own session, as a browser tab would
be): it opens the study, waits until every rater is ready, then all submit together; each rates
every item, and some submit an item a second time (as after "Previous"), which must update, not
duplicate. Afterwards the database is read directly and compared with what was sent.

    python benchmarks/bench_load.py                    # 50 raters, 2 items, own app on loopback
    python benchmarks/bench_load.py --raters 20 --items 1

Prints p50/p95/max submit latency, ratings sent and stored. Loopback only; loops are bounded.
"""

from __future__ import annotations

import argparse
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


def _submit_args(name: str, index: int, item: int, shown: int) -> list[Any]:
    radios: list[Any] = [None] * (SLOTS * len(DIMENSIONS))
    notes: list[Any] = [None] * SLOTS
    for slot in range(shown):
        for d in range(len(DIMENSIONS)):
            radios[slot * len(DIMENSIONS) + d] = score(index, item, slot, d)
        notes[slot] = comment(name, item, slot)
    return [name, *radios, *notes]


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


def _rater(url: str, study_id: int, index: int, name: str, n_items: int, resubmit: bool,
           ready: threading.Barrier) -> RaterResult:
    from gradio_client import Client

    out = RaterResult(name)
    client = None
    try:
        with _connecting:
            client = Client(url, verbose=False, download_files=False, analytics_enabled=False, max_workers=2,
                            httpx_kwargs={"timeout": CALL_TIMEOUT_S})
        view = client.submit(name, study_id, api_name="/rate_start").result(timeout=CALL_TIMEOUT_S)
        shown = _shown(view)
        ready.wait(timeout=CALL_TIMEOUT_S)  # everyone submits at once
        for item in range(n_items):
            started = time.perf_counter()
            view = client.submit(*_submit_args(name, index, item, shown), api_name="/rate_submit").result(timeout=CALL_TIMEOUT_S)
            out.submit_s.append(time.perf_counter() - started)
            out.sent += shown
            if item + 1 < n_items:
                shown = _shown(view)
        if resubmit:  # back to the last item, submit the same scores again: an update, not a new row
            view = client.submit(name, api_name="/rate_previous").result(timeout=CALL_TIMEOUT_S)
            started = time.perf_counter()
            client.submit(*_submit_args(name, index, n_items - 1, _shown(view)), api_name="/rate_submit").result(timeout=CALL_TIMEOUT_S)
            out.submit_s.append(time.perf_counter() - started)
            out.sent += shown
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


def run_raters(url: str, study_id: int, raters: int = 50, items: int = 2, resubmit_every: int = 5,
               prefix: str | None = None) -> LoadReport:
    """`raters` simulated raters rate all `items` of a study at once; returns their timings."""
    prefix = prefix or f"load-{uuid.uuid4().hex[:6]}"
    ready = threading.Barrier(raters)
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=raters) as pool:
        futures = [pool.submit(_rater, url, study_id, i, f"{prefix}-{i:03d}", items,
                               resubmit_every > 0 and i % resubmit_every == 0, ready) for i in range(raters)]
        results = [f.result(timeout=CALL_TIMEOUT_S * (items + 3)) for f in futures]
    return LoadReport(raters, items, results, time.perf_counter() - started)


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
            f"wall={report.wall_s:.1f} s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--raters", type=int, default=50)
    p.add_argument("--items", type=int, default=2)
    p.add_argument("--resubmit-every", type=int, default=5, help="every k-th rater submits its last item twice (0: none)")
    args = p.parse_args(argv)
    if not 1 <= args.raters <= 200 or not 1 <= args.items <= 20:
        p.error("--raters must be 1..200 and --items 1..20")

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
            report = run_raters(app.url, sid, args.raters, args.items, args.resubmit_every)
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
