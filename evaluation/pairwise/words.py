"""The ratings of a study in plain words and in JSON (what the CLI prints and the Results tab shows)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .bt import win_probability
from .ranks import rank_label
from .rate import LC, StudyRatings

# An Elo interval wider than this says nothing about the systems: ±600 points spans win chances from
# 3% to 97%. Few votes (or votes that all go one way) give such intervals ("−343 Elo, 95% CI −27619 to
# +26933" from 8 votes); the estimate is then reported as not estimable instead of as a number.
NOT_ESTIMABLE_WIDTH = 1200.0
NOT_ESTIMABLE = "not estimable from these votes (too few)"


def estimable(low: Any, high: Any) -> bool:
    """Whether an Elo interval is finite and narrow enough to report its estimate.

    >>> estimable(-120, 310), estimable(-27619, 26933), estimable(float("nan"), 3)
    (True, False, False)
    """
    try:
        lo, hi = float(low), float(high)
    except (TypeError, ValueError):
        return False
    return math.isfinite(lo) and math.isfinite(hi) and hi - lo <= NOT_ESTIMABLE_WIDTH


def _num(v: Any) -> Any:
    """JSON-safe: NaN and infinities become None, numpy scalars plain numbers."""
    if v is None or v is pd.NA:
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    return v


def explain(result: StudyRatings) -> list[str]:
    """The takeaways, one sentence each: the order the data supports, the clear gaps, who is
    provisional, and what length does."""
    level = f"{result.level:.0%}"
    t = result.systems
    ranked = t[t["rank_best"].notna()]
    ordered = result.differences[result.differences["ordered"]]
    lines = []
    no_interval = len(result.differences) and result.differences["ci_low"].isna().all()
    if ordered.empty and no_interval:
        lines.append(
            f"No system is clearly ahead of another: the votes give no interval to tell them apart "
            f"({result.n_votes} votes on {result.n_items} items from {result.n_raters} raters)."
        )
    elif ordered.empty:
        lines.append(
            f"No system is clearly ahead of another: every difference is within its {level} interval of zero "
            f"({result.n_votes} votes on {result.n_items} items from {result.n_raters} raters)."
        )
    else:
        parts = [f"{r.system} ({rank_label(int(r.rank_best), int(r.rank_worst))})" for r in ranked.itertuples()]
        lines.append(
            f"Ranks supported at {level}: " + ", ".join(parts) + " (a range: the data cannot place it more exactly)."
        )
        for r in ordered.itertuples():
            lines.append(
                f"{r.system_a} is ahead of {r.system_b} by {r.diff:.0f} Elo points ({level} CI {r.ci_low:.0f} to "
                f"{r.ci_high:.0f}): it would win about {win_probability(r.diff, 0):.0%} of their comparisons."
                if estimable(r.ci_low, r.ci_high)
                else f"{r.system_a} is ahead of {r.system_b} (the size of the gap is {NOT_ESTIMABLE})."
            )
    for r in t[t["provisional"]].itertuples():
        lines.append(f"{r.system} is provisional ({r.why_provisional}): no rank until it has more votes.")
    eff = result.length_effect
    if eff is not None and not math.isfinite(eff["elo_if_twice_as_long"]):
        lines.append("Every answer in these votes has the same length as its rival: length cannot be controlled for.")
    elif (
        eff is not None
        and math.isfinite(eff["ci_low_if_twice_as_long"])
        and not estimable(eff["ci_low_if_twice_as_long"], eff["ci_high_if_twice_as_long"])
    ):
        lines.append(f"The length effect is {NOT_ESTIMABLE}: its {level} interval is wider than "
                     f"{NOT_ESTIMABLE_WIDTH:.0f} Elo points.")  # fmt: skip
    elif eff is not None and math.isfinite(eff["ci_low_if_twice_as_long"]):
        g, lo, hi = eff["elo_if_twice_as_long"], eff["ci_low_if_twice_as_long"], eff["ci_high_if_twice_as_long"]
        if lo > 0 or hi < 0:
            moved = max(t.itertuples(), key=lambda r: abs(getattr(r, "rating" + LC) - r.rating))
            lines.append(
                f"Length sways the votes: an answer twice as long as its rival gains {g:+.0f} Elo points "
                f"({level} CI {lo:+.0f} to {hi:+.0f}). Controlling for length, {moved.system} moves from "
                f"{moved.rating:.0f} to {getattr(moved, 'rating' + LC):.0f}."
            )
        else:
            lines.append(
                f"No clear length effect: twice as long as the rival is worth {g:+.0f} Elo points "
                f"({level} CI {lo:+.0f} to {hi:+.0f})."
            )
    return lines + list(result.warnings)


def as_dict(result: StudyRatings) -> dict[str, Any]:
    """The JSON of one study: {"systems": {name: {...}}, ...} (see the CLI's --help)."""
    systems = {}
    for r in result.systems.to_dict("records"):
        entry = {
            k: _num(r[k])
            for k in (
                "rating",
                "ci_low",
                "ci_high",
                "votes",
                "provisional",
                "items",
                "raters",
                "wins",
                "losses",
                "ties",
            )
        }
        entry |= {
            "why_provisional": r["why_provisional"] or None,
            "rank": _num(r["rank"]),
            "rank_range": None if pd.isna(r["rank_best"]) else [int(r["rank_best"]), int(r["rank_worst"])],
            "separated": r["separated"] or None,
            "component": int(r["component"]),
        }
        entry |= {k: _num(v) for k, v in r.items() if k.endswith(LC)}
        systems[str(r["system"])] = entry
    differences = [
        {"a": r["system_a"], "b": r["system_b"]}
        | {k: _num(v) for k, v in r.items() if k not in ("system_a", "system_b")}
        for r in result.differences.to_dict("records")
    ]
    return {
        "systems": systems,
        "n_votes": result.n_votes,
        "n_items": result.n_items,
        "n_raters": result.n_raters,
        "tie_share": _num(result.tie_share),
        "interval": {
            "level": result.level,
            "method": result.scheme,
            "resamples": result.n_resamples,
            "df": _num(result.interval_df),
            "seed": result.seed,
        },
        "differences": differences,
        "length_effect": None
        if result.length_effect is None
        else {k: _num(v) for k, v in result.length_effect.items()},
        "warnings": list(result.warnings),
        "lines": explain(result),
    }


def table_lines(result: StudyRatings) -> list[str]:
    """A readable table: rank, system, rating and interval, votes, and the length-controlled rating."""

    def ci(lo: float, hi: float) -> str:
        return "–" if not (math.isfinite(lo) and math.isfinite(hi)) else f"{lo:.0f}–{hi:.0f}"

    lc = result.length_effect is not None
    head = f"{'rank':>5}  {'system':<16} {'rating':>6}  {'95% CI':>11}  {'votes':>5}"
    head += f"  {'length-ctl':>10}  {'95% CI':>11}" if lc else ""
    out = [head]
    for r in result.systems.itertuples():
        label = "–" if pd.isna(r.rank_best) else rank_label(int(r.rank_best), int(r.rank_worst))
        line = f"{label:>5}  {str(r.system):<16} {r.rating:>6.0f}  {ci(r.ci_low, r.ci_high):>11}  {r.votes:>5}"
        if lc:
            line += (
                f"  {getattr(r, 'rating' + LC):>10.0f}  {ci(getattr(r, 'ci_low' + LC), getattr(r, 'ci_high' + LC)):>11}"
            )
        out.append(line + ("  provisional" if r.provisional else ""))
    return out
