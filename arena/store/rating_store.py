"""Ratings: saving them, counting them, the frames the evaluation reads and a study's progress."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
from sqlalchemy import case, func, select

from common.errors import UserError

from .columns import EXTRA_COLUMNS, FLOAT_COLUMNS, JOIN_COLUMNS, OUTPUT_COLUMNS, RATING_COLUMNS
from .rows import Rating, from_row
from .schema import (
    SCORE_COLUMNS,
    cant_judge_column,
    items,
    outputs,
    raters,
    ratings,
    studies,
    study_raters,
    utcnow,
)
from .transactions import StoreBase
from .values import check_score, clean_comment

CANT_JUDGE_KEY = "cant_judge"  # in a rating row for save_ratings: the dimensions the rater could not judge


def cant_judge_dims(row: Mapping[str, Any]) -> set[str]:
    """The dimensions a rating row marks as can't-judge; such a dimension must carry no score."""
    given = row.get(CANT_JUDGE_KEY) or ()
    if isinstance(given, str):
        given = [d for d in given.split(",") if d.strip()]
    dims = {str(d).strip() for d in given}
    unknown = dims - set(SCORE_COLUMNS)
    if unknown:
        raise UserError(f"can't judge: unknown dimension {', '.join(sorted(unknown))}")
    for dim in dims:
        if row.get(dim) not in (None, ""):
            raise UserError(f"{dim} is marked can't judge and has a score: give one or the other")
    return dims


def cant_judge_values(dims: Iterable[str]) -> dict[str, bool]:
    dims = set(dims)
    return {cant_judge_column(name): name in dims for name in SCORE_COLUMNS}


@dataclass(frozen=True)
class CheckedRating:
    """One rating already checked (`checked_rating`, or arena/blind.py on a rater's submit):
    `Store.save_ratings` writes it as it is, so a submit is validated once."""

    output_id: int
    scores: Mapping[str, int | None]  # every SCORE_COLUMNS name: 1..5, or None when it could not be judged
    cant_judge: frozenset[str] = frozenset()
    comment: str | None = None
    position: int | None = None
    created_at: Any = None
    updated_at: Any = None


def checked_rating(row: Mapping[str, Any]) -> CheckedRating:
    """A rating row as `save_ratings` takes it (see there), checked: scores 1..5 unless can't judge,
    the comment cleaned."""
    cant = cant_judge_dims(row)
    return CheckedRating(
        output_id=int(row["output_id"]),
        scores={name: None if name in cant else check_score(name, row.get(name)) for name in SCORE_COLUMNS},
        cant_judge=frozenset(cant),
        comment=clean_comment(row.get("comment")),
        position=None if row.get("position") is None else int(row["position"]),
        created_at=row.get("created_at"),
        updated_at=row.get("updated_at"),
    )


