"""Mirostat-v2: Mirostat 2.0 (Basu et al. 2021; llama.cpp `mirostat-v2`): truncate to tokens whose surprise
is at most μ and move μ so that the sampled tokens' surprise averages τ (decoders/samplers.py)."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register
from ..samplers import MirostatV2LogitsWarper
from ..truncation import sampling_plan_parts


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    # Mirostat samples from its own truncation, so it is last; T comes before it, as in llama.cpp.
    kwargs, processors = sampling_plan_parts(s, lambda: MirostatV2LogitsWarper(s["tau"], s["eta"]))
    effective = {
        **sampling_effective(kwargs),
        "temperature": s["temperature"],
        "mirostat_tau": s["tau"],
        "mirostat_eta": s["eta"],
        "mu_start": 2 * s["tau"],
    }
    return GenerationPlan(generate_kwargs=kwargs, logits_processors=processors, effective=effective)


register(
    Decoder(
        name="Mirostat-v2",
        description="Mirostat 2.0 (τ=5 bits, η=0.1, T=1): adapts its cut-off so the text's surprise stays near "
        "τ bits per token.",
        params=(
            Param("temperature", 1.0, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param(
                "tau",
                5.0,
                "float",
                0.0,
                20.0,
                0.1,
                label="τ (bits)",
                help="target surprise per token; lower = more focused text",
            ),
            Param("eta", 0.1, "float", 0.0, 1.0, 0.01, label="η", help="how fast μ follows the target"),
        ),
        plan_fn=plan,
        family="playground",
    )
)
