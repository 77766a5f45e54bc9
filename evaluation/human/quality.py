"""Rater quality control: flags computed for every rater, exclusion rules declared before a study
opens, and the analysis with and without the excluded raters side by side.

Flags (`rater_flags`), over the rubric's numeric questions, for the organizer to read, never applied
silently; docs/studies.md gives each one's false-alarm rate as measured on simulated honest raters:

* straight-lining: the same score on every response of an item on one question, or on every question
  of a response, on FLAT_SHARE of the rater's units or more and far more often than the other raters
  (`evaluation.human.straight_lining`);
* speeder: too fast to have read the responses. Either the median time per item (from the ratings'
  `created_at`, `raters.item_gaps`) is under SPEED_FACTOR of the median rater's, or it is under the
  time needed to skim the item's responses at READ_TOKENS_PER_S (`reading_ratio` < 1, where the
  responses' lengths are known); at least MIN_GAPS timed items either way;
* against the others: a permutation test of the rater's scores against the other raters' consensus,
  item by item, combined over items with Fisher's method (the anomaly test LMArena runs on its voters,
  Chiang et al. 2024, section 5, here on scores). On an item, the statistic is the covariance between
  the rater's scores of its outputs and the others' mean scores of the same outputs, summed over
  dimensions; its null shuffles the rater's scores among the item's outputs (each dimension on its
  own), PERMUTATIONS draws. Two one-sided p per item, combined over the rater's items:
  `against_p` (small: the rater ranks outputs the other way round from everybody else, item after
  item) and `agree_p` (small: the rater agrees with the others beyond chance). Flagged: against_p < FLAG_P;
* unrelated to the content (a random clicker): the rater's scores do not follow the other raters'
  mean scores of the same responses (`agreement_tests`: every response, so what makes an item hard or
  a response good counts, not only the order within an item): agree_all_p >= UNRELATED_P over at
  least MIN_CELLS scores, while the other raters' median agree_all_p is under SIGNAL_P. A study in
  which the raters do not follow each other flags nobody: there is no standard to be unrelated to.

Exclusion rules (`RULES`, `excluded_raters`): each names exactly one flag (`FLAG_OF`), and a rule set
drops the raters with any flag it names and nobody else. `with_and_without` runs the primary analysis
on all raters and on the raters kept, and says in words which conclusions change.
"""

from __future__ import annotations

import math
import warnings
import zlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from common import messages
from common.rubric import Rubric, rubric_of

from . import raters as hr
from . import straight_lining as sl

SPEED_FACTOR = 1 / 3  # a median time per item under a third of the median rater's
READ_TOKENS_PER_S = 30.0  # skimming, about 1,300 words a minute: nobody reads faster and judges
MIN_GAPS = 3  # timed items needed before anyone is called a speeder
PERMUTATIONS = 2000
FLAG_P = 0.01
UNRELATED_P = 0.1  # agreement with the others not even at the 10% level
SIGNAL_P = 0.01  # ... while the other raters' median agreement is beyond chance at 1%
MIN_CELLS = 12  # scores (responses x questions) compared with the others before anyone is called unrelated
RULE_NAMES = ("attention", "straight-lining", "speeder", "against", "unrelated")
# What each rule drops, in words: common/messages.py's `exclusion_rule_<name>` (in Chinese too).
RULES: dict[str, str] = {name: messages.english(f"exclusion_rule_{name.replace('-', '_')}") for name in RULE_NAMES}


def rule_words(name: str, lang: str = "en") -> str:
    """What rule `name` drops, in `lang`."""
    return messages.text(f"exclusion_rule_{name.replace('-', '_')}", lang)


