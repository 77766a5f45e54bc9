"""Simulated raters of each kind, for measuring what the rater checks (`evaluation.human.quality`)
catch and how often they accuse an honest rater.

A study is `sim.simulate`'s (honest raters: the ordinal model of `evaluation.human.sim`, every rater
rates every response of every item), with responses of `tokens` new tokens and times: an honest
rater spends the time to read an item's responses at READ_TOKENS_PER_S (lognormal spread
READ_SPREAD) plus SCORE_S per question. Then one rater of each odd kind is added, each copying the
items of honest rater r0 and changing one thing:

* "flat": the same score on every response, question by question (a value per question drawn once);
* "grid": the same score on every question of a response (r0's first question copied to the others);
* "speeder": r0's scores, SPEEDER_S seconds per item whatever the length;
* "clicker": scores drawn uniformly on the scale, honest times.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from . import sim

KINDS = ("flat", "grid", "speeder", "clicker")
READ_TOKENS_PER_S = 5.0  # an attentive reader, about 220 words a minute
READ_SPREAD = 0.35  # lognormal sigma of a rater's time on an item
SCORE_S = 3.0  # seconds to answer one question of one response
SPEEDER_S = 2.0
START = pd.Timestamp("2026-03-01T09:00:00Z")


def study(
    design: sim.Design, seed: int, kinds: Sequence[str] = KINDS, tokens: tuple[int, int] = (60, 200)
) -> pd.DataFrame:
    """One simulated study: the design's honest raters r0.. and one rater per kind, with `new_tokens`
    per response and `created_at` per rating (see the module docstring)."""
    rng = np.random.default_rng([seed, 7])
    frame = sim.simulate(design, rng)
    lengths = rng.integers(tokens[0], tokens[1] + 1, int(frame["output_id"].max()) + 1)
    frame = frame.assign(new_tokens=lengths[frame["output_id"].to_numpy()])
    base = frame[frame["rater"] == "r0"]
    odd = [_odd(kind, base, design, rng) for kind in kinds]
    everyone = pd.concat([frame, *odd], ignore_index=True)
    return _timed(everyone, design, rng)


def _odd(kind: str, base: pd.DataFrame, design: sim.Design, rng: np.random.Generator) -> pd.DataFrame:
    dims, (low, high) = list(design.dimensions), design.scale
    if kind == "flat":
        return base.assign(rater=kind, **{d: int(rng.integers(low, high + 1)) for d in dims})
    if kind == "grid":
        return base.assign(rater=kind, **{d: base[dims[0]] for d in dims})
    if kind == "speeder":
        return base.assign(rater=kind)
    if kind == "clicker":
        return base.assign(rater=kind, **{d: rng.integers(low, high + 1, len(base)) for d in dims})
    raise ValueError(f"unknown kind of rater {kind!r} (known: {', '.join(KINDS)})")


def _timed(frame: pd.DataFrame, design: sim.Design, rng: np.random.Generator) -> pd.DataFrame:
    """`created_at`: each rater's items in order, each taking its reading and scoring time."""
    per_item = frame.groupby(["rater", "item_id"], sort=True)["new_tokens"].agg(["sum", "size"]).reset_index()
    reading = per_item["sum"] / READ_TOKENS_PER_S * rng.lognormal(0.0, READ_SPREAD, len(per_item))
    seconds = reading + SCORE_S * len(design.dimensions) * per_item["size"]
    seconds = np.where(per_item["rater"] == "speeder", SPEEDER_S, seconds)
    ends = per_item.assign(seconds=seconds).groupby("rater")["seconds"].cumsum()
    stamps = per_item.assign(created_at=START + pd.to_timedelta(ends, unit="s"))[["rater", "item_id", "created_at"]]
    return frame.merge(stamps, on=["rater", "item_id"], how="left")


# The designs the rates in docs/studies.md are measured on.
DESIGNS: dict[str, sim.Design] = {
    # the default rubric: three 1-5 questions that go together, 12 items, 3 methods, 4 honest raters
    "default 1-5": sim.Design(items=12, raters=4, methods=3, effects=(0.0, 0.5, 1.0), dim_correlation=0.6),
    # the UI walk: two 1-10 questions, 6 items x 3 methods = 18 responses, 3 honest raters
    "1-10, 18 responses": replace(
        sim.Design(items=6, raters=3, methods=3, effects=(0.0, 1.0, 2.0), dim_correlation=0.6, scale=(1, 10)),
        dimensions=("quality", "fluency"),
        mean=5.5,
        sd_item=1.2,
        sd_rater=0.8,
        sd_output=1.2,
        sd_resid=1.4,
    ),
}
