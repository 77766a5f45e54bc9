"""The store API: the only code that reads or writes the ratings database.

Everything above it (studies, blind rating, export, the evaluation) goes through `Store`.
"""

from __future__ import annotations

import json
import secrets
import threading
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import pandas as pd
from sqlalchemy import Column, Connection, Engine, and_, case, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError

from ..errors import UserError
from ..numbers import parse_whole
from .engine import DIALECTS, make_engine, normalize_url
from .feedback import FeedbackStore, cant_judge_dims, cant_judge_values
from .rows import Enrolment, Item, Output, Rating, Study, from_row
from .schema import (
    SCORE_COLUMNS,
    STUDY_STATES,
    assignments,
    flags,
    items,
    outputs,
    raters,
    ratings,
    skips,
    studies,
    study_raters,
    utcnow,
)
from .upgrade import upgrade

OUTPUT_COLUMNS: tuple[str, ...] = (
    "study_id",
    "study_name",
    "item_id",
    "scenario",
    "prompt",
    "output_id",
    "method",
    "settings",
    "seed",
    "model",
    "text",
    "new_tokens",
    "latency_ms",
    "ttft_ms",
    "tokens_per_s",
)
RATING_COLUMNS: tuple[str, ...] = OUTPUT_COLUMNS + (
    "rater",
    *SCORE_COLUMNS,
    "comment",
    "position",
    "created_at",
    "updated_at",
)
# Appended after the documented columns: which sample of a stochastic method this output is, and
# the prompt's language (scenario keys repeat across languages).
EXTRA_COLUMNS: tuple[str, ...] = ("sample_index", "language")

# Every column a rating record can have (frames, export files), by name: where its value comes from.
JOIN_COLUMNS: dict[str, Column] = {
    "study_id": studies.c.id,
    "study_name": studies.c.name,
    "item_id": items.c.id,
    "scenario": items.c.scenario,
    "prompt": items.c.prompt,
    "output_id": outputs.c.id,
    "method": outputs.c.method,
    "settings": outputs.c.settings,
    "seed": outputs.c.seed,
    "model": outputs.c.model,
    "text": outputs.c.text,
    "new_tokens": outputs.c.new_tokens,
    "latency_ms": outputs.c.latency_ms,
    "ttft_ms": outputs.c.ttft_ms,
    "tokens_per_s": outputs.c.tokens_per_s,
    "rater": raters.c.name,
    **{name: ratings.c[name] for name in SCORE_COLUMNS},
    "comment": ratings.c.comment,
    "position": ratings.c.position,
    "created_at": ratings.c.created_at,
    "updated_at": ratings.c.updated_at,
    "sample_index": outputs.c.sample_index,
    "language": items.c.language,
    "study_kind": studies.c.kind,
    "study_model": studies.c.model,
    "study_methods": studies.c.methods,
    "study_settings": studies.c.settings,
    "samples_per_method": studies.c.samples_per_method,
    "max_new_tokens": studies.c.max_new_tokens,
    "base_seed": studies.c.base_seed,
    "blind_seed": studies.c.blind_seed,
    "study_created_at": studies.c.created_at,
    "study_state": studies.c.state,
    "item_ordinal": items.c.ordinal,
    "item_public_id": items.c.public_id,
    "raw": items.c.raw,
    "item_created_at": items.c.created_at,
    "prompt_tokens": outputs.c.prompt_tokens,
    "finish_reason": outputs.c.finish_reason,
    "output_created_at": outputs.c.created_at,
}

MAX_RATER_NAME = 100
MAX_COMMENT = 5000


