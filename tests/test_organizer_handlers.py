"""The Organizer's handlers without a browser or a live app (ui/organizer/handlers.py): module-level
functions of plain values that return named views, called with a store; the password guard
(ui/organizer/auth.py) in front of each, as `build` wires it."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import gradio as gr
import pytest

from arena import studies
from arena.store import Store
from common.errors import UserError
from tests.support.seeding import invite, rate_every_output, seed_study
from ui import AppContext
from ui.organizer import handlers as h
from ui.organizer.auth import guarded

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
PASSWORD = "organizer-unit-test"


@pytest.fixture
def world(store):
    texts = [{m: f"text {k} of {m}" for m in METHODS} for k in range(2)]
    sid, _ = seed_study(store, "Handlers pilot", ["prompt one", "prompt two"], texts)
    return SimpleNamespace(store=store, sid=sid)


def request() -> SimpleNamespace:
    return SimpleNamespace(headers={"host": "arena.local:7860"}, client=SimpleNamespace(host="192.0.2.5"),
                           cookies={}, url=SimpleNamespace(scheme="http", netloc="arena.local:7860"))  # fmt: skip


def test_the_overview_names_the_studies_and_the_chosen_one(world):
    view = h.overview(world.store)
    assert isinstance(view, tuple) and view.choice["value"] == world.sid and view.status == "Unlocked."
    assert view.studies["name"].tolist() == ["Handlers pilot"] and view.studies["outputs"].tolist() == ["6 / 6"]
    assert view.danger["choices"] == [(f"#{world.sid} Handlers pilot", world.sid)]
    *_, ticket = h.unlock(world.store, world.sid)
    assert ticket  # the one-time ticket the page trades for its organizer session


def test_invite_revoke_and_the_lifecycle(world):
    table, links, csv, people, balance, blocks, per_rater, line, names = h.invite(world.store, world.sid, "ann, bo")
    assert table["rater"].tolist() == ["ann", "bo"] and "Copy link" in links and csv.count("\n") >= 2
    assert line.startswith("2 invite codes created") and names == ""
    assert set(people["rater"]) == {"ann", "bo"}
    *_, said = h.revoke(world.store, world.sid, "bo")
    assert said == "Code revoked; their ratings stay."
    closed = h.set_state(world.store, studies.close_study, world.sid)
    assert closed.status == f"Study #{world.sid} is now **closed**."
    mapping, shown = h.reveal(world.store, world.sid)
    assert shown == "Mapping shown (organizer only)."
    with pytest.raises(UserError):
        h.set_state(world.store, studies.open_study, "not a study id")


def test_the_export_round_trips_through_import(world, tmp_path):
    code = invite(world.store, world.sid, "cy")
    assert code
    text, line = h.export_ratings(world.store, "jsonl")
    assert line.startswith("Exported 0 rows")  # nobody rated yet: the file has the header's worth
    path = tmp_path / "ratings.csv"
    path.write_text(h.export_ratings(world.store, "csv")[0], encoding="utf-8")
    view = h.import_ratings(world.store, {"path": str(path)})
    assert view.status.startswith("Imported 0 ratings") and not path.exists()  # the upload is removed
    with pytest.raises(UserError, match="upload an export file first"):
        h.import_ratings(world.store, None)


def test_the_import_line_counts_in_words(world, tmp_path):
    # it read "Imported 3 ratings (1 new studies, ...)" in English and stayed English in Chinese (issue 46)
    outputs = {o.method: o.id for item in world.store.items(world.sid) for o in world.store.outputs_for_item(item.id)}
    rate_every_output(world.store, dict(list(outputs.items())[:3]), [("ann", 2)])
    studies.close_study(world.store, world.sid)
    path = tmp_path / "ratings.csv"
    path.write_text(h.export_ratings(world.store, "csv")[0], encoding="utf-8")
    fresh = Store(f"sqlite:///{tmp_path / 'fresh.db'}")
    try:
        assert h.import_ratings(fresh, {"path": str(path)}).status == (
            "Imported 3 ratings (1 new study, 1 item, 3 outputs)."
        )
    finally:
        fresh.dispose()


def test_the_danger_zone_asks_for_the_exact_name_and_keeps_a_blind_copy(world):
    with pytest.raises(UserError):
        h.delete_study(world.store, world.sid, "not its name", world.sid)
    assert world.store.get_study(world.sid) is not None
    view = h.delete_study(world.store, world.sid, "Handlers pilot", world.sid)
    assert world.store.get_study(world.sid) is None and view.confirm == ""
    assert "not offered for download" in view.status  # it was still open: the organizer is blind too


def test_the_guard_checks_the_password_before_the_handler(world):
    ctx = AppContext(model=lambda: None, organizer_password=PASSWORD, extras={"store": world.store})
    wired = guarded(ctx, h.overview, world.store)
    assert list(inspect.signature(wired).parameters) == ["request", "pw", "selected", "status"]
    with pytest.raises(gr.Error, match="password"):
        wired(request(), "wrong", world.sid)
    assert wired(request(), PASSWORD, world.sid).choice["value"] == world.sid
    with pytest.raises(gr.Error) as refused:  # a UserError of the handler: the one inline line
        guarded(ctx, h.design, world.store)(request(), PASSWORD, "<no>")
    assert refused.value.message == "choose a study" and refused.value.print_exception is False
