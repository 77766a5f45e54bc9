"""The Organizer creates a study with its own rubric, attention items and an exclusion rule (issue 34):
the form's JSON box with its preview, the handler as Gradio calls it (dummy engine, stand-in model),
one error line and nothing stored on bad input."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import gradio as gr
import pytest

from common.messages import english
from common.rubric import Rubric
from tests.test_organizer_models import PASSWORD, call, form, tokenizer, world  # noqa: F401 (fixtures)
from ui.organizer.forms import RUBRIC_EXAMPLE, rubric_example, rubric_preview


def test_the_preview_shows_the_questions_or_one_error_line():
    shown = rubric_preview(rubric_example())
    assert (
        "| quality | 1-10 (10 points) | How good is the response? | 1 = unusable · 10 = as good as it gets |" in shown
    )
    assert "| creativity | 1-7 (7 points) |" in shown
    assert "default questions" in rubric_preview("  ")
    for bad, words in (
        ('{"dimensions": []}', "1 to 8 dimensions"),
        ('{"dimensions": [{"name": "q", "low": 1, "high": 12}]}', "2 to 11 points"),
        ("{oops", "not valid JSON"),
    ):
        line = rubric_preview(bad)
        assert line.startswith("**error:**") and words in line and "\n" not in line
    assert "&lt;b&gt;" in rubric_preview('{"dimensions": [{"name": "q", "description": "<b>x</b>"}]}')


def test_the_organizer_creates_a_study_with_its_own_rubric(world):  # noqa: F811 (the fixture)
    call(world, *form("Own questions"), RUBRIC_EXAMPLE, 1, ["attention"])
    [study] = world.store.list_studies()
    assert study.rubric == Rubric.from_json(RUBRIC_EXAMPLE) and study.exclusion_rules == ("attention",)
    assert study.state == "open" and sum(1 for i in world.store.items(study.id) if i.attention) == 1


@pytest.mark.parametrize(
    ("rubric", "attention", "rules", "message"),
    [
        (json.dumps({"dimensions": [{"name": f"d{k}"} for k in range(9)]}), 0, [], "1 to 8 dimensions"),
        ('{"dimensions": [{"name": "q", "low": 0, "high": 11}]}', 0, [], "2 to 11 points"),
        (RUBRIC_EXAMPLE, 0, ["attention"], "needs attention items"),
        (RUBRIC_EXAMPLE, 11, [], "attention items"),
    ],
)
def test_a_bad_rubric_or_rule_is_one_line_and_nothing_is_stored(world, rubric, attention, rules, message):  # noqa: F811
    with pytest.raises(gr.Error, match=message):
        call(world, *form("Refused"), rubric, attention, rules)
    assert world.store.list_studies() == [] and world.loads == []


def _preview_fn(world):  # noqa: F811 (the fixture)
    """The handler that fills the line above "Create study", as wired to the attention items box."""
    blocks = world.demo.blocks
    attention = next(b for b in blocks.values() if getattr(b, "label", None) == english("organizer_attention"))
    return next(
        f
        for f in world.demo.fns.values()
        if any(t[0] == attention._id and t[1] == "change" for t in f.targets)
        and any(getattr(o, "elem_id", None) == "organizer-preview" for o in f.outputs)
    )


def test_the_preview_counts_the_outputs_creation_makes_attention_items_included(world):  # noqa: F811
    request = SimpleNamespace(headers={}, client=SimpleNamespace(host="192.0.2.9"), cookies={}, session_hash="o")
    values = form("Counted")
    preview_inputs = values[1:8]  # source, language, pasted, upload, methods, samples, max_new
    line = _preview_fn(world).fn(request, PASSWORD, *preview_inputs, values[12], 2)
    counted = re.search(r"= (\d+) outputs", line)
    assert counted is not None, line
    assert "2 prompts + 2 attention items × 2 methods" in line
    call(world, *values, "", 2, [])
    [study] = world.store.list_studies()
    made = sum(len(world.store.outputs_for_item(i.id)) for i in world.store.items(study.id))
    assert made == int(counted.group(1)) == 8
    assert sum(1 for i in world.store.items(study.id) if i.attention) == 2
    # what Create would refuse, the preview says at once
    assert "at most one per prompt" in _preview_fn(world).fn(request, PASSWORD, *preview_inputs, values[12], 3)
