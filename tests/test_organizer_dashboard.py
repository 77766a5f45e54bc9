"""Organizer dashboard: the preview line (counts and time from measured throughput) and the compact
per-rater table (% done, median seconds per item, last activity to the minute, totals)."""

import pandas as pd
import pytest

from arena import estimate
from arena.store import Store
from tests.support.stores import sqlite_url
from ui import organizer_dashboard as dash


def test_estimate_uses_measured_throughput_and_says_when_there_is_none():
    slots = [("BS-4", 0), ("TS-Temp", 0), ("TS-Temp", 1)]
    line = estimate.describe(10, slots, 100, {"BS-4": 10.0, "TS-Temp": 50.0})
    # 10 prompts: BS-4 10 x 100 / 10 = 100 s, TS-Temp 2 x 10 x 100 / 50 = 40 s -> 140 s = about 2 min
    assert line.startswith("10 prompts × 2 methods (3 outputs per prompt with samples) = 30 outputs, about 2 min")
    assert "no timing measured" in estimate.describe(3, slots, 100, {})
    seconds, guessed = estimate.estimate_seconds(1, [("Greedy", 0)], 60, {"BS-4": 10.0, "TS-Temp": 50.0})
    assert seconds == pytest.approx(6.0) and guessed == ["Greedy"]
    estimate.record("m-test", "TS-Temp", 42.0)
    estimate.record("m-test", "BS-4", float("nan"))
    assert estimate.measured("m-test") == {"TS-Temp": 42.0}


def test_throughput_from_stored_outputs():
    outs = pd.DataFrame([dict(model="m", method="BS-4", latency_ms=2000.0, new_tokens=20),
                         dict(model="m", method="BS-4", latency_ms=None, new_tokens=20),
                         dict(model="other", method="BS-4", latency_ms=1.0, new_tokens=100)])
    assert estimate.from_outputs(outs, "m") == {"BS-4": pytest.approx(10.0)}


def test_preview_line():
    assert dash.preview([], ["BS-4"], 1, 64, {}) == "No prompts yet."
    assert dash.preview(["a", "b"], [], 1, 64, {}) == "Choose at least one method."
    assert dash.preview(["a", "b"], ["BS-4"], 1, 64, {"BS-4": 64.0}).startswith(
        "**Preview:** 2 prompts × 1 method = 2 outputs, about 2 s")


@pytest.fixture
def store(tmp_path):
    s = Store(sqlite_url(tmp_path))
    yield s
    s.dispose()


def test_rater_table_is_compact_with_totals(store):
    study = store.create_study("s", methods=["BS-4", "TS-Temp"], max_new_tokens=8)
    items = store.add_items(study, [{"prompt": f"p{k}"} for k in range(4)])
    ids = {}
    for item in items:
        for m in ("BS-4", "TS-Temp"):
            ids[item, m], _ = store.add_output(item, m, 0, text="t", settings={}, seed=0, model="m", new_tokens=1)
    rid = store.rater_id("ann")
    for item in items[:2]:
        for m in ("BS-4", "TS-Temp"):
            store.save_rating(rid, ids[item, m], 3, 3, 3)
    table = dash.rater_table(store, study)
    assert list(table.columns) == dash.RATER_COLUMNS
    assert table.loc[0, "rater"] == "ann" and table.loc[0, "% done"] == "50%" and table.loc[0, "items done"] == "2 of 4"
    last = table.loc[0, "last activity (UTC)"]
    assert len(last) == 16 and last[10] == " " and "." not in last  # to the minute, no microseconds
    assert table.loc[1, "rater"] == "all 1 raters" and table.loc[1, "% done"] == "50%"
