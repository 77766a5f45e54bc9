"""TS-Temp: temperature plus nucleus (top-p) sampling."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    # top_k is passed explicitly: left unset, generate would silently apply top_k=50.
    kwargs = {"do_sample": True, "temperature": s["temperature"], "top_p": s["top_p"], "top_k": s["top_k"]}
    return GenerationPlan(generate_kwargs=kwargs, effective=sampling_effective(kwargs))


register(
    Decoder(
        name="TS-Temp",
        description="Temperature + nucleus sampling (T=0.9, top-p=0.95): varied, fluent, can wander.",
        params=(
            Param("temperature", 0.9, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param("top_p", 0.95, "float", 0.05, 1.0, 0.01, label="top-p"),
            Param(
                "top_k",
                50,
                "int",
                0,
                1000,
                1,
                label="top-k",
                help="transformers' default 50, which the article's runs used too; 0 turns it off",
            ),
        ),
        plan_fn=plan,
    )
)
