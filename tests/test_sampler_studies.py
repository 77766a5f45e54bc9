"""Issue 37 in studies and Results: the processor order is stored with every output (SQLite and
PostgreSQL, timed and batched outputs, a step loop), a user's order is the stored order, and Results
shows MAUVE next to perplexity for a published study."""

from __future__ import annotations

import json

from arena import studies
from arena.rating.study_spec import StudySpec
from arena.runs.runner import RunRequest, run_methods
from evaluation.heldout import load_heldout
from evaluation.mauve_score import spread
from tests.support.seeding import publish, seed_study


def test_every_stored_output_carries_the_order_that_ran(store, lm):
    sid = studies.create_study(
        store,
        StudySpec(
            "order",
            [studies.PromptSpec("Say hi.", "t", "en"), studies.PromptSpec("Name a colour.", "t", "en")],
            methods=["XTC", "Top-nSigma", "Contrastive"],
            settings={"XTC": {"temperature": 0.7, "temperature_position": "first"}, "Top-nSigma": {"temperature": 0.8}},
            samples_per_method=1,
            max_new_tokens=6,
        ),
        model=lm.name,
    )
    studies.generate_study(store, lm, sid, batch_size=2)
    frame = store.outputs_frame(sid)
    assert len(frame) == 6
    orders = {(r.method, r.item_id): json.loads(r.settings)["processor_order"] for r in frame.itertuples()}
    for (method, _), order in orders.items():
        assert (
            order
            == {
                "XTC": ["temperature 0.7", "XTC 0.1 (p=0.5)"],  # the study's choice, not XTC's default
                "Top-nSigma": ["temperature 0.8", "top-nσ 1"],
                "Contrastive": ["top-k 4 candidates", "degeneration penalty α=0.6"],
            }[method]
        )
    # each method's second output came from the batch path (no timing) and carries the same order; a
    # method with its own loop goes there one prompt at a time and must run its loop, not `generate`
    untimed = frame[frame["latency_ms"].isna()]
    assert sorted(untimed["method"]) == ["Contrastive", "Top-nSigma", "XTC"]
    row = untimed[untimed["method"] == "Contrastive"].iloc[0]
    prompt = next(i.prompt for i in store.items(sid) if i.id == row.item_id)
    (alone,) = run_methods(lm, RunRequest(prompt, ["Contrastive"], max_new_tokens=6))
    (greedy,) = run_methods(lm, RunRequest(prompt, ["Greedy"], max_new_tokens=6))
    assert row.text == alone.text != greedy.text


def test_results_shows_mauve_next_to_perplexity(tmp_path, lm):
    from arena.store import Store
    from evaluation.report import compute_view

    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    items = spread(load_heldout("en"), 12, offset=5)
    texts = [
        {"Human-like": item.continuation, "Looping": " ".join((item.continuation.split()[:3]) * 15)} for item in items
    ]
    sid, _ = seed_study(store, "mauve", [i.prompt for i in items], texts)
    publish(store, sid)
    view = compute_view(store, sid, lm=lm)
    table = view["table"].set_index("method")
    assert "MAUVE ↑" in table.columns and list(table.columns).index("MAUVE ↑") == list(table.columns).index("PPL ↓") + 1
    summary = view["summary"].set_index("method")
    human, looping = summary.loc["Human-like"], summary.loc["Looping"]
    assert looping["mauve"] < human["mauve"] and human["mauve_ci_low"] <= human["mauve"] <= human["mauve_ci_high"]
    assert table.loc["Human-like", "MAUVE ↑"].startswith(f"{human['mauve']:.2f} [")
    without = compute_view(store, sid, lm=None)  # no scorer: no perplexity, no MAUVE
    assert (without["table"]["MAUVE ↑"] == "–").all()
    store.dispose()
