"""The Organizer's model choice (issues 25 and 27): "Create a study" over models and precision
variants, through the same `create_study(models=..., scorer_model=...)` as the CLI. The handler is
called as Gradio calls it, with the dummy engine and stand-in models: nothing loads but a tokenizer."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr
import pytest

from arena.model.llm import EMBEDDED, tokenizer_only_model
from arena.rating import systems
from arena.store import Store
from common.errors import UserError
from tests.support.stand_ins import stand_in
from ui import AppContext, organizer, organizer_models
from ui.i18n import ZH
from ui.organizer import forms, handlers

PASSWORD = "pickers-secret"
CREATE = "Create study and generate its outputs"
NAMES = ["smollm2-135m", "gemma-3-270m", "gemma-3-270m@int8"]


@pytest.fixture(scope="module")
def tokenizer():
    return tokenizer_only_model("").tokenizer  # the prompt-length check needs one; no weights load


@pytest.fixture
def world(tmp_path, monkeypatch, tokenizer):
    monkeypatch.setenv("ARENA_ENGINE", "dummy")
    monkeypatch.setattr(organizer, "model_choices", lambda default: list(NAMES))
    loads: list[str] = []

    def load(setting):
        loads.append(setting)
        return stand_in(setting, tokenizer)

    monkeypatch.setattr(handlers, "load_on_compute", load)
    store = Store(f"sqlite:///{tmp_path / 'models.db'}")
    ctx = AppContext(model=lambda: stand_in("smollm2-135m", tokenizer), organizer_password=PASSWORD)
    ctx.extras["store"] = store
    with gr.Blocks() as demo:
        organizer.build(ctx)
    create = next(
        f
        for f in demo.fns.values()
        if any(t[0] is not None and getattr(demo.blocks[t[0]], "value", None) == CREATE for t in f.targets)
    )
    yield SimpleNamespace(store=store, loads=loads, create=create, demo=demo)
    store.dispose()


def form(name: str, models=None, scorer=organizer_models.SCORER_FIRST, guess="off") -> list:
    """The create form's values after the password, in the order ui/organizer/__init__.py wires them."""
    source = forms.SOURCE_KEYS[1]  # what the radio sends
    values = [name, source, "all", "Name a colour.\nName a fruit.", None, ["TS-Temp", "BS-4"], 1, 4, 3, "", guess]
    return [*values, forms.DESIGN_CHOICES[0][1], models if models is not None else NAMES[:1], scorer]


def call(world, *values):
    request = SimpleNamespace(headers={}, client=SimpleNamespace(host="192.0.2.9"), cookies={}, session_hash="o")
    return world.create.fn(request, PASSWORD, *values, progress=lambda *a, **k: None)


def test_the_form_offers_the_models_with_their_licences_and_keeps_the_old_inputs_first(world):
    comps = {c._id: c for c in world.demo.blocks.values()}
    inputs = [comps[i._id] for i in world.create.inputs]
    # after the first 14 (password, ..., guess): the design, the models, the scorer; the rubric's three came later
    assert [type(c).__name__ for c in inputs[12:15]] == ["Radio", "CheckboxGroup", "Dropdown"]
    box, scorer = inputs[13], inputs[14]
    assert [c[1] for c in box.choices] == NAMES and box.value == ["smollm2-135m"]  # the app's model alone
    assert [c[1] for c in scorer.choices] == [organizer_models.SCORER_FIRST, *NAMES]
    notes = [b.value for b in world.demo.blocks.values() if "organizer-model-note" in (b.elem_classes or [])]
    assert any("licence: Gemma Terms of Use" in n and "base model" in n for n in notes), notes
    assert any("licence: Apache-2.0" in n for n in notes), notes
    for text in (organizer_models.MODELS_LABEL, organizer_models.MODELS_INFO, organizer_models.SCORER_LABEL, *notes):
        assert text in ZH  # the Organizer tab is translated (tests/test_i18n.py)
    assert set(organizer_models.model_notes(["gemma-3-270m@int8"])) == {
        organizer_models.model_note(EMBEDDED["gemma-3-270m"])
    }


