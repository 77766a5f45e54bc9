"""Epsilon: ε-sampling (Hewitt, Manning and Liang 2022, "Truncation Sampling as Language Model Desmoothing"),
transformers' `EpsilonLogitsWarper` through `generate(epsilon_cutoff=ε)`: keep the tokens with p ≥ ε."""

from transformers import EpsilonLogitsWarper

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register
from ..truncation import sampling_plan_parts, temperature_param


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    kwargs, processors = sampling_plan_parts(
        s, lambda: EpsilonLogitsWarper(s["epsilon"]), cut_kwargs={"epsilon_cutoff": s["epsilon"]}
    )
    effective = {
        **sampling_effective(kwargs),
        "temperature": s["temperature"],
        "epsilon": s["epsilon"],
        "temperature_position": s["temperature_position"],
    }
    return GenerationPlan(generate_kwargs=kwargs, logits_processors=processors, effective=effective)


register(
    Decoder(
        name="Epsilon",
        description="ε-sampling (ε=3e-4, T=1): drops every token less likely than ε, whatever the others do.",
        params=(
            Param("temperature", 1.0, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param(
                "epsilon",
                3e-4,
                "float",
                1e-5,
                0.05,
                1e-5,
                label="ε",
                help="the probability below which a token is dropped (the paper: 3e-4 to 9e-4)",
            ),
            temperature_param(),
        ),
        plan_fn=plan,
        family="playground",
    )
)
