"""Ratings: saving them, counting them, the frames the evaluation reads and a study's progress."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
from sqlalchemy import and_, case, delete, func, select, union

from arena.rating.dimensions import SCORE_COLUMNS
from common.errors import UserError
from common.rubric import DEFAULT_RUBRIC, Rubric, rubric_from

from .columns import EXTRA_COLUMNS, FLOAT_COLUMNS, JOIN_COLUMNS, OUTPUT_COLUMNS, RATING_COLUMNS
from .rows import Rating, from_row
from .schema import (
    items,
    outputs,
    raters,
    rating_scores,
    rating_texts,
    ratings,
    studies,
    study_raters,
    utcnow,
    votes,
)
from .transactions import StoreBase
from .values import check_dimension_score, clean_comment

SCORES_KEY = "scores"  # in rating_records: a rating's answers on its study's rubric, {question: answer}
CANT_JUDGE_KEY = "cant_judge"  # in a rating row for save_ratings: the dimensions the rater could not judge


def cant_judge_dims(row: Mapping[str, Any], names: Sequence[str] = DEFAULT_RUBRIC.names) -> set[str]:
    """The dimensions a rating row marks as can't-judge (among the rubric's `names`); such a
    dimension must carry no score."""
    given = row.get(CANT_JUDGE_KEY) or ()
    if isinstance(given, str):
        given = [d for d in given.split(",") if d.strip()]
    dims = {str(d).strip() for d in given}
    unknown = dims - set(names)
    if unknown:
        raise UserError(f"can't judge: unknown dimension {', '.join(sorted(unknown))}")
    for dim in dims:
        if row.get(dim) not in (None, ""):
            raise UserError(f"{dim} is marked can't judge and has a score: give one or the other")
    return dims


@dataclass(frozen=True)
class CheckedRating:
    """One rating already checked (`checked_rating`, or arena/rating/blind.py on a rater's submit):
    `Store.save_ratings` writes it as it is, so a submit is validated once."""

    output_id: int
    # every question of the study's rubric: a stored value (a whole number; a text question's text, only
    # when given: a comment is optional), or None (can't judge)
    scores: Mapping[str, int | str | None]
    cant_judge: frozenset[str] = frozenset()
    comment: str | None = None
    position: int | None = None
    created_at: Any = None
    updated_at: Any = None


def checked_rating(row: Mapping[str, Any], rubric: Rubric = DEFAULT_RUBRIC) -> CheckedRating:
    """A rating row as `save_ratings` takes it (see there), checked: a score on each dimension's
    scale unless can't judge, the comment cleaned."""
    cant = cant_judge_dims(row, rubric.names)
    return CheckedRating(
        output_id=int(row["output_id"]),
        scores={
            d.name: None if d.name in cant else check_dimension_score(d, row.get(d.name))
            for d in rubric.dimensions
            if d.required or d.name in cant or row.get(d.name) not in (None, "")
        },
        cant_judge=frozenset(cant),
        comment=clean_comment(row.get("comment")),
        position=None if row.get("position") is None else int(row["position"]),
        created_at=row.get("created_at"),
        updated_at=row.get("updated_at"),
    )


class RatingStore(StoreBase):
    """Ratings: saving them, counting them, the frames the evaluation reads and a study's progress. Mixed into `Store`."""

    # ---- ratings --------------------------------------------------------------------------------

    def save_ratings(
        self, rater_id: int, rows: Sequence[Mapping[str, Any] | CheckedRating], rubric: Rubric | None = None
    ) -> None:
        """Insert or update several ratings in one transaction: all are stored or none.

        Each row: output_id, a score per dimension of `rubric` (default: the three 1-5 ones), optional
        comment, position, created_at / updated_at (import only), and optional `cant_judge`: the
        dimensions the rater could not judge, stored as NULL with their flag (feedback.py). A
        `CheckedRating` is written as it is (it was checked when it was made). Whatever the rubric, the
        scores go to `rating_scores`, one row per question, and text answers to `rating_texts`."""
        rubric = rubric or DEFAULT_RUBRIC
        now = utcnow()
        clean, answers = [], []
        for row in rows:
            checked = row if isinstance(row, CheckedRating) else checked_rating(row, rubric)
            clean.append(
                dict(
                    rater_id=int(rater_id),
                    output_id=checked.output_id,
                    comment=checked.comment,
                    position=checked.position,
                    created_at=checked.created_at or now,
                    updated_at=checked.updated_at or now,
                )
            )
            answers.append(checked.scores)
        if not clean:
            return
        with self.write() as conn:
            # One statement, many parameter sets: building the upsert per row cost ~1 ms of CPU each.
            conn.execute(self._ratings_upsert(), clean)
            self._save_rating_scores(conn, int(rater_id), clean, answers, rubric)

    def _save_rating_scores(
        self,
        conn: Any,
        rater_id: int,
        rows: Sequence[Mapping[str, Any]],
        scores: Sequence[Mapping[str, int | str | None]],
        rubric: Rubric,
    ) -> None:
        """The rubric's answers of ratings just upserted (replaced): one `rating_scores` row per question
        with a stored number, one `rating_texts` row per text answer given."""
        ids = dict(
            conn.execute(
                select(ratings.c.output_id, ratings.c.id).where(
                    ratings.c.rater_id == rater_id, ratings.c.output_id.in_([r["output_id"] for r in rows])
                )
            ).all()
        )
        rating_ids = [int(ids[r["output_id"]]) for r in rows]
        texts = {d.name for d in rubric.dimensions if not d.values}
        conn.execute(delete(rating_scores).where(rating_scores.c.rating_id.in_(rating_ids)))
        numbers = [
            {"rating_id": rid, "dimension": dim, "score": score, "cant_judge": score is None}
            for rid, given in zip(rating_ids, scores, strict=True)
            for dim, score in given.items()
            if dim not in texts
        ]
        if numbers:
            conn.execute(rating_scores.insert(), numbers)
        if texts:
            conn.execute(delete(rating_texts).where(rating_texts.c.rating_id.in_(rating_ids)))
            said = [
                {"rating_id": rid, "question": dim, "text": str(answer)}
                for rid, given in zip(rating_ids, scores, strict=True)
                for dim, answer in given.items()
                if dim in texts and answer
            ]
            if said:
                conn.execute(rating_texts.insert(), said)

    def _ratings_upsert(self):
        """The ratings upsert, built once per store: building it and its cache key took ~0.5 ms of CPU per submit."""
        stmt = self._ratings_upsert_stmt
        if stmt is None:
            insert = self._insert(ratings)
            changed = {name: insert.excluded[name] for name in ("comment", "position", "updated_at")}
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
            rows = list(
                conn.execute(
                    select(ratings).where(ratings.c.rater_id == int(rater_id), ratings.c.output_id.in_(ids))
                ).mappings()
            )
            answers = self._scores_of(conn, [int(r["id"]) for r in rows])
        return {int(r["output_id"]): from_row(Rating, r, scores=answers.get(int(r["id"]), {})) for r in rows}

    def _scores_of(self, conn: Any, rating_ids: Sequence[int]) -> dict[int, dict[str, int | str | None]]:
        """{rating id: {question: score or None, or a text question's text}}: the ratings' answers in
        `rating_scores` and `rating_texts`."""
        out: dict[int, dict[str, int | str | None]] = {}
        for chunk in range(0, len(rating_ids), 5000):  # SQLite caps a statement's parameters
            ids = list(rating_ids[chunk : chunk + 5000])
            rows = conn.execute(
                select(rating_scores.c.rating_id, rating_scores.c.dimension, rating_scores.c.score).where(
                    rating_scores.c.rating_id.in_(ids)
                )
            ).all()
            for rid, dim, score in rows:
                out.setdefault(int(rid), {})[str(dim)] = None if score is None else int(score)
            said = conn.execute(
                select(rating_texts.c.rating_id, rating_texts.c.question, rating_texts.c.text).where(
                    rating_texts.c.rating_id.in_(ids)
                )
            ).all()
            for rid, question, answer in said:
                out.setdefault(int(rid), {})[str(question)] = str(answer)
        return out

    def attention_of(self, study_id: int) -> dict[str, bool]:
        """{rater name: passed every attention item} for the raters of a study with a recorded answer."""
        query = (
            select(raters.c.name, study_raters.c.attention_passed)
            .join(raters, raters.c.id == study_raters.c.rater_id)
            .where(study_raters.c.study_id == int(study_id), study_raters.c.attention_passed.is_not(None))
        )
        with self.read() as conn:
            return {str(name): bool(ok) for name, ok in conn.execute(query).all()}

    def study_rubric(self, study_id: int | None) -> Rubric:
        """The rubric of a study (the default for None, an unknown id, and every study from before schema 8)."""
        if study_id is None:
            return DEFAULT_RUBRIC
        with self.read() as conn:
            text = conn.execute(select(studies.c.rubric).where(studies.c.id == int(study_id))).scalar()
        return rubric_from(text)

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
        # An attention item's responses are instructions, not a method's text (arena/rating/attention.py).
        query = query.where(items.c.attention.is_(None))
        query = query.order_by(studies.c.id, items.c.ordinal, outputs.c.method, outputs.c.sample_index)
        with self.read() as conn:
            rows = conn.execute(query).all()
        return _frame(rows, OUTPUT_COLUMNS + EXTRA_COLUMNS)

    def _rating_join(self, columns: Sequence[str], study_id: int | None, rubric: Rubric = DEFAULT_RUBRIC):
        """The one query of ratings joined with their output, item, study and rater (`JOIN_COLUMNS`),
        and for each of `columns` that names a question of `rubric`, its answer: the score in
        `rating_scores` (NULL: can't judge, or not answered) or a text question's `rating_texts` text."""
        source = (
            ratings.join(outputs, outputs.c.id == ratings.c.output_id)
            .join(items, items.c.id == outputs.c.item_id)
            .join(studies, studies.c.id == items.c.study_id)
            .join(raters, raters.c.id == ratings.c.rater_id)
        )
        questions = {d.name: d for d in rubric.dimensions}
        selected = []
        for k, name in enumerate(columns):
            if name not in questions:
                selected.append(JOIN_COLUMNS[name].label(name))
                continue
            # One outer join per question on the (rating, question) unique key: a rating is one row.
            if questions[name].values:
                kept = rating_scores.alias(f"q{k}")
                on, value = and_(kept.c.rating_id == ratings.c.id, kept.c.dimension == name), kept.c.score
            else:
                kept = rating_texts.alias(f"q{k}")
                on, value = and_(kept.c.rating_id == ratings.c.id, kept.c.question == name), kept.c.text
            source = source.outerjoin(kept, on)
            selected.append(value.label(name))
        query = (
            select(*selected)
            .select_from(source)
            # By what the rater saw (the letter), never by method: row k of an (item, rater) group was the
            # k-th method alphabetically on main b69a925, which gave the organizer's blind export of an
            # open study every rater's mapping (issue 32). Imported ratings without a position follow
            # their row id, which an import numbers in the file's order.
            .order_by(studies.c.id, items.c.ordinal, raters.c.name, ratings.c.position, ratings.c.id)
        )
        return query if study_id is None else query.where(studies.c.id == int(study_id))

    def ratings_frame(self, study_id: int | None = None) -> pd.DataFrame:
        """One row per rating: RATING_COLUMNS with the study's questions in place of the catalogue's three
        (the default rubric's), then sample_index and language. Scores are ints on their scale (float
        with NaN where a rater could not judge); position 0 = A. Ratings of attention items are never in
        it; a study whose raters answered any has `attention_passed` per rating (None: not recorded)."""
        rubric = self.study_rubric(study_id)
        columns = rating_columns(rubric) + EXTRA_COLUMNS
        # As tuples straight from one query (no dict per rating), whatever the rubric.
        with self.read() as conn:
            every = conn.execute(self._rating_join((*columns, "item_attention"), study_id, rubric)).all()
        rows = [tuple(r)[:-1] for r in every if r[-1] is None]
        frame = _frame(rows, columns, [d.name for d in rubric.dimensions if d.values])  # a text stays text
        attention = self.attention_of(study_id) if study_id is not None else {}
        if attention:
            frame["attention_passed"] = pd.Series(
                [attention.get(r) for r in frame["rater"]], index=frame.index, dtype=object
            )
        return frame

    def rating_records(self, columns: Sequence[str], study_id: int | None = None) -> list[dict[str, Any]]:
        """One {column: value} per rating, in `ratings_frame`'s order, for any of `JOIN_COLUMNS` (the
        export), the study's question names (its rubric's; the default's for every study), and
        SCORES_KEY: {question: answer} of the rating, on whatever rubric its study has."""
        query_columns = [c for c in columns if c != SCORES_KEY]
        wanted = SCORES_KEY in columns
        if wanted and "rating_id" not in query_columns:
            query_columns.append("rating_id")
        with self.read() as conn:
            query = self._rating_join(query_columns, study_id, self.study_rubric(study_id))
            rows = [dict(r) for r in conn.execute(query).mappings()]
            scores = self._scores_of(conn, [int(r["rating_id"]) for r in rows]) if wanted else {}
        for row in rows:
            if wanted:
                row[SCORES_KEY] = scores.get(int(row["rating_id"]), {})
            if "rating_id" not in columns:
                row.pop("rating_id", None)
        return rows

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
            # enrolled, or seen in the ratings or votes: an imported study enrols nobody, yet has raters
            sid = int(study_id)
            who = union(
                select(study_raters.c.rater_id).where(study_raters.c.study_id == sid),
                select(ratings.c.rater_id)
                .select_from(ratings.join(outputs, outputs.c.id == ratings.c.output_id).join(items))
                .where(items.c.study_id == sid),
                select(votes.c.rater_id).select_from(votes.join(items)).where(items.c.study_id == sid),
            ).subquery()
            n_raters = conn.execute(select(func.count()).select_from(who)).scalar_one()
        return {"items": int(n_items), "outputs": int(n_outputs), "ratings": int(n_ratings), "raters": int(n_raters)}


def rating_columns(rubric: Rubric = DEFAULT_RUBRIC) -> tuple[str, ...]:
    """RATING_COLUMNS with the rubric's questions in place of the catalogue's three (the default rubric's)."""
    at = RATING_COLUMNS.index(SCORE_COLUMNS[0])
    rest = RATING_COLUMNS[at + len(SCORE_COLUMNS) :]
    return RATING_COLUMNS[:at] + rubric.names + rest


def _frame(rows: Sequence[Any], columns: Sequence[str], dims: Sequence[str] = ()) -> pd.DataFrame:
    frame = pd.DataFrame([tuple(r) for r in rows], columns=list(columns))
    ints = ["study_id", "item_id", "output_id", "new_tokens", "sample_index", *dims]
    for col in ints:
        if col in frame:
            # A NULL score is a "can't judge" answer: the column is then float with NaN (missing data
            # to every statistic), never a number that would be averaged in.
            missing = col in dims and frame[col].isna().any()
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
