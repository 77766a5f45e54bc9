"""The analysis of a rubric's choice questions (common/questions/choice.py) and the list of its text
answers: what the scales' statistics never read.

A choice ("Which error: repetition / off-topic / factual?") is counted per method and label, and one
test per question asks whether the answers depend on the method. The labels are not ordered, so no
mean. Ratings are not independent (the same rater answers every response of an item), so the test is
a permutation test that respects the design: under "the method makes no difference" the methods'
answers are exchangeable within each (item, rater) group, so the method labels are shuffled there
(`PERMUTATIONS` times) and the chi-square statistic of the method x label table is compared with its
shuffled values. Valid with small counts, where the chi-square approximation is not; scipy's
chi-square p is reported beside it for reference. Exploratory: outside the scales' headline family.

Comments (a text question) are listed for the organizer, never analysed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from common.messages import english, text
from common.rubric import Rubric

PERMUTATIONS = 2000
COUNT_COLUMNS = ["question", "method", "label", "n", "share"]
TEST_COLUMNS = ["question", "n_ratings", "chi2", "df", "p_value", "p_chi2", "test"]
COMMENT_COLUMNS = ["question", "method", "item_id", "text"]
TEST_WORDS = english("hw_choice_test").format(n=PERMUTATIONS)


def choice_counts(ratings: pd.DataFrame, rubric: Rubric, methods: Sequence[str]) -> pd.DataFrame:
    """Per choice question, method and label: the answers (can't judge left out) and their share of
    the method's answers."""
    rows = []
    for q in rubric.of_analysis("counts"):
        if q.name not in ratings:
            continue
        answered = ratings.dropna(subset=[q.name])
        for m in methods:
            given = answered.loc[answered["method"] == m, q.name].astype(int)
            total = len(given)
            for k, label in enumerate(q.labels):
                n = int((given == k).sum())
                rows.append([q.name, m, label, n, n / total if total else math.nan])
    return pd.DataFrame(rows, columns=COUNT_COLUMNS)


def _chi2(table: np.ndarray) -> float:
    """The chi-square statistic of a table, over the rows and columns with any count."""
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    if min(table.shape) < 2:
        return 0.0
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
    return float(((table - expected) ** 2 / expected).sum())


def independence_test(
    ratings: pd.DataFrame, question: str, n_labels: int, methods: Sequence[str], seed: int = 0
) -> dict[str, Any]:
    """Whether the answers to one choice question depend on the method (see the module's words)."""
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    frame = ratings.dropna(subset=[question])
    frame = frame[frame["method"].isin(methods)]
    index = {m: i for i, m in enumerate(methods)}
    method = frame["method"].map(index).to_numpy(dtype=int)
    label = frame[question].to_numpy(dtype=int)
    out = {"question": question, "n_ratings": len(frame), "test": TEST_WORDS}
    table = np.zeros((len(methods), n_labels))
    np.add.at(table, (method, label), 1)
    seen = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    if min(seen.shape, default=0) < 2:
        return out | {"chi2": math.nan, "df": 0, "p_value": math.nan, "p_chi2": math.nan}
    observed = _chi2(table)
    groups = frame.groupby(["item_id", "rater"], sort=False).indices.values()
    rng = np.random.default_rng(seed)
    as_many = 0
    for _ in range(PERMUTATIONS):
        shuffled = method.copy()
        for at in groups:
            shuffled[at] = shuffled[rng.permutation(at)]
        drawn = np.zeros_like(table)
        np.add.at(drawn, (shuffled, label), 1)
        as_many += _chi2(drawn) >= observed - 1e-9
    p_chi2 = float(stats.chi2_contingency(seen, correction=False)[1])
    df = (seen.shape[0] - 1) * (seen.shape[1] - 1)
    return out | {"chi2": observed, "df": df, "p_value": (as_many + 1) / (PERMUTATIONS + 1), "p_chi2": p_chi2}


def choice_tests(ratings: pd.DataFrame, rubric: Rubric, methods: Sequence[str], seed: int = 0) -> pd.DataFrame:
    rows = [
        independence_test(ratings, q.name, len(q.labels), methods, seed)
        for q in rubric.of_analysis("counts")
        if q.name in ratings
    ]
    return pd.DataFrame(rows, columns=TEST_COLUMNS)


def explain_choice(test: dict[str, Any], counts: pd.DataFrame, lang: str = "en") -> str:
    """One line per choice question: what each method's raters picked most, and the test, in `lang`."""
    mine = counts[counts["question"] == test["question"]]
    most = []
    for method, group in mine.groupby("method", sort=False):
        if group["n"].sum():
            top = group.loc[group["n"].idxmax()]
            most.append(text("hw_choice_mostly", lang, method=method, label=top["label"], share=top["share"]))
    picked = text("story_join", lang).join(most) or text("hw_choice_no_answers", lang)
    if not np.isfinite(test.get("p_value", math.nan)):
        return text("hw_choice_not_testable", lang, question=test["question"], picked=picked)
    verdict = text("hw_choice_depends" if test["p_value"] < 0.05 else "hw_choice_no_evidence", lang)
    return text(
        "hw_choice", lang, question=test["question"], picked=picked, verdict=verdict, chi2=test["chi2"],
        p=test["p_value"], test=text("hw_choice_test", lang, n=PERMUTATIONS), n=test["n_ratings"],
    )  # fmt: skip


def comments(ratings: pd.DataFrame, rubric: Rubric) -> pd.DataFrame:
    """Every text answer, by question, method and item: for the organizer to read, never analysed."""
    rows = [
        [q.name, r["method"], r["item_id"], str(r[q.name])]
        for q in rubric.of_analysis(None)
        if q.name in ratings
        for r in ratings.dropna(subset=[q.name]).to_dict("records")
        if str(r[q.name]).strip()
    ]
    return pd.DataFrame(rows, columns=COMMENT_COLUMNS)
