"""Create or upgrade the schema without ever dropping anything.

Missing tables are created; columns that newer code added are appended with `ALTER TABLE ... ADD
COLUMN` (nullable, or with a constant default), so an existing database keeps every row. Nothing
is renamed, retyped or removed: a change that needs that gets a new column or table instead.

One relaxation is made in place: the ratings' score columns, NOT NULL before schema 3, accept
NULL ("can't judge", tied to its flag by a CHECK). PostgreSQL drops NOT NULL and adds the missing
CHECKs; SQLite, which cannot alter a column, rebuilds the ratings table the way its documentation
prescribes (new table, copy every row, drop, rename, indexes again) in one transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import CheckConstraint, Connection, Engine, inspect, select, update
from sqlalchemy.schema import CreateIndex, CreateTable

from .schema import SCHEMA_VERSION, SCORE_COLUMNS, metadata, ratings, schema_info, utcnow

log = logging.getLogger(__name__)


def _add_column_sql(engine: Engine, table_name: str, column) -> str:
    preparer = engine.dialect.identifier_preparer
    col_type = column.type.compile(dialect=engine.dialect)
    sql = f"ALTER TABLE {preparer.quote(table_name)} ADD COLUMN {preparer.quote(column.name)} {col_type}"
    default = column.default.arg if column.default is not None and column.default.is_scalar else None
    if default is not None:
        # TRUE / FALSE: PostgreSQL refuses an integer default on a boolean column; SQLite reads them as 1 / 0.
        literal = (
            ("TRUE" if default else "FALSE")
            if isinstance(default, bool)
            else (repr(default) if isinstance(default, (int, float)) else "'" + str(default).replace("'", "''") + "'")
        )
        sql += f" DEFAULT {literal}"
        if not column.nullable:
            sql += " NOT NULL"
    return sql


@contextmanager
def _begin_write(engine: Engine) -> Iterator[Connection]:
    """A transaction that holds the write lock from its start on SQLite (BEGIN IMMEDIATE): two
    programs opening a fresh file at once then queue on the busy timeout, where two deferred ones
    would both read, both try to write, and one would fail at once with "database is locked"."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn = conn.execution_options(sqlite_begin="IMMEDIATE")
        with conn.begin():
            yield conn


def upgrade(engine: Engine) -> list[str]:
    """Bring the database up to this code's schema; return the changes made (for logs and tests)."""
    changes: list[str] = []
    with _begin_write(engine) as conn:
        existing = set(inspect(conn).get_table_names())
        missing = [t for t in metadata.sorted_tables if t.name not in existing]
        metadata.create_all(conn, tables=missing, checkfirst=True)
        changes += [f"create table {t.name}" for t in missing]
    with _begin_write(engine) as conn:
        inspector = inspect(conn)
        for table in metadata.sorted_tables:
            if table.name not in existing:
                continue
            have = {c["name"] for c in inspector.get_columns(table.name)}
            for column in table.columns:
                if column.name in have:
                    continue
                conn.exec_driver_sql(_add_column_sql(engine, table.name, column))
                changes.append(f"add column {table.name}.{column.name}")
            indexed = {i["name"] for i in inspector.get_indexes(table.name)}
            for index in table.indexes:
                if index.name not in indexed:
                    conn.execute(CreateIndex(index, if_not_exists=True))
                    changes.append(f"create index {index.name}")
        if "ratings" in existing and engine.dialect.name != "sqlite":
            changes += _relax_scores_in_place(conn)
    if "ratings" in existing and engine.dialect.name == "sqlite":
        changes += _rebuild_sqlite_ratings(engine)
    with _begin_write(engine) as conn:
        row = conn.execute(select(schema_info.c.id, schema_info.c.version)).first()
        if row is None:
            conn.execute(schema_info.insert().values(id=1, version=SCHEMA_VERSION, upgraded_at=utcnow()))
        elif row.version < SCHEMA_VERSION:
            conn.execute(update(schema_info).values(version=SCHEMA_VERSION, upgraded_at=utcnow()))
    for change in changes:
        log.info("store schema: %s", change)
    return changes


def _ratings_checks() -> list[CheckConstraint]:
    return [c for c in ratings.constraints if isinstance(c, CheckConstraint)]


def _relax_scores_in_place(conn) -> list[str]:
    """PostgreSQL (or another server): DROP NOT NULL on the score columns, add missing CHECKs."""
    changes = []
    inspector = inspect(conn)
    strict = [c["name"] for c in inspector.get_columns("ratings") if c["name"] in SCORE_COLUMNS and not c["nullable"]]
    for name in strict:
        conn.exec_driver_sql(f"ALTER TABLE ratings ALTER COLUMN {name} DROP NOT NULL")
        changes.append(f"allow null ratings.{name}")
    have = {c["name"] for c in inspector.get_check_constraints("ratings")}
    for check in _ratings_checks():
        if check.name not in have:
            conn.exec_driver_sql(f"ALTER TABLE ratings ADD CONSTRAINT {check.name} CHECK ({check.sqltext})")
            changes.append(f"add check {check.name}")
    return changes


def _rebuild_sqlite_ratings(engine: Engine) -> list[str]:
    """SQLite: rebuild `ratings` with nullable scores and this schema's CHECKs if a score column is
    still NOT NULL. Foreign keys are switched off for the copy (outside the transaction, where
    SQLite honours the pragma): an old database may hold a rating whose output is gone, and the
    upgrade keeps every row rather than refusing to start."""
    raw = engine.raw_connection()
    try:
        db = raw.driver_connection
        assert db is not None  # a pooled connection always has its DBAPI connection
        db.execute("PRAGMA foreign_keys=OFF")
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                info = db.execute("PRAGMA table_info(ratings)").fetchall()  # (cid, name, type, notnull, ...)
                if not any(col[1] in SCORE_COLUMNS and col[3] for col in info):
                    db.execute("ROLLBACK")
                    return []
                ddl = str(CreateTable(ratings).compile(dialect=engine.dialect)).strip()
                prefix = "CREATE TABLE ratings ("
                if not ddl.startswith(prefix):
                    raise RuntimeError(f"unexpected DDL for ratings: {ddl[:80]!r}")
                db.execute("CREATE TABLE ratings_upgrade (" + ddl[len(prefix) :])
                columns = ", ".join(c.name for c in ratings.columns)
                db.execute(f"INSERT INTO ratings_upgrade ({columns}) SELECT {columns} FROM ratings")
                db.execute("DROP TABLE ratings")
                db.execute("ALTER TABLE ratings_upgrade RENAME TO ratings")
                for index in ratings.indexes:
                    db.execute(str(CreateIndex(index, if_not_exists=True).compile(dialect=engine.dialect)))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        finally:
            db.execute("PRAGMA foreign_keys=ON")
    finally:
        raw.close()
    return ["rebuild table ratings (scores accept NULL for can't judge)"]
