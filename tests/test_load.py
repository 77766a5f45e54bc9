"""50 raters at once through gradio_client against one app process: every rating stored exactly once.

The simulation lives in benchmarks/bench_load.py (which also prints the latency figures); this
test runs it against the shared app and checks the database against what was sent.
"""

from __future__ import annotations

import secrets

import pytest

from benchmarks.bench_load import check_stored, run_raters, summary
from live_app import LiveApp, shared_app
from seeding import db_store, seed_study

pytestmark = pytest.mark.timeout(900)

RATERS = 50
ITEMS = 2


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> LiveApp:
    return shared_app(tmp_path_factory.getbasetemp())


def test_fifty_raters_at_once_every_rating_stored_exactly_once(app: LiveApp, artifacts_dir):
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    texts = [{m: f"load response {m[-1]} item {k} {token}" for m in ("BS-4", "TS-Temp", "TS-Tilted")} for k in range(ITEMS)]
    sid, _ = seed_study(store, f"Load study {token}", [f"Load prompt {k} {token}" for k in range(ITEMS)], texts)

    report = run_raters(app.url, sid, raters=RATERS, items=ITEMS, resubmit_every=5, prefix=f"load-{token}",
                        store=store)  # enrols each rater with an invite code first
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
