"""The rating page's runtime lines in the rater's language: progress, "Rating as …", saved / skipped /
flagged, what is missing, and the refusals a rater meets (toasts).

Gradio translates fixed texts in the browser (ui/i18n.py), but these lines carry numbers, letters and
names, and a marked text is looked up whole, with no values put in. So they are written on the server,
in the language the browser asks for (`Accept-Language`, as /present does); English stays exactly as it
was. Chinese entries are Python format strings: `{name}` is filled in here, never by Gradio.
"""

from __future__ import annotations

from typing import Any

from arena import blind
from arena.store.feedback import SKIP_REASONS

from .i18n import ZH
from .present import language_of
from .safe import md_text

LINES_ZH: dict[str, str] = {
    "Item {index} of {total} · you have rated {rated} of {total}": "第 {index} 题，共 {total} 题 · 你已评 {rated} / {total} 题",
    " ({skipped} skipped)": "（其中跳过 {skipped} 题）",
    " · you skipped this item ({reason}); rating it and submitting replaces the skip": (
        " · 你跳过了此题（{reason}）；为它打分并提交会取代跳过"
    ),
    " · already rated: submitting again updates your ratings": " · 已评分：再次提交会更新你的评分",
    "Rating as **{rater}** in **{study}**.": "评分者 **{rater}** · 研究 **{study}**。",
    "**Not saved yet**: {scored} of {needed} scored. Missing: {where}. "
    "Your scores are kept: fill in the marked rows and submit again.": (
        "**尚未保存**：已打分 {scored} / {needed}。缺少：{where}。你的评分仍在：填好标出的行后再次提交。"
    ),
    "Saved.": "已保存。",
    "Saved. One more question about this item, below.": "已保存。下面还有一个关于此题的问题。",
    "Saved. Here is the next item.": "已保存。下面是下一题。",
    "Skipped.": "已跳过。",
    "Skipped. Here is the next item.": "已跳过。下面是下一题。",
    "Thank you.": "谢谢。",
    "Thank you. Here is the next item.": "谢谢。下面是下一题。",
    "Flagged {what}: {reason}. The organizer will see it; go on rating.": "已报告{what}：{reason}。组织者会看到；请继续评分。",
    "You had already flagged {what} for that reason.": "你已经因为这个原因报告过{what}。",
    "this item": "此题",
    "response {label}": "回答 {label}",
    "Response {label}": "回答 {label}",
    "You have rated all {n} items of this study. Thank you! Use Previous to review or change a rating.": (
        "你已评完本研究的全部 {n} 道题。谢谢！可以用“上一题”查看或修改评分。"
    ),
    # Fixed sentences from arena/ (refusals shown as toasts, and the lines that replace an item).
    "This study has no items ready for rating yet.": "本研究还没有可以评分的题目。",
    "no earlier item": "没有更早的题目",
    "no further item: this is the last one": "没有下一题：这是最后一题",
    "there is no item on screen to rate": "屏幕上没有可评分的题目",
    "there is no item on screen to skip": "屏幕上没有可跳过的题目",
    "there is no item on screen to flag": "屏幕上没有可报告的题目",
    "there is no item on screen": "屏幕上没有题目",
    "choose a reason to skip this item": "请选择跳过此题的原因",
    "choose a reason for the flag": "请选择报告的原因",
    "choose what to flag: the whole item or one response": "请选择要报告的内容：整道题或其中一条回答",
    "enter your invite code and press Start": "请输入邀请码，然后按“开始”",
    "the invite code changed: press Start to continue with the new code": "邀请码已更改：请按“开始”用新邀请码继续",
    "that invite code is not valid; check the link or ask the organizer for a new one": (
        "邀请码无效；请检查链接，或向组织者索取新的邀请码"
    ),
    "this study is not open for rating yet": "本研究尚未开放评分",
    "this study is closed: rating has ended. Thank you!": "本研究已关闭：评分已结束。谢谢！",
    "this study is not open for rating": "本研究未开放评分",
}


def language(request: Any) -> str:
    """ "zh" or "en" for a handler's request: the browser's most preferred language."""
    headers = getattr(request, "headers", None) or {}
    return language_of(None, headers.get("accept-language"))


def say(english: str, lang: str, **values: Any) -> str:
    """`english` (a template from LINES_ZH, or any fixed text) in `lang`, with `values` filled in. Text
    with no entry stays as it is."""
    template = LINES_ZH.get(english, english) if lang == "zh" else english
    return template.format(**values) if values else template


def message(text: str, lang: str) -> str:
    """A sentence from arena/ (a refusal, or the line shown instead of an item) in `lang`."""
    if lang != "zh":
        return text
    done = "You have rated all {n} items of this study. Thank you! Use Previous to review or change a rating."
    head, _, tail = done.partition("{n}")
    if text.startswith(head) and text.endswith(tail) and text[len(head) : len(text) - len(tail)].isdigit():
        return say(done, lang, n=text[len(head) : len(text) - len(tail)])
    return LINES_ZH.get(text, text)


def progress(view: blind.RaterView, lang: str) -> str:
    """`view.progress` in `lang` (the same line in English)."""
    if lang != "zh":
        return view.progress
    line = say("Item {index} of {total} · you have rated {rated} of {total}", lang, index=view.index,
               total=view.total, rated=view.rated_items)  # fmt: skip
    return line + (say(" ({skipped} skipped)", lang, skipped=view.skipped_items) if view.skipped_items else "")


def skip_reason(reason: str, lang: str) -> str:
    english = SKIP_REASONS.get(reason, reason)
    return ZH.get(english, english) if lang == "zh" else english.lower()


DIMENSIONS_ZH = {"coherence": "连贯性", "informativeness": "信息量", "naturalness": "自然度"}


def dimension(index: int, lang: str) -> str:
    """The name of `blind.DIMENSIONS[index]` in `lang`."""
    name = blind.DIMENSIONS[index]
    return DIMENSIONS_ZH.get(name, name) if lang == "zh" else name


def rater_line(rater: str, study: str, lang: str) -> str:
    return say("Rating as **{rater}** in **{study}**.", lang, rater=md_text(rater), study=md_text(study))
