"""Deleting a study, or one rater's ratings in a study: the store (on SQLite and PostgreSQL), the
copy written first, the confirmations, and the organizer's handlers called without a browser."""

from __future__ import annotations

import csv
import html
import re
from dataclasses import replace
from pathlib import Path

import gradio as gr
import pandas as pd
import pytest
from sqlalchemy import MetaData, func, select

from arena import studies
from arena.files import export
from arena.rating import blind
from arena.store import Store, make_engine
from arena.store.schema import (
    assignments,
    items,
    metadata,
    outputs,
    rating_scores,
    rating_texts,
    ratings,
    study_raters,
)
from arena.store.schema import studies as studies_table
from common.errors import UserError
from evaluation import report
from tests.support.seeding import invite, publish, seed_study
from tests.support.stores import PG_SKIP_REASON, fresh_pg_url, open_store, pg_url, sqlite_url
from ui import AppContext, organizer, rate, results
from ui.rate.view import form as rate_form

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.skipif(not pg_url(), reason=PG_SKIP_REASON))]
IDS = ["study_id", "item_id", "output_id"]
PASSWORD = "delete-test-pw"


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path, monkeypatch):
    monkeypatch.setenv(studies.BACKUP_ENV, str(tmp_path / "kept"))
    s, close = open_store(request.param, tmp_path)
    yield s
    close()


def make_study(store: Store, name: str, n_items: int = 2) -> int:
    texts = [
        {"BS-4": f"{name} beam {k}", "TS-Temp": f"{name} temp {k}", "TS-Tilted": f"{name} tilted {k}"}
        for k in range(n_items)
    ]
    sid, _ = seed_study(store, name, [f"{name} prompt {k}" for k in range(n_items)], texts)
    return sid


def rate_all(store: Store, rater: str, sid: int, score: int = 4, comment: str | None = None) -> None:
    while True:
        view, _ = blind.open_item(store, rater, sid)
        if view is None:
            return
        blind.submit(
            store,
            rater,
            view.item,
            {
                r.label: {"coherence": score, "informativeness": 5 - score % 3, "naturalness": 1 + score % 5}
                for r in view.responses
            },
            {r.label: comment for r in view.responses},
        )


def counts(store: Store) -> dict[str, int]:
    with store.read() as conn:
        return {
            t.name: int(conn.execute(select(func.count()).select_from(t)).scalar_one())
            for t in metadata.sorted_tables
            if t.name != "arena_schema"
        }


def rows_of(store: Store, sid: int) -> dict[str, list[tuple]]:
    """Every row that belongs to a study, table by table (ids included: they must not change)."""
    item_ids = select(items.c.id).where(items.c.study_id == sid)
    output_ids = select(outputs.c.id).where(outputs.c.item_id.in_(item_ids))
    rating_ids = select(ratings.c.id).where(ratings.c.output_id.in_(output_ids))
    queries = {
        "studies": select(studies_table).where(studies_table.c.id == sid),
        "items": select(items).where(items.c.study_id == sid),
        "outputs": select(outputs).where(outputs.c.item_id.in_(item_ids)),
        "ratings": select(ratings).where(ratings.c.output_id.in_(output_ids)),
        # a rating's scores and text answers (every rubric's, since schema 12) are rows of its own
        "rating_scores": select(rating_scores).where(rating_scores.c.rating_id.in_(rating_ids)),
        "rating_texts": select(rating_texts).where(rating_texts.c.rating_id.in_(rating_ids)),
        "assignments": select(assignments).where(assignments.c.item_id.in_(item_ids)),
        "study_raters": select(study_raters).where(study_raters.c.study_id == sid),
    }
    with store.read() as conn:
        return {k: sorted(tuple(r) for r in conn.execute(q).all()) for k, q in queries.items()}


