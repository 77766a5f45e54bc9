"""Studies, their items (prompts) and the outputs generated for them."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, and_, func, select, update

from common import messages
from common.errors import UserError
from common.rubric import Rubric

from .rows import Item, Output, Study, from_row
from .schema import (
    STUDY_DESIGNS,
    STUDY_STATES,
    items,
    outputs,
    studies,
    utcnow,
)
from .transactions import StoreBase
from .values import clean_comment, clean_name, dumps


class StudyStore(StoreBase):
    """Studies, their items (prompts) and the outputs generated for them. Mixed into `Store`."""

    # ---- studies and items ----------------------------------------------------------------------

    def create_study(
        self,
        name: str,
        *,
        kind: str = "study",
        model: str = "",
        methods: Sequence[str] = (),
        settings: Mapping[str, Mapping[str, Any]] | None = None,
        samples_per_method: int = 1,
        max_new_tokens: int = 128,
        base_seed: int = 0,
        blind_seed: int | None = None,
        created_at=None,
        state: str = "open",
        items_: Iterable[Mapping[str, Any]] = (),
        guidelines: str | None = None,
        guess_methods: Sequence[str] = (),
        scorer_model: str | None = None,
        design: str = "scores",
        rubric: Rubric | None = None,
        exclusion_rules: Sequence[str] = (),
        imported_from: str | None = None,
    ) -> int:
        """Store a study (and `items_`, as `add_items` takes them) in one transaction: all or nothing.
        `rubric` None or the default: stored as NULL, as every study from before rubrics.
        `imported_from`: the file an imported study's ratings came from (arena/files/long_import.py)."""
        name = clean_name(name, "study name", 200) if isinstance(name, str) and name.strip() else ""
        if not name:
            raise UserError(messages.english("study_needs_name"))
        if state not in STUDY_STATES:
            raise UserError(f"a study's state is one of {', '.join(STUDY_STATES)}, not {state!r}")
        if design not in STUDY_DESIGNS:
            raise UserError(f"a study's design is one of {', '.join(STUDY_DESIGNS)}, not {str(design)[:20]!r}")
        values = dict(
            name=name,
            kind=kind,
            model=model,
            methods=dumps(list(methods)),
            settings=dumps(dict(settings or {})),
            samples_per_method=int(samples_per_method),
            max_new_tokens=int(max_new_tokens),
            base_seed=int(base_seed),
            blind_seed=int(blind_seed if blind_seed is not None else secrets.randbelow(2**62)),
            created_at=created_at or utcnow(),
            state=state,
            guidelines=clean_comment(guidelines) if guidelines else None,
            guess_methods=dumps(list(guess_methods)) if guess_methods else None,
            scorer_model=scorer_model or None,
            design=design,
            rubric=None if rubric is None else rubric.stored_json,
            exclusion_rules=dumps(list(exclusion_rules)) if exclusion_rules else None,
            imported_from=clean_name(imported_from, "file name", 300) if imported_from else None,
        )
        with self.write() as conn:
            sid = int(conn.execute(studies.insert().values(**values).returning(studies.c.id)).scalar_one())
            self._add_items(conn, sid, items_)
            return sid

    def set_study_state(self, study_id: int, state: str, *, allowed_from: Sequence[str]) -> Study:
        """Move a study to `state` if it is in one of `allowed_from` now; return the study as it was."""
        if state not in STUDY_STATES:
            raise UserError(f"a study's state is one of {', '.join(STUDY_STATES)}, not {state!r}")
        with self.write() as conn:
            row = conn.execute(select(studies).where(studies.c.id == int(study_id))).mappings().first()
            if row is None:
                raise UserError(messages.text("no_study_number", id=int(study_id)))
            if row["state"] not in allowed_from:
                allowed = " or ".join(allowed_from)
                raise UserError(
                    messages.text(
                        "study_state_from", id=int(study_id), state=row["state"], target=state, allowed=allowed
                    )
                )
            conn.execute(update(studies).where(studies.c.id == int(study_id)).values(state=state))
        return Study.from_row(row)

    def get_study(self, study_id: int) -> Study | None:
        with self.read() as conn:
            row = conn.execute(select(studies).where(studies.c.id == int(study_id))).mappings().first()
        return Study.from_row(row) if row else None

    def list_studies(self, kind: str | None = None) -> list[Study]:
        query = select(studies).order_by(studies.c.id.desc())
        if kind:
            query = query.where(studies.c.kind == kind)
        with self.read() as conn:
            return [Study.from_row(r) for r in conn.execute(query).mappings()]

    def add_items(self, study_id: int, prompts: Iterable[Mapping[str, Any]]) -> list[int]:
        """Append items (dicts with prompt, and optional scenario, language, raw, public_id)."""
        with self.write() as conn:
            return self._add_items(conn, study_id, prompts)

    def _add_items(self, conn: Connection, study_id: int, prompts: Iterable[Mapping[str, Any]]) -> list[int]:
        ids: list[int] = []
        start = (
            conn.execute(
                select(func.coalesce(func.max(items.c.ordinal), -1)).where(items.c.study_id == int(study_id))
            ).scalar_one()
            + 1
        )
        for offset, p in enumerate(prompts):
            values = dict(
                study_id=int(study_id),
                ordinal=start + offset,
                public_id=p.get("public_id") or secrets.token_urlsafe(12),
                scenario=p.get("scenario") or "",
                language=p.get("language") or "",
                prompt=p["prompt"],
                raw=bool(p.get("raw", False)),
                created_at=p.get("created_at") or utcnow(),
                attention=p.get("attention") or None,
            )
            ids.append(int(conn.execute(items.insert().values(**values).returning(items.c.id)).scalar_one()))
        return ids

    def _reserved_query(self, *columns):
        return (
            select(*columns)
            .join(studies, studies.c.id == items.c.study_id)
            .where(studies.c.state != "published", studies.c.kind == "study")
        )

    def reserved_items(self) -> list[tuple[str, bool]]:
        """(prompt, raw) of every item of a study (not a quick rating) that is not published yet."""
        with self.read() as conn:
            return [(r.prompt, bool(r.raw)) for r in conn.execute(self._reserved_query(items.c.prompt, items.c.raw))]

    def reserved_fingerprint(self) -> tuple[int, int, int]:
        """(count, sum, max) of the ids of `reserved_items`: one cheap query that changes whenever that
        set does (an item added, a study published, reopened or deleted)."""
        with self.read() as conn:
            row = conn.execute(
                self._reserved_query(
                    func.count(items.c.id),
                    func.coalesce(func.sum(items.c.id), 0),
                    func.coalesce(func.max(items.c.id), 0),
                )
            ).one()
        return int(row[0]), int(row[1]), int(row[2])

    def set_item_ordinal(self, item_id: int, ordinal: int) -> None:
        with self.write() as conn:
            conn.execute(update(items).where(items.c.id == int(item_id)).values(ordinal=int(ordinal)))

    def items(self, study_id: int) -> list[Item]:
        with self.read() as conn:
            rows = conn.execute(
                select(items).where(items.c.study_id == int(study_id)).order_by(items.c.ordinal)
            ).mappings()
            return [from_row(Item, r) for r in rows]

    def get_item(self, item_id: int) -> Item | None:
        with self.read() as conn:
            row = conn.execute(select(items).where(items.c.id == int(item_id))).mappings().first()
        return from_row(Item, row) if row else None

    def item_by_public_id(self, public_id: object) -> Item | None:
        if not isinstance(public_id, str) or not public_id or len(public_id) > 40:
            return None
        with self.read() as conn:
            row = conn.execute(select(items).where(items.c.public_id == public_id)).mappings().first()
        return from_row(Item, row) if row else None

    # ---- outputs --------------------------------------------------------------------------------

    def add_output(
        self,
        item_id: int,
        method: str,
        sample_index: int,
        *,
        text: str,
        settings: Mapping[str, Any],
        seed: int | None,
        model: str,
        new_tokens: int,
        latency_ms: float | None = None,
        ttft_ms: float | None = None,
        tokens_per_s: float | None = None,
        prompt_tokens: int | None = None,
        finish_reason: str | None = None,
        created_at=None,
    ) -> tuple[int, bool]:
        """Store one output; (id, True) if new, (existing id, False) if that slot was filled already."""
        values = dict(
            item_id=int(item_id),
            method=method,
            sample_index=int(sample_index),
            text=text,
            settings=dumps(dict(settings)),
            seed=None if seed is None else int(seed),
            model=model,
            new_tokens=int(new_tokens),
            latency_ms=latency_ms,
            ttft_ms=ttft_ms,
            tokens_per_s=tokens_per_s,
            prompt_tokens=prompt_tokens,
            finish_reason=finish_reason,
            created_at=created_at or utcnow(),
        )
        key = and_(
            outputs.c.item_id == int(item_id), outputs.c.method == method, outputs.c.sample_index == int(sample_index)
        )
        stmt = self._insert(outputs)
        with self.write() as conn:
            new_id = conn.execute(
                stmt.values(**values)
                .on_conflict_do_nothing(index_elements=["item_id", "method", "sample_index"])
                .returning(outputs.c.id)
            ).scalar()
            if new_id is not None:
                return int(new_id), True
            return int(conn.execute(select(outputs.c.id).where(key)).scalar_one()), False

    def outputs_for_item(self, item_id: int) -> list[Output]:
        with self.read() as conn:
            rows = conn.execute(
                select(outputs)
                .where(outputs.c.item_id == int(item_id))
                .order_by(outputs.c.method, outputs.c.sample_index)
            ).mappings()
            return [from_row(Output, r) for r in rows]

    def output_slots(self, study_id: int) -> set[tuple[int, str, int]]:
        """(item_id, method, sample_index) of every stored output of a study: what is already done."""
        with self.read() as conn:
            rows = conn.execute(
                select(outputs.c.item_id, outputs.c.method, outputs.c.sample_index)
                .join(items, items.c.id == outputs.c.item_id)
                .where(items.c.study_id == int(study_id))
            )
            return {(r.item_id, r.method, r.sample_index) for r in rows}
