"""The Rate tab follows a study's own rubric (ui/rate/rubric_form.py), without a browser: its
questions, scales, descriptions and anchors laid out under each response, its Submit saving on the
study's scales, a missing answer marked with nothing saved, and the 1-5 form left alone (issue 34)."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr
import pytest

from arena import invites
from arena.store import Store
from common.errors import UserError
from common.rubric import DEFAULT_RUBRIC, Rubric
from ui.rate import handlers as h
from ui.rate import rubric_form as rf
from ui.rate.view import SLOTS, RateView

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


def spare_form(rows: list[list[object]], notes: list[str | None] | None = None) -> list[object]:
    """The rubric Submit's values: RUBRIC_ROWS answers per slot, then a comment per slot."""
    cells = []
    for k in range(SLOTS):
        given = rows[k] if k < len(rows) else []
        cells += [*given, *[None] * (rf.RUBRIC_ROWS - len(given))]
    notes = list(notes or [])
    return [*cells, *notes, *[None] * (SLOTS - len(notes))]


def test_the_rubric_is_laid_out_under_each_response(store):
    sid, code = study(store, RUBRIC)
    sess = h.on_start(store, code, {}, request()).rate.session
    out = rf.on_refresh(store, code, sess, False, request())
    assert len(out) == rf.n_outputs() and out[0] is True
    one_to_five = out[1 : 1 + SLOTS * 3]
    assert all(u["visible"] is False for u in one_to_five)
    spare = out[1 + SLOTS * 3 : -2]
    quality_a, creativity_a, third_a = spare[0], spare[1], spare[2]
    assert quality_a["visible"] and quality_a["choices"] == [*range(1, 11), "Can't judge"]
    assert quality_a["label"] == "quality (1-10): how good (A)" and quality_a["info"] == "1 = bad · 10 = great"
    assert rf.LONG_CLASS in quality_a["elem_classes"]  # a long scale: the compact grid
    assert (
        creativity_a["choices"] == [*range(1, 8), "Can't judge"] and rf.LONG_CLASS not in creativity_a["elem_classes"]
    )
    assert third_a["visible"] is False
    quality_b = spare[rf.RUBRIC_ROWS]
    assert quality_b["label"].endswith("(B)") and spare[2 * rf.RUBRIC_ROWS]["visible"] is False  # two responses
    assert out[-2]["visible"] is False and out[-1]["visible"] is True  # the 1-5 Submit swapped for this one


def test_the_default_rubric_leaves_the_one_to_five_form_alone(store):
    sid, code = study(store, DEFAULT_RUBRIC)
    sess = h.on_start(store, code, {}, request()).rate.session
    out = rf.on_refresh(store, code, sess, False, request())
    assert all(isinstance(u, type(gr.skip())) for u in out)
    back = rf.on_refresh(store, code, sess, True, request())  # the page showed a rubric study before
    assert back[0] is False and back[-2]["visible"] is True and back[-1]["visible"] is False


def test_submit_saves_on_the_rubrics_scales_and_moves_on(store):
    sid, code = study(store, RUBRIC)
    sess = h.on_start(store, code, {}, request()).rate.session
    out = rf.on_submit(store, request(), code, sess, *spare_form([[10, 7], [1, "Can't judge"]], ["fine"]))
    assert len(out) == N_VALUES + SLOTS * rf.RUBRIC_ROWS
    page = RateView.parse(out[:N_VALUES])
    assert page.status.startswith("Saved") and page.session["index"] == 2
    frame = store.ratings_frame(sid)
    assert sorted(frame["quality"].tolist()) == [1, 10] and frame["creativity"].isna().sum() == 1
    assert set(frame["comment"].dropna()) == {"fine"}
    with pytest.raises(UserError, match="quality must be from 1 to 10"):
        rf.on_submit(store, request(), code, page.session, *spare_form([[11, 2], [3, 3]]))
    with pytest.raises(UserError, match="malformed"):
        rf.on_submit(store, request(), code, page.session, *spare_form([[5, 2], [3, 3]])[:-1])
    assert len(store.ratings_frame(sid)) == 2


def test_a_missing_answer_marks_the_row_and_saves_nothing(store):
    sid, code = study(store, RUBRIC)
    sess = h.on_start(store, code, {}, request()).rate.session
    out = rf.on_submit(store, request(), code, sess, *spare_form([[10, None], [1, 2]]))
    status = out[N_VALUES - 3]  # then missing, item_for
    assert "Not saved" in status and "A · creativity" in status
    marks = out[N_VALUES:]
    assert "rate-missing" in marks[1]["elem_classes"] and "rate-missing" not in marks[0]["elem_classes"]
    assert store.ratings_frame(sid).empty


def test_the_default_guidelines_name_the_rubrics_questions(store):
    sid, code = study(store, RUBRIC)
    sess = h.on_start(store, code, {}, request()).rate.session
    guide = str(h.on_layout(store, 2, sess)[2])
    assert "**quality** (1-10): how good · *1* bad · *10* great" in guide and "**creativity** (1-7)" in guide
    assert "Coherence" not in guide and "cut off after a fixed number of tokens" in guide


def test_the_one_to_five_submit_cannot_answer_another_rubric(store):
    sid, code = study(store, RUBRIC)
    sess = h.on_start(store, code, {}, request()).rate.session
    values = [5, 5, 5, 5, 5, 5, *[None] * (3 * (SLOTS - 2)), *[None] * SLOTS]
    with pytest.raises(UserError, match="asks 2 question"):
        h.on_submit(store, request(), code, sess, *values)
    assert store.ratings_frame(sid).empty


def test_the_key_help_speaks_of_the_studys_own_scales(store):
    """Issue 34: the help line under the form said "1-5" on a 1-10 study; it now names digits and
    the arrow keys there, and the 1-5 line stays on the default form (in the rater's language too)."""
    _, code = study(store, RUBRIC)
    keys = h.on_start(store, code, {}, request()).values()[-1]
    assert keys["visible"] is True and "**digit**" in keys["value"] and "1–5" not in keys["value"]
    _, plain = study(store, DEFAULT_RUBRIC)
    zh = SimpleNamespace(headers={"accept-language": "zh-CN"}, client=SimpleNamespace(host="203.0.113.9"), cookies={})
    assert "1–5" in h.on_start(store, plain, {}, request()).values()[-1]["value"]
    assert h.on_start(store, plain, {}, zh).values()[-1]["value"].startswith("按键：**1–5**")
