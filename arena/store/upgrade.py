"""Create or upgrade the schema without ever losing a row or a value.

Missing tables are created; columns that newer code added are appended with `ALTER TABLE ... ADD
COLUMN` (nullable, or with a constant default), so an existing database keeps every row. Nothing
is renamed or retyped: a change that needs that gets a new column or table instead.

One move is made in place (schema 12, upgrade_scores.py): the ratings table's three score columns of
the default rubric, and their cant_judge_* flags, are copied into `rating_scores`, where every other
rubric's scores already were, and then dropped, in one transaction, so that one table holds every
study's scores and nothing can read a stale copy.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, inspect, select, update
from sqlalchemy.schema import CreateIndex

from .schema import SCHEMA_VERSION, metadata, schema_info, utcnow
from .upgrade_scores import move_scores_in_place, move_scores_sqlite

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
            changes += move_scores_in_place(conn)
    if "ratings" in existing and engine.dialect.name == "sqlite":
        changes += move_scores_sqlite(engine)
    with _begin_write(engine) as conn:
        row = conn.execute(select(schema_info.c.id, schema_info.c.version)).first()
        if row is None:
            conn.execute(schema_info.insert().values(id=1, version=SCHEMA_VERSION, upgraded_at=utcnow()))
        elif row.version < SCHEMA_VERSION:
            conn.execute(update(schema_info).values(version=SCHEMA_VERSION, upgraded_at=utcnow()))
    for change in changes:
        log.info("store schema: %s", change)
    return changes
