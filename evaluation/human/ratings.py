"""Reading a ratings CSV for the statistics: wide (an `arena.files.export` file, or one with just
`REQUIRED_COLUMNS`: one row per rating, one column per dimension) or long (`arena.files.long_ratings`: one
row per score, `study_id, item_id, rater, method, dimension, score`, any rubric and scale).

Both give the same frame: one row per (study, item, rater, output) with a column per dimension (NaN =
"can't judge"), `attention_passed` per rater where the file records it, and each study's rubric.

Bad input (no file, not a CSV, a missing column, a score outside its scale, an unknown dimension, a
scale that does not parse, an empty file, the same rater rating the same output twice with different
scores) is a `UserError` naming the file and the line. The same rating repeated exactly (a file
concatenated twice) is collapsed, with a warning.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from arena.files.export_columns import is_open
from arena.files.long_ratings import LongFile, is_long, long_ratings
from arena.files.readers import CsvTable, read_csv
from common.errors import UserError
from common.rubric import DEFAULT_RUBRIC, Rubric

from .columns import ID_COLUMNS

ALL = ""  # a scale for every dimension (as arena.files.long_ratings.ALL)


@dataclass
class RatingsFile:
    """A ratings file as the statistics read it: the frame, each study's rubric, the raters who failed
    an attention check (study -> raters; empty where the file records none) and the warnings."""

    frame: pd.DataFrame
    rubrics: dict[str, Rubric]
    warnings: list[str] = field(default_factory=list)
    failed_attention: dict[str, list[str]] = field(default_factory=dict)
    format: str = "wide"


def read_ratings(path: str) -> pd.DataFrame:
    """`read_ratings_file(path).frame`."""
    return read_ratings_file(path).frame


def read_ratings_and_warnings(path: str) -> tuple[pd.DataFrame, list[str]]:
    """(frame, warnings) of `read_ratings_file`."""
    out = read_ratings_file(path)
    return out.frame, out.warnings


def read_ratings_file(
    path: str, scales: Mapping[str, tuple[int, int]] | None = None, dimensions: Sequence[str] | None = None
) -> RatingsFile:
    """A ratings CSV, wide or long (told apart by its header), validated against its rubric: `scales`
    ({dimension: (low, high)}, ALL for every one) and `dimensions` (the names to expect) where given,
    else the file's own (long: its dimensions, `scale_min`/`scale_max`; wide: an export's
    `study_rubric` column), else the default rubric."""
    table = read_csv(path)
    if is_long(table.header):
        return long_frame(long_ratings(table, path, scales, dimensions))
    return _wide(table, path, scales, dimensions)


def long_frame(data: LongFile) -> RatingsFile:
    """The statistics' frame of a long-format file (`arena.files.long_ratings`)."""
    rows = []
    for study in data.studies:
        failed = set(study.failed_attention)
        for r in study.ratings:
            rows.append(
                {
                    "study_id": r.study_id,
                    "study_name": study.name,
                    "item_id": r.item_id,
                    "output_id": r.output_id,
                    "method": r.method,
                    "rater": r.rater,
                    "position": np.nan if r.position is None else float(r.position),
                    "created_at": r.created_at,
                    "attention_passed": (r.rater not in failed) if r.rater in study.attention else None,
                    **{d: np.nan if s is None else s if isinstance(s, str) else float(s) for d, s in r.scores.items()},
                }
            )
    frame = pd.DataFrame(rows)
    if frame["created_at"].isna().all():
        frame = frame.drop(columns="created_at")
    return RatingsFile(
        frame=frame,
        rubrics={s.study_id: s.rubric for s in data.studies},
        warnings=list(data.warnings),
        failed_attention={s.study_id: list(s.failed_attention) for s in data.studies},
        format="long",
    )


def _wide_rubrics(
    df: pd.DataFrame, path: str, scales: Mapping[str, tuple[int, int]] | None, dimensions: Sequence[str] | None
) -> dict[str, Rubric]:
    """Each study's rubric: `dimensions` and `scales` given, else the export's `study_rubric`, else the default."""
    out: dict[str, Rubric] = {}
    for sid in dict.fromkeys(df["study_id"].str.strip()):
        rubric = DEFAULT_RUBRIC
        if dimensions is not None:
            rubric = Rubric.uniform(dimensions)
        elif "study_rubric" in df.columns:
            raw = next((t for t in df.loc[df["study_id"].str.strip() == sid, "study_rubric"] if t.strip()), "")
            rubric = Rubric.from_json(raw) if raw else DEFAULT_RUBRIC
        if scales:
            unknown = [k for k in scales if k != ALL and k not in rubric.names]
            if unknown:
                raise UserError(
                    f"{path}: a scale was given for {', '.join(map(repr, unknown))}, which is not a dimension"
                )
            rubric = Rubric.from_dict(
                {
                    "dimensions": [
                        # --scale is for scales: yes/no, a choice or a comment keep their own values
                        d.to_dict() | (_scale_dict(scales.get(d.name, scales.get(ALL))) if d.kind == "scale" else {})
                        for d in rubric.dimensions
                    ]
                }
            )
        out[sid] = rubric
    return out


def _scale_dict(scale: tuple[int, int] | None) -> dict[str, int]:
    return {} if scale is None else {"low": int(scale[0]), "high": int(scale[1])}