def test_the_apps_model_alone_creates_a_study_of_methods_as_before(world):
    *_, status, _, beside = call(world, *form("Methods only"))  # beside: the line above the Create button
    assert beside.startswith("**Finished:** ") and beside.split("** ")[1].rstrip(".") in status
    [study] = world.store.list_studies(kind="study")
    assert study.methods == ("TS-Temp", "BS-4") and study.scorer_model is None
    assert "created" in status and world.loads == []
    assert {o.model for o in world.store.outputs_frame(study.id).itertuples()} == {"dummy engine (fake text)"}


def test_two_models_and_a_variant_make_a_study_over_systems_with_the_chosen_scorer(world):
    chosen = ["gemma-3-270m@int8", "smollm2-135m"]  # ticked in any order: the picker's order counts
    *_, status, _, _ = call(world, *form("Over models", chosen, scorer="gemma-3-270m@int8", guess="BS-4"))
    [study] = world.store.list_studies(kind="study")
    assert study.methods == tuple(systems.cross(["smollm2-135m", "gemma-3-270m@int8"], ["TS-Temp", "BS-4"]))
    assert study.scorer_model == "gemma-3-270m@int8"
    # the blind question about BS-4 asks about BS-4 on each model
    assert tuple(study.guess_methods) == ("smollm2-135m · BS-4", "gemma-3-270m@int8 · BS-4")
    # the app's model serves its own systems; the variant is loaded once for its outputs
    assert world.loads == ["gemma-3-270m@int8"] and "8 of 8 outputs stored" in status, status
    outputs = world.store.outputs_frame(study.id)
    assert len(outputs) == 2 * 4 and set(outputs["method"]) == set(study.methods)
    table = handlers.studies_table(world.store)
    row = table.iloc[0]
    assert row["model"] == "smollm2-135m, gemma-3-270m@int8" and row["methods"] == "TS-Temp, BS-4"


@pytest.mark.parametrize(
    ("models", "scorer", "message"),
    [
        ([], organizer_models.SCORER_FIRST, "choose at least one model"),
        (["someone/else"], organizer_models.SCORER_FIRST, "not a model this app offers"),
        (["smollm2-135m", "gemma-3-270m"], "someone/else", "not a model this app offers as the perplexity scorer"),
    ],
)
def test_a_bad_model_choice_is_refused_before_anything_is_stored(world, models, scorer, message):
    with pytest.raises(gr.Error, match=message):
        call(world, *form("Refused", models, scorer=scorer))
    assert world.store.list_studies() == [] and world.loads == []


def test_the_scorer_is_ignored_for_a_one_model_study_and_guesses_stay_for_each_and_off():
    assert organizer_models.scorer_model("gemma-3-270m", None, NAMES) is None
    assert organizer_models.scorer_model(organizer_models.SCORER_FIRST, ["a", "b"], NAMES) is None
    assert organizer_models.guess_targets("each", ["a", "b"]) == "each"
    assert organizer_models.guess_targets("off", ["a", "b"]) == "off"
    assert organizer_models.guess_targets("BS-4", None) == "BS-4"
    assert organizer_models.study_models(None, NAMES) is None
    assert organizer_models.study_models(["gemma-3-270m"], NAMES) == ["gemma-3-270m"]  # one other model: systems
    with pytest.raises(UserError):
        organizer_models.study_models("nope", NAMES)


def test_the_preview_counts_every_method_on_each_chosen_model(world):
    preview = next(f for f in world.demo.fns.values() if [o.elem_id for o in f.outputs] == ["organizer-preview"])
    request = SimpleNamespace(headers={}, client=SimpleNamespace(host="192.0.2.9"), cookies={}, session_hash="p")
    args = [organizer.SOURCES[1], "all", "one\ntwo", None, ["TS-Temp", "BS-4"], 1, 4]
    assert "2 prompts × 2 methods = 4 outputs" in preview.fn(request, PASSWORD, *args, ["smollm2-135m"])
    assert "2 prompts × 4 methods = 8 outputs" in preview.fn(request, PASSWORD, *args, NAMES[:2])
