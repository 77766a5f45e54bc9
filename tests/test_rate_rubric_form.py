"""The Rate tab follows a study's own rubric (ui/rate/rubric_form.py), without a browser: its
questions, scales, descriptions and anchors laid out under each response, the one Submit saving on
the study's scales, a missing answer marked with nothing saved, and the default rubric's rows as the
page was built (issues 34, 46)."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr
import pytest

from arena.access import invites
from arena.store import Store
from common.errors import UserError
from common.rubric import DEFAULT_RUBRIC, Rubric
from ui.rate import handlers as h
from ui.rate import rubric_form as rf
from ui.rate.view import SLOTS, RateView, form

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
N_VALUES = len(RateView({}, 0, "").values())


def request() -> SimpleNamespace:
    return SimpleNamespace(headers={"accept-language": "en-US"}, client=SimpleNamespace(host="203.0.113.9"), cookies={})


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    yield s
    s.dispose()


def study(store: Store, rubric: Rubric) -> tuple[int, str]:
    sid = store.create_study("own questions", methods=["BS-4", "TS-Temp"], rubric=rubric)
    for iid in store.add_items(sid, [{"prompt": f"prompt {k}"} for k in range(2)]):
        for k, m in enumerate(["BS-4", "TS-Temp"]):
            store.add_output(iid, m, 0, text=f"text {k} of {iid}", settings={}, seed=1, model="m", new_tokens=4)
    [made] = invites.invite(store, sid, ["ann"])
    return sid, made.code


def answers(rows: list[list[object]], notes: list[str | None] | None = None) -> list[object]:
    """The Submit's values: the rubric's answers per slot, then a comment per slot."""
    return form(rows, list(notes or []))


def test_the_rubric_is_laid_out_under_each_response(store):
    sid, code = study(store, RUBRIC)
    sess = h.on_start(store, code, {}, request()).rate.session
    laid, *out = rf.on_refresh(store, code, sess, None, request())
    rows, labels = out[: SLOTS * rf.RUBRIC_ROWS], out[SLOTS * rf.RUBRIC_ROWS :]  # then the comment boxes' labels
    assert len(out) == rf.n_outputs() - 1 and Rubric.from_json(laid) == RUBRIC
    quality_a, creativity_a, third_a = rows[0], rows[1], rows[2]
    assert quality_a["visible"] and quality_a["choices"] == [*range(1, 11), "Can't judge"]
    assert quality_a["label"] == "quality (1-10): how good (A)" and quality_a["info"] == "1 = bad · 10 = great"
    assert rf.LONG_CLASS in quality_a["elem_classes"]  # a long scale: the compact grid
    assert (
        creativity_a["choices"] == [*range(1, 8), "Can't judge"] and rf.LONG_CLASS not in creativity_a["elem_classes"]
    )
    assert third_a["visible"] is False
    assert rows[rf.RUBRIC_ROWS]["label"].endswith("(B)")
    assert labels[0]["label"] == "Comment on A (optional)"  # no text question: the page's own comment
    # laid out already: nothing changes on the next item
    assert all(isinstance(u, type(gr.skip())) for u in rf.on_refresh(store, code, sess, laid, request()))


def test_the_default_rubric_is_the_page_as_built(store):
    """The default study's rows are the ones the page is built with: the same words as ever, and no
    layout event to run; a page that showed another rubric gets them back."""
    built = rf.rows("A")
    assert [r.label for r in built[:3]] == [
        "Coherence: logical, consistent, on topic (A)",
        "Informativeness / creativity: says something useful or interesting (A)",
        "Naturalness: reads like fluent human writing (A)",
    ]
    assert [c[1] for c in built[0].choices] == [1, 2, 3, 4, 5, "Can't judge"] and not built[3].visible
    sid, code = study(store, DEFAULT_RUBRIC)
    sess = h.on_start(store, code, {}, request()).rate.session
    assert all(isinstance(u, type(gr.skip())) for u in rf.on_refresh(store, code, sess, None, request()))
    laid, *back = rf.on_refresh(store, code, sess, RUBRIC.to_json(), request())  # the page showed RUBRIC before
    assert laid == DEFAULT_RUBRIC.to_json() and back[0]["label"] == built[0].label and back[3]["visible"] is False


def test_submit_saves_on_the_rubrics_scales_and_moves_on(store):
    sid, code = study(store, RUBRIC)
    sess = h.on_start(store, code, {}, request()).rate.session
    page = h.on_submit(store, request(), code, sess, *answers([[10, 7], [1, "Can't judge"]], ["fine"]))
    assert len(page.values()) == N_VALUES
    assert page.status.startswith("Saved") and page.session["index"] == 2
    frame = store.ratings_frame(sid)
    assert sorted(frame["quality"].tolist()) == [1, 10] and frame["creativity"].isna().sum() == 1
    assert set(frame["comment"].dropna()) == {"fine"}
    with pytest.raises(UserError, match="quality must be from 1 to 10"):
        h.on_submit(store, request(), code, page.session, *answers([[11, 2], [3, 3]]))
    with pytest.raises(UserError, match="malformed"):
        h.on_submit(store, request(), code, page.session, *answers([[5, 2], [3, 3]])[:-1])
    assert len(store.ratings_frame(sid)) == 2


def test_a_missing_answer_marks_the_row_and_saves_nothing(store):
    sid, code = study(store, RUBRIC)
    sess = h.on_start(store, code, {}, request()).rate.session
    page = h.on_submit(store, request(), code, sess, *answers([[10, None], [1, 2]]))
    assert "Not saved" in page.status and "1 of 2" not in page.status and "A · creativity" in page.status
    assert "3 of 4 scored" in page.status and page.missing == [[0, 1]] and page.slots[0].scores[:2] == (10, None)
    marks = rf.on_missing(store, page.missing, page.session)
    assert "rate-missing" in marks[1]["elem_classes"] and rf.LONG_CLASS in marks[0]["elem_classes"]
    assert "rate-missing" not in marks[0]["elem_classes"] and isinstance(marks[2], type(gr.skip()))
    assert store.ratings_frame(sid).empty


def test_the_default_guidelines_name_the_rubrics_questions(store):
    sid, code = study(store, RUBRIC)
    sess = h.on_start(store, code, {}, request()).rate.session
    guide = str(h.on_layout(store, 2, sess)[2])
    assert "**quality** (1-10): how good · *1* bad · *10* great" in guide and "**creativity** (1-7)" in guide
    assert "Coherence" not in guide and "cut off after a fixed number of tokens" in guide


def test_an_answer_past_the_rubrics_questions_is_refused(store):
    sid, code = study(store, RUBRIC)
    sess = h.on_start(store, code, {}, request()).rate.session
    with pytest.raises(UserError, match="one of the question's values"):
        h.on_submit(store, request(), code, sess, *answers([[5, 5, 5], [5, 5, 5]]))
    assert store.ratings_frame(sid).empty


def test_the_key_help_speaks_of_the_studys_own_scales(store):
    """Issue 34: the help line under the form said "1-5" on a 1-10 study; it now names the keys there
    (digits on every scale, two digits for 10, issue 46), and the 1-5 line stays on the default form (in
    the rater's language too)."""
    _, code = study(store, RUBRIC)
    keys = h.on_start(store, code, {}, request()).values()[-1]
    assert keys["visible"] is True and "**digit**" in keys["value"] and "1–5" not in keys["value"]
    assert "**1** then **0** for 10" in keys["value"]  # a two-digit point: its two digits
    _, plain = study(store, DEFAULT_RUBRIC)
    zh = SimpleNamespace(headers={"accept-language": "zh-CN"}, client=SimpleNamespace(host="203.0.113.9"), cookies={})
    assert "1–5" in h.on_start(store, plain, {}, request()).values()[-1]["value"]
    assert h.on_start(store, plain, {}, zh).values()[-1]["value"].startswith("按键：**1–5**")