FLAG_OF: dict[str, str] = {  # rule -> the column of `rater_flags` it reads: one flag each
    "attention": "attention_failed",
    "straight-lining": "straight_lining",
    "speeder": "speeder",
    "against": "against",
    "unrelated": "unrelated",
}
FLAG_COLUMNS = [
    "rater",
    "items",
    "ratings",
    "attention_failed",
    "straight_lining",
    "flat_items_share",
    "flat_on",
    "flat_p",
    "median_s_per_item",
    "timed_items",
    "reading_ratio",
    "speeder",
    "tested_items",
    "agree_p",
    "against_p",
    "against",
    "cells",
    "agree_all_p",
    "unrelated",
    "flags",
]


def _scores(ratings: pd.DataFrame, dims: Sequence[str]) -> pd.DataFrame:
    return ratings[list(dims)].apply(pd.to_numeric, errors="coerce")


def consensus_tests(
    ratings: pd.DataFrame, dimensions: Sequence[str], permutations: int = PERMUTATIONS, seed: int = 0
) -> pd.DataFrame:
    """Per rater: the items tested and the Fisher-combined one-sided p of the permutation test against
    the others' consensus (module docstring): columns rater, tested_items, agree_p, against_p."""
    dims = list(dimensions)
    frame = ratings.reset_index(drop=True)
    frame = frame.assign(_o=frame["output_id"].astype(str), _r=frame["rater"].astype(str))
    values = _scores(frame, dims).to_numpy(float)
    logs: dict[str, list[tuple[float, float]]] = {r: [] for r in sorted(set(frame["_r"]))}
    for item_id, item in frame.groupby("item_id", sort=True):
        idx = item.index.to_numpy()
        outputs = sorted(set(item["_o"]))
        if len(outputs) < 2 or item["_r"].nunique() < 2:
            continue
        cube = np.full((item["_r"].nunique(), len(outputs), len(dims)), np.nan)
        raters = sorted(set(item["_r"]))
        rows = [raters.index(r) for r in item["_r"]]
        cols = [outputs.index(o) for o in item["_o"]]
        cube[rows, cols] = values[idx]
        for k, rater in enumerate(raters):
            # a stream of its own per (rater, item): the same p whatever the order of the rows
            rng = np.random.default_rng([seed, zlib.crc32(f"{item_id}\x1f{rater}".encode())])
            p = _item_test(cube[k], np.delete(cube, k, axis=0), rng, permutations)
            if p is not None:
                logs[rater].append(p)
    out = []
    for rater, ps in logs.items():
        agree = fisher([a for a, _ in ps])
        against = fisher([b for _, b in ps])
        out.append({"rater": rater, "tested_items": len(ps), "agree_p": agree, "against_p": against})
    return pd.DataFrame(out, columns=["rater", "tested_items", "agree_p", "against_p"])


def _item_test(
    mine: np.ndarray, others: np.ndarray, rng: np.random.Generator, permutations: int
) -> tuple[float, float] | None:
    """(p upper, p lower) of one rater on one item: covariance of their scores (outputs x dims) with the
    others' mean scores, against shuffles of their scores among the outputs; None when untestable."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an output no other rater scored: NaN, as meant
        consensus = np.nanmean(others, axis=0)
    usable = ~np.isnan(mine) & ~np.isnan(consensus)
    # a dimension the rater scored flat on this item ranks nothing (straight-lining's business, not this test's)
    dims = [
        d
        for d in range(mine.shape[1])
        if usable[:, d].sum() >= 2 and np.ptp(consensus[usable[:, d], d]) > 0 and np.ptp(mine[usable[:, d], d]) > 0
    ]
    if not dims:
        return None
    observed, null = 0.0, np.zeros(permutations)
    for d in dims:
        x = mine[usable[:, d], d]
        y = consensus[usable[:, d], d] - consensus[usable[:, d], d].mean()
        observed += float(x @ y)
        shuffled = np.argsort(rng.random((permutations, len(x))), axis=1)
        null += x[shuffled] @ y
    eps = 1e-9 * (1 + abs(observed))
    upper = (1 + np.count_nonzero(null >= observed - eps)) / (permutations + 1)
    lower = (1 + np.count_nonzero(null <= observed + eps)) / (permutations + 1)
    return upper, lower


def fisher(ps: Sequence[float]) -> float:
    """Fisher's combination of independent p-values (NaN without any)."""
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    if not ps:
        return math.nan
    return float(stats.chi2.sf(-2 * np.sum(np.log(ps)), 2 * len(ps)))