def world(store: Store) -> tuple[int, int]:
    """Two studies; ann and bob rate the first, ann and cy the second."""
    a, b = make_study(store, "Pilot A"), make_study(store, "Pilot B", n_items=3)
    rate_all(store, "ann", a, 4, "ann on A")
    rate_all(store, "bob", a, 2)
    rate_all(store, "ann", b, 5, "ann on B")
    rate_all(store, "cy", b, 3)
    return a, b


def strip(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=IDS).reset_index(drop=True)


# ---- the store ------------------------------------------------------------------------------------


def test_delete_study_removes_every_row_of_it_and_nothing_else(store):
    a, b = world(store)
    before, of_a, of_b = counts(store), rows_of(store, a), rows_of(store, b)
    assert len(of_a["ratings"]) == 2 * 2 * 3 and len(of_a["assignments"]) == 2 * 2 * 3
    assert len(of_a["study_raters"]) == 2 and len(of_a["outputs"]) == 6 and len(of_a["items"]) == 2
    assert len(of_a["rating_scores"]) == 2 * 2 * 3 * 3
    b_frames = store.ratings_frame(b), store.outputs_frame(b), store.progress(b)

    removed = store.delete_study(a)

    assert removed == {
        "ratings": 12,
        "skips": 0,
        "flags": 0,
        "guesses": 0,
        "votes": 0,
        "assignments": 12,
        "outputs": 6,
        "items": 2,
        "study_raters": 2,
        "studies": 1,
    }
    after = counts(store)
    assert after == {k: v - len(of_a.get(k, ())) for k, v in before.items()}
    assert after["raters"] == before["raters"] == 3  # raters are global: ann still rates study B
    assert rows_of(store, a) == {k: [] for k in of_a}
    assert rows_of(store, b) == of_b
    pd.testing.assert_frame_equal(store.ratings_frame(b), b_frames[0])
    pd.testing.assert_frame_equal(store.outputs_frame(b), b_frames[1])
    pd.testing.assert_frame_equal(store.progress(b), b_frames[2])
    assert store.get_study(a) is None and [s.id for s in store.list_studies()] == [b]


def test_a_deleted_studys_id_is_never_given_to_a_new_study(store):
    """SQLite reused the highest rowid: a new study took the deleted one's id, and the old
    /present?study= link (or its cached page) showed the new study."""
    make_study(store, "kept")
    gone = make_study(store, "gone")
    store.delete_study(gone)
    assert make_study(store, "new") > gone


def test_delete_rater_ratings_removes_only_that_raters_rows_in_that_study(store):
    a, b = world(store)
    before, of_a, of_b = counts(store), rows_of(store, a), rows_of(store, b)
    ann = store.find_rater("ann")

    assert store.delete_rater_ratings(a, "ann") == 6

    after_a = rows_of(store, a)
    assert after_a["ratings"] == [r for r in of_a["ratings"] if r[1] != ann]
    assert {r[1] for r in after_a["ratings"]} == {store.find_rater("bob")}
    kept = {r[0] for r in after_a["ratings"]}
    assert after_a["rating_scores"] == [r for r in of_a["rating_scores"] if r[1] in kept]  # ann's scores went too
    rated = ("ratings", "rating_scores")
    assert {k: v for k, v in after_a.items() if k not in rated} == {k: v for k, v in of_a.items() if k not in rated}
    assert rows_of(store, b) == of_b  # ann's ratings of study B stay
    assert counts(store) == {**before, "ratings": before["ratings"] - 6, "rating_scores": before["rating_scores"] - 18}
    assert store.delete_rater_ratings(a, ann) == 0  # by id; nothing left
    assert list(store.progress(a)["rater"]) == ["bob"]


def test_delete_rater_ratings_takes_their_skips_and_flags_in_that_study_only(store):
    a, b = world(store)
    ann, bob = store.find_rater("ann"), store.find_rater("bob")
    item_a, item_b = store.items(a)[0].id, store.items(b)[0].id
    extra = store.add_items(a, [{"prompt": "one more", "scenario": "s"}])[0]
    store.skip_item(ann, extra, "unclear")
    store.add_flag(ann, item_a, "other", note="ann on A")
    store.add_flag(bob, item_a, "other", note="bob on A")
    store.add_flag(ann, item_b, "other", note="ann on B")

    store.delete_rater_ratings(a, "ann")

    assert store.skips(a) == []
    assert sorted(f.note for f in store.flags(a)) == ["bob on A"]
    assert [f.note for f in store.flags(b)] == ["ann on B"]