def dumps(value: Any) -> str:
    """Canonical JSON (sorted keys) so equal settings are equal strings."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _printable(text: str, keep: str = "") -> str:
    """`text` without control characters (NUL is refused by PostgreSQL) and lone surrogates (a
    forged API call can send them; no database can encode them)."""
    return "".join(ch for ch in text if ch in keep or unicodedata.category(ch) not in ("Cc", "Cs"))


def clean_name(text: object, what: str = "name", limit: int = 200) -> str:
    """A display name as people read it: NFKC (so a full-width "ａｌｉｃｅ" is "alice"), without control,
    format (zero-width, bidi overrides such as U+202E) or surrogate characters, spaces collapsed."""
    if isinstance(text, str):
        text = "".join(
            ch for ch in unicodedata.normalize("NFKC", text) if unicodedata.category(ch) not in ("Cc", "Cf", "Cs")
        )
    if not isinstance(text, str) or not text.strip():
        raise UserError(f"enter a {what} first")
    text = " ".join(text.split())
    if len(text) > limit:
        raise UserError(f"the {what} is longer than {limit} characters")
    return text


def clean_rater_name(name: object) -> str:
    return clean_name(name, "rater name", MAX_RATER_NAME)


def check_score(name: str, value: object) -> int:
    """Scores are whole numbers 1..5; bools and 4.5 are refused, "4" and 4.0 accepted."""
    try:
        number = parse_whole(value)
    except ValueError:
        raise UserError(f"{name} must be a whole number from 1 to 5, got {value!r}") from None
    if not 1 <= number <= 5:
        raise UserError(f"{name} must be from 1 to 5, got {value!r}")
    return number


def clean_comment(comment: object) -> str | None:
    if comment is None:
        return None
    if not isinstance(comment, str):
        raise UserError("the comment must be text")
    comment = _printable(comment, keep="\t\n").strip()
    if len(comment) > MAX_COMMENT:
        raise UserError(f"the comment is longer than {MAX_COMMENT} characters")
    return comment or None


class StoreUnavailable(UserError):
    """The database server cannot be reached (or is locked); the transaction was rolled back."""


@contextmanager
def _unreachable_as_user_error() -> Iterator[None]:
    # A stopped or unreachable server must reach the rater as a clear message, not as Gradio's
    # bare "Error": the transaction was rolled back, so the rater must know to submit again.
    try:
        yield
    except (OperationalError, InterfaceError) as exc:
        raise StoreUnavailable(
            "the ratings database cannot be reached right now, so this was NOT saved; keep this page "
            "open and try again in a moment"
        ) from exc


class Store(FeedbackStore):
    """A ratings database. `Store()` uses `DATABASE_URL` or the default SQLite file."""

    def __init__(self, url: str | None = None, *, engine: Engine | None = None):
        self.engine = engine or make_engine(url)
        self.url = self.engine.url.render_as_string(hide_password=True)
        self.dialect = self.engine.dialect.name
        if self.dialect not in DIALECTS:
            raise UserError(f"the ratings store runs on SQLite or PostgreSQL, not {self.dialect} ({self.url})")
        self._local = threading.local()  # this thread's open transaction(), if any
        self._ratings_upsert_stmt: Any = None  # built on first use (see _ratings_upsert)
        self.changes = upgrade(self.engine)

    def dispose(self) -> None:
        self.engine.dispose()

    # ---- transactions -------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One write transaction around several store calls: every `Store` method called inside it, in
        this thread, joins it, so either all of their writes are kept or, if anything raises, none.

        Inside it, a method's own retry after a constraint conflict cannot retry (on PostgreSQL the
        conflict ends the whole transaction): the error reaches the caller and nothing is kept."""
        with self.write() as conn:
            yield conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction (or the thread's open `transaction()`); on SQLite it takes the write
        lock up front (BEGIN IMMEDIATE)."""
        joined = getattr(self._local, "conn", None)
        if joined is not None:
            yield joined
            return
        with _unreachable_as_user_error():
            with self.engine.connect() as conn:
                if self.dialect == "sqlite":
                    conn = conn.execution_options(sqlite_begin="IMMEDIATE")
                with conn.begin():
                    self._local.conn = conn
                    try:
                        yield conn
                    finally:
                        self._local.conn = None

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read transaction; inside a `transaction()`, that one (which sees its own writes)."""
        joined = getattr(self._local, "conn", None)
        if joined is not None:
            yield joined
            return
        with _unreachable_as_user_error():
            with self.engine.connect() as conn:
                with conn.begin():
                    yield conn

    def _insert(self, table):
        """The dialect's INSERT, which has ON CONFLICT."""
        return (sqlite.insert if self.dialect == "sqlite" else postgresql.insert)(table)

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
    ) -> int:
        """Store a study (and `items_`, as `add_items` takes them) in one transaction: all or nothing."""
        name = clean_name(name, "study name", 200) if isinstance(name, str) and name.strip() else ""
        if not name:
            raise UserError("give the study a name")
        if state not in STUDY_STATES:
            raise UserError(f"a study's state is one of {', '.join(STUDY_STATES)}, not {state!r}")
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
                raise UserError(f"there is no study #{int(study_id)}")
            if row["state"] not in allowed_from:
                raise UserError(
                    f"study #{int(study_id)} is {row['state']}; it can become {state} only from "
                    f"{' or '.join(allowed_from)}"
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

    # ---- ratings --------------------------------------------------------------------------------

    def save_ratings(self, rater_id: int, rows: Sequence[Mapping[str, Any]]) -> None:
        """Insert or update several ratings in one transaction: all are stored or none.

        Each row: output_id, coherence, informativeness, naturalness, optional comment, position,
        created_at / updated_at (import only), and optional `cant_judge`: the dimensions the rater
        could not judge, stored as NULL with their flag (feedback.py)."""
        now = utcnow()
        clean = []
        for row in rows:
            cant = cant_judge_dims(row)
            values: dict[str, Any] = {
                name: None if name in cant else check_score(name, row.get(name)) for name in SCORE_COLUMNS
            }
            values.update(cant_judge_values(cant))
            values.update(
                rater_id=int(rater_id),
                output_id=int(row["output_id"]),
                comment=clean_comment(row.get("comment")),
                position=None if row.get("position") is None else int(row["position"]),
                created_at=row.get("created_at") or now,
                updated_at=row.get("updated_at") or now,
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
            .order_by(studies.c.id, items.c.ordinal, raters.c.name, outputs.c.method, outputs.c.sample_index)
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
            counts = {
                "ratings": conn.execute(ratings.delete().where(ratings.c.output_id.in_(output_ids))).rowcount,
                "skips": conn.execute(skips.delete().where(skips.c.item_id.in_(item_ids))).rowcount,
                "flags": conn.execute(flags.delete().where(flags.c.item_id.in_(item_ids))).rowcount,
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
        """Delete one rater's ratings (rater name or id) in one study, and their skips and flags there
        (what they said about the items goes with their scores); return how many ratings went. Their
        recorded display orders stay, so a rater who comes back sees the same order as before."""
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
            return int(conn.execute(ratings.delete().where(mine)).rowcount)


def _enrolment(row: Mapping[Any, Any]) -> Enrolment:
    return from_row(Enrolment, row, has_code=row["code_hash"] is not None)


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
    for col in ("latency_ms", "ttft_ms", "tokens_per_s"):
        if col in frame:
            frame[col] = frame[col].astype("float64")
    for col in ("created_at", "updated_at"):
        if col in frame:
            frame[col] = pd.to_datetime(frame[col], utc=True)
    return frame


_default: Store | None = None
_default_lock = threading.Lock()


def get_store() -> Store:
    """The app's store, created once from the environment (DATABASE_URL / ARENA_DB_PATH)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Store()
        return _default


__all__ = ["Store", "StoreUnavailable", "get_store", "normalize_url", "OUTPUT_COLUMNS", "RATING_COLUMNS", "check_score"]
