"""The Results tab in Chinese (issue 47): a pairwise study's report (its headline, notes, leaderboard and
story) and the cross-study board (headline, takeaways, both tables with their column names), rendered by
the tab's handlers for a zh-CN browser, leave no English word but names, numbers and
tests/support/english_left.py's allow-list; the English stays as it was."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from arena.store import Store
from tests.support.english_left import english_words
from tests.support.stores import sqlite_url
from tests.test_pairwise_board import make_study, score_all, vote_all
from tests.test_pairwise_board import publish as publish_study
from tests.test_zh_pages import voted_pair_study, zh_request
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
    # Markdown as the browser shows it: escapes and link targets are not read
    return re.sub(r"\\(.)", r"\1", re.sub(r"\]\([^)]*\)", "]", "" if value is None else str(value)))


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
    english = results.board_outputs(store, model_set, [])
    assert "2 studies of m (1 pairwise, 1 1–5) ·" in read(english[0]) and "comparisons" in english[1]["value"].columns
    assert len(english[0].splitlines()) == len(words.splitlines())  # the same lines, each once