def speed_checks(ratings: pd.DataFrame) -> pd.DataFrame:
    """Per rater: median seconds per item, timed items, and `reading_ratio`, the median over their
    timed items of the time taken over the time needed to skim the item's responses at
    READ_TOKENS_PER_S (NaN where the responses' lengths are unknown: an imported study)."""
    gaps = hr.item_gaps(ratings)
    raters = sorted(set(ratings["rater"].astype(str)))
    if "new_tokens" in ratings and len(gaps):
        tokens = pd.to_numeric(ratings["new_tokens"], errors="coerce").where(lambda t: t > 0)
        per_item = ratings.assign(_t=tokens, rater=ratings["rater"].astype(str)).groupby(["rater", "item_id"])["_t"]
        needed = (per_item.sum(min_count=1) / READ_TOKENS_PER_S).rename("needed").reset_index()
        gaps = gaps.assign(rater=gaps["rater"].astype(str)).merge(needed, on=["rater", "item_id"], how="left")
        ratio = (gaps["seconds"] / gaps["needed"]).where(gaps["needed"] > 0)
        reading = gaps.assign(ratio=ratio).dropna(subset=["ratio"]).groupby("rater")["ratio"]
        ratios, read_items = reading.median(), reading.size()
    else:
        ratios, read_items = pd.Series(dtype=float), pd.Series(dtype=int)
    seconds, timed = hr.seconds_per_item(ratings), hr.timed_items(ratings)
    seconds.index, timed.index = seconds.index.astype(str), timed.index.astype(str)
    return pd.DataFrame(
        {
            "rater": raters,
            "median_s_per_item": [float(seconds.get(r, math.nan)) for r in raters],
            "timed_items": [int(timed.get(r, 0)) for r in raters],
            "reading_ratio": [
                float(ratios.get(r, math.nan)) if read_items.get(r, 0) >= MIN_GAPS else math.nan for r in raters
            ],
        }
    )


def speeders(speed: pd.DataFrame) -> pd.Series:
    """Per rater (index): too fast, by either test of the module docstring."""
    typical = float(np.nanmedian(speed["median_s_per_item"])) if speed["median_s_per_item"].notna().any() else math.nan
    timed = speed["timed_items"] >= MIN_GAPS
    relative = timed & (speed["median_s_per_item"] < SPEED_FACTOR * typical)
    unread = speed["reading_ratio"] < 1
    return pd.Series((relative | unread).to_numpy(bool), index=speed["rater"])


def agreement_tests(ratings: pd.DataFrame, dimensions: Sequence[str]) -> pd.DataFrame:
    """Per rater: `cells` (responses x questions scored by them and by someone else) and `agree_all_p`,
    the one-sided p of the Pearson correlation between their scores and the other raters' mean scores
    of the same responses, each question centred on its own (so items that everybody finds hard count:
    a random clicker does not follow them either). NaN when the rater's scores do not vary."""
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    frame = ratings.assign(rater=ratings["rater"].astype(str), _o=ratings["output_id"].astype(str))
    scores = _scores(frame, dimensions)
    rows = []
    for rater in sorted(set(frame["rater"])):
        mine, others = frame["rater"] == rater, frame["rater"] != rater
        xs, ys = [], []
        for d in dimensions:
            consensus = scores.loc[others, d].groupby(frame.loc[others, "_o"]).mean()
            paired = pd.DataFrame({"x": scores.loc[mine, d].to_numpy(), "y": frame.loc[mine, "_o"].map(consensus)})
            paired = paired.dropna()
            xs.append(paired["x"] - paired["x"].mean())
            ys.append(paired["y"] - paired["y"].mean())
        x, y = np.concatenate(xs) if xs else np.array([]), np.concatenate(ys) if ys else np.array([])
        p = math.nan
        if len(x) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
            r = float(np.clip(np.corrcoef(x, y)[0, 1], -0.999999, 0.999999))
            p = float(stats.t.sf(r * math.sqrt((len(x) - 2) / (1 - r * r)), len(x) - 2))
        rows.append({"rater": rater, "cells": int(len(x)), "agree_all_p": p})
    return pd.DataFrame(rows, columns=["rater", "cells", "agree_all_p"])


