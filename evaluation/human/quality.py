"""Rater quality control: flags computed for every rater, exclusion rules declared before a study
opens, and the analysis with and without the excluded raters side by side.

Flags (`rater_flags`), for the organizer to read, never applied silently:

* straight-lining: the same score on every output of an item, on every dimension, on 80% of the
  rater's items or more (at least 3), or one score value in all their ratings (`raters.straight_lining`);
* speeder: a median time per item under SPEED_FACTOR of the median rater's (from the ratings'
  `created_at`, `raters.seconds_per_item`), with at least MIN_GAPS timed items;
* against the others: a permutation test of the rater's scores against the other raters' consensus,
  item by item, combined over items with Fisher's method (the anomaly test LMArena runs on its voters,
  Chiang et al. 2024, section 5, here on scores). On an item, the statistic is the covariance between
  the rater's scores of its outputs and the others' mean scores of the same outputs, summed over
  dimensions; its null shuffles the rater's scores among the item's outputs (each dimension on its
  own), PERMUTATIONS draws. Two one-sided p per item, combined over the rater's items:
  `against_p` (small: the rater ranks outputs the other way round from everybody else, item after
  item) and `agree_p` (small: the rater agrees with the others beyond chance; large with many items:
  their scores look unrelated to what they read). Flagged: against_p < FLAG_P.

Exclusion rules (`RULES`, `excluded_raters`): "attention" (any failed attention item), "straight-lining",
"speeder", "against", or any set of them. `with_and_without` runs the primary analysis on all raters and
on the raters kept, and says in words which conclusions change.
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
from scipy import stats

from common.rubric import Rubric, rubric_of

from . import raters as hr

SPEED_FACTOR = 1 / 3  # a median time per item under a third of the median rater's
MIN_GAPS = 3  # timed items needed before anyone is called a speeder
PERMUTATIONS = 2000
FLAG_P = 0.01
RULES: dict[str, str] = {
    "attention": "failed any attention item",
    "straight-lining": "gave the same score everywhere",
    "speeder": "took far less time per item than the others",
    "against": "scored against the other raters' consensus",
}
FLAG_COLUMNS = [
    "rater",
    "items",
    "ratings",
    "attention_failed",
    "straight_lining",
    "flat_items_share",
    "median_s_per_item",
    "speeder",
    "tested_items",
    "agree_p",
    "against_p",
    "against",
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
    dims = [d for d in range(mine.shape[1]) if usable[:, d].sum() >= 2 and np.ptp(consensus[usable[:, d], d]) > 0]
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
    if not ps:
        return math.nan
    return float(stats.chi2.sf(-2 * np.sum(np.log(ps)), 2 * len(ps)))


def rater_flags(
    ratings: pd.DataFrame,
    rubric: Rubric | Sequence[str] | None = None,
    failed_attention: Collection[str] = (),
    seed: int = 0,
) -> pd.DataFrame:
    """FLAG_COLUMNS, one row per rater: every flag of the module docstring and `flags`, the names of
    the flags raised (a rule of `RULES` each)."""
    dims = list(rubric_of(rubric).names)
    if ratings.empty:
        return pd.DataFrame(columns=FLAG_COLUMNS)
    ratings = ratings.assign(rater=ratings["rater"].astype(str))
    flat = hr.straight_lining(ratings, dims).set_index("rater")
    seconds = hr.seconds_per_item(ratings)
    gaps = hr.timed_items(ratings)
    tests = consensus_tests(ratings, dims, seed=seed).set_index("rater")
    typical = float(np.nanmedian(seconds.to_numpy(float))) if seconds.notna().any() else math.nan
    failed = {str(r) for r in failed_attention}
    rows = []
    for rater in sorted(set(ratings["rater"].astype(str))):
        secs = float(seconds.get(rater, math.nan))
        speeder = bool(np.isfinite(secs) and gaps.get(rater, 0) >= MIN_GAPS and secs < SPEED_FACTOR * typical)
        against_p = float(tests["against_p"].get(rater, math.nan))
        row = {
            "rater": rater,
            "items": int(flat.loc[rater, "items"]),
            "ratings": int(flat.loc[rater, "ratings"]),
            "attention_failed": rater in failed,
            "straight_lining": bool(flat.loc[rater, "straight_lining"]),
            "flat_items_share": float(flat.loc[rater, "flat_items_share"]),
            "median_s_per_item": secs,
            "speeder": speeder,
            "tested_items": int(tests["tested_items"].get(rater, 0)),
            "agree_p": float(tests["agree_p"].get(rater, math.nan)),
            "against_p": against_p,
            "against": bool(np.isfinite(against_p) and against_p < FLAG_P),
        }
        row["flags"] = [
            rule
            for rule, on in (
                ("attention", row["attention_failed"]),
                ("straight-lining", row["straight_lining"]),
                ("speeder", speeder),
                ("against", row["against"]),
            )
            if on
        ]
        rows.append(row)
    return pd.DataFrame(rows, columns=FLAG_COLUMNS)


def flag_words(row: Mapping[str, Any]) -> str:
    """One plain line about one rater: what stands out, or that nothing does."""
    notes = []
    if row.get("attention_failed"):
        notes.append("failed an attention item")
    if row.get("straight_lining"):
        share = row.get("flat_items_share", math.nan)
        notes.append(
            f"gave the same score everywhere on {share:.0%} of their items"
            if np.isfinite(share)
            else "used a single score value"
        )
    if row.get("speeder"):
        notes.append(f"a median of {row['median_s_per_item']:.0f} s per item, far below the others'")
    tested, agree, against = row.get("tested_items", 0), row.get("agree_p", math.nan), row.get("against_p", math.nan)
    if row.get("against"):
        notes.append(
            f"ranked the responses against the other raters' consensus (p = {against:.2g} over {tested} items)"
        )
    elif tested >= 5 and np.isfinite(agree) and agree > 0.5:
        notes.append(f"scores unrelated to the other raters' on {tested} items (no agreement beyond chance)")
    who = str(row.get("rater"))
    return f"{who}: " + "; ".join(notes) + "." if notes else f"{who}: nothing stands out."


@dataclass(frozen=True)
class Exclusion:
    """Who a rule excluded: the rule's names, the raters dropped and the raters there were."""

    rules: tuple[str, ...]
    raters: tuple[str, ...]
    n_raters: int

    @property
    def n(self) -> int:
        return len(self.raters)

    def words(self, when: str = "by the rule set in advance") -> str:
        """ "3 of 14 raters excluded by the rule set in advance (failed any attention item)"."""
        if not self.rules:
            return "No exclusion rule: every rater is analysed."
        what = "; ".join(RULES[r] for r in self.rules)
        return f"{self.n} of {self.n_raters} raters excluded {when} ({what})."

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


def sensitivity_words(table: pd.DataFrame, exclusion: Exclusion, alpha: float = 0.05) -> str:
    """One line: whether excluding the raters changes any conclusion of the headline family."""
    if not exclusion.n:
        return "No rater was excluded: there is nothing to compare."
    changed = table[table["changed"]]
    head = f"With and without the {exclusion.n} excluded rater{'s' if exclusion.n != 1 else ''}: "
    if changed.empty:
        return (
            head
            + f"the same conclusions at α = {alpha} (adjusted over the family), so they do not hinge on the exclusion."
        )
    parts = []
    for r in changed.itertuples():
        found = [
            name
            for name, p in (("only with every rater", r.p_family_all), ("only without the excluded", r.p_family_kept))
            if pd.notna(p) and p < alpha
        ]
        parts.append(
            f"{r.method_a} vs {r.method_b} on {r.dimension} is a clear difference {' and '.join(found) or 'in neither'}"
        )
    return head + "the conclusions differ: " + "; ".join(parts) + "."


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
