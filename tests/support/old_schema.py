"""Test support: a database written by this code, put back to where schemas 3 to 11 kept the default
rubric's scores (the ratings table's own columns), for the tests that upgrade an old database."""

from __future__ import annotations

from sqlalchemy import Connection, text

OLD_SCORES = ("coherence", "informativeness", "naturalness")

# The ratings of studies with the default rubric (studies.rubric NULL): those whose scores lived in the columns.
_DEFAULT_RATINGS = (
    "SELECT r.id FROM ratings r JOIN outputs o ON o.id = r.output_id JOIN items i ON i.id = o.item_id "
    "JOIN studies st ON st.id = i.study_id WHERE st.rubric IS NULL"
)


def back_to_score_columns(conn: Connection) -> None:
    """Add the three score columns and their can't-judge flags to `ratings`, with schema 11's CHECKs,
    move the default rubric's scores from `rating_scores` into them, and leave another rubric's ratings
    as schema 11 wrote them (NULL, flagged "not asked"). Works on SQLite and PostgreSQL alike."""
    for name in OLD_SCORES:
        conn.execute(
            text(
                f"ALTER TABLE ratings ADD COLUMN {name} INTEGER "
                f"CONSTRAINT ck_ratings_{name}_range CHECK ({name} IN (1, 2, 3, 4, 5))"
            )
        )
        # DEFAULT TRUE (schema 11 had none on a new table, FALSE when added by an upgrade): the rows
        # already there must pass the CHECK as the column arrives, before their scores are moved in.
        conn.execute(
            text(
                f"ALTER TABLE ratings ADD COLUMN cant_judge_{name} BOOLEAN NOT NULL DEFAULT TRUE "
                f"CONSTRAINT ck_ratings_{name}_cant_judge CHECK (({name} IS NULL) = cant_judge_{name})"
            )
        )
    kept = "FROM rating_scores s WHERE s.rating_id = ratings.id AND s.dimension = '{name}'"
    assignments = ", ".join(
        f"{name} = (SELECT s.score {kept.format(name=name)}), "
        f"cant_judge_{name} = COALESCE((SELECT s.cant_judge {kept.format(name=name)}), TRUE)"
        for name in OLD_SCORES
    )
    conn.execute(text(f"UPDATE ratings SET {assignments} WHERE id IN ({_DEFAULT_RATINGS})"))
    conn.execute(text(f"DELETE FROM rating_scores WHERE rating_id IN ({_DEFAULT_RATINGS})"))
