"""Measuring the blind, in the store and the rating flow, on SQLite and PostgreSQL: a study that asks
"Which response do you think came from METHOD?" asks it after the item is scored, stores the letter and
the answer key, never says whether the answer was right, exports the key only once the study is closed,
and an older database is upgraded to hold it all."""

from __future__ import annotations

import csv

import pytest
from sqlalchemy import create_engine, insert, text
from sqlalchemy.exc import IntegrityError

from arena import studies
from arena.access import invites
from arena.files import export
from arena.inputs.prompts import PromptSpec
from arena.rating import blind, guessing
from arena.rating.study_spec import StudySpec
from arena.store import Store
from arena.store.schema import SCHEMA_VERSION, guesses
from common.errors import UserError
from evaluation import blinding
from tests.support.stores import BACKENDS, open_store

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
SCORES = [[4, 4, 4]] * 3 + [[None] * 3] * 5
NOTES = [None] * 8


def guess_study(store: Store, targets=("BS-4",), n_items: int = 3) -> tuple[int, list[int]]:
    sid = store.create_study(
        "guessing", methods=list(METHODS), model="m", guess_methods=list(targets), settings={m: {} for m in METHODS}
    )
    iids = store.add_items(sid, [{"prompt": f"prompt {k}"} for k in range(n_items)])
    for iid in iids:
        for k, m in enumerate(METHODS):
            store.add_output(
                iid, m, 0, text=f"{m} wrote this on item {iid}", settings={}, seed=k, model="m", new_tokens=5
            )
    return sid, iids


def enrol(store: Store, sid: int, name: str) -> invites.Enrolment:
    [made] = invites.invite(store, sid, [name])
    return invites.resolve(store, made.code)


def true_label(store: Store, rater_id: int, item_public_id: str, method: str) -> str:
    item = store.item_by_public_id(item_public_id)
    by_id = {o.id: o.method for o in store.outputs_for_item(item.id)}
    [position] = [p for p, oid in store.assignment(rater_id, item.id).items() if by_id[oid] == method]
    return blind.LABELS[position]


def test_the_question_comes_after_the_scores_and_the_answer_is_stored_with_its_key(store):
    sid, _ = guess_study(store)
    ann = enrol(store, sid, "ann")
    view, _ = blind.open_for(store, sid, lambda: ann.rater_id)
    assert view.guesses == []  # nothing is asked before the item is scored
    with pytest.raises(UserError, match="score every response of this item first"):
        blind.guess_for(store, ann, view.item, {"BS-4": "A"})
    after, _ = blind.submit_slots_then_next(store, ann, view.item, SCORES, NOTES)
    assert after.item == view.item and after.guesses == ["BS-4"]  # the same item, now with its question
    assert all(r.scores["coherence"] == 4 for r in after.responses)  # and the scores are saved
    key = true_label(store, ann.rater_id, view.item, "BS-4")
    nxt, _ = blind.guess_then_next(store, ann, view.item, {"BS-4": key})
    assert nxt.item != view.item and nxt.guesses == []
    [g] = store.guesses(sid)
    assert (g.rater, g.target_method, g.n_responses) == ("ann", "BS-4", 3)
    assert blind.LABELS[g.guessed_position] == key == blind.LABELS[g.true_position]
    again, _ = blind.open_for(store, sid, lambda: ann.rater_id, index=1)
    assert again.guesses == []  # answered once: not asked again
    wrong = next(label for label in "ABC" if label != key)
    assert blind.guess_for(store, ann, view.item, {"BS-4": wrong}) == 0  # the first answer stands
    assert store.guesses(sid)[0].guessed_position == g.guessed_position