def unrelated(tests: pd.DataFrame) -> pd.Series:
    """Per rater (index): scores that follow the other raters' no better than chance while the others
    follow each other (module docstring). `tests`: `agreement_tests`' columns."""
    out = {}
    for row in tests.itertuples():
        others = tests.loc[tests["rater"] != row.rater, "agree_all_p"].dropna()
        signal = len(others) >= 1 and float(others.median()) < SIGNAL_P
        out[row.rater] = bool(
            signal and row.cells >= MIN_CELLS and np.isfinite(row.agree_all_p) and row.agree_all_p >= UNRELATED_P
        )
    return pd.Series(out, dtype=bool)


def rater_flags(
    ratings: pd.DataFrame,
    rubric: Rubric | Sequence[str] | None = None,
    failed_attention: Collection[str] = (),
    seed: int = 0,
    permutations: int = PERMUTATIONS,
) -> pd.DataFrame:
    """FLAG_COLUMNS, one row per rater: every flag of the module docstring and `flags`, the names of
    the flags raised (a rule of `RULES` each, in RULES order)."""
    dims = numeric_questions(rubric)
    if ratings.empty:
        return pd.DataFrame(columns=FLAG_COLUMNS)
    ratings = ratings.assign(rater=ratings["rater"].astype(str))
    flat = hr.straight_lining(ratings, dims).set_index("rater")
    speed = speed_checks(ratings).set_index("rater")
    fast = speeders(speed.reset_index())
    tests = consensus_tests(ratings, dims, permutations=permutations, seed=seed).set_index("rater")
    overall = agreement_tests(ratings, dims)
    loose, overall = unrelated(overall), overall.set_index("rater")
    failed = {str(r) for r in failed_attention}
    rows = []
    for rater in sorted(set(ratings["rater"])):
        against_p = float(tests["against_p"].get(rater, math.nan))
        row = {
            "rater": rater,
            **{c: flat.loc[rater, c] for c in ("items", "ratings", "flat_items_share", "flat_on", "flat_p")},
            "attention_failed": rater in failed,
            "straight_lining": bool(flat.loc[rater, "straight_lining"]),
            **{c: speed.loc[rater, c] for c in ("median_s_per_item", "timed_items", "reading_ratio")},
            "speeder": bool(fast.get(rater, False)),
            "tested_items": int(tests["tested_items"].get(rater, 0)),
            "agree_p": float(tests["agree_p"].get(rater, math.nan)),
            "against_p": against_p,
            "against": bool(np.isfinite(against_p) and against_p < FLAG_P),
            "cells": int(overall["cells"].get(rater, 0)),
            "agree_all_p": float(overall["agree_all_p"].get(rater, math.nan)),
            "unrelated": bool(loose.get(rater, False)) and not (np.isfinite(against_p) and against_p < FLAG_P),
        }
        row["flags"] = [rule for rule, column in FLAG_OF.items() if row[column]]
        rows.append(row)
    return pd.DataFrame(rows, columns=FLAG_COLUMNS)


def numeric_questions(rubric: Rubric | Sequence[str] | None) -> list[str]:
    """The rubric's questions the checks count: every question with a numeric answer
    (scales, yes/no), never a choice or a comment."""
    return list(rubric_of(rubric).numeric)


