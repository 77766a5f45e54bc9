"""Min-p: keep tokens with probability ≥ min_p · p_max (transformers' MinPLogitsWarper)."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    # top_k=0 and top_p=1.0 turn generate's other cuts off (top_k would default to 50).
    kwargs = {"do_sample": True, "temperature": s["temperature"], "min_p": s["min_p"], "top_k": 0, "top_p": 1.0}
    return GenerationPlan(generate_kwargs=kwargs, effective={**sampling_effective(kwargs), "min_p": s["min_p"]})


register(
    Decoder(
        name="Min-p",
        description="Min-p sampling (p=0.1, T=1): keeps tokens at least 10% as likely as the top one.",
        params=(
            Param("temperature", 1.0, "float", 0.05, 3.0, 0.05, label="temperature"),
            Param(
                "min_p",
                0.1,
                "float",
                0.0,
                1.0,
                0.01,
                label="min-p",
                help="fraction of the top token's probability a token needs to stay; 0 turns it off",
            ),
        ),
        plan_fn=plan,
        family="playground",
    )
)
