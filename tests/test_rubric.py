"""A study's rubric (common/rubric.py): 1-8 dimensions, each on a scale of 2-11 points, checked on the way in."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.rating.dimensions import SCORE_COLUMNS
from common.errors import UserError
from common.rubric import DEFAULT_RUBRIC, Dimension, Rubric, parse_scale, rubric_from, rubric_of


def test_the_default_is_the_missions_three_questions_on_1_to_5():
    assert DEFAULT_RUBRIC.names == ("coherence", "informativeness", "naturalness") == SCORE_COLUMNS
    assert all((d.low, d.high) == (1, 5) for d in DEFAULT_RUBRIC.dimensions) and DEFAULT_RUBRIC.is_default
    assert (
        rubric_of(None) is DEFAULT_RUBRIC and rubric_from(None) is DEFAULT_RUBRIC and rubric_from("") is DEFAULT_RUBRIC
    )


@pytest.mark.parametrize("text, scale", [("1-5", (1, 5)), ("0-10", (0, 10)), ("1–7", (1, 7)), ("-3 to 3", (-3, 3))])
def test_scales_parse(text, scale):
    assert parse_scale(text) == scale


@pytest.mark.parametrize("text", ["1-12", "5-5", "10-1", "one to five", "1-", "1.5-5", ""])
def test_bad_scales_are_refused_in_words(text):
    with pytest.raises(UserError, match="scale"):
        parse_scale(text)


def test_a_rubric_round_trips_through_json_with_descriptions_and_anchors():
    rubric = Rubric(
        (
            Dimension("quality", 1, 10, "How good is the story?", ((1, "unreadable"), (10, "publishable"))),
            Dimension("diversity", 0, 6),
        )
    )
    assert Rubric.from_json(rubric.to_json()) == rubric and rubric_from(rubric.to_json()) == rubric
    assert rubric_from(rubric.to_dict()) == rubric
    assert rubric.scales() == {"quality": (1, 10), "diversity": (0, 6)}
    assert rubric.dimension("quality").values == tuple(range(1, 11)) and rubric.dimension("diversity").points == 7


@pytest.mark.parametrize(
    "dims, message",
    [
        ([], "name at least one question"),
        ([{"name": f"q{k}"} for k in range(9)], "1 to 8 dimensions"),
        ([{"name": "a"}, {"name": "A"}], "named twice"),
        ([{"name": "a", "low": 1, "high": 20}], "20 points"),
        ([{"name": "rater"}], "column of the ratings file"),
        ([{"name": "x,y"}], "comma"),
        ([{"name": "  "}], "needs a name"),
        ([{"name": "a", "anchors": {"9": "too high"}}], "outside its scale"),
    ],
)
def test_bad_rubrics_are_refused_in_words(dims, message):
    with pytest.raises(UserError, match=message):
        Rubric.from_dict({"dimensions": dims})


def test_a_rubric_says_what_its_callers_need_and_only_this_module_asks_whether_it_is_the_default():
    """Issue 46: `is_default` was tested at 12 places in 9 files; now the store, the files, the pages
    and the keys ask the rubric what they need (where its answers are kept, what a study's row keeps,
    whether every question is on one scale)."""
    ten = Rubric((Dimension("quality", 1, 10), Dimension("fun", 1, 7)))
    clarity = Rubric.uniform(["clarity"])
    assert DEFAULT_RUBRIC.stored_json is None and ten.stored_json == ten.to_json()
    assert DEFAULT_RUBRIC.in_rating_columns and not ten.in_rating_columns and not clarity.in_rating_columns
    assert DEFAULT_RUBRIC.one_scale == clarity.one_scale == (1, 5) and ten.one_scale is None
    root = Path(__file__).resolve().parents[1]
    askers = [
        str(p.relative_to(root))
        for folder in ("common", "decoders", "arena", "evaluation", "ui")
        for p in (root / folder).rglob("*.py")
        if "is_default" in p.read_text(encoding="utf-8")
    ]
    assert askers == ["common/rubric.py"], askers