def flag_words(row: Mapping[str, Any], lang: str = "en") -> str:
    """One plain line about one rater, in `lang`: what stands out, or that nothing does."""
    notes = []
    if row.get("attention_failed"):
        notes.append(messages.text("flag_attention", lang))
    if row.get("straight_lining"):
        notes.append(messages.text("flag_straight_lining", lang, how=sl.flat_words(dict(row), lang)))
    if row.get("speeder"):
        ratio = row.get("reading_ratio", math.nan)
        notes.append(
            messages.text("flag_speeder", lang, seconds=f"{row['median_s_per_item']:.0f}")
            + (
                messages.text("flag_speeder_share", lang, share=f"{ratio:.0%}")
                if np.isfinite(ratio) and ratio < 1
                else ""
            )
        )
    tested, against = row.get("tested_items", 0), row.get("against_p", math.nan)
    if row.get("against"):
        notes.append(messages.text("flag_against", lang, p=f"{against:.2g}", n=tested))
    elif row.get("unrelated"):
        p = f"{row.get('agree_all_p', math.nan):.2g}"
        notes.append(messages.text("flag_unrelated", lang, cells=row.get("cells", 0), p=p))
    who = str(row.get("rater"))
    if not notes:
        return messages.text("flag_nothing", lang, rater=who)
    return messages.text("rater_line", lang, rater=who, notes=messages.text("story_join", lang).join(notes))


@dataclass(frozen=True)
class Exclusion:
    """Who a rule excluded: the rule's names, the raters dropped and the raters there were."""

    rules: tuple[str, ...]
    raters: tuple[str, ...]
    n_raters: int

    @property
    def n(self) -> int:
        return len(self.raters)

    def words(self, when: str = "exclusion_when_in_advance", lang: str = "en") -> str:
        """ "3 of 14 raters excluded by the rule set in advance (failed any attention item)", in `lang`;
        `when` names the message that says when the rule was set."""
        if not self.rules:
            return messages.text("exclusion_no_rule", lang)
        what = messages.text("story_join", lang).join(rule_words(r, lang) for r in self.rules)
        when_words = messages.text(when, lang)
        return messages.text("exclusion_excluded", lang, n=self.n, of=self.n_raters, when=when_words, what=what)

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "of": self.n_raters,
            "rule": "; ".join(RULES[r] for r in self.rules) if self.rules else None,
            "rules": list(self.rules),
            "raters": list(self.raters),
        }


def check_rules(rules: Collection[str]) -> tuple[str, ...]:
    """The rule names in RULES order; ValueError on an unknown one."""
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        raise ValueError(f"unknown exclusion rule(s) {', '.join(unknown)} (known: {', '.join(RULES)})")
    return tuple(r for r in RULES if r in set(rules))


def excluded_raters(flags: pd.DataFrame, rules: Collection[str]) -> Exclusion:
    """The raters any of `rules` drops, from `rater_flags`' table (a rule names a flag)."""
    chosen = check_rules(rules)
    dropped = tuple(str(r["rater"]) for r in flags.to_dict("records") if set(r["flags"]) & set(chosen))
    return Exclusion(chosen, dropped, int(len(flags)))


def failed_attention_rule(ratings: pd.DataFrame, failed_attention: Collection[str]) -> tuple[pd.DataFrame, Exclusion]:
    """ "Drop raters who fail any attention item": (the ratings kept, the exclusion)."""
    raters = list(dict.fromkeys(ratings["rater"].astype(str)))
    dropped = tuple(r for r in raters if r in {str(x) for x in failed_attention})
    return ratings[~ratings["rater"].astype(str).isin(dropped)], Exclusion(("attention",), dropped, len(raters))


def apply_exclusion(ratings: pd.DataFrame, exclusion: Exclusion) -> pd.DataFrame:
    """The ratings of the raters an exclusion keeps."""
    return ratings[~ratings["rater"].astype(str).isin(exclusion.raters)]


