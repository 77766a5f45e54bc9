"""The Results table and the Results tab's view, on synthetic frames and on a real SQLite store."""

import math

import gradio as gr
import pandas as pd
import pytest

from arena import studies
from arena.store import Store
from evaluation import results as res
from evaluation.perplexity import ItemScore
from tests.support.seeding import publish, rate_every_output
from tests.support.stores import sqlite_url
from ui import AppContext
from ui import results as tab

OUTPUT_TEXT = {"BS-4": "the end the end the end", "TS-Temp": "a quick brown fox", "TS-Tilted": "jumps over lazy dogs"}


def frames():
    outputs, ratings = [], []
    for item in range(3):
        for k, method in enumerate(("BS-4", "TS-Temp", "TS-Tilted")):
            oid = item * 3 + k
            outputs.append(
                dict(
                    study_id=1,
                    study_name="s",
                    item_id=item,
                    scenario="qa",
                    prompt="p",
                    output_id=oid,
                    method=method,
                    text=OUTPUT_TEXT[method],
                    new_tokens=10 * (k + 1),
                    latency_ms=1000.0 * (k + 1),
                    ttft_ms=5.0,
                    tokens_per_s=10.0,
                )
            )
            for rater, bump in (("ann", 0), ("bob", 1)):
                ratings.append(
                    {
                        **outputs[-1],
                        "rater": rater,
                        "coherence": 2 + k + bump,
                        "informativeness": 3,
                        "naturalness": 1 + k,
                    }
                )
    return pd.DataFrame(ratings), pd.DataFrame(outputs)


def test_summary_has_scores_ppl_diversity_and_speed_per_method():
    ratings, outputs = frames()
    scores = {oid: ItemScore(nll=float(oid + 1), tokens=2) for oid in outputs["output_id"]}
    r = res.build_results(ratings, outputs, scores)
    s = r.summary.set_index("method")
    assert list(s.index) == ["BS-4", "TS-Temp", "TS-Tilted"]
    assert s.loc["TS-Temp", "coherence"] == pytest.approx(3.5)  # (3 + 4) / 2 over 3 items
    assert s.loc["BS-4", "ratings"] == 6 and s.loc["BS-4", "outputs"] == 3
    # BS-4 outputs are 0, 3, 6: NLL 1 + 4 + 7 over 6 tokens
    assert s.loc["BS-4", "ppl"] == pytest.approx(math.exp(12 / 6))
    assert s.loc["BS-4", "repetition_pct"] == 100 and s.loc["TS-Temp", "repetition_pct"] == 0
    assert s.loc["TS-Tilted", "latency_ms"] == 3000 and s.loc["TS-Tilted", "tokens_per_s"] == pytest.approx(10.0)
    assert s.loc["TS-Temp", "self_bleu4"] == pytest.approx(1.0)  # three identical texts
    assert r.n_raters == 2 and r.n_items == 3 and r.n_ratings == 18
    table = res.display_table(r.summary)
    # every item got 2 from ann and 3 from bob: nothing varies between items, so no interval (for these
    # two raters the mean is 2.50 exactly); never a zero-width "[2.5–2.5]"
    assert table.loc[0, "coherence ↑"] == "2.50 (no CI)" and table.loc[0, "latency ms ↓"] == "1000"
    assert {"PPL ↓", "distinct\u20112 ↑", "Self\u2011BLEU4 ↓", "Zipf", "latency ms ↓", "tokens/s ↑"} <= set(
        table.columns
    )
    bars = res.scores_figure(r.means)
    assert len(bars.data) == 3 and bars.data[0].error_y.array is not None
    assert len(res.quality_latency_figure(r.summary).data) == 3


def test_rater_filter_changes_scores_but_not_outputs():
    ratings, outputs = frames()
    r = res.build_results(ratings, outputs, rater="bob")
    assert r.summary.set_index("method").loc["BS-4", "coherence"] == 3
    assert r.summary.set_index("method").loc["BS-4", "outputs"] == 3 and r.n_ratings == 9
    assert r.notes == ["perplexity not computed"]


@pytest.fixture
def store(tmp_path):
    s = Store(sqlite_url(tmp_path))
    yield s
    s.dispose()


def fill(store, published: bool = True):
    """A rated study, published (closed, then published) unless asked otherwise: the Results tab
    shows published studies only."""
    study = store.create_study("Quarterly check", methods=["BS-4", "TS-Temp", "TS-Tilted"], max_new_tokens=8)
    [item] = store.add_items(
        study, [{"prompt": "The cat sat on the", "scenario": "sci-fi", "language": "en", "raw": True}]
    )
    ids = {}
    for k, method in enumerate(("BS-4", "TS-Temp", "TS-Tilted")):
        ids[method], _ = store.add_output(
            item,
            method,
            0,
            text=[" mat.", " sofa and slept.", " roof, purring"][k],
            settings={},
            seed=0,
            model="m",
            new_tokens=3 + k,
            latency_ms=100.0 * (k + 1),
        )
    rate_every_output(store, ids, [("ann", 2), ("bob", 3)])
    if published:
        publish(store, study)
    return study


