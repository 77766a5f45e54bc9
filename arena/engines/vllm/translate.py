"""A method's plan as a vLLM server's sampling fields: pure, no server needed.

A method maps to the server's sampling parameters through its own plan (the decoder registry is
the single source of settings): temperature, top_p, top_k, min_p, repetition_penalty, seed,
max_tokens; `no_repeat_ngram_size` and the tilt go to this repository's logits processors
(`serving/vllm_arena.py`, loaded by the server with `--logits-processors`) through `vllm_xargs`;
beam search goes to vLLM's beam-search API (`use_beam_search`). Anything a plan needs that the
server cannot do exactly (another logits processor, a custom generation loop, typical_p, n-gram
blocking inside beam search) is refused with `UserError` before any request is sent; nothing is
approximated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from transformers import SequenceBiasLogitsProcessor, TemperatureLogitsWarper

import decoders
from arena.model.llm import LoadedModel, decode_context
from common.errors import UserError
from decoders import GenerationPlan
from decoders.order import ORDER_KEY
from decoders.processors import TiltedLogitsProcessor
from decoders.recording import stage_name

# vllm_xargs understood by serving/vllm_arena.py
XARG_ALPHA = "arena_tilt_alpha"
XARG_PRIOR = "arena_tilt_prior"
XARG_NGRAM = "arena_no_repeat_ngram_size"

# generate() keywords a plan may use, and what becomes of each on the server
SAMPLING_KEYS = {
    "do_sample",
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "repetition_penalty",
    "no_repeat_ngram_size",
    "num_beams",
    "max_new_tokens",
}
BEAM_KEYS = {
    "do_sample",
    "num_beams",
    "length_penalty",
    "early_stopping",
    "no_repeat_ngram_size",
    "num_return_sequences",
    "max_new_tokens",
}


def refuse(method: str, why: str) -> UserError:
    return UserError(
        f"{method} cannot run on the vLLM engine: {why}. Nothing was approximated; run it with "
        f"ARENA_ENGINE=transformers, or choose other methods."
    )


def plan_on_engine(
    lm: LoadedModel,
    method: str,
    overrides: Mapping[str, Any] | None,
    prompt_length: int,
    max_new_tokens: int,
    prompt: str = "",
) -> GenerationPlan:
    """The method's plan, made without a model in reach (a model-driving decoder refuses here)."""
    decoder = decoders.get(method)
    ctx = decode_context(lm, prompt_length, max_new_tokens, prompt, with_model=False)
    settings = decoder.resolve(overrides)  # bad settings are the user's error, whatever the engine
    try:
        return decoder.plan(settings, ctx)
    except decoders.InvalidSettings as exc:
        if "DecodeContext.model" in str(exc):
            raise refuse(
                method, "it drives the model itself, step by step, which a server's API does not expose"
            ) from None
        raise


