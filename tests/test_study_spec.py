"""One StudySpec (issue 46): a study's settings are one value that the Organizer's form, the studies
command line and the import each build, that `StudySpec.checked` checks once (each bad input with
its own message), and that `create_study` takes down to the store."""

from __future__ import annotations

import re
import secrets
from dataclasses import replace
from pathlib import Path

import pytest

from arena import studies
from arena.files.long_import import imported_spec
from arena.files.long_ratings import read_long_ratings
from arena.inputs.prompts import PromptSpec
from arena.rating.attention import AttentionPlan
from arena.rating.study_spec import MAX_ITEMS, StudySpec
from arena.studies import __main__ as study_cli
from common.errors import UserError
from common.rubric import Rubric
from ui.organizer import forms

PROMPTS = (PromptSpec("Name a colour."), PromptSpec("Name a fruit."))
GOOD = StudySpec("Pilot", PROMPTS, methods=["BS-4", "TS-Temp"], base_seed=7)
TEN = Rubric.from_dict({"dimensions": [{"name": "quality", "low": 1, "high": 10}]})

BAD: list[tuple[dict, str]] = [
    (dict(name="  "), "give the study a name"),
    (dict(name="Is BS-4 best?"), "raters see the study's name; leave method names out of it (BS-4)"),
    (dict(methods=["NOPE"]), "unknown method 'NOPE'"),
    (dict(settings={"TS-Tilted": {"alpha": 0.1}}), "settings given for methods not in the study: TS-Tilted"),
    (dict(settings={"TS-Temp": {"temperature": -1}}), "temperature"),
    (dict(samples_per_method=0), "samples per stochastic method"),
    (dict(samples_per_method="1.5"), "samples per stochastic method"),
    (dict(max_new_tokens=0), "max new tokens"),
    (dict(base_seed="seven"), "base seed"),
    (dict(guess_methods="TS-Tilted"), "TS-Tilted is not among BS-4, TS-Temp"),
    (dict(guess_methods="TS-Temp", samples_per_method=2), "TS-Temp has 2 responses per item"),
    (dict(design="ranked"), "a study is rated by scores or pairwise, not 'ranked'"),
    (dict(design="pairwise", methods=["BS-4"]), "a pairwise study compares at least two methods"),
    (dict(design="pairwise", samples_per_method=2), "a pairwise study compares methods: one sample per method"),
    (dict(methods=["BS-4", "TS-Temp", "TS-Tilted"], samples_per_method=5), "11 responses per item is too many"),
    (dict(prompts=()), "the study has no prompts"),
    (
        dict(prompts=(PromptSpec("p"),) * (MAX_ITEMS + 1)),
        f"{MAX_ITEMS + 1} prompts; the limit per study is {MAX_ITEMS}",
    ),
    (dict(exclusion_rules="speeder, nope"), "unknown exclusion rule 'nope'"),
    (dict(exclusion_rules=("attention",)), 'the exclusion rule "attention" needs attention items'),
    (dict(attention=AttentionPlan(3)), "3 attention items for 2 prompts: at most one per prompt"),
    (dict(attention=AttentionPlan(1, 12), rubric=TEN), "attention items ask for 12"),
    (dict(design="pairwise", rubric=TEN), "a pairwise study asks for one vote per pair"),
    (dict(design="pairwise", attention=AttentionPlan(1)), "a pairwise study asks for one vote per pair"),
]


@pytest.mark.parametrize(("change", "message"), BAD, ids=[m[:40] for _, m in BAD])
def test_each_bad_setting_is_refused_with_its_own_message(change, message):
    GOOD.checked()  # the spec it changes is a good one
    with pytest.raises(UserError, match=re.escape(message)):
        replace(GOOD, **change).checked()


def test_a_refused_spec_stores_nothing(store):
    with pytest.raises(UserError, match="the study has no prompts"):
        studies.create_study(store, replace(GOOD, prompts=()))
    assert store.list_studies() == []


def test_the_checked_spec_is_the_stored_study(store):
    spec = replace(GOOD, name="  Pilot   two ", exclusion_rules="speeder,straight-lining", base_seed=None).checked()
    assert spec.name == "Pilot two" and spec.exclusion_rules == ("straight-lining", "speeder")
    assert spec.settings["TS-Temp"]["top_p"] == 0.95  # the defaults that run are stored (SEEDS-DIGEST)
    assert spec.checked() is spec  # checked once: its random seed is the one drawn, not a second draw
    study = studies.create_study(store, spec, model="m")
    made = store.get_study(study)
    assert (made.name, made.methods, made.base_seed, made.exclusion_rules, made.state) == (
        "Pilot two", ("BS-4", "TS-Temp"), spec.base_seed, ("straight-lining", "speeder"), "draft",
    )  # fmt: skip
    assert made.settings == spec.settings and len(store.items(study)) == 2


def test_the_form_the_cli_and_the_import_build_one_spec_for_one_study(tmp_path, monkeypatch):
    monkeypatch.setattr(secrets, "randbelow", lambda bound: 99)  # the seed none of the three doors sets
    prompts = tmp_path / "prompts.csv"
    prompts.write_text("prompt,scenario\nitem a,a\nitem b,b\n", encoding="utf-8")
    rubric = tmp_path / "rubric.json"
    rubric.write_text(TEN.to_json(), encoding="utf-8")
    survey = tmp_path / "survey.csv"
    survey.write_text(
        "study_id,item_id,rater,method,dimension,score,scale_min,scale_max\n"
        + "".join(f"s,{i},ann,{m},quality,{k + 3},1,10\n" for k, (i, m) in enumerate(
            [("a", "BS-4"), ("a", "TS-Temp"), ("b", "BS-4"), ("b", "TS-Temp")]))
    )  # fmt: skip
    form = forms.StudyForm(
        "Door pilot", forms.SOURCES[0], "all", "", str(prompts), ["BS-4", "TS-Temp"], 1, 128, "", None, "off",
        "1–5 scores", None, "", TEN.to_json(), 0, [],
    ).spec(["app-model"])  # fmt: skip
    cli = study_cli.study_spec(study_cli.parser().parse_args(
        ["create", "--name", "Door pilot", "--prompts", str(prompts), "--methods", "BS-4,TS-Temp",
         "--rubric", str(rubric)]
    ))  # fmt: skip
    [read] = read_long_ratings(survey).studies
    imported = imported_spec(read, "Door pilot", (), "survey.csv")
    assert imported.imported_from == "survey.csv" and imported.rubric == TEN
    assert form.checked() == cli.checked() == replace(imported, imported_from=None).checked()
    assert form.checked().prompts == (PromptSpec("item a", "a"), PromptSpec("item b", "b"))
    assert form != cli  # built differently (a list of methods, a comma-separated text): the same once checked


def test_old_names_stay_importable():
    from arena.studies.create import EXCLUSION_RULES, check_exclusion_rules  # noqa: F401
    from arena.studies.limits import MAX_RESPONSES, expected_slots, method_names_in  # noqa: F401

    assert studies.StudySpec is StudySpec and method_names_in("a bs4 study") == ["BS-4"]


def test_the_study_spec_module_loads_no_torch():
    import subprocess
    import sys

    code = "import sys, arena.rating.study_spec, arena.store, arena.files.export; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1],
                          capture_output=True, text=True, check=True, timeout=300)  # fmt: skip
    assert done.stdout.strip() == "False"
