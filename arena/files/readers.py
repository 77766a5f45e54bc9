"""The one way to read a file people give us: its text, its JSON lines, its CSV rows, each with the
line number an error names.

Every reader of a prompt file, an answers file, a ratings export, a votes or guesses CSV and the
held-out set goes through here, so they all accept and refuse the same things:

* text is UTF-8, with or without a byte-order mark, line endings kept as written (a "\\r\\n" inside
  a quoted CSV cell stays there);
* JSON lines are split on "\\n" only. `str.splitlines` would also cut at U+2028, U+2029, U+0085 and
  the other Unicode line breaks, which JSON allows raw inside a string: a prompt holding one would be
  refused as broken JSON by one reader and read by another. Blank lines are skipped;
* a CSV row carries the line its record starts on (a quoted cell may span lines), rows shorter than
  the header are padded with "", longer ones are refused.

Errors are `UserError`s that name the file as the caller names it (`label`) and the line.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common.errors import UserError


def read_text(path: str | Path, label: str | None = None) -> str:
    """The file's text: UTF-8 (a byte-order mark dropped), line endings as written."""
    label = str(path) if label is None else label
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            return fh.read()
    except FileNotFoundError:
        raise UserError(f"cannot read {label}: not found") from None
    except UnicodeDecodeError:
        raise UserError(f"cannot read {label}: not UTF-8 text") from None
    except OSError as exc:
        raise UserError(f"cannot read {label}: {exc.strerror or exc}") from None


def text_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) for every line of `text`, split on "\\n" only, a trailing "\\r" dropped.

    >>> list(text_lines('a\\r\\nb\\u2028c\\n'))
    [(1, 'a'), (2, 'b\\u2028c'), (3, '')]
    """
    for number, line in enumerate(text.split("\n"), start=1):
        yield number, line.removesuffix("\r")


def jsonl_records(text: str, label: str) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-blank line of JSON lines `text`.

    >>> list(jsonl_records('{"prompt": "a\\u2028b"}\\n\\n"c"\\n', "p.jsonl"))
    [(1, {'prompt': 'a\\u2028b'}), (3, 'c')]
    """
    for number, line in text_lines(text):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"{label} line {number}: not valid JSON ({exc.msg})") from None


def read_jsonl(path: str | Path, label: str | None = None) -> Iterator[tuple[int, Any]]:
    """`jsonl_records` of the file at `path`."""
    label = str(path) if label is None else label
    return jsonl_records(read_text(path, label), label)


@dataclass(frozen=True)
class CsvRow:
    line: int  # the line the record starts on (the header is line 1 of a plain file)
    values: dict[str, str]


@dataclass(frozen=True)
class CsvTable:
    header: list[str]
    rows: list[CsvRow]


def csv_table(text: str, label: str) -> CsvTable:
    """The header and the rows of CSV `text`; blank lines are skipped. An empty text (blank lines
    only) is refused, as is a row with more cells than the header.

    >>> table = csv_table('a,b\\n1,"x\\ny"\\n\\n2\\n', "t.csv")
    >>> table.header, [(row.line, row.values) for row in table.rows]
    (['a', 'b'], [(2, {'a': '1', 'b': 'x\\ny'}), (5, {'a': '2', 'b': ''})])
    """
    if not text.strip():
        raise UserError(f"{label} is empty")
    # strict: a quote never closed is an error, not one cell that swallows the rest of the file.
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    rows: list[CsvRow] = []
    ended = 0  # the last line of the previous record
    try:
        for cells in reader:
            start, ended = ended + 1, reader.line_num
            if not cells:
                continue
            if header is None:
                header = cells
                continue
            if len(cells) > len(header):
                raise UserError(f"{label} line {start}: {len(cells)} cells, but the header names {len(header)}")
            cells += [""] * (len(header) - len(cells))
            rows.append(CsvRow(start, dict(zip(header, cells, strict=True))))
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            raise UserError(f"{label} line {ended + 1}: a quoted cell starts here and is never closed") from None
        raise UserError(f"{label} line {reader.line_num}: not a readable CSV row ({exc})") from None
    return CsvTable(header or [], rows)


def read_csv(path: str | Path, label: str | None = None) -> CsvTable:
    """`csv_table` of the file at `path`."""
    label = str(path) if label is None else label
    return csv_table(read_text(path, label), label)
