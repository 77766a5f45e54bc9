"""Study generation shows where the organizer clicked (issue 35): "Create study…" reports its progress
and its end line on the preview line right above the button (which held the estimate before starting),
not only in the status line at the top of the page."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from arena import studies
from ui import AppContext, organizer
from ui.organizer import handlers as h
from ui.organizer.forms import StudyForm


def test_create_leaves_its_end_line_beside_the_button(monkeypatch):
    status = "Study #7 created: 9 of 9 outputs stored. 9 of 9 outputs · took 25 min at 0.31 tokens/s.\n\n**Form check**"
    made = h.Created(7, status, studies.GenerationReport(total=9, existing=0, generated=9))
    monkeypatch.setattr(h, "made_study", lambda *a, **k: made)
    monkeypatch.setattr(
        h, "overview", lambda store, sid, line: h.Overview("x", pd.DataFrame(), pd.DataFrame(), line, "x")
    )
    *shown, beside = h.create_beside_button(None, lambda: None, [], StudyForm("x"))
    assert shown[3] == status
    assert beside == "**Finished:** 9 of 9 outputs stored."
    *_, beside = h.create_beside_button(None, lambda: None, [], StudyForm("x"), lang="zh")
    assert beside == "**已完成：** 已存储 9 / 9 条输出。"


def test_the_create_button_reports_on_the_line_above_it(store):
    with gr.Blocks() as demo:
        organizer.build(AppContext(model=lambda: None, extras={"store": store}))
    [create] = [f for f in demo.fns.values() if f.name == "on_create"]
    preview = [b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "organizer-preview"]
    assert preview and preview[0] in create.outputs
    assert create.show_progress != "hidden"
