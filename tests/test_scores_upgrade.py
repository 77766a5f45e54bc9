"""Schema 12 (issue 46, "one scores table"): every study's scores are rows of `rating_scores`. A database
from before, whose default-rubric ratings kept their scores in the ratings table's own columns, is
upgraded in place on SQLite and PostgreSQL, and gives the same export, the same analysis frame and the
same statistics as the database it was made from; a second start changes nothing."""

from __future__ import annotations

import io
from typing import Any

import pandas as pd
import pytest
from sqlalchemy import create_engine, inspect, text

import arena.store.upgrade_scores as move
from arena.files.export import export_rows, write_export
from arena.store import Store
from arena.store.schema import SCHEMA_VERSION
from common.rubric import Rubric
from evaluation.human import stats as hs
from tests.support.old_schema import OLD_SCORES, back_to_score_columns
from tests.support.stores import BACKENDS, open_store

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
RUBRIC = Rubric.from_dict(
    {"dimensions": [{"name": "quality", "low": 1, "high": 10}, {"name": "coherence", "low": 0, "high": 9}]}
)


def _default_study(store: Store) -> int:
    """Four items, three methods, three raters; some can't-judge answers and comments."""
    sid = store.create_study("plain", methods=list(METHODS), model="m")
    iids = store.add_items(sid, [{"prompt": f"prompt {k}", "scenario": "short-qa"} for k in range(4)])
    made = {
        (iid, method): store.add_output(
            iid, method, 0, text=f"{method} {k}", settings={}, seed=m, model="m", new_tokens=3 + k + m
        )[0]
        for k, iid in enumerate(iids)
        for m, method in enumerate(METHODS)
    }
    for r, rater in enumerate(("ann", "bob", "cy")):
        rid = store.rater_id(rater)
        for k, iid in enumerate(iids):
            rows = []
            for m, method in enumerate(METHODS):
                oid = made[(iid, method)]
                scores = [1 + (r + k + m) % 5, 1 + (2 * r + m) % 5, 1 + (k * m + r) % 5]
                cant = [d for j, d in enumerate(OLD_SCORES) if (r + k + m + j) % 7 == 0]
                row = {d: None if d in cant else s for d, s in zip(OLD_SCORES, scores, strict=True)}
                rows.append({"output_id": oid, **row, "cant_judge": cant, "position": (m + r) % 3})
                rows[-1]["comment"] = f"note {r}{k}{m}" if (r + m) % 2 else None
            store.save_item_ratings(rid, iid, rows)
    return sid


def _own_study(store: Store) -> int:
    """A study with its own rubric, one of whose questions shares a default question's name."""
    sid = store.create_study("own", methods=["a", "b"], items_=[{"prompt": "p"}], rubric=RUBRIC)
    [item] = store.items(sid)
    oids = [store.add_output(item.id, m, 0, text=m, settings={}, seed=1, model="m", new_tokens=2)[0] for m in "ab"]
    rows = [{"output_id": oids[0], "quality": 9, "coherence": 0}, {"output_id": oids[1], "quality": 2, "coherence": 8}]
    store.save_ratings(store.rater_id("dee"), rows, RUBRIC)
    return sid


def _everything(store: Store, studies: list[int]) -> dict[str, object]:
    """What readers see: each study's export (CSV and JSONL) and the whole store's, its analysis frame
    and the primary statistics on it, and what the rating page reads back."""
    seen: dict[str, object] = {}
    for sid in (*studies, None):
        for fmt in ("csv", "jsonl"):
            out = io.StringIO()
            write_export(export_rows(store, sid), fmt, out)
            seen[f"export {sid} {fmt}"] = out.getvalue()
    for sid in studies:
        seen[f"frame {sid}"] = store.ratings_frame(sid)
    plain = store.ratings_frame(studies[0])
    seen["means"] = hs.method_means(plain, methods=list(METHODS))
    seen["pairwise"] = hs.pairwise_analysis(plain, methods=list(METHODS))[0]
    seen["cant judge"] = hs.cant_judge_counts(plain)
    ann = store.rater_id("ann")
    oids = [int(o) for o in plain["output_id"]]
    seen["ann"] = {o: dict(r.scores) for o, r in store.ratings_for(ann, oids).items()}
    seen["ann cant judge"] = store.cant_judge_ids(ann, oids)
    return seen


