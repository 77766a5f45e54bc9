"""The study in words, for people who will not read the statistics: one takeaway sentence and one
line on rater agreement, both taken from the primary analysis of `evaluation.human` (items and raters
as samples; every pair x dimension in one family, `p_holm` adjusted over it).

A method "leads" on a dimension when every other method is rated lower there with a family-adjusted
p < 0.05. When no dimension has such a leader but some pairs differ, the sentence names the clearest
pair. Otherwise: "no clear difference yet, N = …". Only family-adjusted findings are named; with 1-2
raters the sentence says it holds for these raters only. Plain text; whoever shows it escapes it
(method names come from the registry, but treat them as text).
"""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd

from common import messages
from common.rubric import DEFAULT_RUBRIC, Rubric

from .human.crossed import SCOPE_ITEMS, SCOPE_THESE
from .human.words import agreement_level, confidence_words

ALPHA = 0.05


def _finite(v: Any) -> bool:
    try:
        return v is not None and math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def _testable(pairwise: pd.DataFrame) -> pd.DataFrame:
    """The rows the headline may name: a finite family-adjusted p (and status ok, where given)."""
    ok = pd.to_numeric(pairwise["p_holm"], errors="coerce").notna()
    if "status" in pairwise:
        ok &= pairwise["status"] == "ok"
    return pairwise[ok]


# The sentences come in English and Chinese from common/messages.py (the stakeholder page chooses;
# everything else reads English). Method names and numbers are the same in both; dimensions and
# levels have their own words.
LANGUAGES = messages.LANGUAGES
LEVELS = ("agree well", "agree only tentatively", "often disagree", "barely agree", "disagree more than chance would")


def _words(lang: str) -> dict[str, str]:
    """The story's templates in `lang` (keys as in common/messages.py, without "story_")."""
    return {key[len("story_") :]: messages.text(key, lang) for key in messages.LINES if key.startswith("story_")}


def _dim(dimension: Any, lang: str) -> str:
    return (
        messages.text(f"dimension_name_{dimension}", lang)
        if f"dimension_name_{dimension}" in messages.LINES
        else str(dimension)
    )


def _sure(p: float, lang: str) -> str:
    return messages.text("confidence_" + confidence_words(p).replace(" ", "_"), lang)


def _level(level: str, lang: str) -> str:
    return messages.text("agreement_" + level.replace(" ", "_"), lang)


def _plural(n: int, lang: str) -> str:
    return "s" if lang == "en" and n != 1 else ""


def _these(n: int) -> str:
    return "this" if n == 1 else "these"  # English only: the Chinese sentence has no such word


def family_words(pairwise: pd.DataFrame, lang: str = "en") -> str:
    """ "adjusted over the 9 tests of the family" from the `family` column, or "family-adjusted"."""
    w = _words(lang)
    if "family" in pairwise and len(pairwise):
        m = re.match(r"(\d+) tests", str(pairwise["family"].iloc[0]))
        if m:
            return w["family_n"].format(n=m.group(1))
    return w["family"]


def _scope_tail(rows: pd.DataFrame, n_raters: int, lang: str = "en") -> str:
    if "scope" in rows and (rows["scope"] == SCOPE_ITEMS).any():
        n = int(pd.to_numeric(rows["n_pairs"], errors="coerce").max()) if "n_pairs" in rows else 1
        return _words(lang)["scope_items"].format(n=n, s=_plural(n, lang), these=_these(n))
    if "scope" in rows and (rows["scope"] == SCOPE_THESE).any():
        return _words(lang)["scope"].format(n=n_raters, s=_plural(n_raters, lang), these=_these(n_raters))
    return ""


def _scale(dimension: Any, rubric: Rubric | None) -> str:
    """ "1–5": the dimension's scale in the rubric (the default rubric's when it is not named there)."""
    rubric = rubric or DEFAULT_RUBRIC
    d = rubric.dimension(dimension) if dimension in rubric.names else DEFAULT_RUBRIC.dimensions[0]
    return f"{d.low}–{d.high}"


