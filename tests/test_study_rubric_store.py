"""A rubric per study in the store (schema 8): scores on each dimension's own scale, the default study
unchanged, a schema 7 database upgraded in place, exports that carry the rubric and import back, and
another team's long-format file imported as a closed study (issue 34)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from arena.files.export import export_rows, export_to_path, import_file, main, read_export
from arena.store import Store
from arena.store.schema import SCHEMA_VERSION
from common.errors import UserError
from common.rubric import DEFAULT_RUBRIC, Rubric
from tests.support.old_schema import back_to_score_columns
from tests.support.stores import BACKENDS, open_store

ROOT = Path(__file__).resolve().parents[1]
RUBRIC = Rubric.from_dict(
    {
        "dimensions": [
            {
                "name": "quality",
                "low": 1,
                "high": 10,
                "description": "how good",
                "anchors": {"1": "bad", "10": "great"},
            },
            {"name": "creativity", "low": 1, "high": 7},
        ]
    }
)


def _rubric_study(store: Store, rubric: Rubric = RUBRIC) -> tuple[int, list[int]]:
    sid = store.create_study("custom", methods=["a", "b"], items_=[{"prompt": "p"}], rubric=rubric, state="closed")
    [item] = store.items(sid)
    oids = [store.add_output(item.id, m, 0, text=m, settings={}, seed=1, model="m", new_tokens=4)[0] for m in "ab"]
    return sid, oids


@pytest.mark.parametrize("backend", BACKENDS)
def test_scores_are_kept_per_dimension_on_the_rubrics_scale(backend, tmp_path):
    store, close = open_store(backend, tmp_path)
    try:
        sid, (a, b) = _rubric_study(store)
        assert store.get_study(sid).rubric == RUBRIC
        rid = store.rater_id("ann")
        store.save_ratings(rid, [{"output_id": a, "quality": 10, "creativity": 7}], RUBRIC)
        store.save_ratings(rid, [{"output_id": b, "quality": 1, "cant_judge": ["creativity"]}], RUBRIC)
        store.save_ratings(rid, [{"output_id": a, "quality": 9, "creativity": 6}], RUBRIC)  # replaced, not added
        frame = store.ratings_frame(sid)
        assert [c for c in frame.columns if c in ("quality", "creativity", "coherence")] == ["quality", "creativity"]
        assert frame[["method", "quality"]].values.tolist() == [["a", 9], ["b", 1]]
        assert frame["creativity"].isna().tolist() == [False, True]
        assert store.ratings_for(rid, [a])[a].score("quality") == 9
        for bad in ({"quality": 11, "creativity": 3}, {"quality": 5, "creativity": 8}, {"quality": 5}):
            with pytest.raises(UserError):
                store.save_ratings(rid, [{"output_id": b, **bad}], RUBRIC)
        assert store.ratings_frame(sid)["quality"].tolist() == [9, 1]  # nothing half-stored
    finally:
        close()


def test_the_default_study_keeps_its_three_columns(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    sid = store.create_study("plain", methods=["a"], items_=[{"prompt": "p"}], rubric=DEFAULT_RUBRIC)
    assert store.get_study(sid).rubric.is_default
    with store.read() as conn:
        assert conn.execute(text("SELECT rubric FROM studies")).scalar() is None
    [item] = store.items(sid)
    oid, _ = store.add_output(item.id, "a", 0, text="t", settings={}, seed=1, model="m", new_tokens=1)
    store.save_rating(store.rater_id("ann"), oid, 5, 4, 3)
    assert store.ratings_frame(sid)[["coherence", "informativeness", "naturalness"]].values.tolist() == [[5, 4, 3]]
    with store.read() as conn:  # stored like any other rubric's scores (schema 12)
        got = conn.execute(text("SELECT dimension, score, cant_judge FROM rating_scores")).all()
    assert sorted((d, v, bool(f)) for d, v, f in got) == [
        ("coherence", 5, False),
        ("informativeness", 4, False),
        ("naturalness", 3, False),
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_schema_7_database_is_upgraded_in_place(backend, tmp_path):
    first, close = open_store(backend, tmp_path)
    sid = first.create_study("old", methods=["a"], items_=[{"prompt": "p"}])
    [item] = first.items(sid)
    oid, _ = first.add_output(item.id, "a", 0, text="t", settings={}, seed=1, model="m", new_tokens=1)
    first.save_rating(first.rater_id("ann"), oid, 2, 3, 4)
    url = first.engine.url.render_as_string(hide_password=False)
    first.dispose()
    raw = create_engine(url)
    with raw.begin() as conn:  # back to schema 7: no rating_scores, none of the new columns
        back_to_score_columns(conn)  # the scores where schema 7 kept them
        conn.execute(text("DROP TABLE rating_scores"))
        for table, column in (
            ("studies", "rubric"),
            ("studies", "exclusion_rules"),
            ("items", "attention"),
            ("study_raters", "attention_passed"),
        ):
            conn.execute(text(f"ALTER TABLE {table} DROP COLUMN {column}"))
        conn.execute(text("UPDATE arena_schema SET version = 7"))
    raw.dispose()
    try:
        upgraded = Store(url)
        assert "create table rating_scores" in upgraded.changes
        assert "add column studies.rubric" in upgraded.changes
        assert "add column study_raters.attention_passed" in upgraded.changes
        old = upgraded.get_study(sid)
        assert old.rubric.is_default and old.exclusion_rules == ()
        assert upgraded.ratings_frame(sid)[["coherence", "naturalness"]].values.tolist() == [[2, 4]]
        new, (a, _) = _rubric_study(upgraded)
        upgraded.save_ratings(upgraded.rater_id("ben"), [{"output_id": a, "quality": 8, "creativity": 2}], RUBRIC)
        assert upgraded.ratings_frame(new)["quality"].tolist() == [8]
        with upgraded.read() as conn:
            assert conn.execute(text("SELECT version FROM arena_schema")).scalar_one() == SCHEMA_VERSION
        upgraded.dispose()
        assert Store(url).changes == []
    finally:
        close()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_an_export_carries_the_rubric_and_imports_back(backend, fmt, tmp_path):
    source = Store(f"sqlite:///{tmp_path / 'a.db'}")
    sid, (a, b) = _rubric_study(source)
    source.save_ratings(
        source.rater_id("ann"),
        [{"output_id": a, "quality": 10, "creativity": 1}, {"output_id": b, "quality": 3, "cant_judge": "creativity"}],
        RUBRIC,
    )
    source.record_attention(sid, source.rater_id("ann"), False)
    path = tmp_path / f"x.{fmt}"
    assert export_to_path(source, path) == 2
    rows = read_export(path)
    assert Rubric.from_json(rows[0]["study_rubric"]) == RUBRIC  # names, scales, description, anchors
    assert json.loads(rows[0]["scores"]) == {"quality": 10, "creativity": 1}
    target, close = open_store(backend, tmp_path / "t")
    try:
        assert import_file(target, path)["ratings"] == 2
        [copy] = target.list_studies()
        assert copy.rubric == RUBRIC
        frame = target.ratings_frame(copy.id)
        assert frame["quality"].tolist() == [10, 3] and frame["creativity"].isna().tolist() == [False, True]
        assert target.attention_of(copy.id) == {"ann": False}  # the rule "attention" still applies
        assert import_file(target, path)["ratings"] == 2 and target.count_ratings() == 2  # idempotent
        assert len(export_rows(target)) == 2
    finally:
        close()


def test_an_export_with_a_score_off_its_scale_is_refused_whole(tmp_path):
    source = Store(f"sqlite:///{tmp_path / 'a.db'}")
    _, (a, _) = _rubric_study(source)
    source.save_ratings(source.rater_id("ann"), [{"output_id": a, "quality": 10, "creativity": 1}], RUBRIC)
    path = tmp_path / "x.jsonl"
    export_to_path(source, path)
    row = json.loads(path.read_text())
    row["scores"] = json.dumps({"quality": 11, "creativity": 1})
    path.write_text(json.dumps(row) + "\n")
    target = Store(f"sqlite:///{tmp_path / 'b.db'}")
    with pytest.raises(UserError, match="quality must be from 1 to 10"):
        import_file(target, path)
    assert target.list_studies() == []


LONG = (
    "study_id,item_id,rater,method,dimension,score,attention_passed\n"
    "s,i1,r1,x,quality,9,true\ns,i1,r1,x,creativity,3,true\ns,i1,r1,y,quality,2,true\ns,i1,r1,y,creativity,7,true\n"
    "s,i1,r2,x,quality,8,false\ns,i1,r2,x,creativity,,false\ns,i1,r2,y,quality,4,false\ns,i1,r2,y,creativity,5,false\n"
)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_long_file_is_imported_as_a_closed_study(backend, tmp_path, capsys):
    store, close = open_store(backend, tmp_path)
    path = tmp_path / "long.csv"
    path.write_text(LONG)
    url = store.engine.url.render_as_string(hide_password=False)
    try:
        args = ["--database", url, "--import-ratings", str(path), "--name", "Survey", "--scale", "1-10"]
        assert main([*args, "--exclude-failed-attention"]) == 0
        [study] = store.list_studies()
        assert (study.name, study.state, study.rubric.names) == ("Survey", "closed", ("quality", "creativity"))
        assert study.rubric.dimension("creativity").scale_words == "1-10"
        assert study.exclusion_rules == ("attention",)
        frame = store.ratings_frame(study.id)
        assert len(frame) == 4 and frame["quality"].tolist() == [9, 2, 8, 4]
        assert dict(zip(frame["rater"], frame["attention_passed"], strict=False)) == {"r1": True, "r2": False}
        assert "1 failed an attention check" in capsys.readouterr().err
        assert main(args) == 2  # the name is taken: refused, nothing added
        assert "error: a study named 'Survey' exists already" in capsys.readouterr().err
        assert len(store.list_studies()) == 1
    finally:
        close()


@pytest.mark.parametrize(
    "body, message",
    [
        (LONG.replace("s,i1,r1,x,quality,9", "s,i1,r1,x,quality,12"), "outside its scale"),
        (LONG.replace("dimension", "question"), "missing"),
        ("study_id,item_id,rater,method,dimension,score\n", "no ratings"),
    ],
)
def test_a_bad_long_file_is_one_error_line_and_nothing_stored(tmp_path, capsys, body, message):
    path = tmp_path / "long.csv"
    path.write_text(body)
    db = f"sqlite:///{tmp_path / 'a.db'}"
    assert main(["--database", db, "--import-ratings", str(path), "--name", "S", "--scale", "1-10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and message in err[0], err
    assert Store(db).list_studies() == []


def test_the_worked_example_survey_imports_and_shows_on_results(tmp_path):
    from evaluation import report  # late: the evaluation layer is only needed by this one test

    db = f"sqlite:///{tmp_path / 'a.db'}"
    survey = ROOT / "docs" / "sampler-survey" / "survey.csv"
    assert (
        main(["--database", db, "--import-ratings", str(survey), "--name", "Survey", "--exclude-failed-attention"]) == 0
    )
    store = Store(db)
    [study] = store.list_studies()
    store.set_study_state(study.id, "published", allowed_from=("closed",))
    view = report.compute_view(store, study.id)
    assert "16 of 64 raters excluded by the rule set at creation" in view["headline"]
    assert "With and without the 16 excluded raters" in view["headline"]
    assert "quality (1-10)" in " ".join(view["table"].columns)
    assert "With every rater and without the excluded, side by side" in view["headline"]
    assert len(view["sensitivity"]) == 12 and view["sensitivity"]["conclusion changes"].isin(["yes", "no"]).all()
    from ui import present  # late, as above: the stakeholder page of the same study
    from ui.organizer import stats

    page = present.page_html(present.study_view(store, study.id))
    assert "16 of 64 raters excluded by the rule set at creation" in page and 'id="sensitivity"' in page
    assert "quality (1-10)" in page
    assert "on each question's own scale" in page and "on 1–5" not in page  # the caption (issue 34)
    zh = present.page_html(present.study_view(store, study.id, "zh"), "zh")
    assert "quality（1-10 分）↑" in zh and "按各问题自己的量表" in zh and "quality (1-10)" not in zh
    _, _, words = stats.diagnostics(store, study.id)  # the organizer reads every rater's flags in words
    assert "never applied by themselves" in words and words.count("failed an attention item") == 16
