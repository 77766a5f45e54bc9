"""The summary task's checker: the length limit, and which of the source paper's key facts it keeps.

The source is arena/inputs/paper.py (a fictional one-season irrigation trial, zh and en). What is checked,
and nothing else:
  * length: at most 200 characters (Unicode code points of the answer, stripped at both ends;
    spaces and punctuation count);
  * the five key facts below, each found by its figures or its words in either language (a fact is
    kept if any of its patterns matches): the water saving is required, and at least 3 of the 5:
      - water: 23% less water than the timer (3,120 vs 4,050 m³/ha);
      - baseline: the comparison is the farm's timer schedule;
      - yield: not significantly lower (17.8 vs 18.1 kg/m², p = 0.41);
      - productivity: water productivity up 28% (44.7 → 57.1 kg/m³);
      - limits: a limitation (one season / greenhouse, sensor drift of 3.5 points, 17% node failures);
  * no invented figures: every number written with digits must be a number of the prompt (small
    whole numbers up to 10 are exempt: they are often words in the source, "one season").
Fluency, order, language and whether a kept fact is stated *correctly* beyond its figures are not
checked: "water use rose 23%" keeps the figure and passes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.inputs.prompts import SUMMARY_LIMIT_CHARS, TASK_SCENARIOS

from .verdict import Verdict


@dataclass(frozen=True)
class KeyFact:
    key: str
    says: str  # the fact in a few words, for the reason
    patterns: tuple[str, ...]

    def found(self, text: str) -> bool:
        return any(re.search(p, text, re.IGNORECASE) for p in self.patterns)


_N = r"(?<![\d.,])"  # a figure starts here: not in the middle of another number
KEY_FACTS: tuple[KeyFact, ...] = (
    KeyFact(
        "water",
        "water −23%",
        (
            _N + r"23\s*(?:%|％|percent|per cent|个?百分点)",
            r"百分之二十三",
            _N + r"3,?120(?![\d]).*?4,?050|4,?050.*?3,?120",
        ),
    ),
    KeyFact("baseline", "the timer baseline", (r"timer|fixed[- ]?(?:time|schedule)|schedule", r"定时|时间表")),
    KeyFact(
        "yield",
        "yield not significantly lower",
        (
            _N + r"17\.8(?!\d)",
            _N + r"18\.1(?!\d)",
            r"0\.41(?!\d)",
            r"yield.{0,40}(?:not significant|no significant|unchanged|similar|maintained|comparable|same)",
            r"(?:no|not|without)\s+(?:a\s+)?significant.{0,30}yield",
            r"产量.{0,20}(?:不显著|无显著|没有显著|基本不变|持平|相当|相近)",
        ),
    ),
    KeyFact(
        "productivity",
        "water productivity +28%",
        (_N + r"28\s*(?:%|％|percent|per cent)", r"百分之二十八", _N + r"57\.1(?!\d)", _N + r"44\.7(?!\d)"),
    ),
    KeyFact(
        "limits",
        "a limitation",
        (
            r"one[- ]season|single season|one greenhouse|drift|calibrat|fail|durab|not (?:yet )?tested",
            r"一个生长季|一季|单季|一座温室|漂移|校准|失灵|故障|耐久|未经检验",
            _N + r"3\.5(?!\d)",
            _N + r"17\s*(?:%|％)",
        ),
    ),
)
REQUIRED = ("water",)
MIN_FACTS = 3
SMALL_NUMBERS = 10

_NUMBER = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d])|(?<![\d.,])\d+(?:\.\d+)?(?![\d])")


def numbers(text: str) -> list[float]:
    """The figures written with digits ("3,120" is 3120; "1.6" is 1.6)."""
    return [float(m.replace(",", "")) for m in _NUMBER.findall(text)]


_SOURCE_NUMBERS = frozenset(n for s in TASK_SCENARIOS if s.key == "summary-paper" for n in numbers(s.prompt))


def invented(text: str) -> list[str]:
    """Figures of `text` that the prompt does not contain (whole numbers up to 10 exempt)."""
    out = []
    for m in _NUMBER.finditer(text):
        value = float(m.group().replace(",", ""))
        if value in _SOURCE_NUMBERS or (value == int(value) and value <= SMALL_NUMBERS):
            continue
        out.append(m.group())
    return out


def check(text: str, limit: int = SUMMARY_LIMIT_CHARS) -> Verdict:
    summary = (text or "").strip()
    n = len(summary)
    kept = [f for f in KEY_FACTS if f.found(summary)]
    missed = [f for f in KEY_FACTS if f not in kept]
    extra = invented(summary)
    kept_keys = [f.key for f in kept]
    details = {"characters": n, "limit": limit, "kept": kept_keys, "invented": extra}
    facts = f"keeps {len(kept)} of {len(KEY_FACTS)} key facts" + (
        f": {', '.join(f.says for f in kept)}" if kept else ""
    )
    if missed:
        facts += f"; misses {', '.join(f.says for f in missed)}"
    if not summary:
        return Verdict(False, "empty answer", "empty", details)
    failed = []
    if n > limit:
        failed.append("too long")
    if any(k not in kept_keys for k in REQUIRED) or len(kept) < MIN_FACTS:
        failed.append(f"misses key facts (needs the water saving and at least {MIN_FACTS})")
    if extra:
        failed.append("invented figures")
    figures = f"figures not in the source: {', '.join(extra[:5])}" if extra else "no figures that are not in the source"
    reason = f"{n} characters (limit {limit}); {facts}; {figures}"
    if failed:
        return Verdict(False, f"{' and '.join(failed)}: {reason}", failed[0].split(" (")[0], details)
    return Verdict(True, reason, "right", details)
