"""A study with its own rubric, attention items and an exclusion rule, created from the command line,
rated through the blind layer, closed and analysed (issue 34): the attention item sits among the real
items with the same layout, its ratings never reach the analysis, and each rater's outcome is stored."""

from __future__ import annotations

import json

import pytest

from arena.rating import blind
from arena.rating.attention import AttentionPlan, with_attention_items
from arena.store import Store
from arena.studies import __main__ as study_cli
from arena.studies.create import EXCLUSION_RULES
from common.errors import UserError
from common.rubric import Rubric
from evaluation.human import quality

RUBRIC = {
    "dimensions": [
        {
            "name": "quality",
            "low": 1,
            "high": 10,
            "description": "How good is it?",
            "anchors": {"1": "bad", "10": "great"},
        },
        {"name": "creativity", "low": 1, "high": 7},
    ]
}


def run(capsys, *argv: str) -> tuple[int, dict | None, str]:
    code = study_cli.main(list(argv))
    out = capsys.readouterr()
    last = out.out.strip().splitlines()[-1] if out.out.strip() else ""
    return code, (json.loads(last) if last else None), out.err


def test_the_exclusion_rules_are_the_analysis_rules():
    assert EXCLUSION_RULES == tuple(quality.RULES)


def test_attention_items_are_spread_among_the_real_ones_never_first():
    items = [{"prompt": f"p{k}"} for k in range(9)]
    for seed in range(30):
        placed = with_attention_items(items, AttentionPlan(3), seed)
        where = [k for k, i in enumerate(placed) if i.get("attention")]
        assert len(placed) == 12 and len(where) == 3 and where[0] > 0
        assert [i["prompt"] for i in placed if not i.get("attention")] == [f"p{k}" for k in range(9)]
        assert {i["prompt"] for i in placed if i.get("attention")} <= {f"p{k}" for k in range(9)}


@pytest.mark.timeout(600)
def test_create_rate_close_a_rubric_study_with_an_attention_item(lm, tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("Name a colour.\n\nName a fruit.\n\nName a tree.\n", encoding="utf-8")
    rubric = tmp_path / "rubric.json"
    rubric.write_text(json.dumps(RUBRIC), encoding="utf-8")
    code, out, err = run(
        capsys, "create", "--name", "Own questions", "--prompts", str(prompts), "--methods", "TS-Temp,TS-Tilted",
        "--max-new-tokens", "3", "--rubric", str(rubric), "--attention", "1", "--exclude", "attention",
        "--database", db,
    )  # fmt: skip
    assert code == 0, err
    store = Store(db)
    sid = out["study_id"]
    study = store.get_study(sid)
    assert study.rubric == Rubric.from_dict(RUBRIC) and study.exclusion_rules == ("attention",)
    assert study.state == "open" and len(store.items(sid)) == 4
    attention_items = [i for i in store.items(sid) if i.attention]
    assert len(attention_items) == 1 and attention_items[0].ordinal > 0
    assert len(store.outputs_frame(sid)) == 6  # 3 real prompts x 2 methods: the attention item's are not outputs
    for rater, follows in (("ann", True), ("ben", False)):
        while True:
            view, _ = blind.open_item(store, rater, sid)
            if view is None:
                break
            assert len(view.responses) == 2 and set(view.responses[0].scores) == {"quality", "creativity"}
            asks = "attention check" in view.responses[0].text
            value = 2 if asks and follows else (9 if asks else 6)
            scores = {r.label: {"quality": value, "creativity": min(value, 7)} for r in view.responses}
            blind.submit(store, rater, view.item, scores)
    with pytest.raises(UserError, match="quality must be from 1 to 10"):
        view, _ = blind.open_item(store, "ann", sid, 1)
        blind.submit(store, "ann", view.item, {r.label: {"quality": 11, "creativity": 1} for r in view.responses})
    frame = store.ratings_frame(sid)
    assert len(frame) == 12 and set(frame["quality"]) == {6}  # 3 items x 2 responses x 2 raters, no attention item
    assert dict(zip(frame["rater"], frame["attention_passed"], strict=False)) == {"ann": True, "ben": False}
    kept, exclusion, _ = quality.apply_rules(frame, study.rubric, study.exclusion_rules)
    assert exclusion.raters == ("ben",) and set(kept["rater"]) == {"ann"}


@pytest.mark.parametrize(
    "rubric, extra, message",
    [
        ("{not json", [], "not valid JSON"),
        (json.dumps({"dimensions": []}), [], "1 to 8 dimensions"),
        (json.dumps({"dimensions": [{"name": f"d{k}"} for k in range(9)]}), [], "1 to 8 dimensions"),
        (json.dumps({"dimensions": [{"name": "q", "low": 0, "high": 11}]}), [], "2 to 11 points"),
        (json.dumps(RUBRIC), ["--exclude", "sleepy"], "unknown exclusion rule"),
        (json.dumps(RUBRIC), ["--attention", "1", "--attention-value", "9"], "not on the scale of creativity"),
        (json.dumps(RUBRIC), ["--exclude", "attention"], "needs attention items"),
        # question types (issue 46)
        (json.dumps({"dimensions": [{"name": "e", "type": "choice", "labels": ["a"]}]}), [], "has 1 label"),
        (json.dumps({"dimensions": [{"name": "e", "type": "choice", "labels": list("abcdefghi")}]}), [], "has 9 label"),
        (json.dumps({"dimensions": [{"name": "e", "type": "likert"}]}), [], "unknown question type 'likert'"),
        (
            json.dumps({"dimensions": [{"name": "q"}, {"name": "w", "type": "text", "anchors": {"1": "x"}}]}),
            [],
            "anchors belong to a scale",
        ),
    ],
)
def test_a_bad_rubric_or_rule_is_one_error_line_and_nothing_stored(tmp_path, capsys, rubric, extra, message):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("Name a colour.\n", encoding="utf-8")
    path = tmp_path / "rubric.json"
    path.write_text(rubric, encoding="utf-8")
    argv = ["create", "--name", "x", "--prompts", str(prompts), "--rubric", str(path), *extra, "--database", db]
    code, out, err = run(capsys, *argv)
    lines = err.strip().splitlines()
    assert code == 2 and out is None and len(lines) == 1 and lines[0].startswith("error:"), err
    assert message in lines[0], lines[0]
    assert Store(db).list_studies() == []
