"""Rater diagnostics and the position effect on simulated studies whose answers are known."""

import math

import numpy as np
import pandas as pd

from evaluation.human import columns as hcols
from evaluation.human import design as sd
from evaluation.human import raters as stats_raters
from evaluation.human import stats as hs
from evaluation.human import words as hw


def study_with_odd_raters():
    df = sd.simulate(sd.Design(items=12, raters=4, methods=3, sd_resid=0.4, sd_rater=0.2), 3)
    rng = np.random.default_rng(4)
    lazy = df[df["rater"] == "r0"].assign(rater="lazy", coherence=3, informativeness=3, naturalness=3)
    noisy = df[df["rater"] == "r0"].assign(rater="noisy")
    for dim in hcols.DIMENSIONS:
        noisy[dim] = rng.integers(1, 6, len(noisy))
    df = pd.concat([df, lazy, noisy], ignore_index=True)
    # one item every 40 s per rater, then a 2-hour break before the last item
    start = pd.Timestamp("2026-01-01T10:00:00Z")
    offset = df["item_id"] * 40 + np.where(df["item_id"] == 11, 7200, 0)
    return df.assign(created_at=start + pd.to_timedelta(offset, unit="s"))


def test_rater_diagnostics_flag_the_straight_liner_and_the_random_rater():
    diag = stats_raters.rater_diagnostics(study_with_odd_raters()).set_index("rater")
    assert bool(diag.loc["lazy", "straight_lining"]) and diag.loc["lazy", "distinct_scores"] == 1
    assert not diag.loc[["r0", "r1", "r2", "r3", "noisy"], "straight_lining"].any()
    assert (diag["median_s_per_item"] == 40).all()  # the 2-hour break is not counted
    for dim in hcols.DIMENSIONS:  # the others agree better without the random rater
        assert diag.loc["noisy", f"alpha_change_{dim}"] < 0 < diag.loc["r1", f"alpha_change_{dim}"]
    lines = stats_raters.explain(diag.reset_index())
    assert any(l.startswith("lazy:") for l in lines) and any(l.startswith("noisy:") and "agreement" in l for l in lines)


def test_no_times_no_seconds():
    df = sd.simulate(sd.Design(items=4, raters=2), 1)
    diag = stats_raters.rater_diagnostics(df)
    assert diag["median_s_per_item"].isna().all() and len(diag) == 2


def test_position_effect_is_recovered_and_zero_without_one():
    biased = sd.simulate(sd.Design(items=60, raters=3, methods=3, position_effect=1.0, effects=(0, 0.5, 1.0)), 9)
    pos = hs.position_effect(biased).set_index("dimension")
    # first minus last on the 1-5 scale: a latent +1 shrinks a little through rounding and clipping
    assert 0.5 < pos.loc["coherence", "diff"] < 1.1 and pos.loc["coherence", "ci_low"] > 0.3
    assert pos.loc["coherence", "adjusted_for"] == "output" and pos.loc["coherence", "n_items"] == 60
    fair = hs.position_effect(sd.simulate(sd.Design(items=60, raters=3, effects=(0, 0.5, 1.0)), 9))
    assert (fair["ci_low"] < 0).all() and (fair["ci_high"] > 0).all()
    one_rater = hs.position_effect(sd.simulate(sd.Design(items=30, raters=1, position_effect=1.0), 2))
    assert set(one_rater["adjusted_for"]) == {"method"} and (one_rater["diff"] > 0).all()
    assert "shown first" in hw.explain_position(pos.reset_index().iloc[0])
    assert (
        math.isnan(hs.position_effect(biased.assign(position=np.nan))["diff"].iloc[0])
        if len(hs.position_effect(biased.assign(position=np.nan)))
        else True
    )
