"""Studies over systems = (model, method) (issue 25): created, generated with the right model per
system, rated blind, published, shown in Results with one stated perplexity scorer, exported and
imported on SQLite and PostgreSQL. The dummy engine and stand-in models: nothing loads."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from sqlalchemy import create_engine, text

from arena import settings, studies
from arena.engines.dummy import DummyEngine
from arena.files.export import export_rows, export_to_path, import_file
from arena.inputs.text import markdown_literal
from arena.rating import blind, systems
from arena.rating.study_spec import StudySpec
from arena.runs.requests import RunRequest
from arena.store import Store
from arena.store.schema import SCHEMA_VERSION
from common.errors import UserError
from evaluation.perplexity import ItemScore
from evaluation.report import compute_view
from tests.support.seeding import publish
from tests.support.stores import BACKENDS, open_store

PROMPTS = ["Name a colour.", "Name a fruit."]
METHODS = ["TS-Temp", "BS-4"]
MODELS = ["m-a", "m-b"]


def stand_in(name: str) -> SimpleNamespace:
    return SimpleNamespace(
        name=name, device=torch.device("cpu"), dtype_name="float32", context_length=2048, tokenizer=None, variant=""
    )


def make(store, **kw):
    spec = StudySpec(
        "two models", [studies.PromptSpec(p) for p in PROMPTS], methods=METHODS, models=MODELS, max_new_tokens=5,
        base_seed=7, **kw,
    )  # fmt: skip
    return studies.create_study(store, spec)


def test_systems_are_model_method_pairs_and_plain_methods_stay_methods():
    assert systems.cross(MODELS, METHODS) == ["m-a · TS-Temp", "m-a · BS-4", "m-b · TS-Temp", "m-b · BS-4"]
    assert systems.split_system("m-b · BS-4") == ("m-b", "BS-4") and systems.split_system("BS-4") == ("", "BS-4")
    assert systems.models_in(["BS-4", "TS-Temp"]) == []
    with pytest.raises(UserError, match="named twice"):
        systems.cross(["m-a", "m-a"], METHODS)
    with pytest.raises(UserError, match="too long"):
        systems.cross(["x" * 100], METHODS)


def test_a_study_over_two_models_from_creation_to_published_results(store, tmp_path):
    loads: list[str] = []

    def load(model):
        loads.append(model)
        return stand_in(model)

    with settings.override(engine="dummy"):
        sid = make(store)
        study = store.get_study(sid)
        assert study.methods == tuple(systems.cross(MODELS, METHODS)) and study.scorer_model == "m-a"
        report = studies.generate_study(store, stand_in("app model"), sid, load=load)
        assert report.complete and report.opened and loads == MODELS
        # each system's outputs are its model's: what that model alone writes for the prompt and seed
        outputs = store.outputs_frame(sid)
        assert len(outputs) == len(PROMPTS) * 4
        for row in outputs.itertuples():
            model, method = systems.split_system(row.method)
            seed = int(row.seed)
            [alone] = DummyEngine().run_methods(
                stand_in(model), RunRequest(row.prompt, [method], max_new_tokens=5, seed=seed)
            )
            assert row.text == alone.text, (row.method, row.item_id)
        assert studies.generate_study(store, stand_in("app model"), sid, load=load).generated == 0
        assert loads == MODELS  # nothing missing: no model loaded again

        # blind: four responses per item, labelled A-D, no system name on what a rater sees
        view, _ = blind.open_item(store, "rater-1", sid)
        assert sorted(r.label for r in view.responses) == ["A", "B", "C", "D"]
        assert not any(m in repr(view) for m in MODELS)
        for rater in ("rater-1", "rater-2"):
            while True:
                view, _ = blind.open_item(store, rater, sid)
                if view is None:
                    break
                scores = {r.label: {"coherence": 4, "informativeness": 3, "naturalness": 5} for r in view.responses}
                blind.submit(store, rater, view.item, scores, {})
        publish(store, sid)

        # Results: one row per system; perplexity by the study's scorer, never the serving model
        scored: list[str] = []

        def scorer_load(model):
            scored.append(model)
            return stand_in(f"scorer {model}")

        fake = {int(o): ItemScore(nll=2.0, tokens=2) for o in outputs["output_id"]}
        seen: list[str] = []
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("evaluation.report.output_scores", lambda lm, *a, **k: (seen.append(lm.name), fake)[1])
            view = compute_view(store, sid, lm=stand_in("serving model"), load=scorer_load)
        assert scored == ["m-a"] and seen == ["scorer m-a"]
        assert (
            f"perplexity under {markdown_literal('m-a')} ({markdown_literal('scorer m-a')})" in view["headline"]
            and "one scorer for every system" in view["headline"]
        )
        assert sorted(view["summary"]["method"]) == sorted(study.methods)

        # export and import keep the systems and the scorer
        path = tmp_path / "systems.jsonl"
        assert export_to_path(store, path, study_id=sid) > 0
        target, close = open_store("sqlite", tmp_path / "copy")
        try:
            counts = import_file(target, path)
            assert counts["studies"] == 1 and counts["outputs"] == len(outputs)
            [copy] = [s for s in target.list_studies(kind="study")]
            assert copy.methods == study.methods and copy.scorer_model == "m-a"
            assert {r["study_scorer_model"] for r in export_rows(target)} == {"m-a"}
        finally:
            close()


def test_a_one_model_study_has_no_scorer_of_its_own_and_is_unchanged(store):
    sid = studies.create_study(
        store, StudySpec("one model", [studies.PromptSpec(PROMPTS[0])], methods=METHODS, max_new_tokens=4)
    )
    study = store.get_study(sid)
    assert study.methods == tuple(METHODS) and study.scorer_model is None
    named = make(store, scorer_model="m-b")
    assert store.get_study(named).scorer_model == "m-b"
    with pytest.raises(UserError, match="settings given for methods not in the study: TS-Temp"):
        make(store, settings={"TS-Temp": {"temperature": 0.5}})  # a study over models names systems
    sid = make(store, settings={"m-b · TS-Temp": {"temperature": 0.5}})
    assert store.get_study(sid).settings["m-b · TS-Temp"]["temperature"] == 0.5


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_schema_4_database_gets_the_scorer_column_and_its_studies_keep_the_apps_model(backend, tmp_path):
    first, close = open_store(backend, tmp_path)
    sid = first.create_study("before systems", methods=METHODS)
    url = first.engine.url.render_as_string(hide_password=False)
    first.dispose()
    raw = create_engine(url)
    with raw.begin() as conn:  # back to schema 4: no studies.scorer_model
        conn.execute(text("ALTER TABLE studies DROP COLUMN scorer_model"))
        conn.execute(text("UPDATE arena_schema SET version = 4"))
    raw.dispose()
    try:
        upgraded = Store(url)
        assert "add column studies.scorer_model" in upgraded.changes
        old = upgraded.get_study(sid)
        assert old.methods == tuple(METHODS) and old.scorer_model is None
        with upgraded.read() as conn:
            assert conn.execute(text("SELECT version FROM arena_schema")).scalar_one() == SCHEMA_VERSION
        upgraded.dispose()
    finally:
        close()