def test_unknown_study_or_rater_is_refused(store):
    a, _ = world(store)
    before = counts(store)
    with pytest.raises(UserError, match="no study #9999"):
        store.delete_study(9999)
    with pytest.raises(UserError, match="no study #9999"):
        store.delete_rater_ratings(9999, "ann")
    with pytest.raises(UserError, match="no rater"):
        store.delete_rater_ratings(a, "nobody")
    with pytest.raises(UserError, match="no rater"):
        store.delete_rater_ratings(a, 424242)
    assert counts(store) == before


def test_delete_refuses_when_the_study_changed_after_the_copy(store):
    a, _ = world(store)
    whole, anns = store.deletion_fingerprint(a), store.deletion_fingerprint(a, "ann")
    rid = store.find_rater("ann")
    view, _ = blind.open_item(store, "ann", a, 1)
    blind.submit(
        store,
        "ann",
        view.item,
        {r.label: {"coherence": 1, "informativeness": 1, "naturalness": 1} for r in view.responses},
    )  # a re-rating: same count, new values
    before = counts(store)
    with pytest.raises(UserError, match="changed"):
        store.delete_study(a, expect=whole)
    with pytest.raises(UserError, match="changed"):
        store.delete_rater_ratings(a, rid, expect=anns)
    assert counts(store) == before
    assert store.delete_rater_ratings(a, rid, expect=store.deletion_fingerprint(a, rid)) == 6
    assert store.delete_study(a, expect=store.deletion_fingerprint(a))["studies"] == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_deleting_works_on_a_database_without_cascades(backend, tmp_path):
    """A database made by other code may lack ON DELETE CASCADE: the delete goes child-first, so the
    enforced foreign keys never see an orphan."""
    plain = MetaData()
    for table in metadata.sorted_tables:
        table.to_metadata(plain)
    for table in plain.tables.values():
        for constraint in table.foreign_key_constraints:
            constraint.ondelete = None
            for fk in constraint.elements:
                fk.ondelete = None
    if backend == "sqlite":
        url, drop = sqlite_url(tmp_path), lambda: None
    else:
        url, drop = fresh_pg_url()
    engine = make_engine(url)
    plain.create_all(engine)
    engine.dispose()
    store = Store(url)
    try:
        with store.read() as conn:
            if store.dialect == "sqlite":
                assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
                actions = {r[6] for r in conn.exec_driver_sql("PRAGMA foreign_key_list(ratings)")}
            else:
                actions = set(
                    conn.exec_driver_sql(
                        "SELECT confdeltype FROM pg_constraint WHERE conrelid = 'ratings'::regclass AND contype = 'f'"
                    ).scalars()
                )
            assert actions in ({"NO ACTION"}, {"a"}), actions  # no cascade here
        a, b = world(store)
        of_b, before = rows_of(store, b), counts(store)
        assert store.delete_rater_ratings(a, "bob") == 6
        removed = store.delete_study(a)
        assert removed["ratings"] == 6 and removed["outputs"] == 6 and removed["studies"] == 1
        assert rows_of(store, b) == of_b
        assert counts(store)["ratings"] == before["ratings"] - 12
    finally:
        store.dispose()
        drop()


# ---- the copy, the confirmations (arena.studies) --------------------------------------------------


