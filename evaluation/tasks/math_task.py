"""The math task's checker: the final number of the answer within 0.5% of 24π + 30 ≈ 105.40 (cm²).

Half of a cylinder (r = 3 cm, h = 5 cm) cut along its axis has two half-discs (together πr² = 9π),
half of the side (πrh = 15π) and the rectangular cut face (2rh = 30): 24π + 30 ≈ 105.40 cm². The
article's "corrected" 91.23 cm² counts one half-disc only.

What is checked, and nothing else:
  * the answer's *final value*: the text is read as runs of numbers, π and + − × · / ( ) ² (e.g.
    "24π + 30", "105.40", "3.14×9/2"), each evaluated exactly; the final value is the last run
    followed by an area unit (cm², cm^2, 平方厘米, square centimetres …), else the last run after
    "=" or "≈", else the last run;
  * that it lies within 0.5% of 24π + 30 (104.87 … 105.93), so 105.4, 105.36 (π as 3.14) and
    "24π + 30" pass;
  * a unit is not required, but a final value written with a volume or length unit (cm³, cm) fails.
The working is not checked: a right final number after wrong steps passes.
"""

from __future__ import annotations

import math
import re

from .verdict import Verdict

EXPECTED = 24 * math.pi + 30  # 105.398…
TOLERANCE = 0.005

_TOKEN = re.compile(
    r"(?P<num>\d+(?:\.\d+)?)|(?P<pi>π|Π|\\pi\b|\bpi\b)|(?P<pow>²|\^\s*\{?\s*2\s*\}?)"
    r"|(?P<op>[+\-−×*·÷/]|\\times\b|\\cdot\b)|(?P<open>[(（]|\\left\()|(?P<close>[)）]|\\right\))|(?P<space>[ \t]+)",
    re.IGNORECASE,
)
_AREA_UNIT = re.compile(
    r"\s*(?:\\[,; ]|\\text\{\s*|\\mathrm\{\s*|\{)*\s*"
    r"(?:cm\s*\}?\s*(?:²|\^\s*\{?\s*2|2\b)|平方厘米|厘米\s*[²2]|square\s+centimet(?:er|re)s?|sq\.?\s*cm)",
    re.IGNORECASE,
)
_OTHER_UNIT = re.compile(
    r"\s*(?:\\[,; ]|\\text\{\s*|\\mathrm\{\s*|\{)*\s*(?:cm\s*\}?\s*(?:³|\^\s*\{?\s*3|3\b)|立方厘米|厘米|cm\b|centimet)",
    re.IGNORECASE,
)
_BEFORE = re.compile(r"(?:=|≈|≒|约|为|是|:|：|\bis|\bequals|\\approx)\s*$", re.IGNORECASE)


def _runs(text: str) -> list[tuple[int, int, list[tuple[str, str]]]]:
    """Maximal runs of math tokens: (start, end, [(kind, text)]) with at least one number or π."""
    runs, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        leading_minus = bool(
            m and m.lastgroup == "op" and m.group() in "-−" and re.match(r"\s*[\d(（π]", text[m.end() :])
        )
        if not m or (m.lastgroup in ("space", "pow", "op", "close") and not leading_minus):
            pos += 1 if not m else m.end() - m.start()
            continue
        start, tokens, ends = pos, [], []
        while m:
            if m.lastgroup != "space":
                tokens.append((str(m.lastgroup), m.group()))
                ends.append(m.end())
            pos = m.end()
            m = _TOKEN.match(text, pos)
        while tokens and tokens[-1][0] in ("op", "open"):  # "30 +", "1 (": drop what dangles at the end
            tokens.pop()
            ends.pop()
        if any(k in ("num", "pi") for k, _ in tokens):
            runs.append((start, ends[-1], tokens))
    return runs


