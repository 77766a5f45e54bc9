"""The Python API's rating endpoints (ui/api/rating.py) on a study that asks every question type: the
answer lists each question's type and the options it takes, and a client sends a labelled option by
its label as the page shows it, or by its value; a value no option has is refused, nothing saved."""

from __future__ import annotations

import pytest

from arena.files import export
from arena.store import Store
from common.errors import UserError
from tests.test_rate_question_types import request, study
from ui.api import rating as api


@pytest.fixture
def rater(tmp_path):
    """The five-question study of the Rate tab's own tests, and its rater's code."""
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    _, code = study(store)
    yield store, code
    store.dispose()


def test_the_answer_lists_each_questions_type_and_options(rater):
    store, code = rater
    got = api.start_rating(store, request(), code)
    by_name = {q["name"]: q for q in got["questions"]}
    assert [q["type"] for q in got["questions"]] == ["scale", "scale", "yes-no", "choice", "text"]
    assert [o["value"] for o in by_name["quality"]["options"]] == list(range(1, 11))
    assert by_name["correct"]["options"] == [{"label": "Yes", "value": 1}, {"label": "No", "value": 0}]
    assert [o["label"] for o in by_name["error"]["options"]] == ["repetition", "off-topic", "factual"]
    assert by_name["why"] == {**by_name["why"], "required": False, "can_judge": False, "options": []}
    assert by_name["quality"]["required"] and by_name["quality"]["can_judge"]


def test_labels_or_values_are_stored_alike_and_a_value_no_option_has_is_refused(rater):
    store, code = rater
    first = api.start_rating(store, request(), code)
    item = first["item"]
    bad = {"A": {"quality": 3, "style": 2, "correct": "maybe", "error": "factual"},
           "B": {"quality": 4, "style": 5, "correct": 0, "error": 1}}  # fmt: skip
    with pytest.raises(UserError, match="correct"):
        api.submit_scores(store, request(), code, item, bad)
    assert api.start_rating(store, request(), code)["item"] == item  # nothing saved, still on it
    sent = {"A": {"quality": 3, "style": 2, "correct": "yes", "error": "Factual", "why": "clear"},
            "B": {"quality": 4, "style": 5, "correct": 0, "error": 1}}  # fmt: skip
    api.submit_scores(store, request(), code, item, sent)
    back = api.previous_item(store, request(), code, item + 1)
    assert back["item"] == item
    scores = {r["label"]: r["scores"] for r in back["responses"]}
    assert scores["A"] == {"quality": 3, "style": 2, "correct": 1, "error": 2}
    assert scores["B"] == {"quality": 4, "style": 5, "correct": 0, "error": 1}
    # the comment question's answer is shown in the response's comment box, as on the page
    assert [r["comment"] for r in back["responses"]] == ["clear", ""]
    rows = [r for r in export.export_rows(store) if r["row_kind"] == "rating"]
    assert sorted((r["correct"], r["error"], r["why"]) for r in rows) == [
        (0, "off-topic", None),
        (1, "factual", "clear"),
    ]
