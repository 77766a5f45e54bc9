"""Repetition penalty (Keskar et al. 2019, CTRL) on top of TS-Temp's sampling, via generate's
`repetition_penalty` (transformers' RepetitionPenaltyLogitsProcessor; it also penalises prompt tokens)."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    kwargs = {
        "do_sample": True,
        "temperature": s["temperature"],
        "top_p": s["top_p"],
        "top_k": s["top_k"],
        "repetition_penalty": s["repetition_penalty"],
    }
    effective = {
        **sampling_effective(kwargs),
        "repetition_penalty": s["repetition_penalty"],
        "repetition_penalty_scope": "prompt and generated tokens (transformers' behaviour)",
    }
    return GenerationPlan(generate_kwargs=kwargs, effective=effective)


register(
    Decoder(
        name="Repetition-Penalty",
        description="TS-Temp's sampling with a repetition penalty of 1.2 on every token already present.",
        params=(
            Param(
                "repetition_penalty",
                1.2,
                "float",
                1.0,
                3.0,
                0.05,
                label="repetition penalty",
                help="positive logits ÷ θ, negative × θ for tokens already seen; 1 turns it off",
            ),
            Param("temperature", 0.9, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param("top_p", 0.95, "float", 0.05, 1.0, 0.01, label="top-p"),
            Param("top_k", 50, "int", 0, 1000, 1, label="top-k", help="generate's default 50, as TS-Temp; 0 = off"),
        ),
        plan_fn=plan,
        family="playground",
    )
)
