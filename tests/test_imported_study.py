"""An imported study is a study (issue 46): after `python -m arena.export --import-ratings` of the worked
example in docs/sampler-survey/, the Organizer's handlers work for it and for every other study, it is
published there, and the Organizer, Results and /present say where its ratings came from ("imported
from FILE; collected outside this app", English and Chinese) instead of "double-blind"; counts of one
read "1 prompt", "1 rating", "1 rater". The provenance is stored with the study, and a schema-8
database gets its column in place."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from sqlalchemy import create_engine, text
from starlette.applications import Starlette
from starlette.testclient import TestClient

from arena import studies
from arena.files import export
from arena.files.export import main
from arena.store import Store
from arena.store.schema import SCHEMA_VERSION
from common import messages
from common.errors import UserError
from evaluation import report, story
from tests.support.seeding import close, invite, rate_every_output, seed_study
from tests.support.stores import BACKENDS, open_store
from ui import present
from ui.organizer import blinding, dashboard, stats
from ui.organizer import handlers as h

ROOT = Path(__file__).resolve().parents[1]
SURVEY = ROOT / "docs" / "sampler-survey" / "survey.csv"
FROM = "imported from survey.csv; collected outside this app"
FROM_ZH = "导入自 survey.csv；在本应用之外收集"
METHODS = ("BS-4", "TS-Temp", "TS-Tilted")


def url_of(store: Store) -> str:
    return store.engine.url.render_as_string(hide_password=False)


def import_survey(store: Store, name: str = "Survey") -> int:
    """The worked example through the documented CLI, into `store`'s database; its new study's id."""
    before = {s.id for s in store.list_studies()}
    args = ["--database", url_of(store), "--import-ratings", str(SURVEY), "--name", name]
    assert main([*args, "--exclude-failed-attention"]) == 0
    [sid] = {s.id for s in store.list_studies()} - before
    return sid


def normal_study(store: Store) -> int:
    texts = [{m: f"text {k} of {m}" for m in METHODS} for k in range(2)]
    sid, _ = seed_study(store, "Made here", ["prompt one", "prompt two"], texts)
    return sid


@pytest.fixture
def both(store):
    normal = normal_study(store)
    return store, import_survey(store), normal


def test_the_import_stores_where_its_ratings_came_from(store, capsys):
    sid = import_survey(store)
    study = store.get_study(sid)
    assert study.imported_from == "survey.csv" and not study.generated  # the name only, not the path
    assert "256 ratings of 1 item by 64 raters" in capsys.readouterr().err
    assert store.get_study(normal_study(store)).imported_from is None


def test_the_summary_counts_an_imports_raters_though_it_enrols_none(store, tmp_path):
    """The app's own export, imported into another database (the Organizer's Import): its raters
    rated but were never enrolled there (the Organizer said "raters 0" beside 8 ratings)."""
    texts = [{m: f"text {k} of {m}" for m in METHODS} for k in range(2)]
    sid, items = seed_study(store, "Made here", ["prompt one", "prompt two"], texts)
    outputs = {o.method: o.id for o in store.outputs_for_item(items[0])}
    rate_every_output(store, outputs, [("ann", 4), ("bo", 2)])
    close(store, sid)
    file = tmp_path / "ratings.csv"
    export.export_to_path(store, file, study_id=sid)
    elsewhere = Store(f"sqlite:///{tmp_path / 'other.db'}")
    try:
        export.import_file(elsewhere, file)
        [copy] = elsewhere.list_studies()
        assert elsewhere.study_summary(copy.id)["raters"] == 2  # who rated (main said 0)
        assert store.study_summary(sid)["raters"] == 2  # enrolled here, and rated: each once
        invite(store, sid, "cy")
        assert store.study_summary(sid)["raters"] == 3  # enrolled, not yet rated
    finally:
        elsewhere.dispose()


def test_every_organizer_handler_works_for_the_import_and_for_a_normal_study(both):
    store, imported, normal = both
    for sid in (imported, normal):  # the handlers that unlocking and choosing a study run
        *panel, ticket = h.unlock(store, sid)
        view = h.overview(store, sid)
        assert ticket and view.choice["value"] == sid
        h.design(store, sid)
        h.flags_of(store, sid)
        dashboard.rater_table(store, sid)
        blinding.form_check_text(store, sid)
        stats.diagnostics(store, sid)
    table = h.overview(store).studies.set_index("id")
    assert table.loc[imported, "kind"] == FROM and table.loc[imported, "methods"].startswith("T=1.0 min-p=0.1")
    assert table.loc[imported, "outputs"] == "4 / 4" and table.loc[imported, "ready items"] == 1
    assert table.loc[normal, "kind"] == "study" and table.loc[normal, "outputs"] == "6 / 6"


def test_the_import_is_published_through_the_organizer_and_never_opened_or_generated(both):
    store, imported, _ = both
    with pytest.raises(UserError, match="imported from survey.csv: its ratings were collected outside this app"):
        h.set_state(store, studies.open_study, imported)
    with pytest.raises(UserError, match="nothing to generate"):
        h.resume(store, lambda: SimpleNamespace(name="app-model"), ["app-model"], imported, lambda *a, **k: None)
    published = h.set_state(store, studies.publish_study, imported)
    assert published.status == f"Study #{imported} is now **published**."
    assert store.get_study(imported).state == "published"


def test_present_and_results_name_the_provenance_instead_of_a_blind(both):
    store, imported, normal = both
    for sid in (imported, normal):
        store.set_study_state(sid, "closed", allowed_from=("open", "closed"))
        h.set_state(store, studies.publish_study, sid)
    page = present.page_html(present.study_view(store, imported))
    assert FROM in page and "double-blind" not in page
    assert f"Study #{imported} · 1 prompt · 192 ratings by 48 raters, {FROM}" in page
    assert "1 prompts" not in page and "N = 1 prompt, 192 ratings by 48 raters" in page
    assert "this holds for this 1 prompt only" in page
    assert "No timing: these ratings were imported from survey.csv" in page
    zh = present.page_html(present.study_view(store, imported, "zh"), "zh")
    assert FROM_ZH in zh and "双盲" not in zh and "没有计时" in zh
    headline = report.compute_view(store, imported)["headline"]
    assert "1 prompt · 192 ratings by 48 raters" in headline and "1 prompts" not in headline
    assert "imported from survey\\.csv; collected outside this app" in headline  # Markdown-escaped
    made_here = present.page_html(present.study_view(store, normal))
    assert "double-blind" in made_here and "imported from" not in made_here
    assert "collected outside" not in report.compute_view(store, normal)["headline"]


def test_the_live_present_route_names_the_provenance(both):
    store, imported, _ = both
    h.set_state(store, studies.publish_study, imported)
    client = TestClient(Starlette(routes=present.routes(lambda: store)))
    page = client.get(f"/present?study={imported}")
    assert page.status_code == 200 and FROM in page.text and "double-blind" not in page.text
    zh = client.get(f"/present?study={imported}&lang=zh")
    assert zh.status_code == 200 and FROM_ZH in zh.text


@pytest.mark.parametrize(
    "key, values, english",
    [
        ("present_sub", dict(id=3, items=1, ratings=1, raters=1, methods="a"), "1 prompt · 1 rating by 1 rater,"),
        ("present_sub", dict(id=3, items=2, ratings=2, raters=2, methods="a"), "2 prompts · 2 ratings by 2 raters,"),
        ("present_sub_pairwise", dict(id=3, items=1, votes=1, raters=1, methods="a"), "1 A-vs-B vote by 1 rater,"),
        ("results_sizes_votes", dict(items=1, votes=1, raters=1), "1 prompt · 1 vote by 1 rater"),
    ],
)
def test_counts_of_one_are_singular(key, values, english):
    assert english in messages.text(key, "en", **values)
    assert "s" not in messages.plural(1) and messages.plural(2) == "s" and messages.plural(2, "zh") == ""


def test_the_takeaway_of_one_prompt_rating_and_rater_is_singular():
    assert story.takeaway(None, 1, 0, 1) == "No ratings yet (N = 1 prompt, 0 ratings by 1 rater)."
    assert "N = 2 prompts, 1 rating by 2 raters" in story.takeaway(None, 2, 1, 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_schema_8_database_gets_the_provenance_column_in_place(backend, tmp_path):
    first, close = open_store(backend, tmp_path)
    old = first.create_study("old", methods=["a"], items_=[{"prompt": "p"}])
    url = url_of(first)
    first.dispose()
    raw = create_engine(url)
    with raw.begin() as conn:  # back to schema 8: no studies.imported_from
        conn.execute(text("ALTER TABLE studies DROP COLUMN imported_from"))
        conn.execute(text("UPDATE arena_schema SET version = 8"))
    raw.dispose()
    try:
        upgraded = Store(url)
        assert "add column studies.imported_from" in upgraded.changes
        assert upgraded.get_study(old).imported_from is None and upgraded.get_study(old).generated
        assert upgraded.get_study(import_survey(upgraded)).imported_from == "survey.csv"
        with upgraded.read() as conn:
            assert conn.execute(text("SELECT version FROM arena_schema")).scalar_one() == SCHEMA_VERSION
        upgraded.dispose()
        assert Store(url).changes == []
    finally:
        close()
