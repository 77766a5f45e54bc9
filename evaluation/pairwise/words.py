"""The ratings of a study in plain words and in JSON (what the CLI prints and the Results tab shows)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from common import messages

from .bt import win_probability
from .ranks import rank_label
from .rate import LC, StudyRatings

# An Elo interval wider than this says nothing about the systems: ±600 points spans win chances from
# 3% to 97%. Few votes (or votes that all go one way) give such intervals ("−343 Elo, 95% CI −27619 to
# +26933" from 8 votes); the estimate is then reported as not estimable instead of as a number.
NOT_ESTIMABLE_WIDTH = 1200.0
NOT_ESTIMABLE = messages.english("pw_not_estimable")


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


def explain(result: StudyRatings, lang: str = "en") -> list[str]:
    """The takeaways, one sentence each, in `lang` (en or zh): the order the data supports, the clear
    gaps, who is provisional, and what length does."""
    t = result.systems
    lines = _order_lines(result, lang)
    for r in t[t["provisional"]].itertuples():
        lines.append(
            messages.text("pw_provisional", lang, system=r.system, why=provisional_reasons(r.why_provisional, lang))
        )
    length = _length_line(result, lang)
    return lines + ([length] if length else []) + [warning(w, lang) for w in result.warnings]


def _order_lines(result: StudyRatings, lang: str) -> list[str]:
    """The ranks the data supports and each clear gap, or that no system is clearly ahead."""
    level = f"{result.level:.0%}"
    t = result.systems
    ranked = t[t["rank_best"].notna()]
    ordered = result.differences[result.differences["ordered"]]
    sizes = {"votes": result.n_votes, "items": result.n_items, "raters": result.n_raters}
    no_interval = len(result.differences) and result.differences["ci_low"].isna().all()
    if ordered.empty and no_interval:
        return [messages.text("pw_no_clear_no_interval", lang, **sizes)]
    if ordered.empty:
        return [messages.text("pw_no_clear_within", lang, level=level, **sizes)]
    parts = [
        messages.text("pw_rank_part", lang, system=r.system, rank=rank_label(int(r.rank_best), int(r.rank_worst)))
        for r in ranked.itertuples()
    ]
    lines = [messages.text("pw_ranks", lang, level=level, parts=messages.text("story_list", lang).join(parts))]
    for r in ordered.itertuples():
        lines.append(
            messages.text(
                "pw_ahead_by",
                lang,
                a=r.system_a,
                b=r.system_b,
                diff=r.diff,
                level=level,
                low=r.ci_low,
                high=r.ci_high,
                win=win_probability(r.diff, 0),
            )  # fmt: skip
            if estimable(r.ci_low, r.ci_high)
            else messages.text(
                "pw_ahead_not_estimable", lang, a=r.system_a, b=r.system_b, not_estimable=not_estimable(lang)
            )
        )
    return lines


def _length_line(result: StudyRatings, lang: str) -> str:
    """What length does to the votes ("" when the votes carry no lengths)."""
    eff, level, t = result.length_effect, f"{result.level:.0%}", result.systems
    if eff is None:
        return ""
    if not math.isfinite(eff["elo_if_twice_as_long"]):
        return messages.text("pw_length_same", lang)
    g, lo, hi = eff["elo_if_twice_as_long"], eff["ci_low_if_twice_as_long"], eff["ci_high_if_twice_as_long"]
    if not math.isfinite(lo):
        return ""
    if not estimable(lo, hi):
        return messages.text(
            "pw_length_not_estimable", lang, not_estimable=not_estimable(lang), level=level, width=NOT_ESTIMABLE_WIDTH
        )
    if lo > 0 or hi < 0:
        moved = max(t.itertuples(), key=lambda r: abs(getattr(r, "rating" + LC) - r.rating))
        return messages.text(
            "pw_length_sways", lang, gain=g, level=level, low=lo, high=hi, system=moved.system,
            before=moved.rating, after=getattr(moved, "rating" + LC),
        )  # fmt: skip
    return messages.text("pw_length_none", lang, gain=g, level=level, low=lo, high=hi)


def not_estimable(lang: str = "en") -> str:
    """NOT_ESTIMABLE in `lang`."""
    return messages.text("pw_not_estimable", lang)


def provisional_reasons(why: str, lang: str = "en") -> str:
    """A system's `why_provisional` ("3 votes (fewer than 5); won every comparison") in `lang`: each
    part found in common/messages.py, whole or by the template it was filled from."""
    if lang != "zh" or not why:
        return why
    return "；".join(messages.translated(part, lang) for part in why.split("; "))


def warning(sentence: str, lang: str = "en") -> str:
    """One of `rate`'s warnings in `lang`. The one that names the systems with no finite rating holds
    each one's reason after its name, so those are looked up one by one."""
    found = messages.parse(sentence) if lang == "zh" else None
    if found is None or found[0] != "pw_warn_separated":
        return messages.translated(sentence, lang)
    which = [_separated_system(part, lang) for part in found[1]["systems"].split(", ")]
    return messages.text("pw_warn_separated", lang, systems=messages.text("story_list", lang).join(which))


def _separated_system(part: str, lang: str) -> str:
    """ "BS-4 won every comparison" (a name, then one of bt's reasons) in `lang`."""
    for key in SEPARATED_REASONS:
        reason = messages.english(key)
        if part.endswith(" " + reason):
            return messages.text(
                "pw_separated_system", lang, system=part[: -len(reason) - 1], why=messages.text(key, lang)
            )
    return part


# bt.py's reasons for a rating that is not finite (Fit.why_not_finite), by message id
SEPARATED_REASONS = ("pw_won_every", "pw_lost_every", "pw_never_lost", "pw_never_beat", "pw_no_finite_gap")


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
