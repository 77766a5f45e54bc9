"""One table of export columns (issue 46): each column declared once in arena/files/export_columns.py, every
list of names derived from it, its types agreeing with the schema, and docs/exports.md its words."""

from __future__ import annotations

import ast
from pathlib import Path

from sqlalchemy import BigInteger, Boolean, DateTime, Float, Integer, String, Text

from arena.files import export, export_columns, pair_export, preferences
from arena.files.export_columns import BY_NAME, CATALOGUE, in_format, markdown_table
from arena.store.columns import JOIN_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "exports.md"
BEGIN, END = "<!-- columns: begin -->", "<!-- columns: end -->"
# The modules that write and read export files: their lists of columns must come from the catalogue.
USERS = ("arena/files/export.py", "arena/store/columns.py", "arena/files/pair_export.py", "arena/files/preferences.py")


def test_each_column_is_declared_once_with_a_known_kind_exposure_and_files():
    names = [c.name for c in CATALOGUE]
    assert len(names) == len(set(names))
    for c in CATALOGUE:
        assert c.kind in export_columns.KINDS_IN_WORDS and c.exposure in export_columns.EXPOSURE_IN_WORDS, c
        assert set(c.formats) <= set(export_columns.FORMATS) and 1 <= c.since <= export.FORMAT_VERSION, c
        assert c.about and (c.formats or c.exposure == "never"), c


def test_every_file_is_the_catalogue_in_its_order():
    assert export.ALL_COLUMNS == in_format("csv") == in_format("jsonl")
    assert export.EXPORT_COLUMNS == tuple(c for c in in_format("csv") if BY_NAME[c].since == 1)
    assert pair_export.VOTE_COLUMNS == in_format("votes")
    assert preferences.PREFERENCE_COLUMNS == in_format("preferences") == ("prompt", "chosen", "rejected")
    assert export.SEALED_COLUMNS == tuple(c for c in export.ALL_COLUMNS if BY_NAME[c].sealed)


def test_each_kind_agrees_with_the_schemas_column():
    expected = {Integer: ("int",), BigInteger: ("bigint",), Float: ("float",), DateTime: ("time",)}
    expected |= {Boolean: ("bool",), String: ("text",), Text: ("text", "object", "list")}
    for name, column in JOIN_COLUMNS.items():
        stored = getattr(column.type, "impl", column.type)  # a TypeDecorator (UTC times) by what it stores
        kinds = next(k for t, k in expected.items() if type(stored) is t)
        assert BY_NAME[name].kind in kinds, f"{name}: {BY_NAME[name].kind} but the store keeps {column.type}"
    assert set(export.TEXT_LIMITS) == {c.name for c in CATALOGUE if c.kind == "text" and c.source and c.formats}
    assert export.TEXT_LIMITS["method"] == 100 and export.TEXT_LIMITS["text"] is None


def constants_in(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_no_second_list_of_column_names_survives():
    """The module-level lists of the modules that write and read exports name no column themselves,
    and the import hands add_output the catalogue's output columns, not a list of its own."""
    for rel in USERS:
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        for node in tree.body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            for target in targets:
                if isinstance(target, ast.Name) and target.id.isupper() and node.value is not None:
                    # a kind or an exposure (the catalogue's own words) is not a column named
                    words = {*export_columns.KINDS_IN_WORDS, *export_columns.EXPOSURE_IN_WORDS}
                    named = (constants_in(node.value) & set(BY_NAME)) - words
                    assert not named, f"{rel}: {target.id} names columns itself: {sorted(named)}"
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "add_output"]
        assert all(all(k.arg is None for k in call.keywords) for call in calls), f"{rel}: add_output's own list"


def test_an_export_row_has_no_column_the_catalogue_lacks(tmp_path):
    from arena.store import Store
    from tests.test_export import fill

    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    fill(store)
    rows = export.export_rows(store)
    assert rows and set().union(*rows) <= set(BY_NAME)


def test_docs_list_every_column_as_the_catalogue_declares_it():
    text = DOC.read_text(encoding="utf-8")
    assert BEGIN in text and END in text, f"{DOC.name} lost its markers"
    shown = text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    wanted = markdown_table(limits=export.TEXT_LIMITS)
    assert shown == wanted, (
        f"{DOC.name} differs from arena/files/export_columns.py; paste the output of\n"
        "python -c 'from arena import export, export_columns as c; print(c.markdown_table(limits=export.TEXT_LIMITS))'"
    )
