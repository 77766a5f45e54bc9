"""Issue 47: a number the table cannot have says why. An import of ratings without texts showed
"repetition 0.0" (figures from nothing) and MAUVE a bare "–"; now "no texts" and "needs ≥ 10 texts"."""

from __future__ import annotations

import math

import pandas as pd

from evaluation import results as res


def outputs(method: str, texts: list[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "output_id": range(len(texts)),
            "method": method,
            "text": texts,
            "latency_ms": [10.0] * len(texts),
            "new_tokens": [5] * len(texts),
        }
    )


def ratings() -> pd.DataFrame:
    return pd.DataFrame(columns=["method", "item_id", "rater", "dimension", "score", "output_id"])


def row(texts: list[str]) -> pd.Series:
    summary = res.method_summary(ratings(), outputs("TS-Temp", texts))
    return res.display_table(summary).iloc[0]


def test_an_import_without_texts_says_so_instead_of_repetition_zero():
    cells = row(["", "  ", ""])
    for key in res.TEXT_METRICS:
        assert cells[res.COLUMNS[key]] == "no texts", key
    assert cells[res.COLUMNS["mauve"]] == "needs ≥ 10 texts"


def test_real_texts_keep_their_figures_and_mauve_without_a_scorer_stays_a_dash():
    texts = [f"the river carries stone number {k} over the quiet city" for k in range(12)]
    cells = row(texts)
    assert cells[res.COLUMNS["repetition_pct"]] == "0.0" and cells[res.COLUMNS["distinct_2"]] != "no texts"
    assert cells[res.COLUMNS["mauve"]] == "–"  # enough texts: MAUVE was simply not asked for
    few = row(texts[:3])
    assert few[res.COLUMNS["mauve"]] == "needs ≥ 10 texts"
    assert res.mauve_cell({"mauve": 0.8, "mauve_ci_low": 0.7, "mauve_ci_high": 0.9}) == "0.80 [0.70–0.90]"
    assert res.mauve_cell({"mauve": math.nan}) == "–"  # an older summary without a count of texts
