"""A "can't judge" answer is missing data to every statistic: per-item means are over the raters who
did score, never with a 0 or a 3 in its place; the counts of such answers are reported."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from arena.files.export import export_to_path
from arena.rating import blind
from arena.store import Store
from common.errors import UserError
from evaluation.human import analysis as ha
from evaluation.human import cli as hcli
from evaluation.human import ratings as hread
from evaluation.human import stats as hs
from evaluation.human import summary as hsum

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
RATERS = ("ann", "bob", "cy")


@pytest.fixture
def rated(tmp_path):
    """A study of 6 items rated by 3 raters through the blind API; bob can't judge naturalness of
    every response of the first two items, cy can't judge the coherence of one response."""
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    sid = store.create_study("cj", methods=list(METHODS))
    iids = store.add_items(sid, [{"prompt": f"p{k}"} for k in range(6)])
    for iid in iids:
        for k, m in enumerate(METHODS):
            store.add_output(iid, m, 0, text=f"{m} {iid}", settings={}, seed=k, model="m", new_tokens=1)
    rng = random.Random(7)
    for rater in RATERS:
        for index in range(1, 7):
            view, _ = blind.open_item(store, rater, sid, index)
            scores = {}
            for k, r in enumerate(view.responses):
                scores[r.label] = {d: rng.randint(1, 5) for d in blind.DIMENSIONS}
                if rater == "bob" and index <= 2:
                    scores[r.label]["naturalness"] = blind.CANT_JUDGE
                if rater == "cy" and index == 3 and k == 0:
                    scores[r.label]["coherence"] = blind.CANT_JUDGE
            blind.submit(store, rater, view.item, scores)
    yield store, sid
    store.dispose()


def test_item_means_are_over_the_raters_who_scored(rated):
    store, sid = rated
    frame = store.ratings_frame(sid)
    assert len(frame) == 6 * 3 * 3  # every answer is a rating row; none is dropped
    assert frame["naturalness"].isna().sum() == 2 * 3 and frame["coherence"].isna().sum() == 1
    table = hs.item_table(frame, "naturalness")
    for (item, method), group in frame.groupby(["item_id", "method"]):
        scored = group["naturalness"].dropna()
        assert table.loc[item, method] == pytest.approx(scored.mean())
        # what a 0 or a 3 in place of "can't judge" would have given is different where bob abstained
        if len(scored) < len(group):
            assert table.loc[item, method] != pytest.approx(group["naturalness"].fillna(0).mean())
            assert len(scored) == 2
    means = hs.method_means(frame, ["naturalness"], n_resamples=200)
    for row in means.to_dict("records"):
        assert row["mean"] == pytest.approx(table[row["method"]].mean())
        assert row["n_ratings"] == int(frame.loc[frame.method == row["method"], "naturalness"].notna().sum())


def test_every_statistic_runs_and_counts_the_answers(rated):
    store, sid = rated
    frame = store.ratings_frame(sid)
    result = ha.analyse(frame, mixed=True)
    counts = result["cant_judge"]
    by = {(r["method"], r["dimension"]): r["n"] for r in counts.to_dict("records")}
    assert sum(n for (m, d), n in by.items() if d == "naturalness") == 6
    assert sum(n for (m, d), n in by.items() if d == "coherence") == 1 and ("informativeness" not in {d for _, d in by})
    alpha = result["agreement"].set_index("dimension")["alpha"]
    assert np.isfinite(alpha["naturalness"])
    # Krippendorff's data: bob's unjudged outputs are empty cells, not scores
    matrix = hs.reliability_matrix(frame, "naturalness")
    assert np.isnan(matrix).sum() == 6
    assert frame["naturalness"].dropna().between(1, 5).all()
    summary = hsum.summarise(frame, mixed=False)
    [study] = summary["studies"].values()
    assert study["n_cant_judge"] == 7 and sum(study["dimensions"]["naturalness"]["cant_judge"].values()) == 6


def test_the_cli_reads_an_export_with_cant_judge_skips_and_flags(rated, tmp_path, capsys):
    store, sid = rated
    view, _ = blind.open_item(store, "dee", sid, 1)
    blind.skip(store, "dee", view.item, "unclear")  # a skip row in the export: not a rating
    store.set_study_state(sid, "closed", allowed_from=("open",))  # an open study's export names no method
    path = tmp_path / "export.csv"
    export_to_path(store, path)
    read = hread.read_ratings(str(path))
    assert len(read) == 54 and read["naturalness"].isna().sum() == 6
    direct = hs.method_means(store.ratings_frame(sid), n_resamples=200)
    via_csv = hs.method_means(read, n_resamples=200)
    pd.testing.assert_series_equal(direct["mean"], via_csv["mean"])
    assert hcli.main([str(path), "--no-mixed"]) == 0
    assert '7 "can\'t judge" answers' in capsys.readouterr().out
    bad = pd.read_csv(path, dtype=str, keep_default_na=False)
    bad.loc[bad["cant_judge"] != "", "cant_judge"] = ""  # an empty score without "can't judge" is an error
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(UserError, match="not a score"):
        hread.read_ratings(str(tmp_path / "bad.csv"))