SENSITIVITY_COLUMNS = [
    "dimension",
    "method_a",
    "method_b",
    "diff_all",
    "ci_low_all",
    "ci_high_all",
    "p_family_all",
    "diff_kept",
    "ci_low_kept",
    "ci_high_kept",
    "p_family_kept",
    "changed",
]


def with_and_without(all_pairwise: pd.DataFrame, kept_pairwise: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """The primary analysis's pairs on every rater and on the raters kept, side by side (SENSITIVITY_COLUMNS);
    `changed`: the family-adjusted verdict (a difference at `alpha`, and its sign) is not the same."""
    key = ["dimension", "method_a", "method_b"]
    cols = ["mean_diff", "ci_low", "ci_high", "p_holm"]
    joined = all_pairwise[key + cols].merge(kept_pairwise[key + cols], on=key, how="outer", suffixes=("_all", "_kept"))

    def verdict(diff: pd.Series, p: pd.Series) -> pd.Series:
        return np.where(pd.to_numeric(p, errors="coerce") < alpha, np.sign(diff), 0)

    out = pd.DataFrame(
        {
            "dimension": joined["dimension"],
            "method_a": joined["method_a"],
            "method_b": joined["method_b"],
            "diff_all": joined["mean_diff_all"],
            "ci_low_all": joined["ci_low_all"],
            "ci_high_all": joined["ci_high_all"],
            "p_family_all": joined["p_holm_all"],
            "diff_kept": joined["mean_diff_kept"],
            "ci_low_kept": joined["ci_low_kept"],
            "ci_high_kept": joined["ci_high_kept"],
            "p_family_kept": joined["p_holm_kept"],
        }
    )
    out["changed"] = verdict(out["diff_all"], out["p_family_all"]) != verdict(out["diff_kept"], out["p_family_kept"])
    return out[SENSITIVITY_COLUMNS]


def sensitivity_words(table: pd.DataFrame, exclusion: Exclusion, alpha: float = 0.05, lang: str = "en") -> str:
    """One line, in `lang`: whether excluding the raters changes any conclusion of the headline family."""
    if not exclusion.n:
        return messages.text("sensitivity_none", lang)
    changed = table[table["changed"]]
    head = messages.text("sensitivity_head", lang, n=exclusion.n)
    if changed.empty:
        return head + messages.text("sensitivity_same", lang, alpha=alpha)
    parts = []
    for r in changed.itertuples():
        found = [
            messages.text(key, lang)
            for key, p in (("sensitivity_only_all", r.p_family_all), ("sensitivity_only_kept", r.p_family_kept))
            if pd.notna(p) and p < alpha
        ]
        parts.append(
            messages.text(
                "sensitivity_part",
                lang,
                a=r.method_a,
                b=r.method_b,
                dimension=messages.dimension_name(r.dimension, lang),
                found=messages.text("sensitivity_and", lang).join(found)
                or messages.text("sensitivity_in_neither", lang),
            )
        )
    return head + messages.text("sensitivity_differ", lang, parts=messages.text("story_join", lang).join(parts))


def failed_attention_of(ratings: pd.DataFrame) -> list[str]:
    """The raters with a false `attention_passed` on any row (the column is optional: none without it)."""
    if "attention_passed" not in ratings or ratings.empty:
        return []
    flag = ratings["attention_passed"].map(lambda v: v is False or (isinstance(v, (np.bool_, bool)) and not v))
    return sorted(set(ratings.loc[flag, "rater"].astype(str)))


def apply_rules(
    ratings: pd.DataFrame, rubric: Rubric | Sequence[str] | None, rules: Collection[str]
) -> tuple[pd.DataFrame, Exclusion, pd.DataFrame]:
    """The exclusion rules set at a study's creation applied to its ratings: (the ratings kept, the
    exclusion, every rater's flags). Attention failures come from the frame's `attention_passed`."""
    flags = rater_flags(ratings, rubric, failed_attention_of(ratings))
    exclusion = excluded_raters(flags, rules)
    return apply_exclusion(ratings, exclusion), exclusion, flags