def test_each_method_in_turn_and_dont_know(store):
    sid, _ = guess_study(store, targets=METHODS)
    bo = enrol(store, sid, "bo")
    view, _ = blind.open_for(store, sid, lambda: bo.rater_id)
    after, _ = blind.submit_slots_then_next(store, bo, view.item, SCORES, NOTES)
    assert after.guesses == list(METHODS)
    with pytest.raises(UserError, match="answer every question"):
        blind.guess_for(store, bo, view.item, {"BS-4": "A", "TS-Temp": "B"})
    with pytest.raises(UserError, match="no response 'D'"):
        blind.guess_for(store, bo, view.item, {"BS-4": "D", "TS-Temp": "B", "TS-Tilted": "C"})
    with pytest.raises(UserError, match="not asked"):
        blind.guess_for(store, bo, view.item, {"Greedy": "A"})
    assert blind.guess_for(store, bo, view.item, {"BS-4": "A", "TS-Temp": guessing.DONT_KNOW, "TS-Tilted": "A"}) == 3
    got = {g.target_method: g.guessed_position for g in store.guesses(sid)}
    assert got == {"BS-4": 0, "TS-Temp": None, "TS-Tilted": 0}


def test_the_reply_is_the_same_whether_the_guess_was_right_or_wrong(store):
    """Two raters on the same study, one always right and one always wrong: every view they get back
    has the same shape and the same message, and carries nothing but labels, texts and their scores."""
    sid, _ = guess_study(store, n_items=2)
    replies = {}
    for name, right in (("right", True), ("wrong", False)):
        e = enrol(store, sid, name)
        view, _ = blind.open_for(store, sid, lambda e=e: e.rater_id)
        seen = []
        while view is not None:
            view, message = blind.submit_slots_then_next(store, e, view.item, SCORES, NOTES)
            key = true_label(store, e.rater_id, view.item, "BS-4")
            answer = key if right else next(label for label in "ABC" if label != key)
            nxt, message = blind.guess_then_next(store, e, view.item, {"BS-4": answer})
            seen.append((message, None if nxt is None else (nxt.index, nxt.total, nxt.rated_items, nxt.guesses)))
            view = nxt
        replies[name] = seen
    assert replies["right"] == replies["wrong"]
    picked = blinding.blinding_index(blinding.guesses_frame(store.guesses(sid)))
    assert len(picked) == 1 and picked["correct"].iloc[0] == 2 and picked["n"].iloc[0] == 4


def test_the_database_refuses_impossible_guesses(store):
    sid, [iid, *_] = guess_study(store)
    rid = store.rater_id("ann")
    with pytest.raises(UserError):
        store.save_guesses(rid, iid, [("BS-4", 3, 3, 0)])
    bad = [
        dict(target_method="BS-4", n_responses=3, guessed_position=5, true_position=0),
        dict(target_method="BS-4", n_responses=1, guessed_position=0, true_position=0),
        dict(target_method="BS-4", n_responses=3, guessed_position=0, true_position=-1),
    ]
    for row in bad:
        with pytest.raises(IntegrityError):
            with store.engine.begin() as conn:
                conn.execute(insert(guesses).values(rater_id=rid, item_id=iid, **row))
    assert store.save_guesses(rid, iid, [("BS-4", 3, 1, 0)]) == 1
    with pytest.raises(IntegrityError):  # one answer per rater, item and method
        with store.engine.begin() as conn:
            conn.execute(
                insert(guesses).values(
                    rater_id=rid, item_id=iid, target_method="BS-4", n_responses=3, guessed_position=2, true_position=0
                )
            )


def test_a_study_can_only_ask_about_its_own_single_response_methods(store):
    prompts = [PromptSpec("Say hello.", "greeting", "en", False)]
    with pytest.raises(UserError, match="not among"):
        studies.create_study(store, StudySpec("pilot", prompts, methods=["BS-4", "TS-Temp"], guess_methods="TS-Tilted"))
    with pytest.raises(UserError, match="more than one right answer"):
        studies.create_study(
            store, StudySpec("pilot", prompts, methods=list(METHODS), samples_per_method=2, guess_methods="each")
        )
    sid = studies.create_study(
        store, StudySpec("pilot", prompts, methods=list(METHODS), samples_per_method=2, guess_methods="BS-4")
    )
    assert store.get_study(sid).guess_methods == ("BS-4",)
    sid = studies.create_study(store, StudySpec("pilot 2", prompts, methods=list(METHODS), guess_methods="each"))
    assert store.get_study(sid).guess_methods == METHODS
    sid = studies.create_study(store, StudySpec("pilot 3", prompts, methods=list(METHODS)))
    assert store.get_study(sid).guess_methods == ()