def translate(method: str, plan: GenerationPlan) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """(sampling part of the request body, settings that ran, is_beam_search), or `UserError`."""
    if plan.custom_generate is not None:
        raise refuse(method, "it has its own generation loop (not expressible as server sampling parameters)")
    kw = dict(plan.generate_kwargs)
    effective = dict(plan.effective)
    xargs: dict[str, Any] = {}
    tilt = None
    for proc in plan.logits_processors:
        if type(proc) is TiltedLogitsProcessor and tilt is None:
            tilt = proc
        elif isinstance(proc, SequenceBiasLogitsProcessor):
            raise refuse(
                method,
                "vLLM has no sequence bias (its logit_bias biases single tokens at every step, bad_words bans "
                "phrases instead of penalising them), so the verbose-phrase penalty cannot run there; set "
                "phrase_penalty=0 to run the instruction alone, which is exact",
            )
        else:
            raise refuse(method, unmapped_processor(plan.logits_processors))
    num_beams = int(kw.get("num_beams", 1) or 1)
    ngram = int(kw.get("no_repeat_ngram_size", 0) or 0)
    if num_beams > 1:
        unknown = set(kw) - BEAM_KEYS
        if unknown:
            raise refuse(method, f"beam search with {', '.join(sorted(unknown))} is not in vLLM's beam-search API")
        if kw.get("do_sample"):
            raise refuse(method, "beam sampling is not in vLLM's beam-search API")
        if ngram > 0:
            raise refuse(
                method,
                f"vLLM's beam-search API has no n-gram blocking (no_repeat_ngram_size={ngram}); "
                f"set no_repeat_ngram_size=0 to use it",
            )
        if int(kw.get("num_return_sequences", 1) or 1) != 1:
            raise refuse(method, "only one returned sequence is supported")
        body: dict[str, Any] = {
            "use_beam_search": True,
            "n": num_beams,
            "length_penalty": float(kw.get("length_penalty", 1.0)),
            "temperature": 1.0,
        }
        effective.pop("early_stopping", None)
        effective.update(
            num_beams=num_beams,
            length_penalty=body["length_penalty"],
            no_repeat_ngram_size=0,
            early_stopping="n/a: vLLM's beam search runs until max_tokens, keeping beams that ended "
            "at end-of-sequence, and returns the best by length-penalised log-prob",
        )
        effective[ORDER_KEY] = []  # vLLM's beam search ranks the model's log-probabilities as they are
        return body, effective, True
    unknown = set(kw) - SAMPLING_KEYS
    if unknown:
        named = ", ".join(KNOWN_UNMAPPED.get(k, k) for k in sorted(unknown))
        raise refuse(method, f"{named} has no exact counterpart in vLLM's sampling parameters")
    if kw.get("do_sample", False):
        temperature = float(kw.get("temperature", 1.0))
        top_k = int(kw.get("top_k", 50))  # generate's default when sampling; plans pass it explicitly
        top_p = float(kw.get("top_p", 1.0))
        min_p = float(kw.get("min_p", 0.0) or 0.0)
        if min_p > 0 and top_p < 1.0:
            raise refuse(method, "min-p together with top-p runs in a different order on vLLM (min-p first)")
        if tilt is not None:
            # The tilt is the bias −λ·T·S before the temperature; ArenaTilt rebuilds it from the request's T.
            if tilt.temperature != temperature:
                raise refuse(
                    method, f"its tilt was built for T={tilt.temperature}, the request samples at T={temperature}"
                )
            if tilt.alpha != 0.0:  # λ = 0 is plain temperature sampling: nothing for the processor to do
                xargs[XARG_ALPHA] = tilt.alpha
                xargs[XARG_PRIOR] = str(effective.get("prior", "wordfreq"))
        body = {"temperature": temperature, "top_k": top_k if top_k > 0 else 0, "top_p": top_p, "min_p": min_p}
    else:
        if tilt is not None:
            raise refuse(method, "the tilt without sampling")
        body = {"temperature": 0.0, "top_k": 0, "top_p": 1.0, "min_p": 0.0}
    body["repetition_penalty"] = float(kw.get("repetition_penalty", 1.0) or 1.0)
    body["presence_penalty"] = 0.0
    body["frequency_penalty"] = 0.0
    if ngram > 0:
        xargs[XARG_NGRAM] = ngram
    if xargs:
        body["vllm_xargs"] = xargs
    effective[ORDER_KEY] = server_order(body, xargs)
    return body, effective, False


def server_order(body: Mapping[str, Any], xargs: Mapping[str, Any]) -> list[str]:
    """The stages the server runs, in vLLM's order (its v1 sampler): this repository's processors (not
    argmax-invariant, so before the penalties), the repetition penalty, then, when it samples, the
    temperature, min-p, top-k and top-p."""
    order = []
    if XARG_ALPHA in xargs:
        order.append(f"tilt λ={xargs[XARG_ALPHA]:g}")
    if XARG_NGRAM in xargs:
        order.append(f"no-repeat n-gram {xargs[XARG_NGRAM]}")
    if body.get("repetition_penalty", 1.0) != 1.0:
        order.append(f"repetition penalty {body['repetition_penalty']:g}")
    if body.get("temperature", 0.0) == 0.0:
        return order
    if body["temperature"] != 1.0:
        order.append(f"temperature {body['temperature']:g}")
    if body.get("min_p"):
        order.append(f"min-p {body['min_p']:g}")
    if body.get("top_k"):
        order.append(f"top-k {body['top_k']}")
    if body.get("top_p", 1.0) < 1.0:
        order.append(f"top-p {body['top_p']:g}")
    return order


# generate() keywords with no vLLM counterpart, as the refusal names them
KNOWN_UNMAPPED = {
    "epsilon_cutoff": "ε-sampling (epsilon_cutoff)",
    "eta_cutoff": "η-sampling (eta_cutoff)",
    "top_h": "top-H (top_h)",
    "typical_p": "typical_p",
}


def unmapped_processor(processors: list[Any]) -> str:
    """Why a plan's own processors cannot run on the server, naming the sampler that is not there."""
    named = [p for p in processors if not isinstance(p, (TemperatureLogitsWarper, TiltedLogitsProcessor))]
    if not named:  # a temperature placed among the plan's processors: an order vLLM does not have
        return "its temperature runs after its cut (temperature_position=last); vLLM applies it first"
    first = named[0]
    return f"its {stage_name(first)} ({type(first).__name__}) has no counterpart in vLLM's sampling parameters"
