"""Greedy: the most probable token at every step (transformers' greedy search)."""

from ..base import DecodeContext, Decoder, GenerationPlan
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    kwargs = {"do_sample": False, "num_beams": 1}
    return GenerationPlan(generate_kwargs=kwargs, effective=dict(kwargs))


register(
    Decoder(
        name="Greedy",
        description="Greedy decoding: always the most probable next token. Deterministic; often repetitive.",
        params=(),
        plan_fn=plan,
        stochastic=False,
        family="playground",
    )
)
