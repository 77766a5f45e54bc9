"""The Rate tab asks every question type of a study's rubric (ui/rate/rubric_form.py, issue 46), without
a browser: a 1-10, a 1-7, a yes/no, a choice and a comment, laid out under each response; digit keys pick
yes/no and choice options by place; the comment asked in the response's comment box; the counter and
the missing marks over the required questions only; the checker refusing a missing answer and a value
outside the type's; a re-sent Submit saved once."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from arena.access import invites
from arena.rating import blind
from arena.store import Store
from common.errors import UserError
from common.rubric import Rubric
from ui.rate import handlers as h
from ui.rate import once
from ui.rate import rubric_form as rf
from ui.rate.view import SLOTS

RUBRIC = Rubric.from_dict(
    {
        "dimensions": [
            {"name": "quality", "low": 1, "high": 10},
            {"name": "style", "low": 1, "high": 7},
            {"name": "correct", "type": "yes-no", "description": "is it factually correct?"},
            {"name": "error", "type": "choice", "labels": ["repetition", "off-topic", "factual"]},
            {"name": "why", "type": "text", "description": "what made you decide"},
        ]
    }
)


def request() -> SimpleNamespace:
    return SimpleNamespace(headers={"accept-language": "en-US"}, client=SimpleNamespace(host="203.0.113.9"), cookies={})


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    yield s
    s.dispose()


def study(store: Store) -> tuple[int, str]:
    sid = store.create_study("five questions", methods=["BS-4", "TS-Temp"], rubric=RUBRIC)
    for iid in store.add_items(sid, [{"prompt": f"prompt {k}"} for k in range(2)]):
        for k, m in enumerate(["BS-4", "TS-Temp"]):
            store.add_output(iid, m, 0, text=f"text {k} of {iid}", settings={}, seed=1, model="m", new_tokens=4)
    [made] = invites.invite(store, sid, ["ann"])
    return sid, made.code


def form(rows: list[list[object]], notes: list[str | None] | None = None) -> list[object]:
    """The rubric Submit's values: RUBRIC_ROWS answers per slot (the text question's row stays empty:
    it is answered in the comment box), then a comment per slot."""
    cells: list[object] = []
    for k in range(SLOTS):
        given = rows[k] if k < len(rows) else []
        cells += [*given, *[None] * (rf.RUBRIC_ROWS - len(given))]
    notes = list(notes or [])
    return [*cells, *notes, *[None] * (SLOTS - len(notes))]


def test_each_type_has_its_control(store):
    sid, code = study(store)
    sess = h.on_start(store, code, {}, request()).rate.session
    laid, *out = rf.on_refresh(store, code, sess, None, request())
    assert len(out) == rf.n_outputs() - 1 and Rubric.from_json(laid) == RUBRIC
    quality, style, correct, error, why = out[:5]
    assert quality["choices"] == [*range(1, 11), blind.CANT_JUDGE] and rf.LONG_CLASS in quality["elem_classes"]
    assert style["choices"] == [*range(1, 8), blind.CANT_JUDGE] and rf.LONG_CLASS not in style["elem_classes"]
    # labelled options: a digit picks by place (1 = Yes, 2 = No; 1 = repetition ...), 0 = can't judge
    assert correct["choices"] == [("Yes", 1), ("No", 0), (blind.CANT_JUDGE, blind.CANT_JUDGE)]
    assert (
        rf.BY_POSITION in correct["elem_classes"]
        and correct["label"] == "correct (yes/no): is it factually correct? (A)"
    )
    assert [c[0] for c in error["choices"]] == ["repetition", "off-topic", "factual", blind.CANT_JUDGE]
    assert rf.BY_POSITION in error["elem_classes"]
    assert why["visible"] is False  # the comment box asks it
    comments = out[-SLOTS:]  # the comment boxes' labels
    assert comments[0]["label"] == "why: what made you decide (A, optional)" and comments[1]["label"].startswith("why")


def test_submit_saves_every_type_and_a_resent_copy_once(store):
    sid, code = study(store)
    sess = h.on_start(store, code, {}, request()).rate.session
    position = int(sess["index"])  # the item the Submit is for (ui/rate/once.py)
    values = form([[10, 7, 1, 2], [1, blind.CANT_JUDGE, 0, blind.CANT_JUDGE]], ["invented a date", None])
    page = h.on_submit(store, request(), code, sess, *values, position)
    assert page.status.startswith("Saved")
    frame = store.ratings_frame(sid).sort_values("position")
    assert frame["quality"].tolist() == [10, 1] and frame["correct"].tolist() == [1, 0]
    assert frame["error"].tolist()[0] == 2 and frame["style"].isna().tolist() == [False, True]
    assert frame["why"].tolist()[0] == "invented a date" and frame["comment"].isna().all()
    again = h.on_submit(store, request(), code, page.session, *values, position)  # re-sent: not on the next item
    assert again.status == once.ALREADY and len(store.ratings_frame(sid)) == 2


def test_a_comment_is_optional_and_the_counter_counts_required_questions(store):
    sid, code = study(store)
    sess = h.on_start(store, code, {}, request()).rate.session
    page = h.on_submit(store, request(), code, sess, *form([[10, 7, 1, None], [1, 2, None, 0]], ["kept", None]))
    status = page.status
    # 4 required questions x 2 responses; the comment is not counted
    assert "6 of 8 scored" in status and "A · error" in status and "B · correct" in status and "why" not in status
    assert [0, 3] in page.missing and [0, 2] not in page.missing and [1, 2] in page.missing
    assert page.slots[0].comment == "kept"  # what the rater typed in the comment box stays there
    assert store.ratings_frame(sid).empty
    h.on_submit(store, request(), code, sess, *form([[10, 7, 1, 0], [1, 2, 0, 1]]))  # no comment: saved
    assert store.ratings_frame(sid)["why"].isna().all() and len(store.ratings_frame(sid)) == 2


@pytest.mark.parametrize(
    ("rows", "error"),
    [
        ([[10, 7, 2, 0], [1, 2, 0, 1]], "correct must be one of Yes, No"),  # yes/no is 0 or 1
        ([[10, 7, 1, 3], [1, 2, 0, 1]], "error must be one of repetition, off-topic, factual"),
        ([[10, 7, 1, 0], [1, 8, 0, 1]], "style must be from 1 to 7"),
        ([[10, 7, 1, "factual"], [1, 2, 0, 1]], "an answer must be one of the question's values"),
        ([[10, 7, 1, 0, None, 3], [1, 2, 0, 1]], "an answer must be one of the question's values"),  # no 6th
    ],
)
def test_the_checker_refuses_values_outside_the_type(store, rows, error):
    sid, code = study(store)
    sess = h.on_start(store, code, {}, request()).rate.session
    with pytest.raises(UserError, match=error):
        h.on_submit(store, request(), code, sess, *form(rows))
    assert store.ratings_frame(sid).empty


def test_the_comment_comes_back_in_its_box(store):
    sid, code = study(store)
    sess = h.on_start(store, code, {}, request()).rate.session
    h.on_submit(store, request(), code, sess, *form([[10, 7, 1, 0], [1, 2, 0, 1]], ["too short"]))
    enrolment = invites.resolve(store, code)
    view, _ = blind.open_for(store, sid, lambda: enrolment.rater_id, 1)
    assert view is not None and view.responses[0].comment == "too short" and view.responses[0].scores["why"] is None


def test_a_question_after_the_comment_comes_back_in_its_own_row(store):
    """The rows are the rubric's positions: a comment asked before the last question leaves its own row
    hidden, and the question after it keeps its row. On 6a0ad2f going back to a rated item put that
    question's answer into the comment's hidden row and showed its own row empty ("6 of 8 scored")."""
    after = Rubric.from_dict(
        {"dimensions": [*RUBRIC.to_dict()["dimensions"], {"name": "overall", "low": 1, "high": 10}]}
    )
    assert [d.name for d in after.dimensions].index("why") == 4 and after.dimensions[5].name == "overall"
    sid = store.create_study("comment in the middle", methods=["BS-4", "TS-Temp"], rubric=after)
    for iid in store.add_items(sid, [{"prompt": f"prompt {k}"} for k in range(2)]):
        for k, m in enumerate(["BS-4", "TS-Temp"]):
            store.add_output(iid, m, 0, text=f"text {k} of {iid}", settings={}, seed=1, model="m", new_tokens=4)
    [made] = invites.invite(store, sid, ["ann"])
    sess = h.on_start(store, made.code, {}, request()).rate.session
    rows = [[10, 7, 1, 2, None, 10], [1, 2, 0, 0, None, 3]]
    page = h.on_submit(store, request(), made.code, sess, *form(rows, ["dull", None]))
    assert page.status.startswith("Saved") and store.ratings_frame(sid).sort_values("position")["overall"].tolist() == [
        10,
        3,
    ]
    back = h.on_move(store, -1, made.code, page.session, request())
    assert [list(back.slots[k].scores[:6]) for k in range(2)] == rows and back.slots[0].comment == "dull"
    laid = back.laid_out()  # what Previous sends: the head, then slot A's box, text, rows and comment
    assert laid[4 + 2 : 4 + 2 + 6] == rows[0] and laid[4 + 2 + rf.RUBRIC_ROWS] == "dull"


def test_the_guidelines_name_each_types_answers(store):
    sid, code = study(store)
    sess = h.on_start(store, code, {}, request()).rate.session
    guide = str(h.on_layout(store, 2, sess)[2])
    assert "**correct** (yes/no): is it factually correct?" in guide
    assert "**error** (one of 3) · *1* repetition · *2* off\\-topic · *3* factual" in guide  # the digit keys
    assert "**why** (comment): what made you decide (optional)" in guide