def _wide(
    table: CsvTable, path: str, scales: Mapping[str, tuple[int, int]] | None, dimensions: Sequence[str] | None
) -> RatingsFile:
    """A wide file (one row per rating, one column per dimension), validated against each study's rubric.

    From an export of format 3 on, only rows of kind "rating" are ratings (skips and flags are not), and a
    score may be empty where the row's `cant_judge` names its dimension: it is read as NaN, missing data to
    every statistic."""
    missing = [c for c in ID_COLUMNS if c not in table.header]
    if missing:
        raise UserError(f"{path}: missing column(s) {', '.join(missing)}")
    rows = table.rows
    if "row_kind" in table.header:
        rows = [r for r in rows if r.values["row_kind"].strip() in ("", "rating")]
    if not rows:
        raise UserError(f"{path} has no ratings")
    df = pd.DataFrame([r.values for r in rows], columns=table.header, dtype=str)
    line = [r.line for r in rows]  # the file's line of each row, for errors
    for col in ("study_id", "item_id", "output_id", "method", "rater"):
        blank = df[col].str.strip() == ""
        if blank.any():
            at = int(np.flatnonzero(blank)[0])
            sealed = "study_state" in df and is_open(df["study_state"].iloc[at].strip() or None)
            why = (
                "; its study was open when it was exported (no method yet): close it and export again" if sealed else ""
            )
            raise UserError(f"{path}, line {line[at]}: {col} is empty{why}")
    rubrics = _wide_rubrics(df, path, scales, dimensions)
    names = list(dict.fromkeys(n for r in rubrics.values() for n in r.names))
    missing = [n for n in names if n not in table.header]
    if missing:
        raise UserError(f"{path}: missing column(s) {', '.join(missing)}")
    out = df.copy()
    cant = (df["cant_judge"] if "cant_judge" in df.columns else pd.Series("", index=df.index)).str.split(",")
    study = df["study_id"].str.strip()
    asked = {d.name: d for r in rubrics.values() for d in r.dimensions}
    for dim in names:
        if not asked[dim].values:  # a comment: text, never a number (common/questions/text.py)
            out[dim] = df[dim].where(df[dim].str.strip() != "")
            continue
        if asked[dim].kind == "choice":  # its label, as the export writes it, to the stored index
            df[dim] = df[dim].map(
                lambda cell, q=asked[dim]: str(q.labels.index(cell.strip())) if cell.strip() in q.labels else cell
            )
        values = pd.to_numeric(df[dim].str.strip(), errors="coerce")
        unjudged = cant.map(lambda dims, d=dim: d in [x.strip() for x in dims]) & (df[dim].str.strip() == "")
        rated = study.map(lambda s, d=dim: d in rubrics[s].names)
        low = study.map(lambda s, d=dim: rubrics[s].dimension(d).low if d in rubrics[s].names else np.nan)
        high = study.map(lambda s, d=dim: rubrics[s].dimension(d).high if d in rubrics[s].names else np.nan)
        bad = rated & (values.isna() | (values % 1 != 0) | (values < low) | (values > high)) & ~unjudged
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise UserError(
                f"{path}, line {line[row]}: {dim} = {df[dim].iloc[row]!r} is not a score from "
                f"{int(low.iloc[row])} to {int(high.iloc[row])}"
            )
        values = values.where(rated)
        out[dim] = values.astype(float) if values.isna().any() else values.astype(int)
    given = df["position"].str.strip() != ""
    pos = pd.to_numeric(df["position"].str.strip().replace("", np.nan), errors="coerce")
    if (pos.isna() & given).any():
        row = int(np.flatnonzero(pos.isna() & given)[0])
        raise UserError(f"{path}, line {line[row]}: position = {df['position'].iloc[row]!r} is not a number")
    out["position"] = pos
    for col in ("study_id", "item_id", "output_id", "method", "rater"):
        out[col] = df[col].str.strip()
    failed = _wide_attention(out, path, line)
    frame, notes = _without_repeats(out, path, line, names)
    return RatingsFile(frame, rubrics, notes, failed)


def _wide_attention(df: pd.DataFrame, path: str, line: list[int]) -> dict[str, list[str]]:
    """Raters with any false `attention_passed` per study (the column is optional); the column becomes
    True/False/None per row, the rater's verdict."""
    if "attention_passed" not in df.columns:
        return {}
    text = df["attention_passed"].fillna("").astype(str).str.strip().str.lower()
    truth = {"true": True, "yes": True, "1": True, "pass": True, "false": False, "no": False, "0": False, "fail": False}
    bad = ~text.isin([*truth, ""])
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise UserError(
            f"{path}, line {line[row]}: attention_passed = {df['attention_passed'].iloc[row]!r} is not true or false"
        )
    flag = text.map(truth)
    failed = {
        str(sid): list(dict.fromkeys(g.loc[flag[g.index] == False, "rater"]))  # noqa: E712 (a Series of bools and None)
        for sid, g in df.groupby("study_id", sort=False)
    }
    recorded = flag.notna().groupby([df["study_id"], df["rater"]]).transform("any")
    bad_rater = pd.Series([(s, r) for s, r in zip(df["study_id"], df["rater"])], index=df.index).isin(
        {(s, r) for s, raters in failed.items() for r in raters}
    )
    df["attention_passed"] = np.where(recorded, ~bad_rater, None)
    return {s: r for s, r in failed.items() if r}


def _without_repeats(
    df: pd.DataFrame, path: str, line: list[int], dimensions: Sequence[str]
) -> tuple[pd.DataFrame, list[str]]:
    keys = ["study_id", "rater", "output_id"]
    dup = df.duplicated(keys, keep=False)
    if not dup.any():
        return df, []
    scores = df.loc[dup, keys + list(dimensions)].astype(str)
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
