"""The column catalogue as the store reads it: the documented columns of an output and a rating
record (frames, export files), in order, and where each column's value comes from in the schema.
Every name here is derived from arena/files/export_columns.py, where each column is declared once."""

from __future__ import annotations

from sqlalchemy import Column, Table

from arena.files.export_columns import CATALOGUE, of_kind, record_part

from .schema import items, outputs, raters, ratings, studies

_TABLES: dict[str, Table] = {t.name: t for t in (studies, items, outputs, raters, ratings)}

OUTPUT_COLUMNS: tuple[str, ...] = record_part("output")
RATING_COLUMNS: tuple[str, ...] = OUTPUT_COLUMNS + record_part("rating")
# Appended after the documented columns: which sample of a stochastic method this output is, and
# the prompt's language (scenario keys repeat across languages).
EXTRA_COLUMNS: tuple[str, ...] = record_part("extra")
# The study's, item's and output's details, after the documented columns in an export's record.
DETAIL_COLUMNS: tuple[str, ...] = record_part("detail")
# Column types where a frame or a file needs them: whole numbers, fractions, times.
INT_COLUMNS: frozenset[str] = of_kind("int", "bigint")
FLOAT_COLUMNS: frozenset[str] = of_kind("float")
TIME_COLUMNS: frozenset[str] = of_kind("time")


def _source(where: str) -> Column:
    table, column = where.split(".")
    return _TABLES[table].c[column]


# Every column a rating record can have (frames, export files), by name: where its value comes from.
JOIN_COLUMNS: dict[str, Column] = {c.name: _source(c.source) for c in CATALOGUE if c.source is not None}
