"""Eta: η-sampling (Hewitt, Manning and Liang 2022), transformers' `EtaLogitsWarper` through
`generate(eta_cutoff=η)`: keep tokens with p > min(η, √η·exp(−H)), H the entropy of the distribution."""

from transformers import EtaLogitsWarper

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register
from ..truncation import sampling_plan_parts, temperature_param


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    kwargs, processors = sampling_plan_parts(
        s, lambda: EtaLogitsWarper(s["eta"], device=str(ctx.device)), cut_kwargs={"eta_cutoff": s["eta"]}
    )
    effective = {
        **sampling_effective(kwargs),
        "temperature": s["temperature"],
        "eta": s["eta"],
        "temperature_position": s["temperature_position"],
    }
    return GenerationPlan(generate_kwargs=kwargs, logits_processors=processors, effective=effective)


register(
    Decoder(
        name="Eta",
        description="η-sampling (η=9e-4, T=1): a cut-off that loosens when the model is unsure (high entropy).",
        params=(
            Param("temperature", 1.0, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param(
                "eta",
                9e-4,
                "float",
                1e-5,
                0.05,
                1e-5,
                label="η",
                help="the cut-off is min(η, √η·exp(−entropy)) (the paper: 3e-4 to 2e-3)",
            ),
            temperature_param(),
        ),
        plan_fn=plan,
        family="playground",
    )
)