def test_compute_view_from_a_store_with_perplexity(store, lm):
    study = fill(store)
    view = tab.compute_view(store, study, lm=lm)
    table = view["table"].set_index("method")
    assert list(table.index) == ["BS-4", "TS-Temp", "TS-Tilted"]
    assert all(table["PPL ↓"] != "–")
    assert view["raters"] == ["rater 1", "rater 2"] and view["scenarios"] == ["sci-fi (en)"]
    assert "ann" not in view["table"].to_string() and "bob" not in str(view["stats"])
    assert view["summary"].set_index("method").loc["TS-Tilted", "coherence"] == pytest.approx(3.5)
    path = tab.write_csv(view["summary"], study)
    assert pd.read_csv(path)["method"].tolist() == ["BS-4", "TS-Temp", "TS-Tilted"]
    no_ppl = tab.compute_view(store, study, raters=["rater 1"])  # ann rated first
    assert (no_ppl["table"]["PPL ↓"] == "–").all() and no_ppl["results"].n_ratings == 3


def test_compute_view_rejects_a_missing_study(store):
    from common.errors import UserError

    with pytest.raises(UserError):
        tab.compute_view(store, None)
    with pytest.raises(UserError):
        tab.compute_view(store, 999)
    with pytest.raises(UserError):
        tab.compute_view(store, "abc")
    study = fill(store)
    with pytest.raises(UserError):
        tab.compute_view(store, study, scenarios=[{"x": 1}])
    assert tab.compute_view(store, study, scenarios="sci-fi (en)", raters="rater 2")["results"].n_ratings == 3


@pytest.mark.parametrize("state", ["open", "closed"])
def test_an_unpublished_study_is_answered_like_a_missing_one(store, state):
    """Nothing per method leaves the server through the public tab before the organizer publishes
    the study, and the reply does not even tell whether it exists."""
    from common.errors import UserError

    study = fill(store, published=False)
    if state == "closed":
        studies.close_study(store, study)
    replies = []
    for sid in (study, str(study), 999, "abc", 2**70):
        with pytest.raises(UserError) as refused:
            tab.compute_view(store, sid)
        replies.append(str(refused.value))
    assert set(replies) == {"there is no published study with that id"}
    assert tab.study_options(store) == []
    # the organizer's own view (not the public tab) still reads it
    assert tab.compute_view(store, study, public=False)["results"].n_ratings == 6


def test_tab_builds_and_has_no_rating_controls(store):
    fill(store)
    ctx = AppContext(model=lambda: None)
    ctx.extras["store"] = store
    with gr.Blocks() as demo:
        tab.build(ctx)
    kinds = {type(b).__name__ for b in demo.blocks.values()}
    assert {"Dataframe", "Plot", "File", "Dropdown"} <= kinds
    assert "Radio" not in kinds and "Slider" not in kinds  # read-only: nothing to score with
    assert tab.study_options(store)[0][1] == store.list_studies()[0].id
    fill(store, published=False)  # newer, but not published: not offered
    assert [sid for _, sid in tab.study_options(store)] == [store.list_studies()[1].id]


def test_scenario_filter_tells_languages_apart(store):
    study = fill(store)
    [zh] = store.add_items(
        study, [{"prompt": "在那个被遗忘的星际港口", "scenario": "sci-fi", "language": "zh", "raw": True}]
    )
    out, _ = store.add_output(
        zh, "BS-4", 0, text="，飞船", settings={}, seed=0, model="m", new_tokens=2, latency_ms=50.0
    )
    store.save_rating(store.rater_id("ann"), out, 5, 5, 5)
    view = tab.compute_view(store, study)
    assert view["scenarios"] == ["sci-fi (en)", "sci-fi (zh)"] and view["results"].n_ratings == 7
    zh_only = tab.compute_view(store, study, scenarios=["sci-fi (zh)"])
    assert zh_only["results"].n_ratings == 1 and zh_only["results"].n_items == 1
    assert tab.compute_view(store, study, scenarios=["sci-fi (en)"])["results"].n_ratings == 6


def test_perplexity_runs_inside_a_zero_gpu_task(monkeypatch, store, lm):
    """On ZeroGPU the model is usable only inside `spaces.GPU`; the Results tab's scoring must go
    through it like generation does: `evaluation.perplexity.gpu_scores`, plain token ids in (the
    real `spaces` emulation runs the same path in tests/test_zerogpu.py)."""
    import importlib
    import importlib.machinery
    import sys
    import types

    calls = []

    def gpu(duration=None):
        def wrap(fn):
            def run(*args, **kwargs):
                calls.append(fn.__name__)
                return fn(*args, **kwargs)

            return run

        return wrap

    spaces = types.ModuleType("spaces")
    spaces.__spec__ = importlib.machinery.ModuleSpec("spaces", None)
    spaces.GPU = gpu
    monkeypatch.setitem(sys.modules, "spaces", spaces)
    monkeypatch.setenv("SPACES_ZERO_GPU", "true")
    import evaluation.perplexity as perplexity

    try:
        zero = importlib.reload(tab)
        # What `@gpu_task` does at import on ZeroGPU (not reloaded here: other tests hold its classes).
        monkeypatch.setattr(perplexity, "gpu_scores", gpu()(perplexity.gpu_scores))
        perplexity.SCORES.forget()
        view = zero.compute_view(store, fill(store), lm=lm)
    finally:
        monkeypatch.undo()
        importlib.reload(tab)
    assert calls == ["gpu_scores"]
    assert view is not None
