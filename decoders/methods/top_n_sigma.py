"""Top-nSigma: top-nσ (Tang et al. 2024, "Top-nσ: Not All Logits Are You Need"; llama.cpp `top-n-sigma`):
keep the tokens whose logit is within n standard deviations of the largest (decoders/samplers.py)."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register
from ..samplers import TopNSigmaLogitsWarper
from ..truncation import sampling_plan_parts


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    # The cut is on logits and scales with them, so it keeps the same tokens before or after T: no order
    # choice; T first, as in the paper.
    kwargs, processors = sampling_plan_parts(s, lambda: TopNSigmaLogitsWarper(s["n"]))
    effective = {
        **sampling_effective(kwargs),
        "temperature": s["temperature"],
        "n_sigma": s["n"],
        "temperature_position": "first (the kept set is the same either way)",
    }
    return GenerationPlan(generate_kwargs=kwargs, logits_processors=processors, effective=effective)


register(
    Decoder(
        name="Top-nSigma",
        description="Top-nσ sampling (n=1, T=1): keeps tokens whose logit is within n standard deviations of the "
        "top one, at any temperature.",
        params=(
            Param("temperature", 1.0, "float", 0.05, 3.0, 0.05, label="temperature"),
            Param(
                "n",
                1.0,
                "float",
                0.0,
                5.0,
                0.05,
                label="n (σ)",
                help="how many standard deviations of the logits below the top one a token may be; 0 = off",
            ),
        ),
        plan_fn=plan,
        family="playground",
    )
)
