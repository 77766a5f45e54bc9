"""Results and the stakeholder page's data follow a study's rubric: its dimensions, each on its own scale
(the charts' axes, the table's column names, the takeaway's "on the 1–10 scale")."""

from __future__ import annotations

import pandas as pd

from common.rubric import Dimension, Rubric
from evaluation import results as res
from evaluation import story
from evaluation.human import sim

RUBRIC = Rubric((Dimension("quality", 1, 10), Dimension("diversity", 1, 10)))


def survey() -> tuple[pd.DataFrame, pd.DataFrame]:
    design = sim.Design(items=12, raters=4, scale=(1, 10), mean=5.5, dimensions=RUBRIC.names).with_effect(4.0)
    ratings = sim.simulate(design, 3)
    outputs = ratings.drop_duplicates("output_id")[["study_id", "item_id", "output_id", "method"]].assign(
        text="a story", latency_ms=100.0, new_tokens=20, scenario="story"
    )
    return ratings.assign(scenario="story"), outputs


def test_results_follow_the_rubric():
    ratings, outputs = survey()
    r = res.build_results(ratings, outputs, methods=["A", "B", "C"], rubric=RUBRIC, mixed=False)
    assert r.rubric == RUBRIC and set(r.means["dimension"]) == {"quality", "diversity"}
    table = res.display_table(r.summary, RUBRIC)
    assert "quality (1-10) ↑" in table.columns and "coherence ↑" not in table.columns
    bars = res.scores_figure(r.means, rubric=RUBRIC)
    assert tuple(bars.layout.yaxis.range) == (1, 10.05) and "1 = worst, 10 = best" in bars.layout.yaxis.title.text
    scatter = res.quality_latency_figure(r.summary, rubric=RUBRIC)
    assert tuple(scatter.layout.yaxis.range) == (1, 10.05)
    sentence = story.takeaway(r.pairwise, r.n_items, r.n_ratings, r.n_raters, rubric=RUBRIC)
    assert "C leads on quality" in sentence and "on the 1–10 scale" in sentence
    # the default rubric keeps the 1-5 axes the stakeholder page always had
    assert tuple(res.scores_figure(r.means.assign(dimension="coherence")).layout.yaxis.range) == (1, 5.05)
