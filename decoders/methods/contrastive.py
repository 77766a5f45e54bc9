"""Contrastive: contrastive search (Su et al. 2022), our own step loop (decoders/contrastive.py); the same
tokens as transformers 4.55's `generate(penalty_alpha=α, top_k=k)` (tested against recorded ids)."""

from ..base import DecodeContext, Decoder, GenerationPlan, InvalidSettings, Param
from ..contrastive import ContrastiveSearch
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    if ctx.model is None:
        raise InvalidSettings("Contrastive drives the model itself and needs DecodeContext.model")
    search = ContrastiveSearch(ctx.model, s["penalty_alpha"], s["top_k"], eos_token_id=ctx.tokenizer.eos_token_id)
    effective = {
        "do_sample": False,
        "penalty_alpha": s["penalty_alpha"],
        "top_k": s["top_k"],
        "choice": "argmax over the top-k of (1 − α)·p − α·max cosine similarity of the candidate's last hidden "
        "state with the context's",
        "processor_order": [f"top-k {s['top_k']} candidates", f"degeneration penalty α={s['penalty_alpha']:g}"],
    }
    return GenerationPlan(generate_kwargs={}, effective=effective, custom_generate=search)


register(
    Decoder(
        name="Contrastive",
        description="Contrastive search (α=0.6, k=4): of the 4 likeliest tokens, the one least like what is "
        "already written, in the model's own representation. Deterministic.",
        params=(
            Param(
                "penalty_alpha",
                0.6,
                "float",
                0.0,
                1.0,
                0.05,
                label="α (degeneration penalty)",
                help="weight of the similarity to the context; 0 = greedy",
            ),
            Param("top_k", 4, "int", 1, 50, 1, label="candidates k", help="each step runs k rows through the model"),
        ),
        plan_fn=plan,
        stochastic=False,
        family="playground",
    )
)
