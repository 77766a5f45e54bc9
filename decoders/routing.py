"""Task routing (article 003, §4.2): classify the prompt, then use that task's sampling preset.

The article uses a 5M-parameter task classifier that it does not publish. This router is a
transparent rule instead: ordered keyword / regular-expression rules in English and Chinese,
and the first rule that matches decides. Its `reason` names the rule and the text it matched,
so the choice can always be checked by reading the prompt.

Order of the rules (first match wins):
  1. summary — an explicit request to summarise ("summarize", "TL;DR", "总结", "摘要" …),
     first because a text to be summarised may contain code or numbers;
  2. code — programming words or code-like text ("python", "function", "```", "def ", "代码" …);
  3. math — arithmetic or math words ("3 + 4", "solve", "equation", "计算", "方程", "面积" …;
     not 计算机 "computer" or 量子计算 "quantum computing");
  4. chat — everything else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

TASKS = ("math", "code", "summary", "chat")

# The article's recommended pairs (§2 and §4.2). top_k=0 / top_p=1.0 mean "off": they are spelled
# out because generate would otherwise apply its default top_k=50.
PRESETS: dict[str, dict[str, Any]] = {
    "math": {"temperature": 0.85, "top_p": 0.95, "top_k": 0},
    "code": {"temperature": 0.3, "top_p": 1.0, "top_k": 20},
    "summary": {"temperature": 0.6, "top_p": 0.9, "top_k": 0},
    "chat": {"temperature": 0.45, "top_p": 1.0, "top_k": 15, "no_repeat_ngram_size": 3},
}

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "summary",
        re.compile(
            r"\b(summari[sz]e|summary|tl;?dr|key points|main points|condense|in a nutshell|abstract of)\b"
            r"|总结|摘要|概括|归纳|提炼|要点",
            re.IGNORECASE,
        ),
    ),
    (
        "code",
        re.compile(
            r"```|\bdef\s+\w+\s*\(|#include\b|\b(python|javascript|typescript|java|rust|golang|c\+\+|sql|regex"
            r"|function|code|script|compile|debug|bug|api|class|method|algorithm|implement)\b"
            r"|代码|函数|编程|程序|脚本|算法|调试|编译",
            re.IGNORECASE,
        ),
    ),
    (
        "math",
        re.compile(
            r"\d+\s*[-+*/×÷^=]\s*\d+|\b(solve|equation|calculate|compute|integral|derivative|probability|prove"
            r"|theorem|math|arithmetic|how many|how much|area|volume|percent)\b"
            r"|(?<!量子)(?<!云)(?<!边缘)计算(?!机)|求解|方程|面积|体积|周长|概率|证明|数学|几何|等于|多少",
            re.IGNORECASE,
        ),
    ),
)


@dataclass(frozen=True)
class Route:
    task: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"task": self.task, "reason": self.reason}


def classify(prompt: str) -> Route:
    """The prompt's task and the rule that decided it.

    >>> classify("Write a Python function that reverses a list").as_dict()
    {'task': 'code', 'reason': "code rule matched 'Python'"}
    >>> classify("你好，今天过得怎么样？").task
    'chat'
    """
    for task, pattern in _RULES:
        match = pattern.search(prompt)
        if match:
            return Route(task, f"{task} rule matched {match.group(0)!r}")
    return Route("chat", "no summary, code or math rule matched: chat by default")