def evaluate(tokens: list[tuple[str, str]]) -> float | None:
    """The value of a run by precedence climbing (+ −; × · * / ÷; implicit product "24π"; ²), or None.
    Parentheses left open at the end ("(9π + 15π + 30", an answer cut off) are closed there."""
    items = list(tokens)
    unclosed = sum(1 for k, _ in items if k == "open") - sum(1 for k, _ in items if k == "close")
    items += [("close", ")")] * max(0, unclosed)
    at = 0

    def peek() -> tuple[str, str] | None:
        return items[at] if at < len(items) else None

    def take() -> tuple[str, str]:
        nonlocal at
        at += 1
        return items[at - 1]

    def atom() -> float:
        tok = peek()
        if tok is None:
            raise ValueError("missing operand")
        kind, value = take()
        if kind == "num":
            x = float(value)
        elif kind == "pi":
            x = math.pi
        elif kind == "open":
            x = expr()
            if peek() is None or peek()[0] != "close":  # type: ignore[index]
                raise ValueError("unbalanced")
            take()
        elif kind == "op" and value in "-−":
            return -atom()
        else:
            raise ValueError(f"unexpected {value!r}")
        while peek() is not None and peek()[0] == "pow":  # type: ignore[index]
            take()
            x = x**2
        return x

    def product() -> float:
        x = atom()
        while True:
            tok = peek()
            if tok is None:
                return x
            kind, value = tok
            if kind == "op" and value.strip("\\") in ("×", "*", "·", "times", "cdot"):
                take()
                x *= atom()
            elif kind == "op" and value in "/÷":
                take()
                x /= atom()
            elif kind in ("num", "pi", "open"):  # "24π", "2(3+5)"
                x *= atom()
            else:
                return x

    def expr() -> float:
        x = product()
        while peek() is not None and peek()[0] == "op" and peek()[1] in "+-−":  # type: ignore[index]
            sign = take()[1]
            y = product()
            x = x + y if sign == "+" else x - y
        return x

    try:
        value = expr()
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return value if at == len(items) and math.isfinite(value) else None


def final_value(text: str) -> tuple[float, str, str, int] | None:
    """(value, the run as written, which rule picked it, where the run ends), or None without a number."""
    runs = []
    for start, end, tokens in _runs(text):
        value = evaluate(tokens)
        if value is None:  # not one expression: its last number stands for it
            nums = [v for k, v in tokens if k == "num"]
            if not nums:
                continue
            value = float(nums[-1])
            start = text.rfind(nums[-1], start, end)
            end = start + len(nums[-1])
        runs.append((start, end, value))
    if not runs:
        return None
    with_unit = [r for r in runs if _AREA_UNIT.match(text, r[1])]
    after_sign = [r for r in runs if _BEFORE.search(text[max(0, r[0] - 12) : r[0]])]
    if with_unit:
        start, end, value = with_unit[-1]
        rule = "the last value with an area unit"
    elif after_sign:
        start, end, value = after_sign[-1]
        rule = 'the last value after "=" or "≈"'
    else:
        start, end, value = runs[-1]
        rule = "the last value in the text"
    return value, text[start:end].strip(), rule, end


def check(text: str) -> Verdict:
    found = final_value(text or "")
    if found is None:
        return Verdict(False, "no number in the answer", "no number")
    value, written, rule, end = found
    off = abs(value - EXPECTED) / EXPECTED
    other_unit = bool(_OTHER_UNIT.match(text, end)) and not _AREA_UNIT.match(text, end)
    shown = f"'{written}'" + ("" if re.fullmatch(r"\d+(?:\.\d+)?", written) else f" = {value:.2f}")
    details = {"value": value, "written": written, "rule": rule, "relative_error": off}
    if off > TOLERANCE:
        return Verdict(
            False, f"final value {shown} ({rule}) is {off:.1%} off 24π + 30 ≈ 105.40 cm²", "wrong value", details
        )
    if other_unit:
        return Verdict(
            False, f"final value {shown} is right but written with a unit that is not an area", "wrong unit", details
        )
    return Verdict(True, f"final value {shown} ({rule}) is within 0.5% of 24π + 30 ≈ 105.40 cm²", "right", details)
