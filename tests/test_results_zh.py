"""The Results tab in Chinese (issue 47): a 1-5 study's report in each state (exclusions, no rule, no
ratings: headline, per-method table, charts, every statistics table, the lines, the story, the filters'
choices), a rubric study's (its own questions, a yes/no and a choice question, comments), a pairwise
study's report (its headline, notes, leaderboard and story) and the cross-study board (headline,
takeaways, both tables with their column names), rendered by the tab's handlers for a zh-CN browser,
leave no English word but names, numbers and tests/support/english_left.py's allow-list; the English
stays as it was."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from arena.store import Store
from common.rubric import Rubric
from tests.support.english_left import chart_texts, english_words
from tests.support.seeding import publish
from tests.support.stores import sqlite_url
from tests.test_pairwise_board import make_study, score_all, vote_all
from tests.test_pairwise_board import publish as publish_study
from tests.test_question_types import FIVE
from tests.test_zh_pages import NAME, STATES, published, voted_pair_study, zh_request
from ui import results


@pytest.fixture
def store(tmp_path):
    s = Store(sqlite_url(tmp_path))
    yield s
    s.dispose()


def read(value) -> str:
    """What a person reads of one output: a Markdown line, or a table's header and cells."""
    if isinstance(value, dict):  # gr.update
        value = value.get("value")
    if isinstance(value, pd.DataFrame):
        return " ".join([*map(str, value.columns), *(str(v) for row in value.itertuples(index=False) for v in row)])
    if hasattr(value, "to_plotly_json"):  # a chart: its titles, axes, legend, labels and hover texts
        return " ".join(chart_texts(json.loads(value.to_json())))
    if isinstance(value, list):  # a dropdown's choices: (what it shows, what it sends)
        return " ".join(str(c[0] if isinstance(c, tuple) else c) for c in value)
    # Markdown as the browser shows it: escapes and link targets are not read
    return re.sub(r"\\(.)", r"\1", re.sub(r"\]\([^)]*\)", "]", "" if value is None else str(value)))


def everything(view: results.ResultsView) -> str:
    """Every output of "Show results" a person reads (the CSV file's path is not read)."""
    shown = []
    for name, value in view._asdict().items():
        if name == "csv":
            continue
        if name in ("scenarios", "raters") and isinstance(value, dict):
            value = value.get("choices") or []
        shown.append(read(value))
    return "\n".join(shown)


# ---- a 1-5 study ---------------------------------------------------------------------------------


@pytest.mark.parametrize("state", STATES)
def test_a_1_to_5_study_on_the_results_tab_in_chinese_leaves_no_english(store, state):
    sid = published(store, **STATES[state])
    view = results.on_show(store, lambda: None, sid, None, None, False, zh_request())
    shown = everything(view)
    # the Scenarios filter's "seeded (zh)": the prompts' scenario and its language code, names
    assert english_words(shown, {"seeded", "zh"}) == [], shown
    if state != "no ratings":
        assert "4 个提示词 · 4 位评分者的 48 条评分" in shown or "4 个提示词 · 3 位评分者的 36 条评分" in shown
        assert "连贯性上的一致性：Krippendorff α" in shown and "混合模型，连贯性：BS-4 − TS-Temp" in shown
        assert "维度" in view.pairwise["value"].columns and "适用范围" in view.mixed["value"].columns
        assert "评分者 1" in shown and "给利益相关者看的展示页" in shown
    if state == "exclusions":
        assert "4 位评分者中有 1 位按创建研究时设定的规则被排除" in shown and "结论是否改变" in shown
    if state == "no ratings":
        assert "还没有评分。" in shown


def test_a_1_to_5_study_on_the_results_tab_says_the_same_in_english(store):
    """The English tab, word for word as before the words came from the table of messages."""
    sid = published(store, **STATES["exclusions"])
    view = results.on_show(store, lambda: None, sid, None, None, False)
    shown = everything(view)
    for said in (
        '4 prompts · 36 ratings by 3 raters · 0 "can\'t judge" answers (not counted as scores) · methods: '
        "BS-4, TS-Temp, TS-Tilted · perplexity not computed",
        "**Headline family**: ",
        "Friedman on coherence (3 methods, 4 items): p = ",
        "at least one method is ranked differently from the others (exploratory: treats the raters as fixed).",
        "Agreement on coherence: Krippendorff's α = 0.666, raters often disagree.",
        "the same on every item and rater: not estimable (no variation to build an interval from).",
        "(a page of its own: no tabs, no controls)",
        "95% CI low",
        "items and raters",
    ):
        assert said in shown, said
    assert english_words(shown) != []  # the finder does find English
    assert view.raters["choices"] == [("rater 1", "rater 1"), ("rater 2", "rater 2"), ("rater 3", "rater 3")]