def test_the_copy_written_before_deleting_reimports_to_the_same_study(store, tmp_path):
    a, b = world(store)
    # Closed: an export carries the seeds (base, blind, per output) only once rating has ended, so
    # only then is the copy lossless. (The copy of an open study leaves them out: see below.)
    studies.close_study(store, a)
    study = store.get_study(a)
    frames = store.ratings_frame(a), store.outputs_frame(a)
    item_rows = [replace(i, id=0, study_id=0) for i in store.items(a)]
    of_b = rows_of(store, b)

    done = studies.delete_study(store, a, "  Pilot A ")

    assert done.counts["ratings"] == 12 and done.counts["studies"] == 1
    ratings_file, contents_file = done.files
    assert ratings_file.exists() and contents_file.exists()
    assert (
        done.kept_in == tmp_path / "kept"
        and (done.kept_in / ratings_file.name).read_bytes() == ratings_file.read_bytes()
    )
    assert "12 ratings" in done.message() and "6 outputs" in done.message()
    assert store.get_study(a) is None

    imported = export.import_file(store, ratings_file)
    assert imported == {
        "studies": 1,
        "items": 2,
        "outputs": 6,
        "ratings": 12,
        "skips": 0,
        "flags": 0,
        "guesses": 0,
        "votes": 0,
    }
    [new] = [s for s in store.list_studies() if s.name == "Pilot A"]
    assert replace(new, id=0) == replace(study, id=0)
    pd.testing.assert_frame_equal(strip(store.ratings_frame(new.id)), strip(frames[0]))
    pd.testing.assert_frame_equal(strip(store.outputs_frame(new.id)), strip(frames[1]))
    assert [replace(i, id=0, study_id=0) for i in store.items(new.id)] == item_rows
    assert rows_of(store, b) == of_b

    # Study B is still open: its copy holds everything but the secret seeds.
    done = studies.delete_study(store, b, "Pilot B")
    with done.files[0].open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 18 and {r["study_state"] for r in rows} == {"open"}
    assert all(r[c] == "" for r in rows for c in export.SECRET_COLUMNS)


