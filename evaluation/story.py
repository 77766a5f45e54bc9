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

from .human.crossed import SCOPE_THESE
from .human.words import AGREEMENT_SCALE, agreement_level, confidence_words

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


# The sentences in English and Chinese (the stakeholder page chooses; everything else reads English).
# Method names and numbers are the same in both; dimensions and levels have their own words.
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "sizes": "N = {items} prompts, {ratings} ratings by {raters} rater{s}",
        "no_ratings": "No ratings yet ({sizes}).",
        "family_n": "adjusted over all {n} pairs × dimensions",
        "family": "family-adjusted",
        "scope": "; this holds for these {n} rater{s} only (too few raters to speak for raters in general)",
        "lead": "{method} leads on {dimension} ({confidence}: at least {lead:+.2f} points on the 1–5 scale over "
        "every other method, 95% CI {low:+.2f} to {high:+.2f}, p ≤ {p:.2g} {adjusted})",
        "join": "; ",
        "list": ", ",
        "no_leader": "; no clear leader on {dimensions}",
        "end": " ({sizes}).",
        "pair": "No method leads overall; the clearest difference: {better} is rated above {worse} on {dimension} "
        "by {diff:.2f} points ({confidence}, p = {p:.2g} {adjusted})",
        "no_difference": "No clear difference yet between the methods ({sizes}).",
        "no_agreement": "Agreement between raters: not computable yet (needs 2+ raters on the same outputs).",
        "alpha": "{dimension} α = {alpha:.3f}",
        "level": "{level} on {dimensions}",
        "raters": "Raters ",
        "they": "; they ",
        "careful": ", so treat those scores with care",
        "scale": AGREEMENT_SCALE,
        "agreement_end": " ({scale}).",
    },
    "zh": {
        "sizes": "N = {items} 个提示词，{raters} 位评分者的 {ratings} 条评分",
        "no_ratings": "还没有评分（{sizes}）。",
        "family_n": "已对全部 {n} 个方法对 × 维度做多重比较校正",
        "family": "已做多重比较校正",
        "scope": "；这只对这 {n} 位评分者成立（评分者太少，不能代表一般的评分者）",
        "lead": "{method} 在{dimension}上领先（{confidence}：在 1–5 分制上比其他每种方法至少高 {lead:+.2f} 分，"
        "95% CI {low:+.2f} 至 {high:+.2f}，p ≤ {p:.2g}，{adjusted}）",
        "join": "；",
        "list": "、",
        "no_leader": "；在{dimensions}上没有明确的领先者",
        "end": "（{sizes}）。",
        "pair": "没有方法全面领先；最明显的差异：{better} 在{dimension}上的评分比 {worse} 高 {diff:.2f} 分"
        "（{confidence}，p = {p:.2g}，{adjusted}）",
        "no_difference": "各方法之间还没有明确的差异（{sizes}）。",
        "no_agreement": "评分者之间的一致性：暂时无法计算（需要至少 2 位评分者评过相同的输出）。",
        "alpha": "{dimension}（α = {alpha:.3f}）",
        "level": "在{dimensions}上{level}",
        "raters": "评分者",
        "they": "；",
        "careful": "，因此请谨慎看待这些分数",
        "scale": "Krippendorff α：1 = 完全一致，0 = 相当于随机，低于 0 = 比随机还差，≥ 0.8 为好，≥ 0.667 为初步可信",
        "agreement_end": "（{scale}）。",
    },
}
DIMENSION_ZH = {"coherence": "连贯性", "informativeness": "信息量", "naturalness": "自然度"}
CONFIDENCE_ZH = {"very clearly": "非常明确", "clearly": "明确", "probably": "很可能"}
LEVEL_ZH = {
    "agree well": "一致性好",
    "agree only tentatively": "只是初步一致",
    "often disagree": "经常意见不一",
    "barely agree": "几乎没有一致",
    "disagree more than chance would": "分歧比随机还大",
}
LANGUAGES = tuple(WORDS)


def _words(lang: str) -> dict[str, str]:
    return WORDS.get(lang, WORDS["en"])


def _dim(dimension: Any, lang: str) -> str:
    return DIMENSION_ZH.get(str(dimension), str(dimension)) if lang == "zh" else str(dimension)


def _sure(p: float, lang: str) -> str:
    words = confidence_words(p)
    return CONFIDENCE_ZH[words] if lang == "zh" else words


def _plural(n: int, lang: str) -> str:
    return "s" if lang == "en" and n != 1 else ""


def family_words(pairwise: pd.DataFrame, lang: str = "en") -> str:
    """ "adjusted over the 9 tests of the family" from the `family` column, or "family-adjusted"."""
    w = _words(lang)
    if "family" in pairwise and len(pairwise):
        m = re.match(r"(\d+) tests", str(pairwise["family"].iloc[0]))
        if m:
            return w["family_n"].format(n=m.group(1))
    return w["family"]


def _scope_tail(rows: pd.DataFrame, n_raters: int, lang: str = "en") -> str:
    if "scope" in rows and (rows["scope"] == SCOPE_THESE).any():
        return _words(lang)["scope"].format(n=n_raters, s=_plural(n_raters, lang))
    return ""


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
    pairwise: pd.DataFrame, n_items: int, n_ratings: int, n_raters: int, alpha: float = ALPHA, lang: str = "en"
) -> str:
    """One sentence: who leads on what and how sure, or "no clear difference yet, N = …" (`lang` en or zh)."""
    w = _words(lang)
    sizes = w["sizes"].format(items=n_items, ratings=n_ratings, raters=n_raters, s=_plural(n_raters, lang))
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
    order = list(LEVEL_ZH)[::-1]  # worst first
    groups: dict[str, list[str]] = {}
    for dim, a in sorted(vals, key=lambda v: v[1]):
        groups.setdefault(agreement_level(a), []).append(w["alpha"].format(dimension=_dim(dim, lang), alpha=a))
    parts = [
        w["level"].format(level=LEVEL_ZH[level] if lang == "zh" else level, dimensions=w["list"].join(groups[level]))
        for level in order
        if level in groups
    ]
    text = w["raters"] + w["they"].join(parts)
    careful = min(a for _, a in vals) < 0.2
    return text + (w["careful"] if careful else "") + w["agreement_end"].format(scale=w["scale"])
