"""ui/rate/words.py: the rating page's runtime lines (progress, saved, missing, flagged, refusals) in
Chinese for a browser that asks for it, and exactly as before in English. The browser side is
tests/e2e/test_i18n_e2e.py."""

from __future__ import annotations

import string
from types import SimpleNamespace

from arena.access import invites
from arena.rating import blind
from arena.store.feedback import SKIP_REASONS
from common import messages
from ui import i18n
from ui.rate import words


def _view(**kw) -> blind.RaterView:
    base = dict(item="x", prompt="p", responses=[], index=2, total=8, rated_items=3, complete=False)
    return blind.RaterView(**{**base, **kw})


def test_the_language_is_the_browsers_most_preferred():
    def request(value):
        return SimpleNamespace(headers={"accept-language": value} if value is not None else {})

    assert i18n.language_of_request(request("zh-CN,zh;q=0.9,en;q=0.8")) == "zh"
    assert i18n.language_of_request(request("en-US,en;q=0.9,zh;q=0.8")) == "en"
    assert i18n.language_of_request(request("en;q=0.5,zh-TW;q=0.9")) == "zh"
    assert i18n.language_of_request(request(None)) == "en"
    assert i18n.language_of_request(None) == "en"


def test_english_lines_are_unchanged():
    view = _view(skipped_items=1)
    assert (
        words.progress(view, "en") == view.progress == "Item 2 of 8 · you have rated 2 of 8 (1 skipped)"
    )  # skipped: not rated
    assert words.rater_line("ann*", "S", "en") == "Rating as **ann\\*** in **S**."
    assert words.say("rater_saved_next", "en") == "Saved. Here is the next item."
    assert i18n.translated(invites.INVALID, "en") == invites.INVALID
    assert words.skip_reason(next(iter(SKIP_REASONS)), "en") == next(iter(SKIP_REASONS.values())).lower()


def test_chinese_lines_carry_the_numbers_and_no_english():
    line = words.progress(_view(skipped_items=1), "zh")
    assert line == "第 2 题，共 8 题 · 你已评 2 / 8 题（另跳过 1 题）"
    assert words.say("rater_saved_next", "zh") == "已保存。下面是下一题。"
    assert i18n.translated(invites.INVALID, "zh").startswith("邀请码无效")
    done = i18n.translated(
        "You have rated all 12 items of this study. Thank you! Use Previous to review or change a rating.", "zh"
    )
    assert "12" in done and "Thank" not in done
    assert words.rater_line("ann*", "S", "zh") == "评分者 **ann\\*** · 研究 **S**。"
    assert words.dimension(0, "zh") == "连贯性" and words.dimension(0, "en") == "coherence"
    assert i18n.translated("a sentence with no entry", "zh") == "a sentence with no entry"


def test_every_template_has_the_same_fields_in_both_languages():
    fields = lambda text: {f for _, f, _, _ in string.Formatter().parse(text) if f}  # noqa: E731
    for key, (english, chinese) in messages.LINES.items():
        if key.startswith("rater_"):  # the rating page's lines (common/messages.py)
            assert fields(english) == fields(chinese), english
