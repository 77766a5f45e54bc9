"""The organizer's "Create a study", step by step (issue 24): the prompt source follows the content,
the preview quotes the first prompts, invite links are full addresses with a copy button, every
invited rater is in the progress table, times are to the second and empty tables say so in words."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from arena.access import clients, invites
from arena.rating import blind
from arena.store import Store
from common.errors import UserError
from ui import organizer
from ui.organizer import dashboard as dash
from ui.organizer import forms, handlers

BUILTIN, PASTED, UPLOADED, TASKS = organizer.SOURCES


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'steps.db'}")
    yield s
    s.dispose()


def test_a_pasted_box_or_an_upload_wins_over_the_built_in_scenarios(tmp_path):
    upload = tmp_path / "p.txt"
    upload.write_text("from the file\n", encoding="utf-8")
    assert forms.effective_source(BUILTIN, "", None) == BUILTIN
    assert forms.effective_source(BUILTIN, "  \n ", None) == BUILTIN  # blank text is no content
    assert forms.effective_source(BUILTIN, "one\ntwo", None) == PASTED
    assert forms.effective_source(PASTED, "", str(upload)) == UPLOADED
    # Text put in by a script left the radio on the built-ins: Create uses the text anyway.
    specs = organizer.prompts_from(BUILTIN, "all", "first pasted\nsecond pasted", None)
    assert [s.prompt for s in specs] == ["first pasted", "second pasted"]
    assert [s.prompt for s in organizer.prompts_from(BUILTIN, "all", "", str(upload))] == ["from the file"]


def test_article_003s_tasks_are_a_source_and_results_knows_their_checkers():
    from evaluation.tasks import scenario_for

    specs = organizer.prompts_from(TASKS, "all", "", None)
    assert sorted((s.scenario, s.language) for s in specs) == sorted(
        (task, lang) for task in ("math-cylinder", "code-indices", "summary-paper") for lang in ("zh", "en")
    )
    # Results and Compare find a task's checker from the prompt itself: each of these has one.
    assert [scenario_for(s.prompt).key for s in specs] == [s.scenario for s in specs]
    assert {s.language for s in organizer.prompts_from(TASKS, "zh", "", None)} == {"zh"}
    assert [s.prompt for s in organizer.prompts_from(TASKS, "all", "mine", None)] == ["mine"]  # content still wins


def test_both_a_pasted_box_and_an_upload_asks_which_and_generates_nothing(tmp_path):
    upload = tmp_path / "p.txt"
    upload.write_text("from the file\n", encoding="utf-8")
    with pytest.raises(UserError) as caught:
        organizer.prompts_from(BUILTIN, "all", "pasted", str(upload))
    assert str(caught.value) == forms.BOTH_SOURCES and "nothing was generated" in str(caught.value)


def test_the_preview_quotes_the_first_prompts():
    prompts = organizer.prompts_from(BUILTIN, "all", "alpha *bold*\nbeta\n" + "g" * 200 + "\ndelta", None)
    line = dash.preview(prompts, ["BS-4"], 1, 16, {"BS-4": 64.0})
    assert line.startswith("**Preview:** 4 prompts × 1 method")
    assert "1. alpha \\*bold\\*" in line  # Markdown in a prompt is shown as text
    assert "2. beta" in line and "3. " + "g" * 79 + "…" in line
    assert "delta" not in line and "…and 1 more" in line
    builtin = dash.preview(organizer.prompts_from(BUILTIN, "all", "", None), ["BS-4"], 1, 16, {})
    assert "First prompts:" in builtin and "1. " in builtin  # the built-ins are named too, not only "6 prompts"


def _request(host: str, peer: str, scheme: str = "http", root: str = "", **headers: str):
    return SimpleNamespace(
        headers={"host": host, **{k.replace("_", "-"): v for k, v in headers.items()}},
        client=SimpleNamespace(host=peer),
        url=SimpleNamespace(scheme=scheme, netloc=host),
        scope={"root_path": root},
    )


def test_the_base_url_comes_from_the_request_and_forwarded_headers_only_from_trusted_proxies(monkeypatch):
    monkeypatch.delenv("ARENA_TRUSTED_PROXIES", raising=False)
    forwarded = dict(x_forwarded_proto="https", x_forwarded_host="evil.example")
    assert clients.base_url(_request("arena.local:7860", "192.0.2.5")) == "http://arena.local:7860"
    # Anyone can write these headers: from an untrusted peer they change nothing.
    assert clients.base_url(_request("arena.local:7860", "192.0.2.5", **forwarded)) == "http://arena.local:7860"
    monkeypatch.setenv("ARENA_TRUSTED_PROXIES", "10.0.0.0/8")
    assert clients.base_url(_request("arena.local:7860", "192.0.2.5", **forwarded)) == "http://arena.local:7860"
    behind = _request("internal:7860", "10.1.2.3", x_forwarded_proto="https", x_forwarded_host="arena.example.org")
    assert clients.base_url(behind) == "https://arena.example.org"
    # a list: the entry the trusted proxy added is the rightmost
    listed = _request("internal", "10.1.2.3", x_forwarded_proto="http, https", x_forwarded_host="x.test, a.example")
    assert clients.base_url(listed) == "https://a.example"
    assert clients.base_url(_request("arena.local", "192.0.2.5", root="/arena")) == "http://arena.local/arena"
    assert clients.base_url(_request("bad host/<script>", "192.0.2.5")) == ""  # nothing made up from junk
    assert clients.base_url(None) == ""


def test_invite_links_are_full_addresses_with_a_copy_button_each(store, monkeypatch):
    monkeypatch.delenv("ARENA_PUBLIC_URL", raising=False)
    monkeypatch.delenv("ARENA_TRUSTED_PROXIES", raising=False)
    sid = store.create_study("s", methods=["BS-4", "TS-Temp"])
    base = handlers.invite_base(_request("arena.local:7860", "192.0.2.5"))
    made = invites.invite(store, sid, ["ann", "<b>bo</b>"], base_url=base)
    assert all(re.fullmatch(r"http://arena\.local:7860/\?invite=[A-Za-z0-9_-]+", i.link) for i in made)
    page = handlers.invite_links_html(made)
    assert page.count('class="arena-copy"') == 2
    assert all(f'data-copy="{i.link}"' in page for i in made)
    assert "<b>bo</b>" not in page and "&lt;b&gt;bo&lt;/b&gt;" in page
    monkeypatch.setenv("ARENA_PUBLIC_URL", "https://arena.example.org/")
    assert handlers.invite_base(_request("arena.local:7860", "192.0.2.5")) == "https://arena.example.org/"
    monkeypatch.delenv("ARENA_PUBLIC_URL")
    assert handlers.invite_base(None) is None  # no request: the relative link, as before


def test_every_invited_rater_is_in_the_progress_table_and_times_are_to_the_second(store):
    sid = store.create_study("s", methods=["BS-4", "TS-Temp"])
    [iid] = store.add_items(sid, [{"prompt": "p"}])
    for k, m in enumerate(("BS-4", "TS-Temp")):
        store.add_output(iid, m, 0, text=f"t{k}", settings={}, seed=k, model="m", new_tokens=1)
    assert dash.rater_table(store, sid)["rater"].tolist()[0].startswith("no raters yet")
    invites.invite(store, sid, ["ann", "bo"])
    table = dash.rater_table(store, sid).set_index("rater")
    assert table.loc["bo", "last activity (UTC)"] == dash.NOT_STARTED and table.loc["bo", "items done"] == "0 of 1"
    assert table.loc["all 2 raters", "last activity (UTC)"] == dash.NOT_STARTED
    view, _ = blind.open_item(store, "ann", sid, 1)
    blind.submit(store, "ann", view.item, {r.label: {d: 4 for d in blind.DIMENSIONS} for r in view.responses})
    table = dash.rater_table(store, sid).set_index("rater")
    assert table.loc["bo", "last activity (UTC)"] == dash.NOT_STARTED and table.loc["ann", "% done"] == "100%"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", table.loc["ann", "last activity (UTC)"])
    assert table.loc["all 2 raters", "items done"] == "1 of 2"
    people = dash.enrolment_table(store, sid)
    assert people["rater"].tolist() == ["ann", "bo"]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", t) for t in people["created_at"])


def test_empty_tables_say_so_in_words(store):
    sid = store.create_study("s", methods=["BS-4"])
    flags = dash.flag_table(store, sid)
    assert list(flags.columns) == dash.FLAG_COLUMNS and flags.iloc[0, 0] == "no flags from raters"
    assert dash.enrolment_table(store, sid).iloc[0, 0] == "no raters invited yet"
    empty = dash.empty_table(["a", "b"], "nothing here")
    assert empty.values.tolist() == [["nothing here", ""]]
