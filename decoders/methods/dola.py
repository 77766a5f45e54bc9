"""DoLa: decoding by contrasting layers (Chuang et al. 2024), our own step loop (decoders/dola.py); the same
tokens as transformers 4.55's `generate(dola_layers=..., repetition_penalty=...)` (tested against recorded ids)."""

from transformers import LogitsProcessor, RepetitionPenaltyLogitsProcessor

from ..base import DecodeContext, Decoder, GenerationPlan, InvalidSettings, Param
from ..dola import DoLaDecoding
from ..order import processor_order
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    if ctx.model is None:
        raise InvalidSettings("DoLa drives the model itself and needs DecodeContext.model")
    dola = DoLaDecoding(ctx.model, s["dola_layers"], eos_token_id=ctx.tokenizer.eos_token_id)
    # The repetition penalty acts on the contrast scores, as in transformers' DoLa.
    kwargs = {"repetition_penalty": s["repetition_penalty"]}
    penalties = processor_order(kwargs)
    effective = {
        "do_sample": False,
        "dola_layers": s["dola_layers"],
        "candidate_layers": dola.layers,
        "repetition_penalty": s["repetition_penalty"],
        "premature_logits": "the output head on the layer's hidden state, without the final norm (as transformers)",
        "processor_order": ["DoLa contrast (relative top 0.1)", *penalties],
    }
    processors: list[LogitsProcessor] = (
        [RepetitionPenaltyLogitsProcessor(s["repetition_penalty"])] if s["repetition_penalty"] != 1.0 else []
    )
    return GenerationPlan(generate_kwargs={}, logits_processors=processors, effective=effective, custom_generate=dola)


register(
    Decoder(
        name="DoLa",
        description="DoLa (high layers, repetition penalty 1.2): greedy on what the last layer knows that an "
        "earlier layer did not. Deterministic.",
        params=(
            Param(
                "dola_layers",
                "high",
                kind="choice",
                choices=("high", "low"),
                label="premature layers",
                help="which half of the model's layers the final layer is contrasted with",
            ),
            Param(
                "repetition_penalty",
                1.2,
                "float",
                1.0,
                3.0,
                0.05,
                label="repetition penalty",
                help="transformers recommends 1.2 with DoLa; 1 = off",
            ),
        ),
        plan_fn=plan,
        stochastic=False,
        family="playground",
    )
)
