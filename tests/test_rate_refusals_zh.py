"""The 1-5 rating page's refusals in Chinese (issue 47): every refusal its handlers and the layers under
them raise (ui/rate/handlers.py, rubric_form.py, once.py, arena/rating/blind.py), read from the sources so a new
one cannot be missed, is found in common/messages.py and leaves no English word in a zh browser
(ui/handler.py shows it translated). Before, "malformed request", "unknown item; reload the study" and
"that item is not ready for rating" (and a few the page cannot send) stayed English."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from common.errors import UserError
from tests.support.english_left import english_words
from tests.test_zh_pages import zh_request
from ui import i18n
from ui.handler import inline_error
from ui.rate import once

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("ui/rate/handlers.py", "ui/rate/once.py", "arena/rating/blind.py")
# the organizer's, not a rater's: the Organizer tab is in English
ORGANIZER_ONLY = {
    "the mapping and the seeds are shown once the study is closed; close it first (raters can no longer rate then)"
}


def refusals(path: str) -> list[str]:
    """The fixed sentences of `UserError("...")` (or `UserError("..." if ... else "...")`) in `path`;
    one filled in (an f-string) is found by its template, as ui/i18n.translated does, and not read here."""
    found = []
    for node in ast.walk(ast.parse((ROOT / path).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "UserError" and node.args:
            arg = node.args[0]
            for part in (arg.body, arg.orelse) if isinstance(arg, ast.IfExp) else (arg,):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    found.append(part.value)
    return found


@pytest.mark.parametrize("path", SOURCES)
def test_every_refusal_of_the_rating_page_reads_in_chinese(path):
    said = {en: i18n.translated(en, "zh") for en in refusals(path) if en not in ORGANIZER_ONLY}
    assert said, path
    left = {en: zh for en, zh in said.items() if english_words(zh)}
    assert left == {}, left


def test_a_malformed_position_is_refused_in_chinese_on_the_page():
    for sent in ("x", 1.5):
        with pytest.raises(UserError) as caught:
            once.named_index(sent)
        shown = inline_error(caught.value, zh_request()).message
        assert shown.startswith("请求格式不对") and english_words(shown) == [], shown
    assert inline_error(UserError("malformed request")).message == "malformed request"  # English as it was
