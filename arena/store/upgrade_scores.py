"""Schema 12: the default rubric's scores move from the ratings table's own columns to `rating_scores`.

Before schema 12 a rating of a study with the default rubric kept its three scores in the columns
`coherence`, `informativeness` and `naturalness` of `ratings` (NULL with a `cant_judge_*` flag for
"can't judge"), and any other rubric's scores were rows of `rating_scores`. The move copies each such
rating's three scores into `rating_scores` (a score of NULL is a can't-judge answer there too), then
drops the six columns, all in one transaction: either the database has both the copy and no old
columns, or it is as it was. The copy skips a score already there, so running it twice changes nothing.

The columns are dropped rather than left unused: their CHECKs tie a NULL score to its flag, so a
rating written without them would need its flags set forever (still written, and still one more
place a reader could look), and relaxing those CHECKs on SQLite takes the same table rebuild as
dropping them.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, inspect
from sqlalchemy.schema import CreateIndex, CreateTable

from common.errors import UserError
from common.rubric import rubric_from

from .schema import ratings

# The columns as schema 11 and before named them: history, fixed whatever the default rubric becomes.
OLD_SCORES: tuple[str, ...] = ("coherence", "informativeness", "naturalness")
OLD_FLAGS: tuple[str, ...] = tuple(f"cant_judge_{name}" for name in OLD_SCORES)


def move_scores_in_place(conn: Connection) -> list[str]:
    """PostgreSQL (or another server, whose DDL is transactional): copy, then drop the old columns
    (their CHECKs go with them), in the caller's transaction."""
    have = {c["name"] for c in inspect(conn).get_columns("ratings")}
    if not have & set(OLD_SCORES):
        return []
    studies = own_rubric_studies(conn.exec_driver_sql("SELECT id, rubric FROM studies").all())
    copied = sum(conn.exec_driver_sql(sql).rowcount for sql in copy_sql(studies, have))
    for name in (*OLD_SCORES, *OLD_FLAGS):
        if name in have:
            conn.exec_driver_sql(f"ALTER TABLE ratings DROP COLUMN {name}")
    return [f"copy {copied} scores to rating_scores", "drop columns ratings.coherence, informativeness, naturalness"]


def move_scores_sqlite(engine: Engine) -> list[str]:
    """SQLite, which cannot drop a column with a CHECK: copy, then rebuild `ratings` without the old
    columns the way SQLite's documentation prescribes (new table, copy every row, drop, rename, indexes
    again), in one transaction. Foreign keys are off for it (outside the transaction, where SQLite
    honours the pragma): dropping the old table must not cascade to its scores, and an old database
    may hold a rating whose output is gone, which the upgrade keeps rather than refusing to start."""
    raw = engine.raw_connection()
    try:
        db = raw.driver_connection
        assert db is not None  # a pooled connection always has its DBAPI connection
        db.execute("PRAGMA foreign_keys=OFF")
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                changes = _move_sqlite(db, engine)
                db.execute("COMMIT" if changes else "ROLLBACK")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        finally:
            db.execute("PRAGMA foreign_keys=ON")
    finally:
        raw.close()
    return changes


def _move_sqlite(db: Any, engine: Engine) -> list[str]:
    have = {col[1] for col in db.execute("PRAGMA table_info(ratings)").fetchall()}  # (cid, name, ...)
    if not have & set(OLD_SCORES):
        return []
    studies = own_rubric_studies(db.execute("SELECT id, rubric FROM studies").fetchall())
    copied = sum(db.execute(sql).rowcount for sql in copy_sql(studies, have))
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
    return [f"copy {copied} scores to rating_scores", "rebuild table ratings (its scores are in rating_scores)"]


def own_rubric_studies(rows: Any) -> list[int]:
    """The ids of the studies, among (id, rubric JSON) rows, whose rubric is not the default one: their
    ratings' old columns were NULL, flagged "not asked", and their scores are in `rating_scores` already.
    A rubric that does not read is counted as the study's own: its old columns cannot hold its answers."""
    own = []
    for sid, text in rows:
        if text is None:
            continue
        try:
            default = rubric_from(text).stored_json is None
        except UserError:
            default = False
        if not default:
            own.append(int(sid))
    return own


def copy_sql(own_rubric: list[int], have: set[str]) -> list[str]:
    """One INSERT ... SELECT per old score column: every rating not of a study in `own_rubric` (one
    whose output or item is gone included: its study's rubric cannot be told, and its scores are kept),
    its score or NULL for can't judge, unless `rating_scores` has that question of it already."""
    ids = ", ".join(str(int(s)) for s in own_rubric)
    keep = f"(i.study_id IS NULL OR i.study_id NOT IN ({ids})) AND " if own_rubric else ""
    return [
        "INSERT INTO rating_scores (rating_id, dimension, score, cant_judge) "
        f"SELECT r.id, '{name}', r.{name}, r.{name} IS NULL FROM ratings r "
        "LEFT JOIN outputs o ON o.id = r.output_id LEFT JOIN items i ON i.id = o.item_id "
        f"WHERE {keep}NOT EXISTS "
        f"(SELECT 1 FROM rating_scores s WHERE s.rating_id = r.id AND s.dimension = '{name}')"
        for name in OLD_SCORES
        if name in have
    ]