def leaders(pairwise: pd.DataFrame, alpha: float = ALPHA) -> list[dict[str, Any]]:
    """Per dimension, the method rated higher than every other with family-adjusted p (`p_holm`) < alpha:
    dicts with dimension, method, the smallest lead (points) with its CI and the largest adjusted p."""
    found: list[dict[str, Any]] = []
    if pairwise is None or pairwise.empty:
        return found
    for dim, rows in pairwise.groupby("dimension", sort=False):
        if "status" in rows and not (rows["status"] == "ok").all():
            continue  # a pair that cannot be tested: no method can be shown to lead on this dimension
        methods = list(dict.fromkeys(list(rows["method_a"]) + list(rows["method_b"])))
        for m in methods:
            wins = []
            for _, r in rows.iterrows():
                if m not in (r["method_a"], r["method_b"]):
                    continue
                sign = 1 if r["method_a"] == m else -1
                d, p = r["mean_diff"], r["p_holm"]
                if not (_finite(d) and _finite(p) and p < alpha and sign * d > 0):
                    break
                lo, hi = (sign * r["ci_low"], sign * r["ci_high"])
                wins.append((sign * d, min(lo, hi), max(lo, hi), p, r["n_pairs"]))
            else:
                if wins and len(wins) == len(methods) - 1:
                    lead = min(wins)
                    found.append(
                        {
                            "dimension": dim,
                            "method": m,
                            "lead": lead[0],
                            "ci_low": lead[1],
                            "ci_high": lead[2],
                            "p": max(w[3] for w in wins),
                            "items": int(lead[4]),
                        }
                    )
    return found


def takeaway(
    pairwise: pd.DataFrame,
    n_items: int,
    n_ratings: int,
    n_raters: int,
    alpha: float = ALPHA,
    lang: str = "en",
    rubric: Rubric | None = None,
) -> str:
    """One sentence: who leads on what and how sure, or "no clear difference yet, N = …" (`lang` en or zh;
    `rubric`: the study's, for each dimension's scale)."""
    w = _words(lang)
    sizes = w["sizes"].format(
        items=n_items,
        ratings=n_ratings,
        raters=n_raters,
        s=_plural(n_raters, lang),
        items_s=_plural(n_items, lang),
        ratings_s=_plural(n_ratings, lang),
    )
    if not n_ratings:
        return w["no_ratings"].format(sizes=sizes)
    adjusted = family_words(pairwise, lang) if pairwise is not None else w["family"]
    leads = leaders(pairwise, alpha)
    if leads:
        parts = [
            w["lead"].format(
                method=l["method"],
                dimension=_dim(l["dimension"], lang),
                confidence=_sure(l["p"], lang),
                scale=_scale(l["dimension"], rubric),
                lead=l["lead"],
                low=l["ci_low"],
                high=l["ci_high"],
                p=l["p"],
                adjusted=adjusted,
            )
            for l in leads
        ]
        led = {l["dimension"] for l in leads}
        rest = [_dim(d, lang) for d in dict.fromkeys(pairwise["dimension"]) if d not in led]
        tail = w["no_leader"].format(dimensions=w["list"].join(rest)) if rest else ""
        named = pairwise[pairwise["dimension"].isin(led)]
        return w["join"].join(parts) + tail + _scope_tail(named, n_raters, lang) + w["end"].format(sizes=sizes)
    testable = _testable(pairwise) if pairwise is not None and len(pairwise) else pd.DataFrame()
    sig = testable[pd.to_numeric(testable["p_holm"], errors="coerce") < alpha] if len(testable) else testable
    if len(sig):
        r = sig.sort_values("p_holm").iloc[0]
        better, worse = (r["method_a"], r["method_b"]) if r["mean_diff"] > 0 else (r["method_b"], r["method_a"])
        return (
            w["pair"].format(
                better=better,
                worse=worse,
                dimension=_dim(r["dimension"], lang),
                diff=abs(r["mean_diff"]),
                confidence=_sure(r["p_holm"], lang),
                p=r["p_holm"],
                adjusted=adjusted,
            )
            + _scope_tail(sig.iloc[:1], n_raters, lang)
            + w["end"].format(sizes=sizes)
        )
    return w["no_difference"].format(sizes=sizes)


def agreement_words(agreement: pd.DataFrame, lang: str = "en") -> str:
    """Rater agreement (Krippendorff's alpha, ordinal) in one plain line: each level of agreement
    names its own dimensions, so one dimension's negative alpha is never said of another."""
    w = _words(lang)
    if agreement is None or agreement.empty:
        return w["no_agreement"]
    vals = [(str(r["dimension"]), float(r["alpha"])) for _, r in agreement.iterrows() if _finite(r["alpha"])]
    if not vals:
        return w["no_agreement"]
    order = list(LEVELS)[::-1]  # worst first
    groups: dict[str, list[str]] = {}
    for dim, a in sorted(vals, key=lambda v: v[1]):
        groups.setdefault(agreement_level(a), []).append(w["alpha"].format(dimension=_dim(dim, lang), alpha=a))
    parts = [
        w["level"].format(level=_level(level, lang), dimensions=w["list"].join(groups[level]))
        for level in order
        if level in groups
    ]
    text = w["raters"] + w["they"].join(parts)
    careful = min(a for _, a in vals) < 0.2
    return text + (w["careful"] if careful else "") + w["agreement_end"].format(scale=w["scale"])
