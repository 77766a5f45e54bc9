"""Deleting a study, or one rater's ratings in it, after writing a copy.

Deleting cannot be undone, so it writes a copy first: the study's ratings as an arena export (which
the Import button or `python -m arena.export --import` takes back, losslessly) and, since an export
holds rated outputs only, every item and output as a plain CSV. The copy goes to a fresh temporary
folder (the organizer downloads it) and also to BACKUP_ENV's folder, else next to a SQLite
database file, so it outlives the download. The delete refuses if anything changed after the copy
was taken (see Store.deletion_fingerprint), and while the study is being generated.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from arena.files import export
from arena.inputs.numbers import study_id as parse_study_id
from common import messages
from common.errors import UserError

from ..settings import current as current_settings
from ..settings import env_of
from ..store import Output, Store, Study, clean_rater_name
from ..store.schema import outputs as output_table
from .lifecycle import being_generated

BACKUP_ENV = env_of("backup_dir")


@dataclass
class Deletion:
    study_id: int
    study_name: str
    counts: dict[str, int]  # rows removed, per table
    files: list[Path]  # the copy written first, in a temporary folder: [ratings export, items+outputs (study only)]
    kept_in: Path | None  # where the same copy was also kept, if anywhere
    rater: str | None = None

    def head(self, lang: str = "en") -> str:
        """What was deleted, in `lang`: "Deleted 3 ratings by 'ann' in study #2."."""
        c = self.counts
        if self.rater is not None:
            return messages.text("deleted_rater", lang, n=c["ratings"], rater=repr(self.rater), id=self.study_id)
        return messages.text(
            "deleted_study", lang, id=self.study_id, name=repr(self.study_name), items=c["items"],
            outputs=c["outputs"], ratings=c["ratings"], positions=c["assignments"], raters=c["study_raters"],
        )  # fmt: skip

    def message(self, lang: str = "en") -> str:
        """`head`, where the copy went, and where it was also kept, in `lang`."""
        kept = messages.text("deleted_kept", lang, path=self.kept_in) if self.kept_in else ""
        copied = messages.text("deleted_rater_copy" if self.rater is not None else "deleted_study_copy", lang)
        return self.head(lang) + copied + kept


def backup_folder(store: Store) -> Path | None:
    """Where copies written before a deletion are kept: `ARENA_BACKUP_DIR`, else a `deleted` folder
    next to a SQLite database file, else nowhere (PostgreSQL: the download is the copy)."""
    env = current_settings().backup_dir.strip()
    if env:
        return Path(env).expanduser()
    database = store.engine.url.database if store.dialect == "sqlite" else None
    if database and database != ":memory:" and not database.startswith("file:"):
        return Path(database).expanduser().resolve().parent / "deleted"
    return None


def _check_confirmation(study: Study, typed: object) -> None:
    if not isinstance(typed, str) or typed.strip() != study.name:
        raise UserError(messages.text("delete_confirm_name", name=repr(study.name)))


def _study_for_deletion(store: Store, study_id: Any, typed_name: object) -> Study:
    sid = parse_study_id(study_id)
    study = store.get_study(sid)
    if study is None:
        raise UserError(messages.text("no_study_number", id=sid))
    _check_confirmation(study, typed_name)
    if being_generated(sid):
        raise UserError(messages.english("delete_generating"))
    return study


def _slug(text: str) -> str:
    cleaned = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "-" for ch in text)
    return "-".join(part for part in cleaned.split("-") if part)[:40] or "study"


def _contents_frame(store: Store, study: Study):
    """Every item of the study with every stored output, one row per output (an item with none: one row)."""

    head = {
        "study_name": study.name,
        "study_created_at": study.created_at.isoformat(),
        "study_methods": json.dumps(study.methods),
        "study_settings": json.dumps(study.settings, sort_keys=True),
    }
    item_cols = [
        "item_id",
        "item_ordinal",
        "item_public_id",
        "item_created_at",
        "scenario",
        "language",
        "prompt",
        "raw",
    ]
    out_cols = [
        "output_id" if c.name == "id" else "output_created_at" if c.name == "created_at" else c.name
        for c in output_table.columns
        if c.name != "item_id"
    ]
    rows = []
    for item in store.items(study.id):
        it = {
            "item_id": item.id,
            "item_ordinal": item.ordinal,
            "item_public_id": item.public_id,
            "item_created_at": item.created_at,
            **{k: getattr(item, k) for k in ("scenario", "language", "prompt", "raw")},
        }
        item_outputs: list[Output | None] = [*store.outputs_for_item(item.id)]
        for out in item_outputs or [None]:
            named = {
                "output_id" if k == "id" else "output_created_at" if k == "created_at" else k: v
                for k, v in (asdict(out) if out is not None else {}).items()
            }
            rows.append({**head, **it, **{c: named.get(c) for c in out_cols}})
    return pd.DataFrame(rows, columns=[*head, *item_cols, *out_cols])


def _write_backup(store: Store, study: Study, rater: str | None) -> tuple[list[Path], Path | None]:
    try:
        return _write_backup_files(store, study, rater)
    except OSError as exc:
        raise UserError(messages.text("delete_copy_failed", error=str(exc))) from None


def _write_backup_files(store: Store, study: Study, rater: str | None) -> tuple[list[Path], Path | None]:

    when = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    stem = f"deleted-study-{study.id}-{_slug(study.name)}-{when}"
    folder = Path(tempfile.mkdtemp(prefix="arena-deleted-"))
    rows = export.export_rows(store, study.id, server_copy=True)  # stays on the server while the study is open
    if rater is not None:
        rows = [r for r in rows if r["rater"] == rater]
        files = [folder / f"{stem}-rater-{_slug(rater)}-ratings.csv"]
    else:
        files = [folder / f"{stem}-ratings.csv", folder / f"{stem}-items-and-outputs.csv"]
    with open(files[0], "w", encoding="utf-8", newline="") as fh:
        export.write_export(rows, "csv", fh)
    if rater is None:
        _contents_frame(store, study).to_csv(files[1], index=False)
    keep = backup_folder(store)
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        for path in files:
            shutil.copy2(path, keep / path.name)
    return files, keep


def delete_study(store: Store, study_id: Any, typed_name: object) -> Deletion:
    """Delete a study after `typed_name` matched its name exactly, writing its copy first."""
    study = _study_for_deletion(store, study_id, typed_name)
    before = store.deletion_fingerprint(study.id)
    files, kept = _write_backup(store, study, None)
    counts = store.delete_study(study.id, expect=before)
    return Deletion(study.id, study.name, counts, files, kept)


def delete_rater_ratings(store: Store, study_id: Any, rater: object, typed_name: object) -> Deletion:
    """Delete one rater's ratings in a study after `typed_name` matched the study's name, writing
    their copy first. The rater's ratings in other studies, and everyone else's, stay."""
    study = _study_for_deletion(store, study_id, typed_name)
    if not isinstance(rater, str) or not rater.strip():
        raise UserError(messages.english("delete_enter_rater"))
    name = clean_rater_name(rater)
    rater_id = store.find_rater(name)
    if rater_id is None:
        raise UserError(messages.text("delete_no_rater", name=repr(name)))
    if not (store.progress(study.id)["rater"] == name).any():
        raise UserError(messages.text("delete_rater_no_ratings", name=repr(name), id=study.id))
    before = store.deletion_fingerprint(study.id, rater_id)
    files, kept = _write_backup(store, study, name)
    n = store.delete_rater_ratings(study.id, rater_id, expect=before)
    return Deletion(study.id, study.name, {"ratings": n}, files, kept, rater=name)
