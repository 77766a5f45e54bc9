"""Issue 37 in studies: the processor order is stored with every output (SQLite and PostgreSQL, timed
and batched outputs, a step loop), and a user's order is the stored order. (Results showing MAUVE
next to perplexity for a published study is tested in tests/test_mauve.py, beside MAUVE's other tests.)"""

from __future__ import annotations

import json

from arena import studies
from arena.rating.study_spec import StudySpec
from arena.runs.runner import RunRequest, run_methods


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