def test_the_copy_also_holds_items_and_outputs_nobody_rated(store):
    sid = make_study(store, "Half rated", n_items=3)
    view, _ = blind.open_item(store, "ann", sid, 1)
    blind.submit(
        store,
        "ann",
        view.item,
        {r.label: {"coherence": 3, "informativeness": 3, "naturalness": 3} for r in view.responses},
    )
    [unrated_item] = store.add_items(sid, [{"prompt": "never generated", "scenario": "s"}])
    done = studies.delete_study(store, sid, "Half rated")
    with done.files[0].open(encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == 3
    contents = pd.read_csv(done.files[1])
    assert len(contents) == 3 * 3 + 1
    assert set(contents["text"].dropna()) == {
        f"Half rated {m} {k}" for m in ("beam", "temp", "tilted") for k in range(3)
    }
    assert contents.loc[contents["item_id"] == unrated_item, "output_id"].isna().all()
    assert "never generated" in set(contents["prompt"])


@pytest.mark.parametrize("typed", ["", None, "pilot a", "Pilot", "Pilot A!", "Pilot B", 7])
def test_a_wrong_confirmation_deletes_nothing_and_writes_nothing(store, tmp_path, typed):
    a, _ = world(store)
    before = counts(store)
    with pytest.raises(UserError, match="exact name"):
        studies.delete_study(store, a, typed)
    with pytest.raises(UserError, match="exact name"):
        studies.delete_rater_ratings(store, a, "ann", typed)
    assert counts(store) == before
    assert not (tmp_path / "kept").exists()


def test_rater_deletion_copies_only_that_raters_ratings(store):
    a, b = world(store)
    ann_on_a = store.ratings_frame(a).query("rater == 'ann'")
    with pytest.raises(UserError, match="no rater 'zed'"):
        studies.delete_rater_ratings(store, a, "zed", "Pilot A")
    with pytest.raises(UserError, match="no ratings in study"):
        studies.delete_rater_ratings(store, a, "cy", "Pilot A")  # cy rated study B only
    with pytest.raises(UserError, match="no study"):
        studies.delete_rater_ratings(store, 9999, "ann", "Pilot A")
    done = studies.delete_rater_ratings(store, a, "  ann ", "Pilot A")
    assert done.counts == {"ratings": 6} and done.rater == "ann" and len(done.files) == 1
    assert "6 ratings by 'ann'" in done.message()
    assert list(store.ratings_frame(a)["rater"].unique()) == ["bob"]
    assert len(store.ratings_frame(b).query("rater == 'ann'")) == 9
    export.import_file(store, done.files[0])  # puts exactly those ratings back
    pd.testing.assert_frame_equal(
        store.ratings_frame(a).query("rater == 'ann'").reset_index(drop=True), ann_on_a.reset_index(drop=True)
    )


def test_a_study_being_generated_is_not_deleted(store):
    a, _ = world(store)
    with studies.generating(a):
        with pytest.raises(UserError, match="being generated"):
            studies.delete_study(store, a, "Pilot A")
    assert store.get_study(a) is not None


# ---- the organizer's handlers, and what raters and the Results tab see afterwards -----------------


def _ctx(store: Store, password: str = PASSWORD) -> AppContext:
    ctx = AppContext(model=lambda: None, organizer_password=password)
    ctx.extras["store"] = store
    return ctx


def _handlers(build, ctx: AppContext) -> dict[str, object]:
    """{trigger label or api name: registered function} of a tab built into a fresh Blocks."""
    with gr.Blocks() as demo:
        build(ctx)
    found = {}
    for f in demo.fns.values():
        for target in f.targets:
            if target[0] is None:  # a step chained with .then (e.g. the browser-side focus after Submit)
                continue
            block = demo.blocks[target[0]]
            found.setdefault(str(getattr(block, "value", None) or getattr(block, "label", None)), f)
        if f.api_name:
            found.setdefault(f.api_name, f)
    return found


def shown_toast(message: object) -> str:
    """An error toast as the organizer reads it: the app HTML-escapes it (ui/safe.py `toast`)
    and the browser renders it as HTML."""
    return html.unescape(str(message))


def shown_markdown(message: object) -> str:
    """A Markdown status line as the organizer reads it (ui/safe.py `md_text`): character
    references are decoded, then backslash escapes give their character. As in CommonMark, an escape
    inside a reference (`&\\#x27;`) leaves the reference as literal text."""
    return re.sub(r"\\(.)", r"\1", html.unescape(str(message)))


def test_the_organizer_delete_handlers_refuse_then_delete(store):
    a, b = world(store)
    ctx = _ctx(store)
    fns = _handlers(organizer.build, ctx)
    delete, delete_rater = fns["Delete this study"], fns["Delete this rater's ratings in this study"]
    assert delete.api_visibility == "private" and delete_rater.api_visibility == "private"
    before = counts(store)

    refusals = [
        (delete.fn, ("", a, "Pilot A", a), "wrong organizer password"),
        (delete.fn, ("nope", a, "Pilot A", a), "wrong organizer password"),
        (delete.fn, (None, a, "Pilot A", a), "wrong organizer password"),
        (delete.fn, (PASSWORD, a, "Pilot B", a), "exact name"),
        (delete.fn, (PASSWORD, 9999, "Pilot A", a), "no study #9999"),
        (delete.fn, (PASSWORD, None, "Pilot A", a), "choose a study"),
        (delete.fn, (PASSWORD, "x; DROP TABLE studies", "Pilot A", a), "choose a study"),
        (delete_rater.fn, ("nope", a, "ann", "Pilot A", a), "wrong organizer password"),
        (delete_rater.fn, (PASSWORD, a, "ann", "pilot a", a), "exact name"),
        (delete_rater.fn, (PASSWORD, a, "zed", "Pilot A", a), "no rater 'zed'"),
        (delete_rater.fn, (PASSWORD, a, "", "Pilot A", a), "enter the rater's name"),
        (delete_rater.fn, (PASSWORD, a, "cy", "Pilot A", a), "no ratings in study"),
    ]
    for fn, args, message in refusals:
        with pytest.raises(gr.Error) as refused:
            fn(None, *args)  # Gradio passes the request first (None: called in-process)
        assert message in shown_toast(refused.value), (args, refused.value)
    assert counts(store) == before

    # While the study is open the organizer is blind too: the copy (it names each rating's method)
    # stays on the server and is not offered for download.
    files, message, choice, table, _, danger, confirm = delete_rater.fn(None, PASSWORD, a, "bob", "Pilot A", a)
    shown = shown_markdown(message)
    # The file box is an update that hides it while it has nothing (ui/empty.py).
    assert "Deleted 6 ratings by 'bob'" in shown and "not offered for download" in shown
    assert files["value"] == [] and files["visible"] is False
    assert counts(store)["ratings"] == before["ratings"] - 6

    studies.close_study(store, a)  # closed: the copy downloads, as before
    files, message, choice, table, _, danger, confirm = delete.fn(None, PASSWORD, a, "Pilot A", a)
    assert shown_markdown(message).startswith(f"Deleted study #{a} 'Pilot A': 2 items, 6 outputs, 6 ratings")
    assert files["visible"] is True and [Path(f).exists() for f in files["value"]] == [True, True]
    assert [v for _, v in choice["choices"]] == [b] and choice["value"] == b
    assert [v for _, v in danger["choices"]] == [b] and danger["value"] is None and confirm == ""
    assert list(table["id"]) == [b]
    assert store.get_study(a) is None
    with pytest.raises(gr.Error, match=f"no study #{a}"):
        delete.fn(None, PASSWORD, a, "Pilot A", b)  # a second click


def test_with_no_password_set_the_delete_handlers_refuse(store):
    a, _ = world(store)
    fns = _handlers(organizer.build, _ctx(store, password=""))
    with pytest.raises(gr.Error, match="disabled"):
        fns["Delete this study"].fn(None, "", a, "Pilot A", a)
    assert store.get_study(a) is not None


def test_after_deletion_the_rate_and_results_tabs_fail_cleanly(store):
    a, b = world(store)
    publish(store, b)  # the Results tab shows published studies only
    dee_a, dee_b = invite(store, a, "dee"), invite(store, b, "dee")
    ctx = _ctx(store)
    rate_fns = _handlers(rate.build, ctx)
    opened = rate_fns["rate_start"].fn(dee_a, {}, None)  # a rater mid-study when the organizer deletes it
    session = opened[1]
    assert session["item"] and session["study_id"] == a
    before = store.count_ratings()
    organizer.handlers.delete_study(store, a, "Pilot A", None)

    # the code went with the study: the one generic refusal, nothing saved
    with pytest.raises(gr.Error, match="not valid"):
        rate_fns["rate_start"].fn(dee_a, {}, None)
    values = rate_form([[4, 4, 4]] * 3)
    with pytest.raises(gr.Error, match="not valid"):
        rate_fns["rate_submit"].fn(None, dee_a, session, *values)
    with pytest.raises(gr.Error, match="not valid"):
        rate_fns["rate_next"].fn(dee_a, session, None)
    # the same rater's code for the other study is untouched (it is closed now: rating has ended)
    with pytest.raises(gr.Error, match="closed"):
        rate_fns["rate_start"].fn(dee_b, {}, None)
    assert store.count_ratings() == before - 6 * 2

    assert [v for _, v in results.study_options(store)] == [b]
    with pytest.raises(UserError, match="no published study"):
        report.compute_view(store, a)
    assert report.compute_view(store, b)["headline"]


def test_when_the_copy_cannot_be_written_nothing_is_deleted(store, tmp_path, monkeypatch):
    a, _ = world(store)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the backup folder should go")
    monkeypatch.setenv(studies.BACKUP_ENV, str(blocker))
    before = counts(store)
    with pytest.raises(UserError, match="could not write the copy"):
        studies.delete_study(store, a, "Pilot A")
    assert counts(store) == before
