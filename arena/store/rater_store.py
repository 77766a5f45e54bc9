"""Raters, their invitations (a rater's place in a study, opened by a code) and the blind mapping recorded per rater and item."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import and_, func, select, update
from sqlalchemy.exc import IntegrityError

from .rows import Enrolment, from_row
from .schema import (
    assignments,
    raters,
    study_accounts,
    study_raters,
    utcnow,
)
from .transactions import StoreBase
from .values import clean_rater_name


class RaterStore(StoreBase):
    """Raters, their invitations (a rater's place in a study, opened by a code) and the blind mapping recorded per rater and item. Mixed into `Store`."""

    # ---- raters and the blind mapping -----------------------------------------------------------

    def rater_id(self, name: object) -> int:
        """The id of rater `name`, created on first use (safe under concurrent first use)."""
        name = clean_rater_name(name)
        stmt = self._insert(raters)
        for _ in range(5):
            with self.write() as conn:
                found = conn.execute(select(raters.c.id).where(raters.c.name == name)).scalar()
                if found is not None:
                    return int(found)
                conn.execute(
                    stmt.values(name=name, created_at=utcnow()).on_conflict_do_nothing(index_elements=["name"])
                )
        raise RuntimeError(f"could not create rater {name!r}")

    def find_rater(self, name: str) -> int | None:
        with self.read() as conn:
            found = conn.execute(select(raters.c.id).where(raters.c.name == name)).scalar()
        return None if found is None else int(found)

    def study_rater_index(self, study_id: int, rater_id: int) -> int:
        """The rater's 0-based arrival order in the study: their row of the Latin square."""
        for _ in range(50):
            try:
                with self.write() as conn:
                    found = conn.execute(
                        select(study_raters.c.rater_index).where(
                            study_raters.c.study_id == int(study_id), study_raters.c.rater_id == int(rater_id)
                        )
                    ).scalar()
                    if found is not None:
                        return int(found)
                    nxt = conn.execute(
                        select(func.coalesce(func.max(study_raters.c.rater_index), -1) + 1).where(
                            study_raters.c.study_id == int(study_id)
                        )
                    ).scalar_one()
                    conn.execute(
                        study_raters.insert().values(
                            study_id=int(study_id), rater_id=int(rater_id), rater_index=int(nxt), created_at=utcnow()
                        )
                    )
                    return int(nxt)
            except IntegrityError:
                continue  # another rater took that index (PostgreSQL); read again
        raise RuntimeError("could not assign a rater index")

    def rater_order_seed(self, study_id: int, rater_id: int) -> int:
        """The secret seed of this rater's display orders in this study (drawn once, kept)."""
        where = and_(study_raters.c.study_id == int(study_id), study_raters.c.rater_id == int(rater_id))
        with self.read() as conn:  # once drawn it never changes: one read, no write lock, on every later call
            row = conn.execute(select(study_raters.c.order_seed).where(where)).first()
        if row is not None and row.order_seed is not None:
            return int(row.order_seed)
        if row is None:
            self.study_rater_index(study_id, rater_id)
        with self.write() as conn:
            found = conn.execute(select(study_raters.c.order_seed).where(where)).scalar()
            if found is not None:
                return int(found)
            seed = secrets.randbelow(2**62)
            conn.execute(update(study_raters).where(where, study_raters.c.order_seed.is_(None)).values(order_seed=seed))
            return int(conn.execute(select(study_raters.c.order_seed).where(where)).scalar_one())

    def record_attention(self, study_id: int, rater_id: int, passed: bool | None) -> None:
        """The rater's answer to an attention item: once failed, failed for the study (a later pass
        does not undo it); None leaves what is recorded."""
        if passed is None:
            return
        self.study_rater_index(study_id, rater_id)
        where = and_(study_raters.c.study_id == int(study_id), study_raters.c.rater_id == int(rater_id))
        if passed:
            where = and_(where, study_raters.c.attention_passed.is_not(False))
        with self.write() as conn:
            conn.execute(update(study_raters).where(where).values(attention_passed=bool(passed)))

    # ---- invitations: a rater's place in a study, opened by a code ------------------------------

    def enrol(self, study_id: int, name: object, code_hash: str) -> int:
        """Enrol rater `name` in a study with a new code (replacing and un-revoking an earlier one);
        return the rater's id. The rater keeps their place (Latin-square row, orders, ratings)."""
        rid = self.rater_id(name)
        self.study_rater_index(study_id, rid)
        with self.write() as conn:
            conn.execute(
                update(study_raters)
                .where(study_raters.c.study_id == int(study_id), study_raters.c.rater_id == rid)
                .values(code_hash=code_hash, revoked_at=None)
            )
        return rid

    def _enrolment_select(self):
        return select(study_raters, raters.c.name.label("rater")).join(raters, raters.c.id == study_raters.c.rater_id)

    def enrolment_by_code(self, code_hash: str) -> Enrolment | None:
        """The enrolment holding this code hash (revoked or not: see `revoked_at`)."""
        with self.read() as conn:
            row = conn.execute(self._enrolment_select().where(study_raters.c.code_hash == code_hash)).mappings().first()
        return _enrolment(row) if row else None

    def revoke(self, study_id: int, rater_id: int) -> bool:
        """Revoke a rater's code for a study; True if there was a live code."""
        with self.write() as conn:
            done = conn.execute(
                update(study_raters)
                .where(
                    study_raters.c.study_id == int(study_id),
                    study_raters.c.rater_id == int(rater_id),
                    study_raters.c.revoked_at.is_(None),
                    study_raters.c.code_hash.is_not(None),
                )
                .values(revoked_at=utcnow())
            ).rowcount
        return bool(done)

    def enrolments(self, study_id: int) -> list[Enrolment]:
        """Every rater enrolled in a study, in arrival order."""
        with self.read() as conn:
            rows = conn.execute(
                self._enrolment_select()
                .where(study_raters.c.study_id == int(study_id))
                .order_by(study_raters.c.rater_index)
            ).mappings()
            return [_enrolment(r) for r in rows]

    def seat_key(self, study_id: int, rater_id: int) -> str | None:
        """The key (a code's or an account's hash) of a rater's seat in a study, None without one."""
        with self.read() as conn:
            found = conn.execute(
                select(study_raters.c.code_hash).where(
                    study_raters.c.study_id == int(study_id), study_raters.c.rater_id == int(rater_id)
                )
            ).scalar()
        return None if found is None else str(found)

    # ---- Hugging Face sign-in: which accounts a study lets in (arena/access/accounts.py) ---------------

    def account_access(self, study_id: int | None = None) -> dict[int, str]:
        """{study id: its account access as JSON} for every study that lets accounts in (or for
        `study_id` alone: empty if it lets none in)."""
        query = select(study_accounts.c.study_id, study_accounts.c.access)
        if study_id is not None:
            query = query.where(study_accounts.c.study_id == int(study_id))
        with self.read() as conn:
            rows = conn.execute(query).all()
        return {int(r.study_id): str(r.access) for r in rows}

    def set_account_access(self, study_id: int, access: str | None) -> None:
        """Let accounts into a study by `access` (JSON), or no account at all (None). Seats already
        taken stay, as an invited rater's do when no new codes are made."""
        sid = int(study_id)
        with self.write() as conn:
            conn.execute(study_accounts.delete().where(study_accounts.c.study_id == sid))
            if access is not None:
                conn.execute(study_accounts.insert().values(study_id=sid, access=access, updated_at=utcnow()))

    def assignment(self, rater_id: int, item_id: int) -> dict[int, int]:
        """{position: output_id} shown to this rater for this item; empty if never shown."""
        with self.read() as conn:
            rows = conn.execute(
                select(assignments.c.position, assignments.c.output_id).where(
                    assignments.c.rater_id == int(rater_id), assignments.c.item_id == int(item_id)
                )
            )
            return {int(r.position): int(r.output_id) for r in rows}

    def raters_for_item(self, item_id: int) -> list[tuple[str, int]]:
        """(name, id) of the raters who were shown this item."""
        with self.read() as conn:
            rows = conn.execute(
                select(raters.c.name, raters.c.id)
                .join(assignments, assignments.c.rater_id == raters.c.id)
                .where(assignments.c.item_id == int(item_id))
                .distinct()
                .order_by(raters.c.name)
            )
            return [(r.name, int(r.id)) for r in rows]

    def record_assignment(self, rater_id: int, item_id: int, order: Sequence[int]) -> dict[int, int]:
        """Record `order` (output ids, position 0 first) unless one is recorded; return the one in force.

        A concurrent first view of the same item by the same rater (PostgreSQL) is resolved by ON
        CONFLICT rather than by catching the error, so this can run inside a `transaction()`: there
        a constraint error would end the whole transaction, the rater's save with it."""
        where = and_(assignments.c.rater_id == int(rater_id), assignments.c.item_id == int(item_id))
        with self.write() as conn:
            rows = conn.execute(select(assignments.c.position, assignments.c.output_id).where(where)).all()
            if rows:
                return {int(r.position): int(r.output_id) for r in rows}
            now = utcnow()
            conn.execute(
                self._insert(assignments).on_conflict_do_nothing(),
                [
                    dict(rater_id=int(rater_id), item_id=int(item_id), output_id=int(o), position=p, created_at=now)
                    for p, o in enumerate(order)
                ],
            )
            if self.dialect == "sqlite":  # BEGIN IMMEDIATE: nobody else can have written it meanwhile
                return dict(enumerate(int(o) for o in order))
            rows = conn.execute(select(assignments.c.position, assignments.c.output_id).where(where)).all()
            return {int(r.position): int(r.output_id) for r in rows}


def _enrolment(row: Mapping[Any, Any]) -> Enrolment:
    return from_row(Enrolment, row, has_code=row["code_hash"] is not None)