def test_deleting_a_study_or_a_raters_ratings_deletes_their_guesses(store):
    sid, _ = guess_study(store)
    for name in ("ann", "bo"):
        e = enrol(store, sid, name)
        view, _ = blind.open_for(store, sid, lambda e=e: e.rater_id)
        blind.submit_slots_then_next(store, e, view.item, SCORES, NOTES)
        blind.guess_then_next(store, e, view.item, {"BS-4": "A"})
    assert len(store.guesses(sid)) == 2
    store.delete_rater_ratings(sid, "ann")
    assert [g.rater for g in store.guesses(sid)] == ["bo"]
    counts = store.delete_study(sid)
    assert counts["guesses"] == 1 and store.guesses() == []


def test_the_export_hides_the_answer_key_while_the_study_is_open_and_round_trips_once_closed(store, tmp_path):
    sid, _ = guess_study(store)
    ann = enrol(store, sid, "ann")
    view, _ = blind.open_for(store, sid, lambda: ann.rater_id)
    blind.submit_slots_then_next(store, ann, view.item, SCORES, NOTES)
    blind.guess_then_next(store, ann, view.item, {"BS-4": guessing.DONT_KNOW})
    view, _ = blind.open_for(store, sid, lambda: ann.rater_id)
    blind.submit_slots_then_next(store, ann, view.item, SCORES, NOTES)
    blind.guess_then_next(store, ann, view.item, {"BS-4": "B"})
    with pytest.raises(UserError, match="once the study is closed"):
        blinding.closed_study_blinding(store, sid)
    for state in ("open", "closed"):
        if state == "closed":
            studies.close_study(store, sid)
        path = tmp_path / f"{state}.csv"
        export.export_to_path(store, path, study_id=sid)
        rows = [r for r in csv.DictReader(path.open(encoding="utf-8", newline="")) if r["row_kind"] == "guess"]
        assert len(rows) == 2 and {r["format_version"] for r in rows} == {str(export.FORMAT_VERSION)}
        assert sorted(r["guessed_label"] for r in rows) == ["", "B"]
        assert all(r["study_guess_methods"] == '["BS-4"]' for r in rows)
        keys = [r["true_label"] for r in rows]
        assert keys == ["", ""] if state == "open" else all(k in "ABC" and k for k in keys)
    # the closed export feeds the CLI, and imports into an empty store with nothing lost
    assert blinding.main([str(tmp_path / "closed.csv"), "--json"]) == 0
    target = Store(f"sqlite:///{tmp_path / 'target.db'}")
    counts = export.import_file(target, tmp_path / "closed.csv")
    assert counts["guesses"] == 2 and export.import_file(target, tmp_path / "closed.csv")["guesses"] == 0
    [copy] = target.list_studies()
    assert copy.guess_methods == ("BS-4",)

    def strip(gs):
        return [(g.rater, g.target_method, g.n_responses, g.guessed_position, g.true_position) for g in gs]

    assert strip(target.guesses()) == strip(store.guesses(sid))
    pd_index = blinding.closed_study_blinding(target, copy.id)
    assert pd_index["n"].tolist() == [2] and pd_index["dont_know"].tolist() == [1]
    # an open study's export is sealed (issue 44) and says it does not import
    other = Store(f"sqlite:///{tmp_path / 'other.db'}")
    with pytest.raises(UserError, match="written blind"):
        export.import_file(other, tmp_path / "open.csv")
    # a file the CLI wrote of an open study before issue 44 (methods, no seeds, no keys) still imports:
    # the guesses are kept, unscored (their key was left out)
    with (tmp_path / "closed.csv").open(encoding="utf-8", newline="") as fh:
        before = list(csv.DictReader(fh))
    blank = ("seed", "base_seed", "blind_seed", "true_label")
    with (tmp_path / "old-open.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(before[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({**r, "study_state": "open", **dict.fromkeys(blank, "")} for r in before)
    assert export.import_file(other, tmp_path / "old-open.csv")["guesses"] == 2
    assert {g.true_position for g in other.guesses()} == {None}
    assert blinding.guesses_frame(other.guesses()).empty
    target.dispose()
    other.dispose()


def test_files_from_before_format_4_still_import(store, tmp_path):
    sid, _ = guess_study(store, n_items=1)
    ann = enrol(store, sid, "ann")
    view, _ = blind.open_for(store, sid, lambda: ann.rater_id)
    blind.submit_slots_then_next(store, ann, view.item, SCORES, NOTES)
    studies.close_study(store, sid)  # an open study's export is sealed and does not import
    path = tmp_path / "new.csv"
    export.export_to_path(store, path)
    rows = list(csv.DictReader(path.open(newline="", encoding="utf-8")))
    old_columns = [c for c in export.ALL_COLUMNS if c not in guessing_columns()]
    old = tmp_path / "v3.csv"
    with open(old, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(old_columns)
        for r in rows:
            writer.writerow(["3" if c == "format_version" else r[c] for c in old_columns])
    target = Store(f"sqlite:///{tmp_path / 'v3.db'}")
    counts = export.import_file(target, old)
    assert counts["ratings"] == 3 and counts["guesses"] == 0
    assert target.list_studies()[0].guess_methods == ()
    target.dispose()


def guessing_columns() -> set[str]:
    return {"study_guess_methods", "target_method", "n_responses", "guessed_label", "true_label"}


def test_bad_guess_rows_are_refused_with_their_row(tmp_path):
    source = Store(f"sqlite:///{tmp_path / 'a.db'}")
    sid, _ = guess_study(source, n_items=1)
    ann = enrol(source, sid, "ann")
    view, _ = blind.open_for(source, sid, lambda: ann.rater_id)
    blind.submit_slots_then_next(source, ann, view.item, SCORES, NOTES)
    blind.guess_then_next(source, ann, view.item, {"BS-4": "A"})
    studies.close_study(source, sid)
    path = tmp_path / "good.csv"
    export.export_to_path(source, path)
    rows = list(csv.DictReader(path.open(newline="", encoding="utf-8")))
    for change, message in (
        ({"guessed_label": "Q"}, "guessed_label 'Q' is not one of the 3 labels"),
        ({"true_label": "D"}, "true_label 'D' is not one of the 3 labels"),
        ({"n_responses": "1"}, "n_responses from 2"),
        ({"target_method": ""}, "target_method"),
        ({"study_guess_methods": "BS-4"}, "study_guess_methods is not valid JSON"),
    ):
        bad = tmp_path / "bad.csv"
        with open(bad, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows([r | change if r["row_kind"] == "guess" else r for r in rows])
        target = Store(f"sqlite:///{tmp_path / 'bad.db'}")
        with pytest.raises(UserError, match=message):
            export.import_file(target, bad)
        assert target.list_studies() == []
        target.dispose()
    source.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_schema_3_database_is_upgraded_to_hold_guesses(backend, tmp_path):
    first, close = open_store(backend, tmp_path)
    sid = first.create_study("before guesses", methods=list(METHODS))
    url = first.engine.url.render_as_string(hide_password=False)
    first.dispose()
    raw = create_engine(url)
    with raw.begin() as conn:  # back to schema 3: no guesses table, no studies.guess_methods
        conn.execute(text("DROP TABLE guesses"))
        conn.execute(text("ALTER TABLE studies DROP COLUMN guess_methods"))
        conn.execute(text("UPDATE arena_schema SET version = 3"))
    raw.dispose()
    try:
        upgraded = Store(url)
        assert "create table guesses" in upgraded.changes
        assert "add column studies.guess_methods" in upgraded.changes
        assert upgraded.get_study(sid).guess_methods == ()
        with upgraded.read() as conn:
            assert conn.execute(text("SELECT version FROM arena_schema")).scalar_one() == SCHEMA_VERSION
        new, _ = guess_study(upgraded)
        assert upgraded.get_study(new).guess_methods == ("BS-4",)
        assert Store(url).changes == []  # a second start changes nothing
        upgraded.dispose()
    finally:
        close()
