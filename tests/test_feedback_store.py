"""Skips, flags and "can't judge" in the store, on SQLite and PostgreSQL: what the database keeps,
what it refuses, and how an old database is upgraded to hold them."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine, insert, text
from sqlalchemy.exc import IntegrityError

from arena.rating import blind
from arena.store import Store
from arena.store.schema import rating_scores, ratings
from common.errors import UserError
from tests.support.stores import BACKENDS, open_store

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")


def _study(store: Store, n_items: int = 2):
    sid = store.create_study("feedback", methods=list(METHODS), model="m")
    iids = store.add_items(sid, [{"prompt": f"prompt {k}"} for k in range(n_items)])
    oids = {}
    for iid in iids:
        for k, method in enumerate(METHODS):
            oids[(iid, method)], _ = store.add_output(
                iid, method, 0, text=f"{method} on {iid}", settings={}, seed=k, model="m", new_tokens=3
            )
    return sid, iids, oids


def test_cant_judge_is_stored_as_null_with_its_flag_and_read_back(store):
    sid, [iid, _], oids = _study(store)
    rid = store.rater_id("ann")
    rows = [
        {
            "output_id": oids[(iid, m)],
            "coherence": 4,
            "informativeness": None,
            "naturalness": 2,
            "cant_judge": ["informativeness"],
        }
        for m in METHODS
    ]
    store.save_item_ratings(rid, iid, rows)
    with store.read() as conn:  # every rubric's scores are rows of rating_scores (schema 12)
        got = conn.execute(text("SELECT rating_id, dimension, score, cant_judge FROM rating_scores")).all()
    per_rating: dict[int, list] = {}
    for rating_id, dim, score, flag in got:
        per_rating.setdefault(rating_id, []).append((dim, score, bool(flag)))
    assert [sorted(v) for v in per_rating.values()] == [
        [("coherence", 4, False), ("informativeness", None, True), ("naturalness", 2, False)]
    ] * 3
    assert store.cant_judge_ids(rid, oids.values()) == {oids[(iid, m)]: {"informativeness"} for m in METHODS}
    frame = store.ratings_frame(sid)
    assert frame["informativeness"].isna().all() and frame["coherence"].tolist() == [4, 4, 4]
    assert store.item_counts(sid, rid)[iid] == (3, 3)  # a can't-judge answer is not missing


def test_a_null_score_without_the_flag_and_a_score_with_it_are_refused_by_the_database(store):
    # The scale (0 and 6 are off the default rubric's 1-5) is the study's rubric, checked by the store on
    # every write for every rubric (test_store.py); the database ties a NULL score to its flag.
    _, [iid, _], oids = _study(store)
    rid = store.rater_id("ann")
    now = datetime(2026, 1, 1, tzinfo=UTC)
    with store.engine.begin() as conn:
        conn.execute(
            insert(ratings).values(rater_id=rid, output_id=oids[(iid, "BS-4")], created_at=now, updated_at=now)
        )
        rating_id = conn.execute(text("SELECT id FROM ratings")).scalar_one()
    base = {"rating_id": rating_id, "dimension": "coherence", "score": 3, "cant_judge": False}
    for bad in ({"score": None}, {"cant_judge": True}):
        with pytest.raises(IntegrityError):
            with store.engine.begin() as conn:
                conn.execute(insert(rating_scores).values(**{**base, **bad}))
    with store.engine.begin() as conn:  # the flag with NULL is what can't judge is
        conn.execute(insert(rating_scores).values(**{**base, "score": None, "cant_judge": True}))
    assert store.count_ratings() == 1
    assert store.cant_judge_ids(rid, [oids[(iid, "BS-4")]]) == {oids[(iid, "BS-4")]: {"coherence"}}


def test_the_api_refuses_a_score_and_cant_judge_together_and_unknown_dimensions(store):
    _, [iid, _], oids = _study(store)
    rid = store.rater_id("ann")
    for row in (
        {"coherence": 4, "informativeness": 3, "naturalness": 3, "cant_judge": ["coherence"]},
        {"coherence": 4, "informativeness": 3, "naturalness": 3, "cant_judge": ["fluency"]},
        {"coherence": None, "informativeness": 3, "naturalness": 3},
    ):
        with pytest.raises(UserError):
            store.save_item_ratings(rid, iid, [{"output_id": oids[(iid, "BS-4")], **row}])
    assert store.count_ratings() == 0


def test_a_skip_counts_as_handled_has_no_scores_and_rating_later_replaces_it(store):
    sid, [first, second], oids = _study(store)
    view, _ = blind.open_item(store, "ann", sid)
    assert view.index == 1
    with pytest.raises(UserError, match="say in a few words"):
        blind.skip(store, "ann", view.item, "other", "  ")
    with pytest.raises(UserError, match="choose a reason"):
        blind.skip(store, "ann", view.item, "boring")
    blind.skip(store, "ann", view.item, "language")
    assert store.count_ratings() == 0
    nxt, _ = blind.open_item(store, "ann", sid)  # the next unhandled item
    assert nxt.index == 2 and nxt.rated_items == 1 and nxt.skipped_items == 1 and "1 skipped" in nxt.progress
    again, _ = blind.open_item(store, "ann", sid, 1)
    assert again.skipped == "language" and again.complete
    assert [(s.rater, s.item_id, s.reason) for s in store.skips(sid)] == [("ann", first, "language")]
    # rating the skipped item after all: the skip goes in the same transaction as the ratings
    blind.submit(store, "ann", view.item, {r.label: {d: 3 for d in blind.DIMENSIONS} for r in view.responses})
    assert store.skips(sid) == [] and store.count_ratings() == 3
    with pytest.raises(UserError, match="rated this item already"):
        blind.skip(store, "ann", view.item, "unclear")
    assert store.skips(sid) == [] and store.count_ratings() == 3


def test_a_failed_submit_keeps_the_skip(store, monkeypatch):
    """One transaction per submit: if the ratings fail, the skip stays as it was."""
    sid, _, _ = _study(store)
    view, _ = blind.open_item(store, "ann", sid)
    blind.skip(store, "ann", view.item, "unclear")
    with pytest.raises(UserError):
        blind.submit(
            store,
            "ann",
            view.item,
            {r.label: {"coherence": 9, "informativeness": 3, "naturalness": 3} for r in view.responses},
        )
    assert [s.reason for s in store.skips(sid)] == ["unclear"] and store.count_ratings() == 0


def test_flags_are_stored_per_output_id_and_a_double_click_keeps_one(store):
    sid, [iid, other], oids = _study(store)
    view, _ = blind.open_item(store, "ann", sid)
    enrolment = _enrolment(store, sid, "ann")
    assert blind.flag_for(store, enrolment, view.item, "B", "broken", "cut off after two words")
    assert not blind.flag_for(store, enrolment, view.item, "B", "broken", "cut off after two words")
    assert blind.flag_for(store, enrolment, view.item, None, "personal")
    with pytest.raises(UserError):
        blind.flag_for(store, enrolment, view.item, "Z", "broken")
    with pytest.raises(UserError, match="other"):
        blind.flag_for(store, enrolment, view.item, None, "other")
    flagged = store.flags(sid)
    assert [(f.rater, f.item_id, f.position, f.reason) for f in flagged] == [
        ("ann", iid, 1, "broken"),
        ("ann", iid, None, "personal"),
    ]
    assert flagged[0].output_id == store.assignment(store.find_rater("ann"), iid)[1]
    assert flagged[0].note == "cut off after two words" and flagged[1].output_id is None
    with pytest.raises(UserError, match="not part of this item"):  # an output of another item
        store.add_flag(store.find_rater("ann"), iid, "broken", output_id=oids[(other, "BS-4")])


def test_a_rater_cannot_flag_or_skip_an_item_they_were_not_shown_nor_learn_anything_from_a_flag(store):
    """Attack: flag or skip by guessing item ids (another study's, one not opened yet), and read the
    flag's answer for anything about methods."""
    sid, [iid, _], _ = _study(store)
    _, [other_iid, _], _ = _study(store)
    ann = _enrolment(store, sid, "ann")
    view, _ = blind.open_item(store, "ann", sid)
    other_item = store.get_item(other_iid).public_id
    unopened = next(i.public_id for i in store.items(sid) if i.public_id != view.item)
    for target in (other_item, unopened, "not-an-item"):
        with pytest.raises(UserError):
            blind.flag_for(store, ann, target, "A", "broken")
        with pytest.raises(UserError):
            blind.skip_for(store, ann, target, "unsafe")
    assert store.flags() == [] and store.skips() == []
    answer = blind.flag_for(store, ann, view.item, "A", "broken")
    assert answer is True  # a bare yes/no: no output id, no method, no position


def test_deleting_a_study_deletes_its_skips_and_flags(store):
    sid, _, _ = _study(store)
    view, _ = blind.open_item(store, "ann", sid)
    blind.skip(store, "ann", view.item, "unsafe")
    blind.flag_for(store, _enrolment(store, sid, "ann"), view.item, "A", "unsafe")
    removed = store.delete_study(sid)
    assert removed["skips"] == 1 and removed["flags"] == 1
    assert store.skips() == [] and store.flags() == []


def _enrolment(store: Store, sid: int, name: str):
    from arena.access import invites

    [made] = invites.invite(store, sid, [name])
    return invites.resolve(store, made.code)


def _v2_ratings_sql(dialect: str) -> list[str]:
    """The ratings table as schema 2 made it: NOT NULL scores with their range CHECKs, no flags."""
    pk = "SERIAL PRIMARY KEY" if dialect == "postgresql" else "INTEGER PRIMARY KEY"
    ts = "TIMESTAMP" if dialect == "postgresql" else "DATETIME"
    checks = ", ".join(f"CONSTRAINT ck_ratings_{d}_range CHECK ({d} IN (1, 2, 3, 4, 5))" for d in blind.DIMENSIONS)
    return [
        f"CREATE TABLE ratings (id {pk}, rater_id INTEGER NOT NULL REFERENCES raters(id), "
        f"output_id INTEGER NOT NULL REFERENCES outputs(id), coherence INTEGER NOT NULL, "
        f"informativeness INTEGER NOT NULL, naturalness INTEGER NOT NULL, comment TEXT, position INTEGER, "
        f"created_at {ts} NOT NULL, updated_at {ts} NOT NULL, "
        f"CONSTRAINT uq_ratings_rater_output UNIQUE (rater_id, output_id), {checks})",
        "CREATE INDEX ix_ratings_rater_id ON ratings (rater_id)",
        "CREATE INDEX ix_ratings_output_id ON ratings (output_id)",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_schema_2_database_is_upgraded_to_hold_cant_judge_and_keeps_every_rating(backend, tmp_path):
    first, close = open_store(backend, tmp_path)
    sid, [iid, _], oids = _study(first)
    rid = first.rater_id("old rater")
    url = first.engine.url.render_as_string(hide_password=False)
    first.dispose()
    raw = create_engine(url)
    with raw.begin() as conn:  # back to schema 2: the old ratings table with two ratings, no skips or flags
        # rating_scores came with schema 8, rating_texts with 11
        for table in ("skips", "flags", "rating_texts", "rating_scores", "ratings"):
            conn.execute(text(f"DROP TABLE {table}"))
        for sql in _v2_ratings_sql(backend):
            conn.execute(text(sql))
        for k, m in enumerate(("BS-4", "TS-Temp")):
            conn.execute(
                text(
                    "INSERT INTO ratings (rater_id, output_id, coherence, informativeness, naturalness, "
                    "comment, position, created_at, updated_at) VALUES "
                    f"({rid}, {oids[(iid, m)]}, {k + 1}, 5, 4, 'old {k}', {k}, '2025-01-01 00:00:00', "
                    "'2025-01-02 00:00:00')"
                )
            )
        conn.execute(text("UPDATE arena_schema SET version = 2"))
    raw.dispose()
    try:
        upgraded = Store(url)
        assert "create table skips" in upgraded.changes and "create table flags" in upgraded.changes
        # schema 12: the old columns' scores are copied to rating_scores, and the columns dropped
        assert "copy 6 scores to rating_scores" in upgraded.changes
        moved = [c for c in upgraded.changes if "rebuild table ratings" in c or c.startswith("drop columns ratings.")]
        assert moved, upgraded.changes
        frame = upgraded.ratings_frame(sid)
        assert frame[["coherence", "informativeness", "naturalness", "comment", "position"]].values.tolist() == [
            [1, 5, 4, "old 0", 0],
            [2, 5, 4, "old 1", 1],
        ]
        assert frame["created_at"].iloc[0].year == 2025
        # what the upgrade is for: a can't-judge answer next to the old ratings, and the CHECKs in force
        upgraded.save_item_ratings(
            rid,
            iid,
            [
                {
                    "output_id": oids[(iid, "TS-Tilted")],
                    "coherence": None,
                    "informativeness": 2,
                    "naturalness": 2,
                    "cant_judge": ["coherence"],
                }
            ],
        )
        old = f"(SELECT id FROM ratings WHERE output_id = {oids[(iid, 'BS-4')]})"
        with pytest.raises(IntegrityError):
            with upgraded.engine.begin() as conn:
                conn.execute(
                    text(f"UPDATE rating_scores SET score = NULL WHERE dimension = 'naturalness' AND rating_id = {old}")
                )
        with pytest.raises(UserError):  # off the scale: the store checks it against the study's rubric
            upgraded.save_item_ratings(
                rid, iid, [{"output_id": oids[(iid, "BS-4")], "coherence": 1, "informativeness": 5, "naturalness": 7}]
            )
        with pytest.raises(IntegrityError):  # the unique key survived the rebuild
            with upgraded.engine.begin() as conn:
                conn.execute(
                    text(
                        "INSERT INTO ratings (rater_id, output_id, created_at, updated_at) VALUES "
                        f"({rid}, {oids[(iid, 'BS-4')]}, '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
                    )
                )
        after = upgraded.ratings_frame(sid)
        assert len(after) == 3 and math.isnan(after.set_index("method").loc["TS-Tilted", "coherence"])
        upgraded.dispose()
        again = Store(url)
        assert again.changes == []  # a second start changes nothing
        again.dispose()
    finally:
        close()
