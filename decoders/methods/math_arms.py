"""Math-Arms (article 003, §5.1, the math task): Multi-Arm's machinery with the article's math arms
(Explorer T=0.92 / top-p=0.96, Stabilizer T=0.35 / top-k=12), its backtrack trigger, and its
verifier check as the rule that picks the answer.

* The trigger, as the article states it: once an arm has written "表面积=" ("surface area ="),
  the next 2 tokens must contain "+" or "="; if they do not, the arm backtracks (as Multi-Arm does:
  to its last anchor, re-exploring at a higher T, within `max_backtracks`). Multi-Arm's own
  triggers (log-prob variance, a falling score) stay on. Taken literally it also fires on right
  sums: SmolLM2's tokenizer writes "= 9π + 15π" as "=", " ", "9", "π", " +" …, so the 2 tokens
  after the sign are " " and "9" (docs/tasks.md); `sum_trigger=false` turns it off.
* The check ("Verifier: 是否包含切面面积计算"): does an answer mention the cut face (切面,
  矩形, rectangle, 2rh, 2×3×5 …)? It reads words, not numbers: an answer can mention the cut
  face and still add up wrong. The answer is the best-scoring arm among those that pass (any arm
  when none does); the scores are Multi-Arm's, from the model's own signals, not a trained model.
"""

from __future__ import annotations

import re

from ..base import DecodeContext, Decoder, GenerationPlan, InvalidSettings, Param
from ..multiarm import ArmConfig, MultiArmGenerator, MultiArmSettings, SignalVerifier
from ..registry import register

MARKERS = ("表面积=", "表面积＝", "surfacearea=")
SUM_SIGNS = ("+", "=", "＋", "＝")
CUT_FACE = re.compile(
    r"切面|截面|剖面|矩形|长方形|rectangle|rectangular|cut face|cut surface|flat face|cross[- ]section"
    r"|2\s*[×x*·]?\s*r\s*[×x*·]?\s*h|2\s*[×x*·]\s*3\s*[×x*·]\s*5|6\s*[×x*·]\s*5",
    re.IGNORECASE,
)
TAIL_TOKENS = 24  # enough tokens to hold a marker, even at three byte tokens per Chinese character


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


class SumTrigger:
    """The article's §5.1 trigger: a marker, then 2 tokens with no "+" or "=" → a reason to backtrack."""

    def __init__(self, tokenizer, after: int = 2):
        self.tokenizer, self.after = tokenizer, int(after)

    def reason(self, path: list[int]) -> str | None:
        if len(path) <= self.after:
            return None
        raw = self.tokenizer.decode(path[-self.after - TAIL_TOKENS : -self.after], skip_special_tokens=True)
        head = _compact(raw)
        marker = next((m for m in MARKERS if head.endswith(m)), None)
        if marker is None or raw != raw.rstrip():  # the 2 tokens count from the sign itself, spaces included
            return None
        tail = self.tokenizer.decode(path[-self.after :], skip_special_tokens=True)
        if any(sign in tail for sign in SUM_SIGNS):
            return None
        return f"{self.after} tokens after {marker!r} with no '+' or '=' ({tail!r}): the article's §5.1 trigger"

    def __call__(self, paths: list[list[int]]) -> list[str | None]:
        return [self.reason(p) for p in paths]


class CutFaceCheck:
    """The article's §5.1 verifier check: the answer mentions the cut face (words, not numbers)."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    def __call__(self, paths: list[list[int]]) -> list[bool]:
        return [bool(CUT_FACE.search(self.tokenizer.decode(p, skip_special_tokens=True))) for p in paths]


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    if ctx.model is None:
        raise InvalidSettings("Math-Arms drives the model itself and needs DecodeContext.model")
    cfg = MultiArmSettings(
        arms=(
            ArmConfig("Explorer", s["explorer_temperature"], 0, s["explorer_top_p"]),
            ArmConfig("Stabilizer", s["stabilizer_temperature"], s["stabilizer_top_k"], 1.0),
        ),
        max_backtracks=s["max_backtracks"],
    )
    verifier = SignalVerifier()
    generator = MultiArmGenerator(
        ctx.model,
        cfg,
        verifier,
        eos_token_id=ctx.tokenizer.eos_token_id,
        trigger=SumTrigger(ctx.tokenizer) if s["sum_trigger"] else None,
        prefer=CutFaceCheck(ctx.tokenizer) if s["prefer_cut_face"] else None,
    )
    effective = {
        "arms": {a.name: {"temperature": a.temperature, "top_k": a.top_k, "top_p": a.top_p} for a in cfg.arms},
        "kv_cache": "prompt computed once, cache repeated to one row per arm",
        "verifier": verifier.describe(),
        "backtrack": (
            (
                "after '表面积=' / 'surface area =', 2 tokens without '+' or '=' (article §5.1); "
                if s["sum_trigger"]
                else ""
            )
            + f"log-prob variance over {cfg.variance_tokens} tokens > {cfg.variance_threshold} or score falling "
            f">{cfg.drop_fraction:.0%} two steps in a row; back to the last anchor, T + {cfg.reexplore_boost}; "
            f"at most {cfg.max_backtracks} per arm"
        ),
        "answer": (
            "the best-scoring arm among those that mention the cut face (words, not numbers); any arm if none does"
            if s["prefer_cut_face"]
            else "the arm with the highest mean verifier score"
        ),
    }
    return GenerationPlan(
        generate_kwargs={},
        effective=effective,
        custom_generate=generator,
        notes="the verifier is not the article's trained 200M model; the cut-face check reads words only",
    )


register(
    Decoder(
        name="Math-Arms",
        description="The article's math setting: Explorer (T=0.92, top-p=0.96) and Stabilizer (T=0.35, top-k=12) "
        "arms, its '表面积=' backtrack trigger, and a preference for answers that mention the cut face.",
        params=(
            Param("explorer_temperature", 0.92, "float", 0.05, 2.0, 0.01, label="Explorer T"),
            Param("explorer_top_p", 0.96, "float", 0.05, 1.0, 0.01, label="Explorer top-p"),
            Param("stabilizer_temperature", 0.35, "float", 0.05, 2.0, 0.01, label="Stabilizer T"),
            Param("stabilizer_top_k", 12, "int", 1, 1000, 1, label="Stabilizer top-k"),
            Param(
                "sum_trigger",
                True,
                "bool",
                label="'表面积=' trigger",
                help="backtrack when 'surface area =' is not followed by '+' or '=' within 2 tokens (article)",
            ),
            Param(
                "prefer_cut_face",
                True,
                "bool",
                label="prefer answers naming the cut face",
                help="the article's verifier check, as a word rule",
            ),
            Param("max_backtracks", 3, "int", 0, 20, 1, label="backtracks per arm"),
        ),
        plan_fn=plan,
        streams=False,  # which arm's text is the answer is known only at the end
        family="article-003",
    )
)
