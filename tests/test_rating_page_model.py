"""A rating deployment (ARENA_MODE=rating) never names the model (docs/blinding.md, route 10): with
the model's name a rater can replay a running study's prompts offline and unblind it. Checked on the
page the app builds (every component of the Rate and Results tabs), on the Results headline, and on
the stakeholder page's timing note; the full app names it, as the positive control."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest

import app
from arena.inputs.text import markdown_literal
from evaluation import report
from evaluation.report import compute_view
from tests.support.seeding import publish, rate_every_output, seed_study
from ui import AppContext, present

MODEL = "SecretModel-135M (embedded)"


def fake_model() -> SimpleNamespace:
    return SimpleNamespace(
        name=MODEL,
        describe=lambda: f"{MODEL} · cpu · float32",
        device=SimpleNamespace(type="cpu"),
        dtype_name="float32",
    )


def outputs_of(model: str) -> pd.DataFrame:
    return pd.DataFrame(
        [{"settings": json.dumps({"dtype": "float32"}), "model": model, "latency_ms": 12.0} for _ in range(3)]
    )


def test_the_rating_page_names_no_model(monkeypatch, lm):
    monkeypatch.setenv("ARENA_MODE", "rating")
    config = json.dumps(app.build_app(AppContext(model=lambda: lm)).get_config_file(), default=str)
    assert lm.name not in config and lm.name.split(" ")[0] not in config
    monkeypatch.setenv("ARENA_MODE", "full")  # positive control: the Compare tab says which model runs
    config = json.dumps(app.build_app(AppContext(model=lambda: lm)).get_config_file(), default=str)
    assert lm.name in config


@pytest.mark.parametrize(("mode", "named"), [("rating", False), ("full", True)])
def test_results_and_the_stakeholder_page_name_the_model_only_outside_a_rating_deployment(
    monkeypatch, store, mode, named
):
    monkeypatch.setenv("ARENA_MODE", mode)
    monkeypatch.setattr(report, "output_scores", lambda *args: {})  # no model to score with here
    sid, [iid] = seed_study(store, "Published study", ["A prompt"], [{"BS-4": "one", "TS-Temp": "two"}])
    rate_every_output(store, {o.method: o.id for o in store.outputs_for_item(iid)}, [("ann", 3), ("bo", 4)])
    publish(store, sid)
    view = compute_view(store, sid, lm=SimpleNamespace(name=MODEL, tokenizer=None))
    # Named in words ("SecretModel-135M (135 M parameters)"): look for the model's own name.
    assert (markdown_literal("SecretModel-135M") in view["headline"]) is named  # the headline is Markdown
    assert "perplexity under" in view["headline"]
    note = present.timing_note(outputs_of(MODEL), fake_model())
    assert ("SecretModel-135M" in note) is named
    assert note.startswith("Model: ") and "dtype: float32" in note
