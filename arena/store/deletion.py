"""Deleting a study or one rater's ratings (organizer only), checked against what the organizer saw."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Select, and_, func, select

from common.errors import UserError

from .schema import (
    assignments,
    flags,
    guesses,
    items,
    outputs,
    pair_guess_marks,
    raters,
    rating_scores,
    rating_texts,
    ratings,
    skips,
    studies,
    study_accounts,
    study_raters,
    votes,
)
from .transactions import StoreBase
from .values import clean_rater_name


class DeletionStore(StoreBase):
    """Deleting a study or one rater's ratings (organizer only), checked against what the organizer saw. Mixed into `Store`."""

    # ---- deleting (organizer only) --------------------------------------------------------------
    # Children go first (ratings, assignments, outputs, items, study_raters, then the study), so
    # nothing relies on ON DELETE CASCADE, which a database created by older code may lack. On
    # PostgreSQL the rows are locked FOR UPDATE first: a rater's concurrent rating (which takes a key
    # share lock on its output and its rater) waits for the deletion and then fails, instead of
    # slipping in between the caller's backup and the delete. SQLite's BEGIN IMMEDIATE already holds
    # the database's only write lock.

    def _locked(self, conn: Connection, query) -> list[Any]:
        if self.dialect != "sqlite":
            query = query.with_for_update()
        return list(conn.execute(query).all())

    def _deletion_fingerprint(self, conn: Connection, study_id: int, rater_id: int | None) -> tuple:
        """What a backup must match: counts and the newest rating of a study (of one rater in it)."""
        sid = int(study_id)
        study_outputs = select(outputs.c.id).join(items, items.c.id == outputs.c.item_id).where(items.c.study_id == sid)
        rated = select(func.count(), func.max(ratings.c.id), func.max(ratings.c.updated_at)).where(
            ratings.c.output_id.in_(study_outputs)
        )
        if rater_id is not None:
            return tuple(conn.execute(rated.where(ratings.c.rater_id == int(rater_id))).one())
        n_items = conn.execute(select(func.count()).select_from(items).where(items.c.study_id == sid)).scalar_one()
        n_outputs = conn.execute(select(func.count()).select_from(study_outputs.subquery())).scalar_one()
        return (int(n_items), int(n_outputs), *conn.execute(rated).one())

    def deletion_fingerprint(self, study_id: int, rater: object = None) -> tuple:
        """Taken before writing a backup; pass it as `expect` to the delete so that the delete refuses
        if anything was rated, re-rated or generated in between (the backup would miss it)."""
        with self.read() as conn:
            rid = None if rater is None else self._rater_for_delete(conn, rater)
            return self._deletion_fingerprint(conn, study_id, rid)

    def _rater_for_delete(self, conn: Connection, rater: object) -> int:
        if isinstance(rater, int) and not isinstance(rater, bool):
            found = conn.execute(select(raters.c.id).where(raters.c.id == rater)).scalar()
        else:
            found = conn.execute(select(raters.c.id).where(raters.c.name == clean_rater_name(rater))).scalar()
        if found is None:
            raise UserError(f"there is no rater {rater!r}")
        return int(found)

    def delete_study(self, study_id: int, *, expect: tuple | None = None) -> dict[str, int]:
        """Delete a study and every row that hangs off it, in one transaction; return how many rows of
        each kind went. Raters stay (a rater is global: the same name may rate other studies)."""
        sid = int(study_id)
        item_ids = select(items.c.id).where(items.c.study_id == sid)
        output_ids = select(outputs.c.id).where(outputs.c.item_id.in_(item_ids))
        with self.write() as conn:
            if not self._locked(conn, select(studies.c.id).where(studies.c.id == sid)):
                raise UserError(f"there is no study #{sid}")
            self._locked(conn, item_ids)
            self._locked(conn, output_ids)
            self._locked(conn, select(ratings.c.id).where(ratings.c.output_id.in_(output_ids)))
            if expect is not None and tuple(expect) != self._deletion_fingerprint(conn, sid, None):
                raise UserError(
                    "the study changed while its backup was being written (new ratings or outputs); "
                    "nothing was deleted: try again"
                )
            conn.execute(study_accounts.delete().where(study_accounts.c.study_id == sid))  # a setting, not data
            # marks that a pairwise question was answered, with no answer in them: not counted
            conn.execute(pair_guess_marks.delete().where(pair_guess_marks.c.item_id.in_(item_ids)))
            self._delete_answers(conn, select(ratings.c.id).where(ratings.c.output_id.in_(output_ids)))
            counts = {
                "ratings": conn.execute(ratings.delete().where(ratings.c.output_id.in_(output_ids))).rowcount,
                "skips": conn.execute(skips.delete().where(skips.c.item_id.in_(item_ids))).rowcount,
                "flags": conn.execute(flags.delete().where(flags.c.item_id.in_(item_ids))).rowcount,
                "guesses": conn.execute(guesses.delete().where(guesses.c.item_id.in_(item_ids))).rowcount,
                "votes": conn.execute(votes.delete().where(votes.c.item_id.in_(item_ids))).rowcount,
                "assignments": conn.execute(
                    assignments.delete().where(
                        assignments.c.item_id.in_(item_ids) | assignments.c.output_id.in_(output_ids)
                    )
                ).rowcount,
                "outputs": conn.execute(outputs.delete().where(outputs.c.item_id.in_(item_ids))).rowcount,
                "items": conn.execute(items.delete().where(items.c.study_id == sid)).rowcount,
                "study_raters": conn.execute(study_raters.delete().where(study_raters.c.study_id == sid)).rowcount,
                "studies": conn.execute(studies.delete().where(studies.c.id == sid)).rowcount,
            }
        return {k: int(v) for k, v in counts.items()}

    def delete_rater_ratings(self, study_id: int, rater: object, *, expect: tuple | None = None) -> int:
        """Delete one rater's ratings (rater name or id) in one study, and their skips, flags and
        guesses there (what they said about the items goes with their scores); return how many
        ratings went. Their recorded display orders stay, so a rater who comes back sees the same
        order as before."""
        sid = int(study_id)
        output_ids = select(outputs.c.id).join(items, items.c.id == outputs.c.item_id).where(items.c.study_id == sid)
        item_ids = select(items.c.id).where(items.c.study_id == sid)
        with self.write() as conn:
            if not self._locked(conn, select(studies.c.id).where(studies.c.id == sid)):
                raise UserError(f"there is no study #{sid}")
            rid = self._rater_for_delete(conn, rater)
            self._locked(conn, select(raters.c.id).where(raters.c.id == rid))  # holds off their new ratings
            mine = and_(ratings.c.rater_id == rid, ratings.c.output_id.in_(output_ids))
            self._locked(conn, select(ratings.c.id).where(mine))
            if expect is not None and tuple(expect) != self._deletion_fingerprint(conn, sid, rid):
                raise UserError(
                    "the rater's ratings changed while the backup was being written; nothing was deleted: try again"
                )
            conn.execute(skips.delete().where(and_(skips.c.rater_id == rid, skips.c.item_id.in_(item_ids))))
            conn.execute(flags.delete().where(and_(flags.c.rater_id == rid, flags.c.item_id.in_(item_ids))))
            conn.execute(guesses.delete().where(and_(guesses.c.rater_id == rid, guesses.c.item_id.in_(item_ids))))
            conn.execute(
                pair_guess_marks.delete().where(
                    and_(pair_guess_marks.c.rater_id == rid, pair_guess_marks.c.item_id.in_(item_ids))
                )
            )
            conn.execute(votes.delete().where(and_(votes.c.rater_id == rid, votes.c.item_id.in_(item_ids))))
            self._delete_answers(conn, select(ratings.c.id).where(mine))
            return int(conn.execute(ratings.delete().where(mine)).rowcount)

    def _delete_answers(self, conn: Connection, rating_ids: Select) -> None:
        """The scores and text answers of these ratings, before the ratings themselves: child-first, so
        a database made without ON DELETE CASCADE never sees an orphan. They go with their rating, and
        are counted as part of it."""
        conn.execute(rating_scores.delete().where(rating_scores.c.rating_id.in_(rating_ids)))
        conn.execute(rating_texts.delete().where(rating_texts.c.rating_id.in_(rating_ids)))
