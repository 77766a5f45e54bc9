"""Results opens on an answer: the newest published study chosen, perplexity progress reported;
the model named in words; empty components stay hidden (ui/empty.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from arena.inputs.text import markdown_literal
from arena.model.model_names import model_in_words
from arena.store import Store
from evaluation.perplexity import SCORES
from tests.support.seeding import publish, seed_study
from tests.support.stores import sqlite_url
from ui import empty
from ui import results as tab


@pytest.fixture
def store(tmp_path):
    s = Store(sqlite_url(tmp_path))
    yield s
    s.dispose()


def study(store, name, published=True):
    sid, _ = seed_study(store, name, ["p one", "p two"], [{"BS-4": "a b c", "TS-Temp": "d e f g"}] * 2)
    if published:
        publish(store, sid)
    return sid


def test_the_newest_published_study_is_chosen_unless_one_still_listed_is(store):
    assert tab.latest_study(store) == ([], None)
    old = study(store, "Old")
    study(store, "Draft", published=False)
    new = study(store, "New")
    options, chosen = tab.latest_study(store)
    assert chosen == new and [sid for _, sid in options] == [new, old]  # the draft is not listed
    assert tab.latest_study(store, old)[1] == old  # a choice still listed is kept
    assert tab.latest_study(store, 987654)[1] == new and tab.latest_study(store, "junk")[1] == new


def test_perplexity_reports_progress_as_it_scores(store, lm):
    sid = study(store, "Progress")
    SCORES.forget()
    seen: list[int] = []
    view = tab.compute_view(store, sid, lm=lm, progress=seen.append)
    assert sum(seen) == 4 and len(seen) >= 1  # four outputs, one call per scored batch
    assert (
        "perplexity under " + markdown_literal("SmolLM2-135M-Instruct (Hugging Face, 135 M parameters)")
        in view["headline"]
    )
    seen.clear()
    tab.compute_view(store, sid, lm=lm, progress=seen.append)
    assert seen == []  # cached: nothing to score, nothing to report


@pytest.mark.parametrize(
    "name, words",
    [
        (
            "SmolLM2-135M-Instruct (embedded GGUF Q4_1, de-quantised)",
            "SmolLM2-135M-Instruct (Hugging Face, 135 M parameters)",
        ),
        ("HuggingFaceTB/SmolLM2-135M-Instruct", "SmolLM2-135M-Instruct (Hugging Face, 135 M parameters)"),
        ("gemma-3-270m.gguf", "gemma-3-270m (Google, 270 M parameters)"),
        ("Qwen/Qwen2.5-1.5B-Instruct", "Qwen2.5-1.5B-Instruct (Alibaba Qwen, 1.5 B parameters)"),
        ("seeded", "seeded"),
        ("", "an unnamed model"),
    ],
)
def test_model_in_words(name, words):
    assert model_in_words(name) == words


def test_empty_values_hide_their_component():
    assert empty.shown(None)["visible"] is False and empty.shown(pd.DataFrame())["visible"] is False
    assert empty.shown(pd.DataFrame({"a": [1]}))["visible"] is True and empty.shown("x.csv")["visible"] is True


def test_the_study_box_is_filled_on_a_fresh_load(tmp_path):
    """Issue 35: the Results study box was empty on a fresh load (only picking the tab filled it)."""
    import gradio as gr

    from arena.store import Store
    from ui import AppContext
    from ui import results as results_tab

    store = Store(f"sqlite:///{tmp_path / 'fresh.db'}")
    ctx = AppContext(model=lambda: None, extras={"store": store})
    with gr.Blocks():
        results_tab.build(ctx)
    loaders = ctx.extras.get("loaders", [])
    assert any(fn.__name__ == "on_tab" and [o.label for o in outputs] == ["Study"] for fn, _, outputs in loaders)
    store.dispose()
