"""50 raters at once through gradio_client against one app process: every rating stored exactly once.

The simulation lives in benchmarks/bench_load.py (which also prints the latency figures); this
test runs it against the shared app and checks the database against what was sent.
"""

from __future__ import annotations

import re
import secrets

import pytest

from benchmarks.bench_load import check_stored, run_raters, summary
from benchmarks.bench_load import main as bench_main
from tests.support.live_app import LiveApp, shared_app
from tests.support.seeding import db_store, seed_study

# `alone`: its latency bounds measure the app, so it runs after the other live tests, with no worker beside it
pytestmark = [pytest.mark.timeout(900), pytest.mark.alone]

RATERS = 50
ITEMS = 2


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> LiveApp:
    return shared_app(tmp_path_factory.getbasetemp())


def test_fifty_raters_at_once_every_rating_stored_exactly_once(app: LiveApp, artifacts_dir):
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    texts = [
        {m: f"load response {m[-1]} item {k} {token}" for m in ("BS-4", "TS-Temp", "TS-Tilted")} for k in range(ITEMS)
    ]
    sid, _ = seed_study(store, f"Load study {token}", [f"Load prompt {k} {token}" for k in range(ITEMS)], texts)

    report = run_raters(
        app.url, sid, raters=RATERS, items=ITEMS, resubmit_every=5, prefix=f"load-{token}", store=store
    )  # enrols each rater with an invite code first
    counts = check_stored(store.ratings_frame(sid), report, n_responses=3)
    text = summary(report, counts)
    print("\n" + text)
    (artifacts_dir / "load-summary.txt").write_text(text + "\n")
    store.dispose()

    assert not report.errors, report.errors[:5]
    assert len(report.latencies) == RATERS * ITEMS + RATERS // 5
    assert counts["expected"] == RATERS * ITEMS * 3
    assert counts["stored"] == counts["expected"], counts
    assert counts["duplicates"] == 0 and counts["wrong"] == 0, counts
    assert counts["distinct_comments"] == counts["expected"]


def _stored_line(out: str) -> tuple[int, int, int]:
    m = re.search(r"stored (\d+) ratings for (\d+) acknowledged; duplicates (\d+)", out)
    assert m, out
    return int(m[1]), int(m[2]), int(m[3])


def test_human_pace_mode_at_tiny_scale(app: LiveApp, capsys):
    """`--mode human` end to end (seeding, sessions, paced submits, figures, verdict) in seconds."""
    rc = bench_main(
        [
            "--mode",
            "human",
            "--raters",
            "3",
            "--duration",
            "4",
            "--min-interval",
            "1",
            "--max-interval",
            "2",
            "--procs",
            "1",
        ],
        app=app,
    )
    out = capsys.readouterr().out
    print(out)
    assert rc == 0, out
    done = re.search(r"3 raters every 1-2 s for 4 s: (\d+)/(\d+) submits, (\d+) failed", out)
    assert done and done[1] == done[2] and int(done[1]) >= 3 and done[3] == "0", out
    stored, acked, duplicates = _stored_line(out)
    assert stored == acked == 3 * int(done[1]) and duplicates == 0
    verdict = re.search(r"target p95 <= 150 ms: p95 (\d+) ms -> (PASS|FAIL)", out)
    assert verdict and (verdict[2] == "PASS") == (int(verdict[1]) <= 150), out


def test_burst_mode_at_tiny_scale(app: LiveApp, capsys):
    """`--mode burst` end to end: rising steps, each reported, and a capacity line."""
    rc = bench_main(
        [
            "--mode",
            "burst",
            "--raters",
            "3",
            "--start-rate",
            "2",
            "--factor",
            "2",
            "--max-rate",
            "4",
            "--step-seconds",
            "2",
            "--procs",
            "1",
        ],
        app=app,
    )
    out = capsys.readouterr().out
    print(out)
    assert rc == 0, out
    steps = re.findall(r"^(\d+)/s: (\d+)/(\d+) submits, (\d+) failed", out, flags=re.M)
    assert steps and steps[0][0] == "2" and [s[0] for s in steps] == ["2", "4"][: len(steps)], out
    assert all(s[1] == s[2] for s in steps), out
    stored, acked, duplicates = _stored_line(out)
    assert stored == acked and duplicates == 0
    assert re.search(r"burst capacity: (at least \d+|\d+|below \d+) submits/s", out), out
