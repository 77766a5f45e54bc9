"""Top-k: temperature, then sampling among the k most probable tokens (transformers' TopKLogitsWarper)."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    # top_p=1.0 spelled out so that only top-k cuts the distribution.
    kwargs = {"do_sample": True, "temperature": s["temperature"], "top_k": s["top_k"], "top_p": 1.0}
    return GenerationPlan(generate_kwargs=kwargs, effective=sampling_effective(kwargs))


register(
    Decoder(
        name="Top-k",
        description="Top-k sampling (k=40, T=1): samples among the k most likely tokens, whatever their mass.",
        params=(
            Param("temperature", 1.0, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param("top_k", 40, "int", 1, 1000, 1, label="top-k"),
        ),
        plan_fn=plan,
        family="playground",
    )
)
