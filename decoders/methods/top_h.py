"""Top-H (Potraghloo et al. 2025, "Top-H Decoding: Adapting the Creativity and Coherence with Bounded
Entropy in Text Generation"), transformers' `TopHLogitsWarper` through `generate(top_h=h)`: the most
likely tokens are kept, in order, while their cumulative entropy term stays within h × the entropy of
the (top-100) distribution."""

from transformers import TopHLogitsWarper

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register
from ..truncation import sampling_plan_parts, temperature_param


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    kwargs, processors = sampling_plan_parts(s, lambda: TopHLogitsWarper(s["top_h"]), cut_kwargs={"top_h": s["top_h"]})
    effective = {
        **sampling_effective(kwargs),
        "temperature": s["temperature"],
        "top_h": s["top_h"],
        "top_h_candidates": 100,  # TopHLogitsWarper looks at the 100 most likely tokens only
        "temperature_position": s["temperature_position"],
    }
    return GenerationPlan(generate_kwargs=kwargs, logits_processors=processors, effective=effective)


register(
    Decoder(
        name="Top-H",
        description="Top-H sampling (h=0.4, T=1): keeps the likeliest tokens while their entropy stays within "
        "h times the distribution's.",
        params=(
            Param("temperature", 1.0, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param(
                "top_h",
                0.4,
                "float",
                0.01,
                1.0,
                0.01,
                label="top-H h",
                help="fraction of the distribution's entropy the kept tokens may carry; 1 keeps the top 100",
            ),
            temperature_param(),
        ),
        plan_fn=plan,
        family="playground",
    )
)