def rubric_study(store) -> int:
    """A published study with the organizer's own five questions (two scales, yes/no, a choice, a comment)
    over two methods, three prompts and three raters."""
    rubric = Rubric.from_dict(FIVE)
    methods = ["BS-4", "TS-Temp"]
    sid = store.create_study(NAME, methods=methods, items_=[{"prompt": f"提示词 {k}"} for k in range(3)], rubric=rubric)
    for k, item in enumerate(store.items(sid)):
        oids = [
            store.add_output(item.id, m, 0, text=f"{m} 的回答", settings={}, seed=1, model="m", new_tokens=4 + j)[0]
            for j, m in enumerate(methods)
        ]
        for r, rater in enumerate(("ann", "ben", "cho")):
            rows = [
                {"output_id": oid, "quality": 3 + j * 4 + (k + r) % 3, "style": 2 + j + r, "correct": (j + k) % 2,
                 "error": (j + r) % 3, **({"why": "日期是编的"} if j == 0 else {})}
                for j, oid in enumerate(oids)
            ]  # fmt: skip
            store.save_ratings(store.rater_id(rater), rows, rubric)
    publish(store, sid)
    return sid


def test_a_rubric_study_on_the_results_tab_in_chinese_keeps_its_questions_and_translates_the_rest(store):
    sid = rubric_study(store)
    view = results.on_show(store, lambda: None, sid, None, None, False, zh_request())
    shown = everything(view)
    # the organizer's questions and a choice question's labels are names: as written
    own = {"quality", "style", "correct", "error", "why", "repetition", "off-topic", "factual", "m"}
    assert english_words(shown, own) == [], shown
    assert "quality（1-10 分）↑" in view.table["value"].columns and "correct（是/否）↑" in view.table["value"].columns
    assert "**评语**（9 条，按原文列出，不做分析）" in shown and "error：BS-4 多为" in shown
    english = everything(results.on_show(store, lambda: None, sid, None, None, False))
    assert "**Comments** (9, listed as written, not analysed):" in english and "error: BS-4 mostly" in english


def test_the_results_tab_with_no_study_chosen_in_chinese(store):
    view = results.on_show(store, lambda: None, None, None, None, False, zh_request())
    assert view.headline == "还没有已发布的研究：评分结束后，由组织者发布研究。"
    published(store)
    assert (
        results.on_show(store, lambda: None, None, None, None, False, zh_request()).headline == "请在上方选择一个研究。"
    )


# ---- a pairwise study and the cross-study board ---------------------------------------------------


@pytest.mark.parametrize("voted", [True, False], ids=["votes", "no votes"])
def test_a_pairwise_study_on_the_results_tab_in_chinese_leaves_no_english(store, voted):
    sid = voted_pair_study(store, voted)
    view = results.on_show(store, lambda: None, sid, None, None, False, zh_request())
    shown = "\n".join(read(v) for v in (view.headline, view.table, view.verdict, view.story))
    assert english_words(shown) == [], shown
    if voted:
        assert "6 个提示词 · 3 位评分者的 18 次投票 · 方法：BS-4, TS-Temp, TS-Tilted · 成对比较" in shown
        assert "盲评是否保持住了？" in shown and "名次" in shown and "给利益相关者看的展示页" in shown
    else:
        assert "本研究还没有投票。" in shown


def test_a_pairwise_study_on_the_results_tab_says_the_same_in_english(store):
    sid = voted_pair_study(store)
    view = results.on_show(store, lambda: None, sid, None, None, False)
    assert "18 votes by 3 raters · methods: BS-4, TS-Temp, TS-Tilted · pairwise (A vs B votes)" in read(view.headline)
    assert view.verdict.startswith(results.PAIRWISE_HELP) and "**Was the blind kept?**" in view.story
    assert "[Presentation view for stakeholders: /present?study=" in view.story
    assert "rating [95% CI]" in view.table["value"].columns


def board(store) -> list:
    sp, ip = make_study(store, "pairwise")
    vote_all(store, ip)
    ss, is_ = make_study(store, "scores")
    score_all(store, is_)
    publish_study(store, sp)
    publish_study(store, ss)
    set_update, _ = results.board_sets(store)
    return [set_update["value"]]


def test_the_cross_study_board_in_chinese_leaves_no_english(store):
    model_set = board(store)[0]
    words, table, sources = results.board_outputs(store, model_set, [], zh_request())
    shown = "\n".join(read(v) for v in (words, table, sources))
    # names: the model ("m") and the studies' own names ("pairwise study", "scores study", as written)
    assert english_words(shown, {"m", "pairwise", "scores", "study"}) == [], shown
    assert "m 的 2 项研究（1 项成对比较，1 项 1–5 评分）" in words and "成对投票" in shown and "比较次数" in shown
    studies = read(results.on_board_set(store, model_set, zh_request())["choices"])  # the Studies box's choices
    assert english_words(studies, {"pairwise", "scores", "study"}) == [], studies
    assert "(成对比较)" in studies and "(pairwise)" in read(results.on_board_set(store, model_set)["choices"])
    english = results.board_outputs(store, model_set, [])
    assert "2 studies of m (1 pairwise, 1 1–5) ·" in read(english[0]) and "comparisons" in english[1]["value"].columns
    assert len(english[0].splitlines()) == len(words.splitlines())  # the same lines, each once
