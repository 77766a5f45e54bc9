"""TS-Tilted: sampling from logits/T − λ·S(w), with S a token-frequency prior."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param
from ..priors import PRIORS, build_prior
from ..processors import TiltedLogitsProcessor
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    prior = build_prior(ctx.tokenizer, s["prior"], ctx.logits_size, ctx.device, ctx.cache_dir)
    tilt = TiltedLogitsProcessor(s["temperature"], s["alpha"], prior)
    # The tilt is a bias (−λ·T·S); generate runs it before its own TemperatureLogitsWarper(T), then
    # top-k/top-p: (logits − λ·T·S)/T = logits/T − λS, so with λ = 0 this is TS-Temp's call.
    kwargs = {"do_sample": True, "temperature": s["temperature"], "top_p": s["top_p"], "top_k": s["top_k"]}
    effective = {
        "do_sample": True,
        "temperature": s["temperature"],
        "temperature_applied": "by generate's TemperatureLogitsWarper, after the tilt's bias −λ·T·S, before top-k/top-p",
        "alpha": s["alpha"],
        "prior": s["prior"],
        "top_k": s["top_k"],
        "top_p": s["top_p"],
    }
    return GenerationPlan(generate_kwargs=kwargs, logits_processors=[tilt], effective=effective)


register(
    Decoder(
        name="TS-Tilted",
        description="Frequency-tilted sampling (T=0.8, λ=0.15): pushes probability from common to rarer words.",
        params=(
            Param("temperature", 0.8, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param(
                "alpha",
                0.15,
                "float",
                0.0,
                2.0,
                0.01,
                label="tilt λ",
                help="0 = plain sampling; larger = stronger push away from frequent tokens",
            ),
            Param(
                "prior",
                "wordfreq",
                "choice",
                choices=PRIORS,
                label="prior S(w)",
                help="wordfreq: centred log word frequency (en+zh); common-tokens: the article's list, 2·λ each",
            ),
            Param("top_p", 1.0, "float", 0.05, 1.0, 0.01, label="top-p"),
            Param(
                "top_k",
                50,
                "int",
                0,
                1000,
                1,
                label="top-k",
                help="transformers' default 50, as in the article's runs; 0 turns it off",
            ),
        ),
        plan_fn=plan,
    )
)
