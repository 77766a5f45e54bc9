"""XTC, exclude top choices (p-e-w, text-generation-webui #6335; llama.cpp `xtc`): with some probability,
drop every token above a threshold except the least likely of them (decoders/samplers.py)."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register
from ..samplers import XTCLogitsWarper
from ..truncation import LAST, sampling_plan_parts, temperature_param


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    kwargs, processors = sampling_plan_parts(s, lambda: XTCLogitsWarper(s["threshold"], s["probability"]))
    effective = {
        **sampling_effective(kwargs),
        "temperature": s["temperature"],
        "xtc_threshold": s["threshold"],
        "xtc_probability": s["probability"],
        "temperature_position": s["temperature_position"],
    }
    return GenerationPlan(generate_kwargs=kwargs, logits_processors=processors, effective=effective)


register(
    Decoder(
        name="XTC",
        description="XTC (threshold 0.1, probability 0.5, T=1): half the time, drops the likeliest tokens above "
        "10% but keeps the least likely of them.",
        params=(
            Param("temperature", 1.0, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param(
                "threshold",
                0.1,
                "float",
                0.0,
                0.5,
                0.01,
                label="XTC threshold",
                help="a token at least this likely is a top choice (above 0.5 nothing could be removed)",
            ),
            Param(
                "probability",
                0.5,
                "float",
                0.0,
                1.0,
                0.05,
                label="XTC probability",
                help="how often the top choices are removed; 0 = off",
            ),
            temperature_param(LAST),  # llama.cpp's order: xtc, then temperature
        ),
        plan_fn=plan,
        family="playground",
    )
)
