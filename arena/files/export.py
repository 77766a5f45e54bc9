"""Export every rating joined with its output, method, settings, item and study, as CSV or JSONL,
and import such a file back without losing anything.

    python -m arena.export -o ratings.csv                # all studies; .jsonl for JSON lines
    python -m arena.export --study 3 --format jsonl      # to stdout
    python -m arena.export --import ratings.jsonl        # into the store (idempotent)
    python -m arena.export --votes --study 7 -o votes.csv  # a closed pairwise study's votes, for evaluation.pairwise
    python -m arena.export --preferences --study 7 -o pairs.jsonl  # its decisive votes as DPO pairs
    python -m arena.export --import-ratings survey.csv --name "Survey" --scale 1-10  # long format, closed study

The store is the one the app uses (DATABASE_URL / ARENA_DB_PATH), or `--database URL`.
Rows are matched on natural keys when imported (study name + creation time, item public id,
item + method + sample, rater name), so importing a file twice changes nothing.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO, cast

from arena.files.export_columns import (
    BY_NAME,
    RECORD,
    Exposure,
    in_format,
    question_column,
    question_columns,
    seal,
    sealed_columns,
)
from arena.files.long_import import import_long_file
from arena.files.long_ratings import ALL as ALL_DIMENSIONS
from arena.files.pair_export import preference_rows, vote_rows, write_votes_csv
from arena.files.preferences import preference_pairs, write_preference_jsonl
from arena.files.readers import CsvTable, csv_table, jsonl_records, read_text
from arena.inputs.numbers import cli_whole, parse_whole
from arena.inputs.text import escape_cell, unescape_cell
from arena.rating.guessing import LABELS
from arena.rating.study_spec import StudySpec
from arena.store import RATING_COLUMNS, SCORE_COLUMNS, Store
from arena.store.columns import DETAIL_COLUMNS, EXTRA_COLUMNS, JOIN_COLUMNS
from arena.store.feedback import FLAG_REASONS, SKIP_REASONS, clean_note
from arena.store.schema import STUDY_DESIGNS, STUDY_STATES, VOTE_WINNERS
from arena.store.values import check_dimension_score, clean_comment, clean_rater_name, dumps
from arena.store.vote_store import check_reasons
from common import messages
from common.errors import UserError
from common.messages import plural
from common.outputs import check_output_path, write_failure
from common.rubric import Rubric, parse_scale, rubric_from

# The analysis columns first (as in Store.ratings_frame), then what a lossless import needs; then the
# columns added by later formats. Every column, with its type, files, format version and whether it
# may be read while its study is open, is declared once in arena/files/export_columns.py (docs/exports.md).
EXPORT_COLUMNS: tuple[str, ...] = RATING_COLUMNS + EXTRA_COLUMNS + DETAIL_COLUMNS
# Added later; files written before them still import (a study without a state is imported as
# "open": not published, so nothing of it becomes public by importing).
#
# Format 3 adds what raters say besides scores. `row_kind` is "rating" (also when absent: older
# files hold ratings only), "skip" (an item a rater skipped: study and item columns, rater,
# reason, note, created_at; no output, no scores) or "flag" (an item, or with the output columns one
# response of it, that a rater flagged: reason, note, position as that rater saw it). `cant_judge`
# lists, comma-separated, the dimensions of a rating the rater could not judge; their scores are empty.
#
# Format 4 adds raters' guesses (arena/rating/guessing.py): `row_kind` "guess", with the study and item
# columns, rater, created_at, and `target_method`, `n_responses`, `guessed_label` (empty = don't know)
# and `true_label` (empty while the study is open: the answer key is a secret then), the columns
# `python -m evaluation.blinding` reads; and `study_guess_methods`, the methods a study asks about.
# Format 5 adds pairwise studies: `study_design` ("scores", also when absent, or "pairwise") and
# `row_kind` "vote", two rows per vote (position 0 = the response shown as A, 1 = B), each with its
# output's columns, `winner` (a, b, tie, bothbad), `reason` (the ticked reasons, comma-separated)
# and `note`. `python -m arena.export --votes` writes the votes as `python -m evaluation.pairwise` reads them.
# 2: CSV cells escaped against formula injection (see escape_cell); 3: skips, flags, can't judge; 4: guesses;
# 5: pairwise votes; 6: a rubric per study
#
# Format 6 adds a study's own rubric: `study_rubric`, its JSON (dimension names, scales, descriptions,
# anchors; empty = the default three 1-5 questions, whose scores stay in their three columns), and for
# each rating of such a study `scores`, a JSON object {dimension: score} (the three columns are then
# empty; `cant_judge` names the dimensions not judged). `study_exclusion_rules` (JSON list) and
# `item_attention` (an attention item's instruction and expected score) complete the study, and
# `attention_passed` (a rating row's rater: followed every attention item of the study, or not; empty
# when not recorded) the rule "drop raters who fail any attention item".
#
# Issue 44: every export of a study that is not closed leaves the sealed columns empty (the seeds,
# and whatever says which method wrote a text); the format itself did not change.
#
# Format 7 (issue 46): a rubric's questions have types (common/questions/: scale, yes-no, choice, text),
# and a rating of a study with its own rubric has one column per question after the catalogue's
# (`export_columns.question_column`), the answer as its type writes it; `scores` keeps the stored
# values (a choice's index, a comment's text). Either imports: `scores` when given, else the columns.
OPTIONAL_COLUMNS: tuple[str, ...] = tuple(c for c in in_format("csv") if BY_NAME[c].since > 1)
FORMAT_VERSION = 7
ROW_KINDS = ("rating", "skip", "flag", "guess", "vote")
ALL_COLUMNS: tuple[str, ...] = EXPORT_COLUMNS + OPTIONAL_COLUMNS
_RECORD = [BY_NAME[c] for c in ALL_COLUMNS]
# The record's columns kept in one table of the store, as (column, the table's attribute, kind): what
# a row about a study, an item or one output carries of it, and what the import gives add_output.
STORE_FIELDS: dict[str, tuple[tuple[str, str, str], ...]] = {
    table: tuple(
        (c.name, c.source.split(".")[1], c.kind) for c in _RECORD if c.source and c.source.split(".")[0] == table
    )
    for table in ("studies", "items", "outputs")
}
OUTPUT_FIELDS: tuple[str, ...] = tuple(name for name, _, _ in STORE_FIELDS["outputs"])
INT_COLUMNS = frozenset(c.name for c in _RECORD if c.kind in ("int", "bigint"))
BIG_INT_COLUMNS = frozenset(c.name for c in _RECORD if c.kind == "bigint")
FLOAT_COLUMNS = frozenset(c.name for c in _RECORD if c.kind == "float")
TIME_COLUMNS = frozenset(c.name for c in _RECORD if c.kind == "time")
BOOL_COLUMNS = frozenset(c.name for c in _RECORD if c.kind == "bool")
KEEPS_EMPTY = frozenset(c.name for c in _RECORD if c.keeps_empty)
FORMATS = RECORD
# Blank in every export of a study that is not closed or published, whoever asks and however
# (the Organizer's download, the CLI, the library): with any of them a row says which method wrote the
# text that was rated (the output's id was numbered method by method; its timing or length differ
# by method), or gives the seeds, with which the texts regenerate offline and match their methods.
SEALED_COLUMNS: tuple[str, ...] = sealed_columns("csv")
BLINDED_COLUMNS = SEALED_COLUMNS  # its name before issue 44 (the organizer's list then)
SECRET_COLUMNS = tuple(c.name for c in _RECORD if c.exposure == "seeds")  # what a deletion's copy leaves out


def export_rows(
    store: Store, study_id: int | None = None, blind: bool = True, *, server_copy: bool = False
) -> list[dict[str, Any]]:
    """Every rating, skip, flag, guess and vote as export rows. Rows of a study that is not closed or
    published have `SEALED_COLUMNS` empty, whoever asks (the Organizer's download, the CLI, a script):
    nothing in them would differ if the seeds or the mapping were different, and such a file does
    not import back. `server_copy` (the copy a deletion writes on the server, which is not offered
    for download while the study is open) keeps the mapping, so that it imports back, and leaves
    out the seeds. `blind` is kept for callers from before issue 44: every export is blind now."""
    if not blind:
        raise ValueError("every export of an open study is blind; a deletion's server copy is server_copy=True")
    keep: tuple[Exposure, ...] = ("mapping",) if server_copy else ()
    rows = store.rating_records(tuple(c.name for c in _RECORD if c.source) + ("scores",), study_id)
    guess_methods: dict[int, str | None] = {}
    scorers: dict[int, str | None] = {}
    designs: dict[int, str] = {}
    rubrics: dict[int, tuple[str | None, str | None]] = {}
    questions: dict[int, Rubric] = {}
    attention: dict[int, dict[str, bool]] = {}
    rubric_of: dict[int, Rubric] = {}
    for row in rows:
        row.update({c: None for c in ALL_COLUMNS if c not in row})  # every row has every column, as a guess's
        row["row_kind"] = "rating"
        sid = row["study_id"]
        if sid not in rubric_of:
            study = store.get_study(sid)
            rubric_of[sid] = study.rubric if study is not None else rubric_from(None)
        _answers_in_record(row, rubric_of[sid])
    rows += feedback_rows(store, study_id, server_copy=server_copy)
    for row in rows:
        row["format_version"] = FORMAT_VERSION
        sid = row["study_id"]
        if sid not in guess_methods:
            study = store.get_study(sid)
            guess_methods[sid] = dumps(list(study.guess_methods)) if study is not None and study.guess_methods else None
            scorers[sid] = study.scorer_model if study is not None else None
            designs[sid] = study.design if study is not None else "scores"
        row["study_guess_methods"] = guess_methods[sid]
        row["study_scorer_model"] = scorers[sid]
        row["study_design"] = designs[sid]
        if sid not in rubrics:
            study = store.get_study(sid)
            rubrics[sid] = (
                None if study is None else study.rubric.stored_json,
                dumps(list(study.exclusion_rules)) if study is not None and study.exclusion_rules else None,
            )
        row["study_rubric"], row["study_exclusion_rules"] = rubrics[sid]
        if row["row_kind"] == "rating" and rubrics[sid][0] is not None:
            rubric = questions.setdefault(sid, rubric_from(rubrics[sid][0]))
            answers = json.loads(row["scores"] or "{}")
            row.update({question_column(q.name): q.qtype.cell(q, answers.get(q.name)) for q in rubric.dimensions})
        if row["row_kind"] == "rating":
            if sid not in attention:
                attention[sid] = store.attention_of(sid)
            row["attention_passed"] = attention[sid].get(row["rater"])
        seal(row, row["study_state"], keep)
    return rows


def _answers_in_record(row: dict[str, Any], rubric: Rubric) -> None:
    """A rating's answers as the file carries them: the default rubric's in the record's three score
    columns, any other rubric's as `scores` (JSON); `cant_judge` names the questions answered so."""
    answers = row["scores"]  # {question: answer}; None is a can't-judge answer (NULL only with its flag)
    row["cant_judge"] = ",".join(d for d in rubric.names if d in answers and answers[d] is None) or None
    if rubric.in_rating_columns:
        row.update({d: answers.get(d) for d in rubric.names})
        row["scores"] = None
    else:
        row["scores"] = dumps({d: v for d, v in answers.items() if v is not None}) if answers else None


class _RowContext:
    """The study and item columns of an export row (and an output's, for a row about one response),
    each study, item and output read once."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.studies: dict[int, Any] = {}
        self.items: dict[int, Any] = {}
        self.outputs: dict[int, Any] = {}

    def __call__(self, study: int, item_id: int, output_id: int | None) -> dict[str, Any]:
        if study not in self.studies:
            self.studies[study] = self.store.get_study(study)
        if item_id not in self.items:
            self.items[item_id] = self.store.get_item(item_id)
            self.outputs.update({o.id: o for o in self.store.outputs_for_item(item_id)})
        row: dict[str, Any] = {c: None for c in ALL_COLUMNS}
        row.update(_store_values(self.studies[study], "studies"), **_store_values(self.items[item_id], "items"))
        if output_id is not None:
            row.update(_store_values(self.outputs[output_id], "outputs"))
        return row


def _store_values(found: Any, table: str) -> dict[str, Any]:
    """The record's columns of a study, item or output row (`STORE_FIELDS`), as the record query gives them."""
    values = {}
    for name, attribute, kind in STORE_FIELDS[table]:
        value = getattr(found, attribute)
        if kind in ("object", "list") and value is not None and not isinstance(value, str):
            value = dumps(list(value) if kind == "list" else dict(value))
        values[name] = value
    return values


def feedback_rows(store: Store, study_id: int | None = None, *, server_copy: bool = False) -> list[dict[str, Any]]:
    """The guesses, votes, skips and flags (of one study) as export rows: the study and item columns
    that importing needs, the rater, and for a row about one response, that output's columns; sealed
    while the study is open, as `export_rows`."""
    rows = _feedback_rows(store, study_id)
    keep: tuple[Exposure, ...] = ("mapping",) if server_copy else ()
    return [seal(row, row["study_state"], keep) for row in rows]


def _feedback_rows(store: Store, study_id: int | None) -> list[dict[str, Any]]:
    context = _RowContext(store)
    rows = []
    for g in store.guesses(study_id):
        row = context(g.study_id, g.item_id, None)
        row.update(
            row_kind="guess",
            rater=g.rater,
            created_at=g.created_at,
            target_method=g.target_method,
            n_responses=g.n_responses,
            guessed_label=None if g.guessed_position is None else LABELS[g.guessed_position],
            true_label=None if g.true_position is None else LABELS[g.true_position],
        )
        rows.append(row)
    for v in store.votes(study_id):
        for position, oid in ((0, v.output_a), (1, v.output_b)):
            row = context(v.study_id, v.item_id, oid)
            row.update(
                row_kind="vote",
                rater=v.rater,
                winner=v.winner,
                reason=",".join(v.reasons) or None,
                note=v.note,
                created_at=v.created_at,
                updated_at=v.updated_at,
                position=position,
            )
            rows.append(row)
    for kind, records in (("skip", store.skips(study_id)), ("flag", store.flags(study_id))):
        for r in records:
            row = context(r.study_id, r.item_id, getattr(r, "output_id", None))
            row.update(
                row_kind=kind,
                rater=r.rater,
                reason=r.reason,
                note=r.note,
                created_at=r.created_at,
                position=getattr(r, "position", None),
            )
            rows.append(row)
    return rows


def _to_text(column: str, value: Any) -> Any:
    if value is None:
        return None
    if column in TIME_COLUMNS:
        return value.isoformat()
    if column in BOOL_COLUMNS:
        return bool(value)
    return value


def write_export(rows: Iterable[dict[str, Any]], fmt: str, out: TextIO) -> int:
    if fmt not in FORMATS:
        raise UserError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    rows = list(rows)
    own = {r["study_rubric"] for r in rows if r.get("study_rubric")}
    columns = ALL_COLUMNS + question_columns(rubric_from(text) for text in sorted(own))
    n = 0
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            # None is written as an empty field; every text column that may be empty is nullable or
            # cleaned to None by the store, so empty reads back as None without ambiguity.
            writer.writerow(
                [
                    "" if (v := _to_text(c, row.get(c))) is None else escape_cell(v) if isinstance(v, str) else v
                    for c in columns
                ]
            )
            n += 1
    else:
        for row in rows:
            out.write(json.dumps({c: _to_text(c, row.get(c)) for c in columns}, ensure_ascii=False) + "\n")
            n += 1
    return n


def export(store: Store, fmt: str, out: TextIO, study_id: int | None = None, blind: bool = True) -> int:
    """Write every rating (of one study, or all) to `out`, open studies sealed; return the number of rows."""
    return write_export(export_rows(store, study_id, blind), fmt, out)


def export_text(store: Store, fmt: str, study_id: int | None = None, blind: bool = True) -> tuple[str, int]:
    """The export as text and its number of rows (the Organizer's download: nothing on disk)."""
    buf = io.StringIO(newline="")
    n = export(store, fmt, buf, study_id, blind)
    return buf.getvalue(), n


def export_to_path(store: Store, path: str | Path, fmt: str | None = None, study_id: int | None = None) -> int:
    path = Path(path)
    fmt = fmt or format_from_suffix(path)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        return export(store, fmt, fh, study_id)


def format_from_suffix(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    raise UserError(messages.text("export_file_kind", file=Path(path).name))


# ---- import ---------------------------------------------------------------------------------------


def at(where: str, message: str) -> UserError:
    """A refusal about one row: `where` ("FILE line N") and what is wrong there, as common/messages.py's
    `file_line_error` reads it back (the row's message found there too)."""
    return UserError(f"{where}: {message}")


def _parse(column: str, value: Any, where: str) -> Any:
    if value is None or (isinstance(value, str) and value == "" and column not in KEEPS_EMPTY):
        return None
    try:
        if column in INT_COLUMNS:
            return parse_whole(value)
        if column in FLOAT_COLUMNS:
            return float(value)
        if column in TIME_COLUMNS:
            return datetime.fromisoformat(value)
        if column in BOOL_COLUMNS:
            if isinstance(value, bool):
                return value
            if str(value).lower() in ("true", "1"):
                return True
            if str(value).lower() in ("false", "0"):
                return False
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise at(where, messages.text("import_unreadable", column=column, value=repr(value))) from None
    return value


def _unescaped(row: dict[str, Any]) -> dict[str, Any]:
    """A CSV row as written: files from format 2 on have formula-leading cells escaped."""
    if str(row.get("format_version") or "").strip() in ("", "1"):
        return row
    return {k: unescape_cell(v) if isinstance(v, str) else v for k, v in row.items()}


def read_export(path: str | Path, fmt: str | None = None) -> list[dict[str, Any]]:
    path = Path(path)
    fmt = fmt or format_from_suffix(path)
    text = read_text(path, path.name)
    raw_rows: list[tuple[str, dict[str, Any]]] = []
    if fmt == "csv":
        table = csv_table(text, path.name) if text.strip() else CsvTable([], [])
        missing = set(EXPORT_COLUMNS) - set(table.header)
        if missing:
            raise UserError(messages.text("import_not_export", file=path.name, columns=", ".join(sorted(missing))))
        raw_rows = [(f"{path.name} line {row.line}", _unescaped(row.values)) for row in table.rows]
    else:
        for n, row in jsonl_records(text, path.name):
            if not isinstance(row, dict) or set(EXPORT_COLUMNS) - set(row):
                raise UserError(messages.text("import_not_export_row", file=path.name, line=n))
            raw_rows.append((f"{path.name} line {n}", row))
    rows = []
    for where, row in raw_rows:
        parsed = {c: _parse(c, row.get(c), where) for c in ALL_COLUMNS}
        if parsed["study_state"] not in (None, *STUDY_STATES):
            raise at(where, messages.text("import_state", states=", ".join(STUDY_STATES)))
        kind = parsed["row_kind"] = parsed["row_kind"] or "rating"
        if kind not in ROW_KINDS:
            raise at(where, messages.text("import_row_kind", kinds=", ".join(ROW_KINDS), kind=repr(kind)))
        # A skip has no output; a flag has one only when it is about one response.
        with_output = kind in ("rating", "vote") or (kind == "flag" and parsed["method"] not in (None, ""))
        if parsed["study_design"] not in (None, *STUDY_DESIGNS):
            raise at(where, messages.text("import_design", designs=", ".join(STUDY_DESIGNS)))
        if (
            kind in ("rating", "vote")
            and parsed["method"] in (None, "")
            and parsed["study_state"] not in ("closed", "published")
        ):
            raise at(where, messages.english("import_blind"))
        for c in ("study_name", "prompt", "rater", "item_public_id", "study_created_at", *(("method",) * with_output)):
            if parsed[c] in (None, ""):
                raise at(where, messages.text("import_empty", column=c))
        if kind == "rating":
            _check_scores(parsed, where, row)
        elif kind == "guess":
            _check_guess(parsed, where)
        elif kind == "vote":
            _check_vote(parsed, where)
        else:
            _check_feedback(parsed, where)
        _check_row(parsed, where)
        rows.append(parsed)
    return rows


def _check_scores(row: dict[str, Any], where: str, raw: dict[str, Any] | None = None) -> None:
    """A rating row's scores on its study's rubric (`study_rubric`, else the default three 1-5 columns);
    with a rubric of its own, the row's `scores` (JSON) become its dimension columns, or without them
    its question columns as written (`raw`, the row as read: a file from format 7 on, or edited)."""
    try:
        rubric = rubric_from(row.get("study_rubric"))
        given = json.loads(row["scores"]) if row.get("scores") not in (None, "") else {}
    except (UserError, ValueError) as exc:
        raise UserError(f"{where}: {exc}") from None
    if not isinstance(given, dict):
        raise UserError(f"{where}: scores must be a JSON object")
    if not rubric.in_rating_columns:
        if any(row[d] is not None for d in SCORE_COLUMNS):
            raise UserError(f"{where}: the study has its own rubric: its scores belong in the scores column")
        unknown = set(given) - set(rubric.names)
        if unknown:
            raise UserError(f"{where}: scores name unknown dimensions {', '.join(sorted(unknown))}")
        if not given and raw is not None:
            given = _answers_in_columns(rubric, raw, where)
        row.update({d: given.get(d) for d in rubric.names})
    cant = {d.strip() for d in (row["cant_judge"] or "").split(",") if d.strip()}
    unknown = cant - set(rubric.names)
    if unknown:
        raise UserError(f"{where}: cant_judge names unknown dimensions {', '.join(sorted(unknown))}")
    for d in rubric.dimensions:
        if d.name in cant:
            if row[d.name] is not None:
                raise UserError(f"{where}: {d.name} is marked can't judge and has a score")
            continue
        if not d.required and row[d.name] in (None, ""):
            continue  # an optional comment left empty
        try:
            check_dimension_score(d, row[d.name])
        except UserError as exc:
            raise UserError(f"{where}: {exc}") from None
    row["cant_judge"] = sorted(cant)
    row["rubric"] = rubric


def _answers_in_columns(rubric: Rubric, raw: dict[str, Any], where: str) -> dict[str, Any]:
    """A rating's answers from its question columns, each read back by its type (a choice's label to
    its index, yes/no words to 1/0); an empty cell is no answer."""
    out = {}
    for q in rubric.dimensions:
        cell = raw.get(question_column(q.name))
        try:
            out[q.name] = q.qtype.read(q, cell)  # `raw` is unescaped already (`_unescaped`)
        except UserError as exc:
            raise UserError(f"{where}: {exc}") from None
    return out


def _check_guess(row: dict[str, Any], where: str) -> None:
    n = row["n_responses"]
    if n is None or not 2 <= n <= len(LABELS):
        raise UserError(f"{where}: a guess needs n_responses from 2 to {len(LABELS)}, got {n!r}")
    if row["target_method"] in (None, "") or len(str(row["target_method"])) > 100:
        raise UserError(f"{where}: target_method must be a method name of at most 100 characters")
    for column in ("guessed_label", "true_label"):
        label = row[column]
        if label not in (None, "") and label not in LABELS[:n]:
            raise UserError(f"{where}: {column} {label!r} is not one of the {n} labels {', '.join(LABELS[:n])}")
        row[column] = LABELS.index(label) if label not in (None, "") else None
    if any(row[d] is not None for d in SCORE_COLUMNS):
        raise UserError(f"{where}: a guess row carries no scores")


def _check_vote(row: dict[str, Any], where: str) -> None:
    if row["winner"] not in VOTE_WINNERS:
        raise UserError(f"{where}: a vote's winner is one of {', '.join(VOTE_WINNERS)}, got {row['winner']!r}")
    if row["position"] not in (0, 1):
        raise UserError(f"{where}: a vote row's position is 0 (A) or 1 (B), got {row['position']!r}")
    if any(row[d] is not None for d in SCORE_COLUMNS):
        raise UserError(f"{where}: a vote row carries no scores")
    try:
        row["reason"] = check_reasons([r for r in (row["reason"] or "").split(",") if r])
        row["note"] = clean_note(row["note"])
    except UserError as exc:
        raise UserError(f"{where}: {exc}") from None


def _check_feedback(row: dict[str, Any], where: str) -> None:
    reasons = SKIP_REASONS if row["row_kind"] == "skip" else FLAG_REASONS
    if row["reason"] not in reasons:
        raise UserError(f"{where}: a {row['row_kind']}'s reason is one of {', '.join(reasons)}, got {row['reason']!r}")
    if any(row[d] is not None for d in SCORE_COLUMNS):
        raise UserError(f"{where}: a {row['row_kind']} row carries no scores")
    try:
        row["note"] = clean_note(row["note"])
    except UserError as exc:
        raise UserError(f"{where}: {exc}") from None


# Whatever the database would refuse is refused here, before anything is written, with the file's
# row in the message (import_rows is one transaction, so a refusal there would also leave nothing).
# Text columns and their lengths (None: unlimited), as the schema declares them.
TEXT_LIMITS: dict[str, int | None] = {
    c.name: getattr(JOIN_COLUMNS[c.name].type, "length", None) for c in _RECORD if c.kind == "text" and c.source
}
JSON_COLUMNS: dict[str, type] = {
    c.name: dict if c.kind == "object" else list for c in _RECORD if c.kind in ("object", "list")
}


def _check_row(row: dict[str, Any], where: str) -> None:
    for column, limit in TEXT_LIMITS.items():
        value = row[column]
        if value is None:
            continue
        if not isinstance(value, str):
            raise UserError(f"{where}: {column} must be text, got {value!r}")
        if limit is not None and len(value) > limit:
            raise UserError(f"{where}: {column} is longer than {limit} characters")
    if row["method"] not in (None, "") and row["text"] is None:  # a row with a response: its text is NOT NULL
        raise UserError(f"{where}: text is missing")
    for column, kind in JSON_COLUMNS.items():
        if row[column] in (None, ""):
            continue
        try:
            value = json.loads(row[column])
        except (TypeError, ValueError):
            raise UserError(f"{where}: {column} is not valid JSON: {row[column]!r}") from None
        if not isinstance(value, kind):
            raise UserError(f"{where}: {column} must be a JSON {'object' if kind is dict else 'list'}")
    for column in INT_COLUMNS:
        value = row[column]
        bound = 2**63 if column in BIG_INT_COLUMNS else 2**31
        if value is not None and not -bound <= value < bound:
            raise UserError(f"{where}: {column} is out of range: {value}")
    if row["study_kind"] not in (None, "", "study", "adhoc"):
        raise UserError(f"{where}: study_kind must be study or adhoc, got {row['study_kind']!r}")
    try:
        row["rater"] = clean_rater_name(row["rater"])
        row["comment"] = clean_comment(row["comment"])
    except UserError as exc:
        raise UserError(f"{where}: {exc}") from None


def import_rows(store: Store, rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Add the rows' studies, items, outputs, raters and ratings that the store lacks; update ratings.
    One transaction: if any row fails, nothing of the file is kept."""
    with store.transaction():
        return _import_rows(store, rows)


def _import_rows(store: Store, rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    counts = {"studies": 0, "items": 0, "outputs": 0, "ratings": 0, "skips": 0, "flags": 0, "guesses": 0, "votes": 0}
    sides: dict[tuple[int, int], dict[int, int]] = {}  # a vote's two rows: (rater, item) -> {position: output}
    study_ids: dict[tuple[str, Any], int] = {}
    item_ids: dict[str, int] = {}
    for row in rows:
        skey = (row["study_name"], row["study_created_at"])
        if skey not in study_ids:
            study_ids[skey] = _study_of(store, row, counts)
        pid = row["item_public_id"]
        if pid not in item_ids:
            item_ids[pid] = _item_of(store, row, study_ids[skey], counts)
        rid, iid = store.rater_id(row["rater"]), item_ids[pid]
        if _import_feedback(store, row, rid, iid, counts):
            continue
        values = {attribute: row[name] for name, attribute, _ in STORE_FIELDS["outputs"] if attribute != "id"}
        values |= {"settings": json.loads(values["settings"] or "{}"), "model": values["model"] or ""}
        values["new_tokens"] = values["new_tokens"] or 0
        oid, new = store.add_output(iid, values.pop("method"), values.pop("sample_index") or 0, **values)
        counts["outputs"] += int(new)
        _import_judgement(store, row, rid, iid, oid, sides, counts)
    return counts


def _study_of(store: Store, row: dict[str, Any], counts: dict[str, int]) -> int:
    """The row's study: found by name and creation time, else created as the file describes it."""
    for s in store.list_studies():
        if s.name == row["study_name"] and s.created_at == row["study_created_at"]:
            return s.id
    counts["studies"] += 1
    spec = StudySpec(
        row["study_name"],
        methods=json.loads(row["study_methods"] or "[]"),
        settings=json.loads(row["study_settings"] or "{}"),
        samples_per_method=row["samples_per_method"] or 1,
        max_new_tokens=row["max_new_tokens"] or 1,
        base_seed=row["base_seed"] or 0,
        guess_methods=json.loads(row["study_guess_methods"] or "[]"),
        scorer_model=row.get("study_scorer_model") or None,
        design=row["study_design"] or "scores",
        rubric=rubric_from(row.get("study_rubric")),
        exclusion_rules=json.loads(row.get("study_exclusion_rules") or "[]"),
    )  # as the file describes it: the rows were checked, and the study ran (or was imported) elsewhere
    return store.create_study(
        **spec.store_fields(),
        kind=row["study_kind"] or "study",
        model=row["study_model"] or "",
        blind_seed=row["blind_seed"],
        created_at=row["study_created_at"],
        state=row["study_state"] or "open",
    )


def _item_of(store: Store, row: dict[str, Any], sid: int, counts: dict[str, int]) -> int:
    """The row's item: found by its public id, else added to the study (at its ordinal when free)."""
    item = store.item_by_public_id(row["item_public_id"])
    if item is not None:
        return item.id
    taken = {i.ordinal for i in store.items(sid)}
    fields = {k: row[k] for k in ("prompt", "scenario", "language", "raw")} | {"attention": row.get("item_attention")}
    [iid] = store.add_items(sid, [{**fields, "public_id": row["item_public_id"], "created_at": row["item_created_at"]}])
    if row["item_ordinal"] is not None and row["item_ordinal"] not in taken:
        store.set_item_ordinal(iid, row["item_ordinal"])
    counts["items"] += 1
    return iid


def _import_feedback(store: Store, row: dict[str, Any], rid: int, iid: int, counts: dict[str, int]) -> bool:
    """A row about the item, with no output: a guess, a skip or a flag of the whole item (True), else False."""
    kind = row["row_kind"]
    if kind == "guess":
        answer = (row["target_method"], row["n_responses"], row["guessed_label"], row["true_label"])
        counts["guesses"] += store.save_guesses(rid, iid, [answer], created_at=row["created_at"])
    elif kind == "skip":
        store.skip_item(rid, iid, row["reason"], row["note"], created_at=row["created_at"])
        counts["skips"] += 1
    elif kind == "flag" and row["method"] in (None, ""):
        counts["flags"] += int(store.add_flag(rid, iid, row["reason"], row["note"], created_at=row["created_at"]))
    else:
        return False
    return True


def _import_judgement(
    store: Store,
    row: dict[str, Any],
    rid: int,
    iid: int,
    oid: int,
    sides: dict[tuple[int, int], dict[int, int]],
    counts: dict[str, int],
) -> None:
    """A row about one output: a vote (stored once both of its rows are read), a flag or a rating."""
    if row["row_kind"] == "vote":
        side = sides.setdefault((rid, iid), {})
        side[row["position"]] = oid
        if len(side) == 2:
            store.save_vote(rid, iid, side[0], side[1], row["winner"], row["reason"], row["note"],
                            created_at=row["created_at"], updated_at=row["updated_at"])  # fmt: skip
            counts["votes"] += 1
        return
    if row["row_kind"] == "flag":
        flag = store.add_flag(rid, iid, row["reason"], row["note"], output_id=oid, position=row["position"],
                              created_at=row["created_at"])  # fmt: skip
        counts["flags"] += int(flag)
        return
    rubric = row["rubric"]  # the study's, as _check_scores read it
    rating = {"output_id": oid, **{d: row[d] for d in rubric.names}}
    rating |= {k: row[k] for k in ("comment", "position", "created_at", "updated_at", "cant_judge")}
    store.save_ratings(rid, [rating], rubric)
    if row.get("attention_passed") is not None:  # the rater's outcome on the study's attention items
        item = store.get_item(iid)
        assert item is not None  # _item_of found or made it
        store.record_attention(item.study_id, rid, row["attention_passed"])
    counts["ratings"] += 1


def import_file(store: Store, path: str | Path, fmt: str | None = None) -> dict[str, int]:
    """Check the whole file first, then import it."""
    return import_rows(store, read_export(path, fmt))


def _import_long(store: Store, args: argparse.Namespace) -> None:
    """--import-ratings: a long-format file as closed studies; one line per study on stderr."""
    if not args.name:
        raise UserError("--import-ratings needs --name NAME")
    scales = {ALL_DIMENSIONS: parse_scale(args.scale)} if args.scale else None
    for made in import_long_file(store, args.import_ratings, args.name, scales, args.exclude_failed_attention):
        n = {k: cast(int, made[k]) for k in ("ratings", "items", "raters")}
        print(
            f"imported study #{made['study_id']} {made['name']!r} (closed): {n['ratings']} rating"
            f"{plural(n['ratings'])} of {n['items']} item{plural(n['items'])} by {n['raters']} rater"
            f"{plural(n['raters'])}, {made['failed_attention']} failed an attention check; publish it to show it "
            "on Results",
            file=sys.stderr,
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m arena.export", description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--out", help="file to write (.csv or .jsonl); default: CSV to stdout")
    p.add_argument("--format", choices=FORMATS, help="csv or jsonl (default: from the file name)")
    p.add_argument("--study", type=cli_whole, help="only this study id")
    p.add_argument("--import", dest="import_path", metavar="FILE", help="import an export file instead")
    p.add_argument("--database", help="SQLAlchemy URL (default: DATABASE_URL, else the SQLite file)")
    p.add_argument(
        "--import-ratings",
        metavar="FILE",
        help="import another team's ratings in the long format (study_id, item_id, rater, method, dimension, "
        "score) as a closed study named --name",
    )
    p.add_argument("--name", help="with --import-ratings: the study's name")
    p.add_argument(
        "--scale", help="with --import-ratings: every dimension's scale, MIN-MAX (default: the file's, else 1-5)"
    )
    p.add_argument(
        "--exclude-failed-attention",
        action="store_true",
        help="with --import-ratings: set the rule 'drop raters who fail any attention item' on the study",
    )
    p.add_argument(
        "--votes",
        action="store_true",
        help="with --study: the votes of a closed pairwise study, as python -m evaluation.pairwise reads them",
    )
    p.add_argument(
        "--preferences",
        action="store_true",
        help="with --study: a closed pairwise study's decisive votes as JSONL {prompt, chosen, rejected} (DPO)",
    )
    args = p.parse_args(argv)
    try:
        if args.out:
            check_output_path(args.out, "-o")
        store = Store(args.database)
        if args.study is not None and store.get_study(args.study) is None:
            raise UserError(f"there is no study #{args.study}")
        if args.votes and args.preferences:
            raise UserError("--votes or --preferences, not both")
        if args.preferences:
            if args.study is None:
                raise UserError("--preferences needs --study N")
            pairs = preference_pairs(preference_rows(store, args.study))
            if args.out:
                with open(args.out, "w", encoding="utf-8", newline="\n") as fh:
                    n = write_preference_jsonl(pairs, fh)
            else:
                n = write_preference_jsonl(pairs, sys.stdout)
            print(
                f"wrote {n} preference pairs (decisive votes, one line per pair of texts by majority)", file=sys.stderr
            )
        elif args.votes:
            if args.study is None:
                raise UserError("--votes needs --study N")
            rows = vote_rows(store, args.study)
            if args.out:
                with open(args.out, "w", encoding="utf-8", newline="") as fh:
                    n = write_votes_csv(rows, fh)
            else:
                n = write_votes_csv(rows, sys.stdout)
            print(f"wrote {n} votes", file=sys.stderr)
        elif args.import_ratings:
            _import_long(store, args)
        elif args.import_path:
            rows = read_export(args.import_path, args.format)
            if not rows:  # a script that imports nothing has the wrong file: exit 2, not "0 ratings" and 0
                raise UserError(f"{Path(args.import_path).name} holds no ratings to import (an export's header only?)")
            counts = import_rows(store, rows)
            print(
                f"imported {counts['ratings']} ratings (new: {counts['studies']} studies, {counts['items']} items, "
                f"{counts['outputs']} outputs) into {store.url}",
                file=sys.stderr,
            )
        elif args.out:
            n = export_to_path(store, args.out, args.format, args.study)
            print(f"wrote {n} ratings to {args.out}", file=sys.stderr)
        else:
            n = export(store, args.format or "csv", sys.stdout, args.study)
            print(f"wrote {n} ratings", file=sys.stderr)
    except OSError as exc:  # the output could be checked, not reserved: a disk can fill up while writing
        print(f"error: {write_failure(args.out or 'the output', exc)}", file=sys.stderr)
        return 2
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
