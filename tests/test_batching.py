"""Batched study generation: the same tokens as a single run for a batch of one, per-row stops,
one timed output per method, batch seeds, and resuming after a stop."""

from __future__ import annotations

import pytest

from arena import studies
from arena.engines.local import batching
from arena.engines.local.inputs import encode_ids
from arena.rating.study_spec import StudySpec
from arena.runs.requests import RunRequest
from arena.runs.runner import run_methods
from arena.store import Store

PROMPTS = [
    "Name a colour.",
    "Write a short greeting to a friend who moved to a new city last month.",
    "Count to three.",
    "What is rain?",
    "Say yes.",
]


def test_left_pad_masks_the_padding():
    ids, mask = batching.left_pad([[5, 6, 7], [9]], pad_id=0)
    assert ids.tolist() == [[5, 6, 7], [0, 0, 9]] and mask.tolist() == [[1, 1, 1], [0, 0, 1]]


@pytest.mark.parametrize("method", ["TS-Temp", "TS-Tilted", "BS-4"])
def test_a_batch_of_one_gives_the_runners_tokens(lm, method):
    req = RunRequest(prompt=PROMPTS[1], methods=[method], max_new_tokens=12, seed=1234)
    [single] = run_methods(lm, req)
    [row] = batching.generate_batch(lm, method, None, [encode_ids(lm, req)], 12, 1234, PROMPTS[1])
    assert row.token_ids == single.token_ids and row.text == single.text


def test_rows_stop_at_their_own_end_of_sequence(lm):
    prompts = [encode_ids(lm, RunRequest(prompt=p, methods=["BS-4"], max_new_tokens=40)) for p in PROMPTS[:3]]
    rows = batching.generate_batch(lm, "BS-4", None, prompts, 40, 7)
    stop = batching.eos_ids(lm)
    for row in rows:
        assert not any(t in stop for t in row.token_ids[:-1])  # nothing after the first end-of-sequence
        assert row.new_tokens == len(row.token_ids) and row.finish_reason in ("eos", "length")
    assert any(r.finish_reason == "eos" and r.new_tokens < 40 for r in rows)


@pytest.mark.timeout(900)
def test_study_generation_in_batches_times_one_output_per_method_and_resumes(lm, tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    specs = [studies.PromptSpec(p) for p in PROMPTS]
    sid = studies.create_study(store, StudySpec("batched", specs, methods=["TS-Temp", "BS-4"], max_new_tokens=8))
    calls = []
    first = studies.generate_study(
        store,
        lm,
        sid,
        batch_size=2,
        should_stop=lambda: len(calls) >= 3,
        progress=lambda d, t, what: calls.append(what),
    )
    assert not first.complete and store.get_study(sid).state == "draft"
    second = studies.generate_study(store, lm, sid, batch_size=2)
    assert second.complete and second.opened and first.generated + second.generated == 10
    outs = store.outputs_frame(sid)
    for method, group in outs.groupby("method"):
        assert group["latency_ms"].notna().sum() == 1, method  # exactly one timed output per method
        batched = group[group["latency_ms"].isna()]
        assert len(batched) == 4 and all('"batch_size"' in s for s in batched["settings"])
    assert outs["seed"].nunique() >= 6  # per batch and per method: BS-4's batches do not share TS-Temp's seeds
