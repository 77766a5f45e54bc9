"""DRY, don't repeat yourself (p-e-w, text-generation-webui #5677; koboldcpp; llama.cpp `dry`) on top of
TS-Temp's sampling: a token that would extend a repeat of the context is penalised by the repeat's
length, multiplier · base^(length − allowed_length) (decoders/samplers.py)."""

import json

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register
from ..samplers import DRYLogitsProcessor, breaker_token_ids

DEFAULT_BREAKERS = ["\n", ":", '"', "*"]  # llama.cpp's and text-generation-webui's defaults


def breakers_text(value: str) -> str:
    """The breakers as canonical JSON (a list of strings), or ValueError with a message for the user."""
    try:
        items = json.loads(value)
    except json.JSONDecodeError:
        raise ValueError('write the breakers as a JSON list of strings, e.g. ["\\n", ":"]') from None
    if not isinstance(items, list) or not all(isinstance(b, str) and b for b in items):
        raise ValueError("the breakers must be a JSON list of non-empty strings")
    if any(len(b) > 40 for b in items):
        raise ValueError("a breaker is at most 40 characters long (as in llama.cpp)")
    return json.dumps(items, ensure_ascii=False)


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    breakers = json.loads(s["sequence_breakers"])
    ids = breaker_token_ids(ctx.tokenizer, breakers) if ctx.tokenizer is not None else []
    dry = DRYLogitsProcessor(s["multiplier"], s["base"], s["allowed_length"], s["penalty_last_n"], ids)
    kwargs = {"do_sample": True, "temperature": s["temperature"], "top_p": s["top_p"], "top_k": s["top_k"]}
    effective = {
        **sampling_effective(kwargs),
        "dry_multiplier": s["multiplier"],
        "dry_base": s["base"],
        "dry_allowed_length": s["allowed_length"],
        "dry_penalty_last_n": s["penalty_last_n"],
        "dry_sequence_breakers": breakers,
        "dry_scope": "the last penalty_last_n tokens, prompt included (-1: all)",
    }
    return GenerationPlan(generate_kwargs=kwargs, logits_processors=[dry], effective=effective)


register(
    Decoder(
        name="DRY",
        description="TS-Temp's sampling with DRY (0.8 × 1.75^(n−2)): penalises a token by how long a stretch of "
        "the text it would repeat.",
        params=(
            Param("multiplier", 0.8, "float", 0.0, 5.0, 0.05, label="DRY multiplier", help="0 turns DRY off"),
            Param("base", 1.75, "float", 1.0, 4.0, 0.05, label="DRY base", help="growth per repeated token"),
            Param(
                "allowed_length",
                2,
                "int",
                1,
                20,
                1,
                label="allowed length",
                help="repeats up to this many tokens go unpenalised",
            ),
            Param(
                "penalty_last_n",
                -1,
                "int",
                -1,
                8192,
                1,
                label="tokens searched",
                help="how many of the last tokens are searched for repeats; -1 = all, 0 = off",
            ),
            Param(
                "sequence_breakers",
                json.dumps(DEFAULT_BREAKERS),
                kind="text",
                maximum=400,
                label="sequence breakers (JSON)",
                help="a repeat never runs across a token whose text contains one of these",
                normalize=breakers_text,
            ),
            Param("temperature", 0.9, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param("top_p", 0.95, "float", 0.05, 1.0, 0.01, label="top-p"),
            Param("top_k", 50, "int", 0, 1000, 1, label="top-k", help="generate's default 50, as TS-Temp; 0 = off"),
        ),
        plan_fn=plan,
        family="playground",
    )
)
