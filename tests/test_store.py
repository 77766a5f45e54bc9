"""The ratings store on SQLite and on a real PostgreSQL server (see scripts/services/postgres.sh)."""

from __future__ import annotations

import json
from datetime import UTC

import pytest
from sqlalchemy import create_engine, func, insert, select, text
from sqlalchemy.exc import IntegrityError

from arena.store import OUTPUT_COLUMNS, RATING_COLUMNS, Store, default_db_path, default_url, normalize_url
from arena.store.schema import outputs, rating_scores, ratings
from common.errors import UserError
from tests.support.stores import BACKENDS, open_store


def _study_with_outputs(store: Store, methods=("BS-4", "TS-Temp", "TS-Tilted")):
    sid = store.create_study("s", methods=list(methods), model="m")
    [iid] = store.add_items(sid, [{"prompt": "Explain X.", "scenario": "short-qa", "language": "en"}])
    oids = []
    for k, method in enumerate(methods):
        oid, new = store.add_output(
            iid,
            method,
            0,
            text=f"text {k}",
            settings={"method": method, "t": k},
            seed=k,
            model="m",
            new_tokens=5 + k,
            latency_ms=10.0 + k,
            ttft_ms=1.5,
            tokens_per_s=50.0,
        )
        assert new
        oids.append(oid)
    return sid, iid, oids


def test_out_of_range_and_fractional_scores_are_refused_and_nothing_is_stored(store):
    # Since schema 12 the default rubric's scores are rows of rating_scores like every rubric's, and a
    # question's scale is the study's rubric, checked by the store on every write (no database CHECK can
    # know a study's scale); the database still refuses two scores of one rating on one question.
    _, _, oids = _study_with_outputs(store)
    rid = store.rater_id("ann")
    cases = [(0, 3, 3), (3, 6, 3), (3, 3, -1), (4.5, 3, 3), (3, 3, "good")]
    for bad in cases:
        with pytest.raises(UserError):
            store.save_rating(rid, oids[0], *bad)
    assert store.count_ratings() == 0
    with store.read() as conn:
        assert conn.execute(select(func.count()).select_from(rating_scores)).scalar_one() == 0
    store.save_rating(rid, oids[0], 3, 3, 3)
    with store.read() as conn:
        rating_id = conn.execute(select(ratings.c.id)).scalar_one()
    with pytest.raises(IntegrityError):
        with store.write() as conn:  # straight to the database, past the API's checks
            conn.execute(insert(rating_scores).values(rating_id=rating_id, dimension="coherence", score=4))


def test_database_refuses_a_second_rating_row_for_the_same_rater_and_output(store):
    _, _, oids = _study_with_outputs(store)
    rid = store.rater_id("ann")
    row = dict(rater_id=rid, output_id=oids[0])
    with store.write() as conn:
        conn.execute(insert(ratings).values(**row))
    with pytest.raises(IntegrityError):
        with store.write() as conn:
            conn.execute(insert(ratings).values(**row))
    assert store.count_ratings() == 1


def test_resubmitting_updates_the_rating_and_keeps_its_creation_time(store):
    _, _, oids = _study_with_outputs(store)
    rid = store.rater_id("ann")
    store.save_rating(rid, oids[1], 2, 3, 4, "first", position=2)
    first = store.ratings_frame().iloc[0]
    store.save_rating(rid, oids[1], 5, "5", 5.0, "  changed my mind ", position=2)
    frame = store.ratings_frame()
    assert len(frame) == 1
    row = frame.iloc[0]
    assert (row.coherence, row.informativeness, row.naturalness) == (5, 5, 5)
    assert row.comment == "changed my mind"
    assert row.created_at == first.created_at
    assert row.updated_at > first.updated_at
    assert row.created_at.tzinfo is not None


@pytest.mark.parametrize("bad", [0, 6, 4.5, "x", None, True, "", float("nan")])
def test_api_refuses_bad_scores_and_stores_nothing(store, bad):
    _, _, oids = _study_with_outputs(store)
    rid = store.rater_id("ann")
    good = dict(coherence=3, informativeness=3, naturalness=3)
    with pytest.raises(UserError):
        # the good row first: a batch is all or nothing
        store.save_ratings(
            rid, [dict(output_id=oids[0], **good), dict(output_id=oids[1], **{**good, "naturalness": bad})]
        )
    assert store.count_ratings() == 0


def test_blank_rater_name_is_refused(store):
    for bad in ("", "   ", None, 3):
        with pytest.raises(UserError):
            store.rater_id(bad)
    assert store.rater_id("  Ann   Lee ") == store.rater_id("Ann Lee")


def test_outputs_are_unique_per_item_method_and_sample(store):
    _, iid, oids = _study_with_outputs(store)
    again, new = store.add_output(iid, "BS-4", 0, text="other", settings={}, seed=0, model="m", new_tokens=1)
    assert (again, new) == (oids[0], False)
    assert store.outputs_for_item(iid)[0].text == "text 0"  # the first one is kept
    with pytest.raises(IntegrityError):
        with store.write() as conn:
            conn.execute(
                insert(outputs).values(
                    item_id=iid, method="BS-4", sample_index=0, text="x", settings="{}", model="m", new_tokens=1
                )
            )
    _, new = store.add_output(iid, "TS-Temp", 1, text="second sample", settings={}, seed=1, model="m", new_tokens=2)
    assert new


