"""English and Chinese for what raters and demo audiences read: tab names, the rating page, Compare.

Gradio translates in the browser (`gr.I18n`): the page follows the browser's language (zh, zh-CN,
zh-TW… get Chinese, anything else English) and the footer's Settings switch it. Only text marked
for translation is looked up, so after the page is built `translate(demo)` marks every label, info,
placeholder, Markdown and button text that has an entry in `ZH`; a handler that sends a fixed
sentence later (a status line, the default guidelines) marks it with `t()`. Keys are the English text
itself: a missing entry shows the English, never a key. The zh entries are plain text for Gradio's
ICU message format: no braces (tests/test_i18n.py checks).
"""

from __future__ import annotations

import json
from typing import Any

import gradio as gr

LETTERS = "ABCDEFGH"
DIMENSIONS_ZH = {
    "Coherence: logical, consistent, on topic": "连贯性：有逻辑、前后一致、切题",
    "Informativeness / creativity: says something useful or interesting": "信息量 / 创造性：内容有用或有趣",
    "Naturalness: reads like fluent human writing": "自然度：读起来像流畅的人写的",
}

ZH: dict[str, str] = {
    # The pairwise rating panel (ui/rating_pairwise.py)
    "How to vote (guidelines)": "如何投票（评分指南）",
    "**Read both responses to the prompt, then vote once:**\n\n- **A is better** (key 1) or **B is better** "
    "(key 2): the one you would rather get, as a whole.\n- **Tie** (key 3): about equally good. **Both bad** "
    "(key 4): neither is acceptable.\n\nOptionally tick why, or write a word, before you vote: the vote saves "
    "and the next item comes.\nResponses are **cut off after a fixed number of tokens on purpose**: don't mark "
    "one down because it\nstops mid-sentence. Which method wrote which stays hidden, and the sides differ "
    "between items and\nraters. You can go back and change a vote.": (
        "**请读完针对提示词的两个回答，然后投一票：**\n\n- **A 更好**（按键 1）或 **B 更好**（按键 2）：整体上你更想要的那个。\n"
        "- **平局**（按键 3）：差不多一样好。**都不好**（按键 4）：两个都不可接受。\n\n"
        "投票前可以勾选理由或写几个字：投票即保存，并进入下一项。\n回答**按固定的词元数截断是有意为之**：不要因为某个回答在句中停止而扣分。"
        "哪个方法写了哪个回答是隐藏的，左右位置在不同条目和评分者之间也不同。你可以返回修改投票。"
    ),
    "A is better (1)": "A 更好 (1)",
    "B is better (2)": "B 更好 (2)",
    "Tie (3)": "平局 (3)",
    "Both bad (4)": "都不好 (4)",
    "Why (optional)": "理由（可选）",
    "Anything else about your choice (optional)": "关于你的选择，还有什么想说的（可选）",
    "More accurate or on topic": "更准确或更切题",
    "Clearer, reads better": "更清楚，读起来更好",
    "More complete or useful": "更完整或更有用",
    "More concise": "更简洁",
    "Safer, less harmful": "更安全，危害更小",
    # app.py: the header and the tabs
    "# Decoding Arena\nOne prompt, several decoding methods, honest timing, blind ratings.": (
        "# 解码竞技场\n同一个提示词，多种解码方法，如实计时，盲评打分。"
    ),
    "Compare": "对比",
    "Rate (blind)": "盲评",
    "Results": "结果",
    "Organizer": "组织者",
    "Multi-arm trace": "多臂追踪",
    # The rating page
    "Rate each response from 1 (poor) to 5 (excellent). The responses come from different decoding "
    "methods; which is which stays hidden, and their order differs between items and raters. "
    "Your ratings are saved when you press **Submit**; you can go back and change them. "
    "To take part you need an invite code (or link) from the study's organizer.": (
        "请为每条回答打 1（差）到 5（优秀）分。这些回答来自不同的解码方法；哪条来自哪种方法不会公开，"
        "回答的顺序在不同题目和不同评分者之间也不相同。按下 **提交** 后评分即保存；之后仍可返回修改。"
        "参与评分需要研究组织者提供的邀请码（或链接）。"
    ),
    "Invite code or link": "邀请码或链接",
    "opened from your invite link: leave empty": "已通过邀请链接打开：留空即可",
    "Start / continue": "开始 / 继续",
    "Prompt": "提示词",
    "How to rate (guidelines)": "如何评分（评分指南）",
    """**Rate each response on its own, from 1 to 5, on three things:**

- **Coherence**: is it logical, consistent and on topic? *1* contradicts itself or drifts off topic ·
  *3* mostly holds together, with a slip or two · *5* clear and consistent from start to end.
- **Informativeness / creativity**: does it say something useful or interesting? *1* empty or
  generic · *3* some substance · *5* specific, useful or genuinely inventive.
- **Naturalness**: does it read like fluent human writing? *1* broken or robotic · *3* understandable
  but awkward · *5* reads as if a fluent person wrote it.

Responses are **cut off after a fixed number of tokens on purpose**: don't mark a response down
because it stops mid-sentence. The order of the responses is random; which method wrote which stays
hidden. You can go back and change a rating.
""": """**请单独评价每条回答，按以下三个方面各打 1 到 5 分：**

- **连贯性**：是否有逻辑、前后一致、切题？*1* 自相矛盾或跑题 · *3* 大体连贯，偶有疏漏 · *5* 从头到尾清晰一致。
- **信息量 / 创造性**：是否说出了有用或有趣的内容？*1* 空洞或泛泛而谈 · *3* 有一些实质内容 · *5* 具体、有用或确有新意。
- **自然度**：读起来是否像流畅的人写的？*1* 不通顺或机械 · *3* 能看懂但别扭 · *5* 像母语流利的人写的。

回答**有意在固定的 token 数后截断**：不要因为回答在句子中间停下而扣分。回答的顺序是随机的；
哪种方法写了哪条回答不会公开。你可以返回修改评分。
""",
    "Can't judge": "无法判断",
    "Keys: **1–5** score the focused row and move on to the next (then the next response, then Submit) · "
    "**0** can't judge · **Ctrl+Enter** submits. Mark **Can't judge** when a dimension cannot be judged "
    "for a response (it counts as answered, not as a score).": (
        "按键：**1–5** 为当前行打分并跳到下一行（然后是下一条回答，最后是提交）· **0** 无法判断 · "
        "**Ctrl+Enter** 提交。某个方面无法评价时选择 **无法判断**（算作已作答，不计分）。"
    ),
    "Skip this item, or flag a problem": "跳过此题，或报告问题",
    "Reason to skip this item": "跳过此题的原因",
    "I can't read the language": "我看不懂这种语言",
    "The prompt is unclear": "提示词不清楚",
    "Offensive or unsafe content": "冒犯性或不安全的内容",
    "Other (say why)": "其他（请说明原因）",
    "Skip: say why (needed for Other)": "跳过：说明原因（选“其他”时必填）",
    "Skip this item": "跳过此题",
    "Flag": "报告",
    "The whole item": "整道题",
    "Flag reason": "报告原因",
    "Broken or empty output": "输出损坏或为空",
    "Problem with the prompt": "提示词有问题",
    "Contains personal data": "包含个人数据",
    "Flag note (optional; needed for Other)": "报告说明（可选；选“其他”时必填）",
    "A skipped item counts as done and gets no scores from you; you can still go back and rate it. "
    "A flag goes to the organizer; your scores on screen stay, and you can go on rating.": (
        "跳过的题目算作已完成，不计入你的评分；你仍可返回为它打分。报告会发送给组织者；"
        "屏幕上的评分会保留，你可以继续评分。"
    ),
    "**Your scores are saved.** One more question about this item; it does not change your scores, "
    "and if you have no idea, choose **Don't know**.": (
        "**你的评分已保存。** 关于此题还有一个问题；它不会改变你的评分，如果完全不知道，请选 **不知道**。"
    ),
    "Don't know": "不知道",
    "Send answer and go on": "提交答案并继续",
    "← Previous": "← 上一题",
    "Submit ratings": "提交评分",
    "Next →": "下一题 →",
    "Opened by your invite link: the code is kept by this browser until it closes. "
    "[Leave this study on this browser](?signout=1)": (
        "已通过你的邀请链接打开：此浏览器会保留邀请码直到关闭。[在此浏览器上退出本研究](?signout=1)"
    ),
    # Compare
    "Ask a question, or paste a text to continue": "提一个问题，或粘贴一段要续写的文字",
    "Raw continuation (no chat template)": "直接续写（不用对话模板）",
    "Record why each token was chosen": "记录每个 token 被选中的原因",
    "For the token view below; the recording's cost is inside that run's timing": (
        "用于下方的 token 视图；记录的开销计入该次运行的计时"
    ),
    "The article's scenarios (zh and en)": "文章中的场景（中文和英文）",
    "Article 003's tasks: each output gets an automatic check (docs/tasks.md)": (
        "文章 003 的任务：每个输出都会自动检查（docs/tasks.md）"
    ),
    "Methods": "方法",
    "Article presets": "文章预设",
    "Creative": "创意",
    "Balanced": "平衡",
    "Precise": "精确",
    "Run": "运行",
    "Stop": "停止",
    "Rate these blind": "盲评这些输出",
    "Settings": "设置",
    "Seed (torch.manual_seed before each method; empty = random)": "随机种子（每种方法前调用 torch.manual_seed；留空 = 随机）",
    "Timing": "计时",
    "Latency and throughput": "延迟与吞吐量",
    "Running…": "运行中…",
    "Starting…": "正在开始…",
    "**Stopped** before it started.": "开始前已 **停止**。",
    "⚠ That example is in a study being rated, so Compare will not run it until the study is published.": (
        "⚠ 该示例属于正在评分的研究，研究发布前“对比”不会运行它。"
    ),
    # arena/language.py: the warning for a Chinese prompt on an English-only model (after its name)
    "is trained on English only, so a Chinese prompt gets an English or off-topic answer. For Chinese, "
    "start the app with the multilingual Gemma 3 270M: `python app.py --model gemma-3-270m` (docs/models.md).": (
        "只用英文训练，中文提示词会得到英文或离题的回答。要用中文，请用多语言的 Gemma 3 270M 启动应用："
        "`python app.py --model gemma-3-270m`（docs/models.md）。"
    ),
}
for _english, _chinese in DIMENSIONS_ZH.items():
    for _letter in LETTERS:
        ZH[f"{_english} ({_letter})"] = f"{_chinese}（{_letter}）"