class RatingStore(StoreBase):
    """Ratings: saving them, counting them, the frames the evaluation reads and a study's progress. Mixed into `Store`."""

    # ---- ratings --------------------------------------------------------------------------------

    def save_ratings(self, rater_id: int, rows: Sequence[Mapping[str, Any] | CheckedRating]) -> None:
        """Insert or update several ratings in one transaction: all are stored or none.

        Each row: output_id, coherence, informativeness, naturalness, optional comment, position,
        created_at / updated_at (import only), and optional `cant_judge`: the dimensions the rater
        could not judge, stored as NULL with their flag (feedback.py). A `CheckedRating` is written
        as it is (it was checked when it was made)."""
        now = utcnow()
        clean = []
        for row in rows:
            checked = row if isinstance(row, CheckedRating) else checked_rating(row)
            values: dict[str, Any] = dict(checked.scores)
            values.update(cant_judge_values(checked.cant_judge))
            values.update(
                rater_id=int(rater_id),
                output_id=checked.output_id,
                comment=checked.comment,
                position=checked.position,
                created_at=checked.created_at or now,
                updated_at=checked.updated_at or now,
            )
            clean.append(values)
        if not clean:
            return
        with self.write() as conn:
            # One statement, many parameter sets: building the upsert per row cost ~1 ms of CPU each.
            conn.execute(self._ratings_upsert(), clean)

    def _ratings_upsert(self):
        """The ratings upsert, built once per store: building it and its cache key took ~0.5 ms of CPU per submit."""
        stmt = self._ratings_upsert_stmt
        if stmt is None:
            insert = self._insert(ratings)
            changed = {
                name: insert.excluded[name]
                for name in (*SCORE_COLUMNS, *cant_judge_values(()), "comment", "position", "updated_at")
            }
            stmt = self._ratings_upsert_stmt = insert.on_conflict_do_update(
                index_elements=["rater_id", "output_id"], set_=changed
            )
        return stmt

    def save_rating(
        self,
        rater_id: int,
        output_id: int,
        coherence: object,
        informativeness: object,
        naturalness: object,
        comment: object = None,
        position: int | None = None,
    ) -> None:
        self.save_ratings(
            rater_id,
            [
                dict(
                    output_id=output_id,
                    coherence=coherence,
                    informativeness=informativeness,
                    naturalness=naturalness,
                    comment=comment,
                    position=position,
                )
            ],
        )

    def ratings_for(self, rater_id: int, output_ids: Iterable[int]) -> dict[int, Rating]:
        ids = [int(o) for o in output_ids]
        if not ids:
            return {}
        with self.read() as conn:
            rows = conn.execute(
                select(ratings).where(ratings.c.rater_id == int(rater_id), ratings.c.output_id.in_(ids))
            ).mappings()
            return {int(r["output_id"]): from_row(Rating, r) for r in rows}

    def item_counts(self, study_id: int, rater_id: int | None = None) -> dict[int, tuple[int, int]]:
        """{item_id: (outputs stored, outputs rated by `rater_id`)} for a study, in two queries."""
        with self.read() as conn:
            stored = conn.execute(
                select(outputs.c.item_id, func.count())
                .join(items, items.c.id == outputs.c.item_id)
                .where(items.c.study_id == int(study_id))
                .group_by(outputs.c.item_id)
            ).all()
        done = {} if rater_id is None else self.rated_counts(study_id, rater_id)
        return {int(i): (int(n), done.get(int(i), 0)) for i, n in stored}

    def rated_counts(self, study_id: int, rater_id: int) -> dict[int, int]:
        """{item_id: outputs rated by `rater_id`} for the items of a study they rated anything of."""
        with self.read() as conn:
            rated = conn.execute(
                select(outputs.c.item_id, func.count())
                .join(ratings, ratings.c.output_id == outputs.c.id)
                .join(items, items.c.id == outputs.c.item_id)
                .where(items.c.study_id == int(study_id), ratings.c.rater_id == int(rater_id))
                .group_by(outputs.c.item_id)
            ).all()
        return {int(i): int(n) for i, n in rated}

    def count_ratings(self) -> int:
        with self.read() as conn:
            return int(conn.execute(select(func.count()).select_from(ratings)).scalar_one())

    # ---- frames for analysis (the evaluation reads these) ---------------------------------------

    def outputs_frame(self, study_id: int | None = None) -> pd.DataFrame:
        """One row per output: OUTPUT_COLUMNS, then sample_index and language."""
        query = select(*[JOIN_COLUMNS[c].label(c) for c in OUTPUT_COLUMNS + EXTRA_COLUMNS]).select_from(
            outputs.join(items, items.c.id == outputs.c.item_id).join(studies, studies.c.id == items.c.study_id)
        )
        if study_id is not None:
            query = query.where(studies.c.id == int(study_id))
        query = query.order_by(studies.c.id, items.c.ordinal, outputs.c.method, outputs.c.sample_index)
        with self.read() as conn:
            rows = conn.execute(query).all()
        return _frame(rows, OUTPUT_COLUMNS + EXTRA_COLUMNS)

    def _rating_join(self, columns: Sequence[str], study_id: int | None):
        """The one query of ratings joined with their output, item, study and rater (`JOIN_COLUMNS`)."""
        query = (
            select(*[JOIN_COLUMNS[c].label(c) for c in columns])
            .select_from(
                ratings.join(outputs, outputs.c.id == ratings.c.output_id)
                .join(items, items.c.id == outputs.c.item_id)
                .join(studies, studies.c.id == items.c.study_id)
                .join(raters, raters.c.id == ratings.c.rater_id)
            )
            # By what the rater saw (the letter), never by method: row k of an (item, rater) group was the
            # k-th method alphabetically on main b69a925, which gave the organizer's blind export of an
            # open study every rater's mapping (issue 32). Imported ratings without a position follow
            # their row id, which an import numbers in the file's order.
            .order_by(studies.c.id, items.c.ordinal, raters.c.name, ratings.c.position, ratings.c.id)
        )
        return query if study_id is None else query.where(studies.c.id == int(study_id))

    def ratings_frame(self, study_id: int | None = None) -> pd.DataFrame:
        """One row per rating: RATING_COLUMNS, then sample_index and language. Scores are ints 1..5; position 0 = A."""
        with self.read() as conn:
            rows = conn.execute(self._rating_join(RATING_COLUMNS + EXTRA_COLUMNS, study_id)).all()
        return _frame(rows, RATING_COLUMNS + EXTRA_COLUMNS)

    def rating_records(self, columns: Sequence[str], study_id: int | None = None) -> list[dict[str, Any]]:
        """One {column: value} per rating, in `ratings_frame`'s order, for any of `JOIN_COLUMNS` (the export)."""
        with self.read() as conn:
            return [dict(r) for r in conn.execute(self._rating_join(columns, study_id)).mappings()]

    # ---- progress -------------------------------------------------------------------------------

    def progress(self, study_id: int) -> pd.DataFrame:
        """Per rater in a study: items fully rated, ratings given, first and last rating time."""
        n_outputs = (
            select(outputs.c.item_id, func.count().label("n"))
            .join(items, items.c.id == outputs.c.item_id)
            .where(items.c.study_id == int(study_id))
            .group_by(outputs.c.item_id)
            .subquery()
        )
        per_item = (
            select(
                ratings.c.rater_id,
                outputs.c.item_id,
                func.count().label("done"),
                func.min(ratings.c.created_at).label("first"),
                func.max(ratings.c.updated_at).label("last"),
            )
            .join(outputs, outputs.c.id == ratings.c.output_id)
            .join(items, items.c.id == outputs.c.item_id)
            .where(items.c.study_id == int(study_id))
            .group_by(ratings.c.rater_id, outputs.c.item_id)
            .subquery()
        )
        query = (
            select(
                raters.c.name.label("rater"),
                func.sum(case((per_item.c.done >= n_outputs.c.n, 1), else_=0)).label("items_done"),
                func.sum(per_item.c.done).label("ratings"),
                func.min(per_item.c.first).label("first_rating"),
                func.max(per_item.c.last).label("last_rating"),
            )
            .select_from(
                per_item.join(n_outputs, n_outputs.c.item_id == per_item.c.item_id).join(
                    raters, raters.c.id == per_item.c.rater_id
                )
            )
            .group_by(raters.c.name)
            .order_by(raters.c.name)
        )
        with self.read() as conn:
            rows = conn.execute(query).all()
        frame = pd.DataFrame(
            [tuple(r) for r in rows], columns=["rater", "items_done", "ratings", "first_rating", "last_rating"]
        )
        for col in ("items_done", "ratings"):
            frame[col] = frame[col].astype("int64")
        return frame

    def study_summary(self, study_id: int) -> dict[str, int]:
        with self.read() as conn:
            n_items = conn.execute(
                select(func.count()).select_from(items).where(items.c.study_id == int(study_id))
            ).scalar_one()
            n_outputs = conn.execute(
                select(func.count())
                .select_from(outputs.join(items, items.c.id == outputs.c.item_id))
                .where(items.c.study_id == int(study_id))
            ).scalar_one()
            n_ratings = conn.execute(
                select(func.count())
                .select_from(
                    ratings.join(outputs, outputs.c.id == ratings.c.output_id).join(
                        items, items.c.id == outputs.c.item_id
                    )
                )
                .where(items.c.study_id == int(study_id))
            ).scalar_one()
            n_raters = conn.execute(
                select(func.count()).select_from(study_raters).where(study_raters.c.study_id == int(study_id))
            ).scalar_one()
        return {"items": int(n_items), "outputs": int(n_outputs), "ratings": int(n_ratings), "raters": int(n_raters)}


def _frame(rows: Sequence[Any], columns: Sequence[str]) -> pd.DataFrame:
    frame = pd.DataFrame([tuple(r) for r in rows], columns=list(columns))
    ints = ["study_id", "item_id", "output_id", "new_tokens", "sample_index", *SCORE_COLUMNS]
    for col in ints:
        if col in frame:
            # A NULL score is a "can't judge" answer: the column is then float with NaN (missing data
            # to every statistic), never a number that would be averaged in.
            missing = col in SCORE_COLUMNS and frame[col].isna().any()
            frame[col] = frame[col].astype("float64" if missing else "int64")
    for col in ("seed", "position"):
        if col in frame:
            frame[col] = frame[col].astype("Int64")
    for col in sorted(FLOAT_COLUMNS):
        if col in frame:
            frame[col] = frame[col].astype("float64")
    for col in ("created_at", "updated_at"):
        if col in frame:
            frame[col] = pd.to_datetime(frame[col], utc=True)
    return frame
