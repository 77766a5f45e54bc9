"""One StudySpec changed how a study's settings travel, not what is stored (issue 46): the same
Organizer form, the same `python -m arena.studies create` arguments and the same long-format import
file give the study the code before the StudySpec stored, recorded in tests/data/study_spec_before.json
(written from main a7f3a4b, before the change). What is drawn at random (the base and blind seeds,
item public ids, which the outputs' seeds hash) is made repeatable, and what depends on the clock
(creation times, timings) is left out of the comparison."""

from __future__ import annotations

import itertools
import json
import os
import secrets
from pathlib import Path

import pytest

from arena.files.long_import import import_long_file
from arena.store import Store
from arena.studies import __main__ as study_cli
from ui.organizer import handlers as h
from ui.organizer.forms import StudyForm

ROOT = Path(__file__).resolve().parents[1]
BEFORE = ROOT / "tests" / "data" / "study_spec_before.json"
SURVEY = ROOT / "docs" / "sampler-survey" / "survey.csv"
RUBRIC = {"dimensions": [{"name": "quality", "low": 1, "high": 10}, {"name": "creativity", "low": 1, "high": 7}]}
PROMPTS = (
    "prompt,scenario,language\nName a colour of the sea.,colours,en\nName a fruit.,fruit,en\nName a tree.,trees,en\n"
)
STUDY_FIELDS = (
    "name", "kind", "model", "methods", "settings", "samples_per_method", "max_new_tokens", "base_seed", "blind_seed",
    "state", "guidelines", "guess_methods", "scorer_model", "design", "rubric", "exclusion_rules", "imported_from",
)  # fmt: skip


def fixed(bound: int) -> int:
    """`secrets.randbelow`, made repeatable: a study's base and blind seeds."""
    return 4242 % bound


def stored(store: Store, sid: int) -> dict:
    """The study as the store holds it, less what depends on the clock (creation times, timings)."""
    study = store.get_study(sid)
    assert study is not None
    row = {k: getattr(study, k) for k in STUDY_FIELDS}
    row["rubric"] = None if study.rubric is None else study.rubric.to_json()
    items = [
        {k: getattr(i, k) for k in ("ordinal", "public_id", "prompt", "scenario", "language", "raw", "attention")}
        for i in store.items(sid)
    ]
    frame = store.outputs_frame(sid)
    outputs = sorted(
        (str(r["prompt"]), str(r["method"]), int(r["sample_index"]), str(r["text"]), r["seed"])
        for r in frame.to_dict("records")
    )
    return json.loads(json.dumps({"study": row, "items": items, "outputs": outputs}, default=list))


@pytest.fixture
def world(monkeypatch, tmp_path):
    monkeypatch.setenv("ARENA_ENGINE", "dummy")
    monkeypatch.setattr(secrets, "randbelow", fixed)
    ids = itertools.count()  # item public ids, which each output's seed hashes: repeatable too
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n=None: f"id{next(ids)}")
    (tmp_path / "prompts.csv").write_text(PROMPTS, encoding="utf-8")
    (tmp_path / "rubric.json").write_text(json.dumps(RUBRIC), encoding="utf-8")
    return tmp_path


def from_form(lm, folder: Path) -> dict:
    store = Store(f"sqlite:///{folder / 'form.db'}")
    names = [lm.name]
    form = StudyForm(
        "Spec pilot", "Built-in scenarios", "all", "", str(folder / "prompts.csv"), ["TS-Temp", "BS-4"], 2, 4, "",
        "Be fair.", "BS-4", "1–5 scores", None, "", json.dumps(RUBRIC), 1, ["straight-lining", "attention"],
    )  # fmt: skip
    shown = h.create(store, lambda: lm, names, form, progress=lambda *a, **k: None)
    assert "created" in shown.status
    return stored(store, store.list_studies(kind="study")[0].id)


def from_cli(lm, folder: Path, capsys) -> dict:
    db = f"sqlite:///{folder / 'cli.db'}"
    code = study_cli.main([
        "create", "--name", "Spec pilot", "--prompts", str(folder / "prompts.csv"), "--methods", "TS-Temp,BS-4",
        "--samples", "2", "--max-new-tokens", "4", "--guess", "BS-4", "--rubric", str(folder / "rubric.json"),
        "--attention", "1", "--exclude", "attention,straight-lining", "--database", db,
    ])  # fmt: skip
    out = capsys.readouterr()
    assert code == 0, out.err
    return stored(Store(db), json.loads(out.out.strip().splitlines()[-1])["study_id"])


def from_import(folder: Path) -> dict:
    store = Store(f"sqlite:///{folder / 'import.db'}")
    [made] = import_long_file(store, SURVEY, "Sampler survey", exclude_failed_attention=True)
    return stored(store, int(made["study_id"]))


def test_the_form_the_cli_and_the_import_store_the_studies_they_stored_before(lm, world, capsys):
    now = {"form": from_form(lm, world), "cli": from_cli(lm, world, capsys), "import": from_import(world)}
    if os.environ.get("ARENA_RECORD_STUDY_SPEC"):  # how the record was written, before the change
        BEFORE.write_text(json.dumps(now, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    before = json.loads(BEFORE.read_text(encoding="utf-8"))
    assert now["form"]["items"] and now["cli"]["outputs"] and now["import"]["items"]
    for door in ("form", "cli", "import"):
        assert now[door] == before[door], door
