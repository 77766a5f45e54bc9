"""Calibration of the pairwise intervals by simulation: a fast, seeded subset of
benchmarks/bench_pairwise_calibration.py (the table in docs/pairwise.md comes from the full run).

Studies with item effects (items favour different systems and differ in how decisive they are),
raters with their own taste and tie threshold, and about 30% ties. The app's default interval
must cover the population rating differences about 95% of the time, and intervals that treat
votes as independent must do visibly worse on the same studies: if the clustering were dropped
from the default, the first assertion would fail."""

from __future__ import annotations

import numpy as np

from evaluation.pairwise import simulate as sim

DESIGN = sim.PairDesign(items=30, raters=5)


def test_default_intervals_cover_and_independent_votes_do_not():
    cal = sim.calibrate(DESIGN, n_studies=40, seed=2026, n_resamples=200, schemes=("twoway", "votes"))
    print("\n", cal.row())
    assert 0.92 <= cal.coverage["twoway"] <= 0.99
    assert cal.coverage["votes"] < cal.coverage["twoway"] - 0.04
    assert cal.wrong_order_share <= 0.05  # of the pairs the ranking ordered, hardly any against the truth


def test_no_order_is_claimed_among_equal_systems():
    cal = sim.calibrate(
        sim.PairDesign(items=30, raters=5, elo=(0, 0, 0, 0)), n_studies=40, seed=7, n_resamples=200, schemes=("twoway",)
    )
    assert cal.any_wrong_order <= 0.05  # every claimed order is wrong here
    assert 0.90 <= cal.coverage["twoway"] <= 1.0


def test_population_targets_reflect_item_and_rater_effects():
    # Item and rater effects make votes less decisive, so the population rating gap is smaller
    # than the systems' strengths: the target has to be computed, not read off the design.
    raw, lc = sim.targets(DESIGN)
    gap = raw[-1] - raw[0]
    assert 0 < gap < DESIGN.elo[-1] - DESIGN.elo[0]
    assert np.mean(raw) == 1000.0 or abs(np.mean(raw) - 1000.0) < 1e-6
    assert abs((lc[-1] - lc[0]) - gap) < 15  # no length effect in this design
