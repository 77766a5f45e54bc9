"""Organizer dashboard: the preview line (counts and time from measured throughput) and the compact
per-rater table (% done, median seconds per item, last activity to the minute, totals)."""

import pandas as pd
import pytest

from arena.access import invites
from arena.rating import blind
from arena.runs import estimate
from arena.store import Store
from tests.support.stores import sqlite_url
from ui.organizer import dashboard as dash


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
    outs = pd.DataFrame(
        [
            dict(model="m", method="BS-4", latency_ms=2000.0, new_tokens=20),
            dict(model="m", method="BS-4", latency_ms=None, new_tokens=20),
            dict(model="other", method="BS-4", latency_ms=1.0, new_tokens=100),
        ]
    )
    assert estimate.from_outputs(outs, "m") == {"BS-4": pytest.approx(10.0)}


def test_preview_line():
    assert dash.preview([], ["BS-4"], 1, 64, {}) == "No prompts yet."
    assert dash.preview(["a", "b"], [], 1, 64, {}) == "Choose at least one method."
    assert dash.preview(["a", "b"], ["BS-4"], 1, 64, {"BS-4": 64.0}).startswith(
        "**Preview:** 2 prompts × 1 method = 2 outputs, about 2 s"
    )


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
    assert len(last) == 19 and last[10] == " " and "." not in last  # to the second, no microseconds
    assert table.loc[1, "rater"] == "all 1 raters" and table.loc[1, "% done"] == "50%"


def test_the_rater_table_counts_skips_as_done_and_the_flag_table_names_no_method(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'f.db'}")
    sid = store.create_study("flags", methods=["BS-4", "TS-Temp"])
    iids = store.add_items(sid, [{"prompt": f"p{k}"} for k in range(4)])
    for iid in iids:
        for k, m in enumerate(("BS-4", "TS-Temp")):
            store.add_output(iid, m, 0, text=f"{m} {iid}", settings={}, seed=k, model="m", new_tokens=1)
    [made] = invites.invite(store, sid, ["zoe"])
    zoe = invites.resolve(store, made.code)
    view, _ = blind.open_item(store, "zoe", sid, 1)
    blind.submit(store, "zoe", view.item, {r.label: {d: 4 for d in blind.DIMENSIONS} for r in view.responses})
    blind.flag_for(store, zoe, view.item, "B", "broken", "stops mid-word")
    view, _ = blind.open_item(store, "zoe", sid, 2)
    blind.skip_for(store, zoe, view.item, "language")
    blind.flag_for(store, zoe, view.item, None, "personal")
    view, _ = blind.open_item(store, "yan", sid, 3)  # a rater who has only skipped still has a row
    blind.skip(store, "yan", view.item, "unsafe")
    table = dash.rater_table(store, sid).set_index("rater")
    assert table.loc["zoe", "items done"] == "2 of 4" and table.loc["zoe", "skipped"] == "1"
    assert table.loc["zoe", "% done"] == "50%"
    assert table.loc["yan", "items done"] == "1 of 4" and table.loc["yan", "skipped"] == "1"
    assert table.loc["all 2 raters", "items done"] == "3 of 8" and table.loc["all 2 raters", "skipped"] == "2"
    flags = dash.flag_table(store, sid)
    assert list(flags.columns) == dash.FLAG_COLUMNS
    assert flags["what"].tolist() == ["response B as this rater saw it", "whole item"]
    assert flags["item"].tolist() == [1, 2] and flags["note"].tolist() == ["stops mid-word", ""]
    text = flags.to_csv()
    assert "BS-4" not in text and "TS-Temp" not in text  # the organizer stays blind while rating runs
    store.dispose()


def test_every_run_through_the_runner_feeds_the_estimate_not_only_compares(monkeypatch):
    """Throughput is recorded below the UI: a CLI's run_methods and a stream (Compare, its grid) alike,
    under the model's name and the label the model pickers use."""
    from types import SimpleNamespace

    from arena.runs import runner
    from arena.runs.requests import RunRequest

    monkeypatch.setenv("ARENA_ENGINE", "dummy")
    lm = SimpleNamespace(name="/models/run-model", label="run-model@bf16", context_length=2048)
    runner.run_methods(lm, RunRequest(prompt="Hello there", methods=["Greedy"], max_new_tokens=6))
    assert set(estimate.measured("/models/run-model")) == {"Greedy"}
    assert estimate.measured("run-model@bf16") == estimate.measured("/models/run-model")
    events = list(runner.stream_methods(lm, RunRequest(prompt="Hello again", methods=["TS-Temp"], max_new_tokens=6)))
    assert events[-1].result is not None and "TS-Temp" in estimate.measured("run-model@bf16")
