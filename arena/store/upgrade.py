"""Create or upgrade the schema without ever dropping anything.

Missing tables are created; columns that newer code added are appended with `ALTER TABLE ... ADD
COLUMN` (nullable, or with a constant default), so an existing database keeps every row. Nothing
is renamed, retyped or removed: a change that needs that gets a new column or table instead.
"""

from __future__ import annotations

import logging

from sqlalchemy import Engine, inspect, select, update
from sqlalchemy.schema import CreateIndex

from .schema import SCHEMA_VERSION, metadata, schema_info, utcnow

log = logging.getLogger(__name__)


def _add_column_sql(engine: Engine, table_name: str, column) -> str:
    preparer = engine.dialect.identifier_preparer
    col_type = column.type.compile(dialect=engine.dialect)
    sql = f"ALTER TABLE {preparer.quote(table_name)} ADD COLUMN {preparer.quote(column.name)} {col_type}"
    default = column.default.arg if column.default is not None and column.default.is_scalar else None
    if default is not None:
        literal = repr(int(default)) if isinstance(default, bool) else (
            repr(default) if isinstance(default, (int, float)) else "'" + str(default).replace("'", "''") + "'"
        )
        sql += f" DEFAULT {literal}"
        if not column.nullable:
            sql += " NOT NULL"
    return sql


def upgrade(engine: Engine) -> list[str]:
    """Bring the database up to this code's schema; return the changes made (for logs and tests)."""
    changes: list[str] = []
    with engine.begin() as conn:
        existing = set(inspect(conn).get_table_names())
        missing = [t for t in metadata.sorted_tables if t.name not in existing]
        metadata.create_all(conn, tables=missing, checkfirst=True)
        changes += [f"create table {t.name}" for t in missing]
    with engine.begin() as conn:
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
        row = conn.execute(select(schema_info.c.id, schema_info.c.version)).first()
        if row is None:
            conn.execute(schema_info.insert().values(id=1, version=SCHEMA_VERSION, upgraded_at=utcnow()))
        elif row.version < SCHEMA_VERSION:
            conn.execute(update(schema_info).values(version=SCHEMA_VERSION, upgraded_at=utcnow()))
    for change in changes:
        log.info("store schema: %s", change)
    return changes
