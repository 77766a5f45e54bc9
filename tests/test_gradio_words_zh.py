"""Gradio's own words on a Chinese page (issue 47): what its status tracker announces that its zh-CN table
lacks is given under Gradio's own keys (ui/i18n.GRADIO_ZH), and the page's head carries the script that puts a
toast's title and close button in Chinese (ui/assets.py; tests/e2e/test_zh_pages_e2e.py reads them in a
browser)."""

from __future__ import annotations

import re
from pathlib import Path

import gradio

from tests.support.english_left import english_words
from ui import assets, i18n

FRONTEND = Path(gradio.__file__).parent / "templates" / "frontend" / "assets"


def test_the_status_trackers_words_are_given_under_gradios_own_keys():
    frontend = "".join(p.read_text(encoding="utf-8", errors="replace") for p in FRONTEND.glob("*.js"))
    for key, chinese in i18n.GRADIO_ZH.items():
        assert f"i18n(`{key}`)" in frontend, key  # the key Gradio's frontend looks up
        assert (
            english_words(re.sub(r"\{\w+\}", "1", chinese)) == [] and i18n.I18N.translations_dict["zh"][key] == chinese
        )
    # the queue line's placeholders are the ones Gradio fills
    english = re.search(r"queue_position:`([^`]*)`", frontend).group(1)
    assert re.findall(r"\{\w+\}", english) == re.findall(r"\{\w+\}", i18n.GRADIO_ZH["status.queue_position"])


def test_the_head_puts_gradios_toast_words_in_chinese():
    assert "'Close': '关闭'" in assets.HEAD and "error: '错误'" in assets.HEAD
    assert "startsWith('zh')" in assets.HEAD  # only on a Chinese page