for _letter in LETTERS:
    ZH[f"Comment on {_letter} (optional)"] = f"对 {_letter} 的评论（可选）"
    ZH[f"Response {_letter}"] = f"回答 {_letter}"

I18N = gr.I18n(zh=ZH)
# Gradio strips a Markdown value's outer whitespace (the default guidelines end with a newline).
_STRIPPED = {english.strip(): english for english in ZH}
# What `translate` marks: these attributes of any component; `value` only where it is the text shown.
TEXT_ATTRS = ("label", "info", "placeholder")
VALUE_TYPES = (gr.Markdown, gr.Button)


def key_of(text: Any) -> str | None:
    """The table's key for `text` (itself, or the key it is with outer whitespace stripped), else None."""
    if not isinstance(text, str):
        return None
    return text if text in ZH else _STRIPPED.get(text.strip())


def t(text: Any) -> Any:
    """`text` marked for the browser to translate when the table has it, else `text` unchanged."""
    key = key_of(text)
    return text if key is None else str(I18N(key))


def plain(text: Any) -> Any:
    """The English of a marked text (what a test or a log wants), else `text` unchanged."""
    if isinstance(text, str) and text.startswith(MARK):
        try:
            return json.loads(text[len(MARK) :])["key"]
        except (ValueError, KeyError, TypeError):
            return text
    return text


MARK = "__i18n__"


def reads(value: Any, english: str) -> bool:
    """Whether a value the browser sent back (English, Chinese, or still marked) is the text `english`."""
    return value in (english, ZH.get(english), t(english))


def translate(demo: gr.Blocks) -> int:
    """Mark every static text of `demo` that has a Chinese entry; returns how many were marked.

    Choices are left as they are: Gradio looks a choice's plain text up in the table itself."""
    marked = 0
    for block in demo.blocks.values():
        attrs = TEXT_ATTRS + (("value",) if isinstance(block, VALUE_TYPES) else ())
        for attr in attrs:
            value = getattr(block, attr, None)
            if key_of(value) is not None:
                setattr(block, attr, t(value))
                marked += 1
    return marked
