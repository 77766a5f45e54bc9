"""A study where one rater gave 80% of the ratings: the app's by-rater test against the alternatives.

The calibration table's "one rater gives 80% of the ratings" design (20 items, 5 raters; rater 0
rates every item, the other four share five ratings; every rater has a taste for each method of
SD --taste on the latent scale) tests one difference, A - C on the first dimension, in null studies
at alpha = 0.05 (single tests, no family) five ways:

* the app: `stats.pairwise_analysis`, which there takes the mean over raters of each rater's mean
  difference and a t on those rater means (`crossed.by_rater`: its tails simulated for the study's layout);
* pooled taste (the app before): the usual estimate over items, the rater component at the taste
  pooled over the study's pairs and dimensions where its pre-test kept it, else left out with the df
  capped at raters - 1;
* taste ignored: the usual estimate with the rater component held at 0;
* oracle: the usual estimate with the rater component held at its true value on the 1-5 scale (known,
  with no error): a test nobody can run;
* and it reports how much the data know about that taste: the pooled estimate's mean and SD over
  studies against the true value. Where the SD is as large as the taste could be, a test that needs
  the taste's size is either liberal (left out) or conservative (allowed for), while the by-rater t
  needs no estimate of it: the raters' own spread carries it.

    python benchmarks/bench_dominant_rater.py --studies 1000 --taste 0,0.3,0.5
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy import stats

from evaluation.human import crossed
from evaluation.human import stats as hs
from evaluation.human.sim import Design, population_scores, simulate

ALPHA = 0.05
DIM = "coherence"


def dominant(taste_sd: float) -> Design:
    """The calibration table's dominant-rater design with a taste of `taste_sd`."""
    return Design(items=20, raters=5, dominant=0.8, sd_rater_method=taste_sd)


def observed_taste(design: Design, h: float = 0.05) -> float:
    """The variance of a rater's taste for A - C on the 1-5 scale: the latent one (2 sd^2) times the
    squared slope of the expected score at this design's mean (rounding and clipping shrink it)."""
    slope = (population_scores(design.with_effect(h))[-1] - population_scores(design.with_effect(-h))[-1]) / (2 * h)
    return float(2 * design.sd_rater_method**2 * slope**2)


def _held(value: float, share: float) -> crossed.Taste:
    """A taste held at `value` (known: no sampling error), entering every difference."""
    return crossed.Taste(value, 0.0, float("inf"), 0.0, True, 1, 1, share)


def _pooled_p(fit: crossed.PairFit, taste: crossed.Taste) -> float:
    """The app's p before the by-rater estimate: the pooled taste where its pre-test kept it, else
    none with the df capped at raters - 1."""
    e = crossed.pair_estimate(fit, taste)
    if taste.used:
        return e.p_value
    df = min(e.df, len(np.unique(fit.raters)) - 1.0)
    return float(2 * stats.t.sf(abs(e.statistic), df))


def run(taste_sd: float, studies: int, seed: int) -> dict[str, float]:
    design = dominant(taste_sd)
    truth = observed_taste(design)
    rng = np.random.default_rng(seed)
    hits = {"app": 0, "pooled": 0, "ignored": 0, "oracle": 0}
    pooled = []
    for _ in range(studies):
        frame = simulate(design, rng)
        pw, taste = hs.pairwise_analysis(frame, list(design.dimensions))
        row = pw[(pw["dimension"] == DIM) & (pw["method_a"] == "A") & (pw["method_b"] == "C")].iloc[0]
        hits["app"] += bool(row["p_value"] < ALPHA)
        pooled.append(taste.variance)
        values, items, raters = hs.cube(frame, DIM).difference("A", "C")
        fit = crossed.pair_fit(values, items, raters)
        if fit is None:
            continue
        share = crossed.rater_share(items, raters)
        hits["pooled"] += bool(_pooled_p(fit, taste) < ALPHA)
        hits["ignored"] += bool(crossed.pair_estimate(fit, _held(0.0, share)).p_value < ALPHA)
        hits["oracle"] += bool(crossed.pair_estimate(fit, _held(truth, share)).p_value < ALPHA)
    est = np.asarray(pooled, dtype=float)
    out = {k: v / studies for k, v in hits.items()}
    out.update(
        taste_sd=taste_sd,
        true_taste=truth,
        pooled_mean=float(np.nanmean(est)),
        pooled_sd=float(np.nanstd(est, ddof=1)),
        studies=studies,
    )
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--studies", type=int, default=1000)
    p.add_argument("--taste", default="0,0.3,0.5", help="latent taste SDs, comma-separated")
    p.add_argument("--seed", type=int, default=34)
    a = p.parse_args(argv)
    print(
        "| taste SD (latent) | taste variance of A - C on 1-5 | the data's estimate: mean / SD over studies | "
        "app (by rater) | pooled taste (before) | taste ignored | oracle (taste known) |\n|---|---|---|---|---|---|---|"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, sd in enumerate(float(x) for x in a.taste.split(",")):
            start = time.perf_counter()
            r = run(sd, a.studies, a.seed + k)
            print(
                f"| {sd:g} | {r['true_taste']:.3f} | {r['pooled_mean']:+.3f} / {r['pooled_sd']:.3f} | "
                f"{r['app']:.3f} | {r['pooled']:.3f} | {r['ignored']:.3f} | {r['oracle']:.3f} |  <!-- {r['studies']} studies, "
                f"{time.perf_counter() - start:.0f} s -->",
                flush=True,
            )


if __name__ == "__main__":
    main()