def _same(before: dict[str, object], after: dict[str, object]) -> None:
    assert before.keys() == after.keys()
    for key, value in before.items():
        if isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(value, after[key], obj=key)
        else:
            assert value == after[key], key


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_schema_11_database_upgrades_in_place_and_reads_the_same(backend, tmp_path):
    first, close = open_store(backend, tmp_path)
    try:
        studies = [_default_study(first), _own_study(first)]
        before = _everything(first, studies)
        assert before["cant judge"]["n"].sum() > 0  # the data exercise can't judge
        url = first.engine.url.render_as_string(hide_password=False)
        with first.read() as conn:
            n_scores = conn.execute(text("SELECT count(*) FROM rating_scores")).scalar_one()
        first.dispose()
        raw = create_engine(url)
        with raw.begin() as conn:  # back to schema 11: the default rubric's scores in the ratings table
            back_to_score_columns(conn)
            conn.execute(text("UPDATE arena_schema SET version = 11"))
        with raw.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM rating_scores")).scalar_one() == 4  # the own study's
            assert conn.execute(text("SELECT count(*) FROM ratings WHERE coherence IS NULL")).scalar_one() > 2
        raw.dispose()

        upgraded = Store(url)
        assert f"copy {n_scores - 4} scores to rating_scores" in upgraded.changes, upgraded.changes
        with upgraded.read() as conn:
            columns = {c["name"] for c in inspect(conn).get_columns("ratings")}
            assert not columns & {*OLD_SCORES, *(f"cant_judge_{d}" for d in OLD_SCORES)}
            assert conn.execute(text("SELECT count(*) FROM rating_scores")).scalar_one() == n_scores
            assert conn.execute(text("SELECT version FROM arena_schema")).scalar_one() == SCHEMA_VERSION
        _same(before, _everything(upgraded, studies))
        if backend == "sqlite":  # the rebuilt table is the one rating_scores' foreign key names
            with upgraded.read() as conn:
                assert conn.exec_driver_sql("PRAGMA foreign_key_check").all() == []
                assert {r[2] for r in conn.exec_driver_sql("PRAGMA foreign_key_list(rating_scores)")} == {"ratings"}
        upgraded.dispose()
        again = Store(url)
        assert again.changes == []  # a second start changes nothing
        _same(before, _everything(again, studies))
        again.delete_study(studies[0])  # the moved scores go with their ratings; the other study's stay
        with again.read() as conn:
            assert conn.execute(text("SELECT count(*) FROM rating_scores")).scalar_one() == 4
        assert again.ratings_frame(studies[1])["quality"].tolist() == [9, 2]
        again.dispose()
    finally:
        close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_move_is_all_or_nothing(backend, tmp_path, monkeypatch):
    """A failure half-way (here: after the copy, before the old columns go) leaves the database as it was, scores
    where schema 11 kept them and nothing copied; the next start does the whole move."""
    first, close = open_store(backend, tmp_path)
    try:
        sid = _default_study(first)
        before = _everything(first, [sid])
        url = first.engine.url.render_as_string(hide_password=False)
        first.dispose()
        raw = create_engine(url)
        with raw.begin() as conn:
            back_to_score_columns(conn)
            conn.execute(text("UPDATE arena_schema SET version = 11"))
        real = move.copy_sql

        def then_fail(*args: Any) -> list[str]:  # every copy runs, then a statement the database refuses
            return [*real(*args), "SELECT no_such_function()"]

        monkeypatch.setattr(move, "copy_sql", then_fail)
        with pytest.raises(Exception, match="no_such_function"):
            Store(url)
        with raw.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM rating_scores")).scalar_one() == 0
            assert conn.execute(text("SELECT count(*) FROM ratings WHERE coherence IS NOT NULL")).scalar_one() > 30
        raw.dispose()
        monkeypatch.undo()
        upgraded = Store(url)
        _same(before, _everything(upgraded, [sid]))
        upgraded.dispose()
    finally:
        close()
