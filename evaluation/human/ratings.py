"""Reading a ratings CSV (an `arena.export` file, or one with just `REQUIRED_COLUMNS`) for the statistics.

Bad input (no file, not a CSV, a missing column, a score outside 1-5, an empty file, the same rater
rating the same output twice with different scores) is a `UserError` naming the file and the line.
The same rating repeated exactly (a file concatenated twice) is collapsed, with a warning.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from arena.readers import read_csv
from common.errors import UserError

from .columns import DIMENSIONS, REQUIRED_COLUMNS


def read_ratings(path: str) -> pd.DataFrame:
    """`read_ratings_and_warnings` without the warnings."""
    return read_ratings_and_warnings(path)[0]


def read_ratings_and_warnings(path: str) -> tuple[pd.DataFrame, list[str]]:
    """A ratings CSV (an `arena.export` file or just REQUIRED_COLUMNS; others ignored), validated.

    From an export of format 3 on, only rows of kind "rating" are ratings (skips and flags are not),
    and a score may be empty where the row's `cant_judge` names its dimension: it is read as NaN,
    missing data to every statistic. Exact repeats of a rating are dropped (a warning says how
    many); a rater rating one output twice with different scores is an error."""
    table = read_csv(path)
    missing = [c for c in REQUIRED_COLUMNS if c not in table.header]
    if missing:
        raise UserError(f"{path}: missing column(s) {', '.join(missing)}")
    rows = table.rows
    if "row_kind" in table.header:
        rows = [r for r in rows if r.values["row_kind"].strip() in ("", "rating")]
    if not rows:
        raise UserError(f"{path} has no ratings")
    df = pd.DataFrame([r.values for r in rows], columns=table.header, dtype=str)
    line = [r.line for r in rows]  # the file's line of each row, for errors
    cant = (df["cant_judge"] if "cant_judge" in df.columns else pd.Series("", index=df.index)).str.split(",")
    for col in ("study_id", "item_id", "output_id", "method", "rater"):
        blank = df[col].str.strip() == ""
        if blank.any():
            raise UserError(f"{path}, line {line[int(np.flatnonzero(blank)[0])]}: {col} is empty")
    out = df.copy()
    for dim in DIMENSIONS:
        values = pd.to_numeric(df[dim].str.strip(), errors="coerce")
        unjudged = cant.map(lambda dims, d=dim: d in [x.strip() for x in dims]) & (df[dim].str.strip() == "")
        bad = (values.isna() | ~values.isin([1, 2, 3, 4, 5])) & ~unjudged
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise UserError(f"{path}, line {line[row]}: {dim} = {df[dim].iloc[row]!r} is not a score from 1 to 5")
        out[dim] = values.astype(float) if unjudged.any() else values.astype(int)
    given = df["position"].str.strip() != ""
    pos = pd.to_numeric(df["position"].str.strip().replace("", np.nan), errors="coerce")
    if (pos.isna() & given).any():
        row = int(np.flatnonzero(pos.isna() & given)[0])
        raise UserError(f"{path}, line {line[row]}: position = {df['position'].iloc[row]!r} is not a number")
    out["position"] = pos
    for col in ("study_id", "item_id", "output_id", "method", "rater"):
        out[col] = df[col].str.strip()
    return _without_repeats(out, path, line)


def _without_repeats(df: pd.DataFrame, path: str, line: list[int]) -> tuple[pd.DataFrame, list[str]]:
    keys = ["study_id", "rater", "output_id"]
    dup = df.duplicated(keys, keep=False)
    if not dup.any():
        return df, []
    scores = df.loc[dup, keys + list(DIMENSIONS)].astype(str)
    conflicting = scores.drop_duplicates().duplicated(keys, keep=False)
    if conflicting.any():
        first = scores.drop_duplicates()[conflicting].iloc[0]
        rows = [line[int(k)] for k in np.flatnonzero((df[keys].astype(str) == first[keys].values).all(axis=1))]
        raise UserError(
            f"{path}, lines {', '.join(map(str, rows[:3]))}: rater {first['rater']!r} rated output "
            f"{first['output_id']!r} of study {first['study_id']!r} more than once with different scores"
        )
    repeats = int(df.duplicated(keys).sum())
    out = df.drop_duplicates(keys).reset_index(drop=True)
    return out, [f"{path}: {repeats} exact repeat(s) of a rating (same rater, output and scores) counted once"]
