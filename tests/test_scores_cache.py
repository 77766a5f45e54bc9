"""Pure functions that used to live in the Results tab: the perplexity cache
(evaluation.perplexity.ScoreCache) and rater pseudonymisation (evaluation.human), without Gradio."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import pandas as pd

from evaluation.human.stats import pseudonymize_raters
from evaluation.perplexity import ItemScore, ScoreCache


@dataclass
class FakeModel:
    name: str
    dtype: str = "torch.float32"
    lock: threading.Lock = field(default_factory=threading.Lock)


def outputs(*ids: int) -> pd.DataFrame:
    return pd.DataFrame({"output_id": list(ids), "prompt": ["p"] * len(ids), "text": [f"t{i}" for i in ids]})


def test_each_output_is_scored_once_per_model_and_dtype():
    calls: list[list[int]] = []

    def score(lm, frame):
        assert lm.lock.locked()  # never alongside a generation on the same device
        calls.append(list(frame["output_id"]))
        return {o: ItemScore(nll=float(o), tokens=len(lm.name)) for o in frame["output_id"]}

    cache, lm = ScoreCache(), FakeModel("m")
    first = cache.scores(lm, outputs(1, 2), score)
    again = cache.scores(lm, outputs(2, 3), score)
    assert calls == [[1, 2], [3]]
    assert first[2] is again[2] and set(again) == {2, 3}
    cache.scores(FakeModel("m", dtype="torch.bfloat16"), outputs(1), score)
    cache.scores(FakeModel("other"), outputs(1), score)
    assert calls[2:] == [[1], [1]] and len(cache) == 5
    cache.forget()
    cache.scores(lm, outputs(1), score)
    assert calls[-1] == [1] and len(cache) == 1


def test_raters_become_numbers_in_order_of_their_first_rating():
    ratings = pd.DataFrame(
        {
            "rater": ["zoe", "al", "zoe", "bea", "al"],
            "created_at": pd.to_datetime(["2026-01-02", "2026-01-03", "2026-01-01", "2026-01-03", "2026-01-04"]),
        }
    )
    out = pseudonymize_raters(ratings)
    # zoe first (Jan 1); al and bea tie on Jan 3 and are ordered by name
    assert out["rater"].tolist() == ["rater 1", "rater 2", "rater 1", "rater 3", "rater 2"]
    assert not set(out["rater"]) & {"zoe", "al", "bea"}
    assert list(out.columns) == ["rater", "created_at"] and ratings["rater"][0] == "zoe"  # the input is untouched
    empty = ratings.iloc[0:0]
    assert pseudonymize_raters(empty) is empty
