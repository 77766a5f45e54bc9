"""The organizer's statistics section: every handler checks the password; diagnostics and the power
planner work on a real store."""

from __future__ import annotations

import gradio as gr
import pytest

from arena.store import Store
from common.errors import UserError
from common.rubric import Rubric
from tests.test_stats_cli import rated_store
from ui import AppContext
from ui.organizer import stats as organizer_stats
from ui.organizer.forms import RUBRIC_EXAMPLE


@pytest.fixture()
def world(tmp_path):
    store, sid = rated_store(tmp_path / "a.db")
    return store, sid


class Req:
    """A stand-in gr.Request from a fresh address each time (wrong passwords are throttled per client)."""

    count = 0

    def __init__(self):
        Req.count += 1
        self.client = type("Client", (), {"host": f"10.9.{Req.count // 250}.{Req.count % 250}"})()


def handlers(ctx):
    with gr.Blocks() as demo:
        organizer_stats.build(ctx)
    return [f.fn for f in demo.fns.values()]


def test_every_handler_refuses_without_the_password(world):
    store, sid = world
    ctx = AppContext(organizer_password="s3cret", extras={"store": store})
    fns = handlers(ctx)
    assert len(fns) == 5  # load, diagnose, follow the study, follow the pilot, plan
    for fn in fns:
        n_args = len(__import__("inspect").signature(fn).parameters) - 2
        for pw in (None, "", "wrong", 123):
            with pytest.raises(gr.Error, match="(?i)password"):
                fn(Req(), pw, *([sid] + [None] * (n_args - 1))[:n_args])
    locked = AppContext(organizer_password="", extras={"store": store})
    for fn in handlers(locked):
        with pytest.raises(gr.Error, match="(?i)password"):
            fn(Req(), "anything", *[None] * (len(__import__("inspect").signature(fn).parameters) - 2))
    load = fns[0]
    study_update, _ = load(Req(), "s3cret")
    assert any(value == sid for _, value in study_update["choices"])


def test_diagnostics_and_power_plan_on_a_store(world):
    store, sid = world
    diag, pos, text = organizer_stats.diagnostics(store, sid)
    assert set(diag["rater"]) == {"ann", "bob", "cy"} and "straight_lining" in diag
    assert len(pos) == 3 and "Position on coherence" in text
    table, line = organizer_stats.power_plan(store, sid, "coherence", 0.8, 3, "6, 30", "1, 3", 60)
    assert list(table["items"]) == [6, 30] and list(table.columns) == ["items", "1 rater", "3 raters"]
    assert "SDs from pilot study" in line
    table, line = organizer_stats.power_plan(store, "", "naturalness", 0.5, 2, "10", "2", 50)
    assert "default SDs" in line
    for bad in [
        dict(delta="x"),
        dict(delta=0),
        dict(items="a,b"),
        dict(items="1"),
        dict(raters="0"),
        dict(sims=10),
        dict(dimension=""),
        dict(dimension="speed", pilot=sid),  # not one of the pilot study's questions
        dict(pilot=9999),
        dict(items=",".join(str(i) for i in range(3, 50))),
    ]:
        args = dict(pilot="", dimension="coherence", delta=0.5, methods=3, items="8", raters="2", sims=50) | bad
        with pytest.raises(UserError):
            organizer_stats.power_plan(store, **args)
    with pytest.raises(UserError):
        organizer_stats.diagnostics(store, "nope")
    empty = Store("sqlite://")
    assert empty is not None


def organizer_section(ctx):
    """The section as the Organizer builds it: with the studies panel's password box and chosen study."""
    with gr.Blocks() as demo:
        password = gr.Textbox()
        chosen = gr.Dropdown(choices=[], allow_custom_value=True)
        organizer_stats.build(ctx, password, chosen)
    fns = {(f.fn.__name__, tuple(getattr(t, "_id", None) for t in f.inputs)): f for f in demo.fns.values()}
    return demo, password, chosen, fns


def test_diagnose_acts_on_the_study_chosen_once_above(world):
    store, sid = world
    ctx = AppContext(organizer_password="s3cret", extras={"store": store})
    demo, password, chosen, fns = organizer_section(ctx)
    # no second Study box and no "Load studies" in the section: Diagnose reads the studies panel's choice
    assert not [b for b in demo.blocks.values() if getattr(b, "label", None) == "Study"]
    assert not [b for b in demo.blocks.values() if getattr(b, "value", None) == "Load studies"]
    [diagnose] = [
        f for f in demo.fns.values() if [getattr(i, "_id", None) for i in f.inputs] == [password._id, chosen._id]
    ]
    table, _, text = diagnose.fn(Req(), "s3cret", sid)
    assert "ann" in str(table["value"]) and "Position on coherence" in text


def test_the_planner_offers_the_chosen_studys_own_questions(world):
    store, sid = world
    own = store.create_study("own questions", methods=["BS-4", "TS-Temp"], rubric=Rubric.from_json(RUBRIC_EXAMPLE))
    ctx = AppContext(organizer_password="s3cret", extras={"store": store})
    demo, password, chosen, fns = organizer_section(ctx)
    [follow] = [f for f in demo.fns.values() if any(t[0] == chosen._id and t[1] == "change" for t in f.targets)]
    pilots, dimension = follow.fn(Req(), "s3cret", own, None, "coherence")
    assert dimension["choices"] == ["quality", "creativity"] and dimension["value"] == "quality"
    assert any(value == own for _, value in pilots["choices"])
    _, dimension = follow.fn(Req(), "s3cret", sid, None, "naturalness")  # one of its questions: kept
    assert dimension["value"] == "naturalness" and "coherence" in dimension["choices"]
    # a pilot's questions win over the chosen study's
    assert organizer_stats.dimension_for(store, sid, own, "coherence")["value"] == "quality"
    with pytest.raises(UserError, match="no question 'coherence'"):
        organizer_stats.power_plan(store, own, "coherence", 0.5, 2, "10", "2", 50)