def test_frames_have_the_documented_columns_and_values(store):
    sid, iid, oids = _study_with_outputs(store)
    rid = store.rater_id("bob")
    store.save_rating(rid, oids[2], 1, 2, 3, None, position=0)
    out = store.outputs_frame(sid)
    assert list(out.columns)[: len(OUTPUT_COLUMNS)] == list(OUTPUT_COLUMNS)
    assert len(out) == 3 and set(out.method) == {"BS-4", "TS-Temp", "TS-Tilted"}
    assert json.loads(out.set_index("method").loc["TS-Tilted", "settings"]) == {"method": "TS-Tilted", "t": 2}
    rf = store.ratings_frame(sid)
    assert list(rf.columns)[: len(RATING_COLUMNS)] == list(RATING_COLUMNS)
    r = rf.iloc[0]
    assert (r.method, r.rater, r.coherence, r.informativeness, r.naturalness, r.position) == (
        "TS-Tilted",
        "bob",
        1,
        2,
        3,
        0,
    )
    assert (r.new_tokens, r.latency_ms, r.seed, r.prompt) == (7, 12.0, 2, "Explain X.")
    assert store.ratings_frame(sid + 1).empty and list(store.ratings_frame(sid + 1).columns) == list(rf.columns)
    progress = store.progress(sid)
    assert progress.to_dict("records")[0]["rater"] == "bob" and progress.iloc[0].items_done == 0
    store.save_rating(rid, oids[0], 1, 1, 1)
    store.save_rating(rid, oids[1], 1, 1, 1)
    assert store.progress(sid).iloc[0].items_done == 1


def _old_schema_sql(dialect: str) -> list[str]:
    """A database from before the `comment` column and the study_raters table existed."""
    pk = "SERIAL PRIMARY KEY" if dialect == "postgresql" else "INTEGER PRIMARY KEY"
    ts = "TIMESTAMP" if dialect == "postgresql" else "DATETIME"
    return [
        f"CREATE TABLE raters (id {pk}, name VARCHAR(200) NOT NULL UNIQUE, created_at {ts} NOT NULL)",
        f"CREATE TABLE ratings (id {pk}, rater_id INTEGER NOT NULL, output_id INTEGER NOT NULL, "
        f"coherence INTEGER NOT NULL, informativeness INTEGER NOT NULL, naturalness INTEGER NOT NULL, "
        f"position INTEGER, created_at {ts} NOT NULL, updated_at {ts} NOT NULL)",
        "INSERT INTO raters (name, created_at) VALUES ('old rater', '2025-01-01 00:00:00')",
        "INSERT INTO ratings (rater_id, output_id, coherence, informativeness, naturalness, position, created_at, "
        "updated_at) VALUES (1, 7, 4, 3, 2, 1, '2025-01-01 00:00:00', '2025-01-02 00:00:00')",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_upgrading_an_old_database_adds_what_is_missing_and_keeps_every_row(backend, tmp_path):
    first, close = open_store(backend, tmp_path)
    url = first.engine.url.render_as_string(hide_password=False)
    first.dispose()
    raw = create_engine(url)
    with raw.begin() as conn:
        for table in (
            "arena_schema",
            "ratings",
            "assignments",
            "study_raters",
            "outputs",
            "items",
            "studies",
            "raters",
        ):
            conn.execute(
                text(
                    f"DROP TABLE IF EXISTS {table} CASCADE"
                    if backend == "postgresql"
                    else f"DROP TABLE IF EXISTS {table}"
                )
            )
        for sql in _old_schema_sql(backend):
            conn.execute(text(sql))
    raw.dispose()
    try:
        upgraded = Store(url)
        assert "add column ratings.comment" in upgraded.changes
        assert "create table study_raters" in upgraded.changes
        with upgraded.read() as conn:
            row = conn.execute(text("SELECT id, rater_id, output_id, position, comment FROM ratings")).one()
            assert tuple(row)[1:] == (1, 7, 1, None)
            # the old columns' scores, moved to rating_scores (schema 12)
            scores = conn.execute(text("SELECT rating_id, dimension, score, cant_judge FROM rating_scores")).all()
            assert sorted((r[0], r[1], r[2], bool(r[3])) for r in scores) == [
                (row.id, "coherence", 4, False),
                (row.id, "informativeness", 3, False),
                (row.id, "naturalness", 2, False),
            ]
            assert conn.execute(text("SELECT name FROM raters")).scalar_one() == "old rater"
        upgraded.dispose()
        assert Store(url).changes == []  # a second start changes nothing
    finally:
        close()


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'x' / 'a.db'}")  # the folder is created
    with store.read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 5000
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    store.dispose()


def test_where_the_database_lives(monkeypatch, tmp_path):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("ARENA_DB_PATH", str(tmp_path / "r.db"))
    assert default_db_path() == tmp_path / "r.db"
    assert default_url() == f"sqlite:///{(tmp_path / 'r.db').resolve()}"
    monkeypatch.setenv("DATABASE_URL", "postgres://u:p@h:5432/db")
    assert default_url() == "postgresql+psycopg://u:p@h:5432/db"
    assert normalize_url("postgresql://h/db") == "postgresql+psycopg://h/db"
    assert normalize_url("sqlite:////x.db") == "sqlite:////x.db"
    monkeypatch.delenv("ARENA_DB_PATH")
    monkeypatch.delenv("DATABASE_URL")
    from pathlib import Path

    # never a network-mounted /data (a Space's storage bucket: SQLite's WAL is unsafe there)
    assert default_db_path() == Path("data") / "arena.db"


def test_bad_database_url_is_a_user_error():
    with pytest.raises(UserError):
        Store("not a url at all")


def test_timestamps_are_utc(store):
    _, _, oids = _study_with_outputs(store)
    store.save_rating(store.rater_id("a"), oids[0], 3, 3, 3)
    row = store.ratings_frame().iloc[0]
    assert str(row.created_at.tz) == str(UTC) or row.created_at.utcoffset().total_seconds() == 0
