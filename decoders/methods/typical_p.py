"""Typical-p (locally typical sampling, Meister et al. 2022) via transformers' TypicalLogitsWarper."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    kwargs = {"do_sample": True, "temperature": s["temperature"], "typical_p": s["typical_p"], "top_k": 0, "top_p": 1.0}
    return GenerationPlan(generate_kwargs=kwargs, effective={**sampling_effective(kwargs), "typical_p": s["typical_p"]})


register(
    Decoder(
        name="Typical-p",
        description="Locally typical sampling (p=0.95): keeps tokens whose surprise is close to the expected one.",
        params=(
            Param("temperature", 1.0, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param("typical_p", 0.95, "float", 0.01, 1.0, 0.01, label="typical-p", help="1.0 turns it off"),
        ),
        plan_fn=plan,
        family="playground",
    )
)
