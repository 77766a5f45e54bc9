"""Dual-Threshold (article 003, §2.2): top-p, then logit > mean + std of the nucleus."""

from transformers import TemperatureLogitsWarper

from ..base import DecodeContext, Decoder, GenerationPlan, Param
from ..processors import DualThresholdLogitsWarper
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    # Temperature first (the nucleus depends on it), both as custom processors because generate
    # would run its own temperature after them; generate's own warpers are all switched off.
    processors = [TemperatureLogitsWarper(s["temperature"]), DualThresholdLogitsWarper(s["top_p"])]
    kwargs = {"do_sample": True, "temperature": 1.0, "top_p": 1.0, "top_k": 0}
    effective = {
        "do_sample": True,
        "temperature": s["temperature"],
        "top_p": s["top_p"],
        "second_threshold": "logit > mean + std (population) of the top-p set; the top token always kept",
        "top_k": 0,
        "order": "temperature → top-p → mean+std cut (generate's own warpers off)",
    }
    return GenerationPlan(generate_kwargs=kwargs, logits_processors=processors, effective=effective)


register(
    Decoder(
        name="Dual-Threshold",
        description="Top-p 0.95, then only tokens with logit above mean+std of that set: a narrow, safe core.",
        params=(
            Param("temperature", 1.0, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param("top_p", 0.95, "float", 0.05, 1.0, 0.01, label="top-p (first threshold)"),
        ),
        plan_fn=plan,
        family="article-003",
    )
)
