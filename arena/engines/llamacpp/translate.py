"""A method's plan as llama.cpp stages: pure, no llama.cpp needed.

transformers' `generate` turns a plan into one list of logits processors, always in the same
order: its own processors (repetition penalty, n-gram blocking, bad words), then the plan's own
processors (the tilt, the schedules...), then, when it samples, its warpers (temperature, top-k,
top-p, min-p, typical-p), then a draw or the argmax. This module builds that same list, one
`Stage` per entry, from the tables below (one entry per `generate` keyword: adding a sampler is
adding an entry), with the same defaults (`generate` samples with top_k=50 unless told otherwise).

Each stage is the transformers processor itself, so a stage can always run exactly, in Python, on
the step's logits (a "hook"); a stage that llama.cpp also implements natively carries its native
sampler as well (`native`). llama.cpp's samplers shrink the candidate list as they go, while a hook
needs every token's logit in id order, so hooks can only run before native samplers: every stage up
to the last one that has no native counterpart runs as a hook, the rest natively, in order
(`EnginePlan.hooks`, `EnginePlan.natives`). Beam search runs its processors as hooks on the
log-probabilities, as transformers' beam search does (beams.py).

Anything else (a plan that drives the model itself, beam sampling, a keyword with no entry) is
refused with `UserError` before anything runs; nothing is approximated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from transformers import (
    EpsilonLogitsWarper,
    EtaLogitsWarper,
    LogitsProcessor,
    MinPLogitsWarper,
    NoBadWordsLogitsProcessor,
    NoRepeatNGramLogitsProcessor,
    RepetitionPenaltyLogitsProcessor,
    TemperatureLogitsWarper,
    TopHLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
    TypicalLogitsWarper,
)

import decoders
from arena.model.llm import LoadedModel, decode_context
from common.errors import UserError
from decoders import GenerationPlan
from decoders.processors import TiltedLogitsProcessor
from decoders.recording import stage_name

ENGINE = "llama.cpp"


def refuse(method: str, why: str) -> UserError:
    return UserError(
        f"{method} cannot run on the {ENGINE} engine: {why}. Nothing was approximated; run it with "
        f"ARENA_ENGINE=transformers, or choose other methods."
    )


@dataclass(frozen=True, eq=False)
class Stage:
    """One entry of the processor list: the transformers processor, and llama.cpp's own sampler
    that does the same where there is one: ("temp", T), ("top_k", k), ("top_p", p), ("min_p", p),
    ("typical", p), ("penalties", θ), ("logit_bias", bias vector)."""

    processor: LogitsProcessor
    native: tuple[Any, ...] | None = None

    @property
    def name(self) -> str:
        return stage_name(self.processor)


@dataclass(frozen=True)
class BeamSettings:
    num_beams: int
    length_penalty: float
    early_stopping: bool | str


@dataclass
class EnginePlan:
    """What runs on llama.cpp for one method: Python hooks on the full logits, then native samplers,
    then a seeded draw (`sample`) or the argmax; or, with `beams`, beam search with `hooks` on the
    log-probabilities."""

    method: str
    hooks: list[LogitsProcessor]
    natives: list[Stage]
    sample: bool
    stages: list[str]  # every stage's name, in order (the token view's columns after "model")
    effective: dict[str, Any]
    beams: BeamSettings | None = None
    eos_ids: tuple[int, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Rule:
    """One `generate` keyword: the stage it adds for a value (None: that value adds none)."""

    key: str
    build: Callable[[Any, Sequence[int]], Stage | None]


def _penalty(v: Any, eos: Sequence[int]) -> Stage | None:
    # generate passes the prompt's padding as prompt_ignore_length; an unpadded prompt has none
    return None if float(v) == 1.0 else Stage(RepetitionPenaltyLogitsProcessor(float(v)), ("penalties", float(v)))


def _ngram(v: Any, eos: Sequence[int]) -> Stage | None:
    return Stage(NoRepeatNGramLogitsProcessor(int(v))) if int(v or 0) > 0 else None


def _bad_words(v: Any, eos: Sequence[int]) -> Stage | None:
    return Stage(NoBadWordsLogitsProcessor(v, eos_token_id=list(eos))) if v else None


def _temperature(v: Any, eos: Sequence[int]) -> Stage | None:
    return None if float(v) == 1.0 else Stage(TemperatureLogitsWarper(float(v)), ("temp", float(v)))


def _top_k(v: Any, eos: Sequence[int]) -> Stage | None:
    return Stage(TopKLogitsWarper(int(v)), ("top_k", int(v))) if int(v) != 0 else None


def _top_p(v: Any, eos: Sequence[int]) -> Stage | None:
    return Stage(TopPLogitsWarper(float(v)), ("top_p", float(v))) if float(v) < 1.0 else None


def _min_p(v: Any, eos: Sequence[int]) -> Stage | None:
    return Stage(MinPLogitsWarper(float(v)), ("min_p", float(v))) if v is not None else None


def _typical(v: Any, eos: Sequence[int]) -> Stage | None:
    return Stage(TypicalLogitsWarper(float(v)), ("typical", float(v))) if float(v) < 1.0 else None


def _top_h(v: Any, eos: Sequence[int]) -> Stage | None:
    return Stage(TopHLogitsWarper(top_h=float(v))) if v is not None else None  # no llama.cpp counterpart: a hook


def _epsilon(v: Any, eos: Sequence[int]) -> Stage | None:
    return Stage(EpsilonLogitsWarper(epsilon=float(v))) if v is not None and 0.0 < float(v) < 1.0 else None


def _eta(v: Any, eos: Sequence[int]) -> Stage | None:
    return Stage(EtaLogitsWarper(epsilon=float(v), device="cpu")) if v is not None and 0.0 < float(v) < 1.0 else None


# transformers' `_get_logits_processor`, in its order: processors (always), the plan's own
# processors, then warpers (only when sampling).
PROCESSORS: tuple[Rule, ...] = (
    Rule("repetition_penalty", _penalty),
    Rule("no_repeat_ngram_size", _ngram),
    Rule("bad_words_ids", _bad_words),
)
WARPERS: tuple[Rule, ...] = (
    Rule("temperature", _temperature),
    Rule("top_h", _top_h),
    Rule("top_k", _top_k),
    Rule("top_p", _top_p),
    Rule("min_p", _min_p),
    Rule("typical_p", _typical),
    Rule("epsilon_cutoff", _epsilon),
    Rule("eta_cutoff", _eta),
)
# generate's global defaults for the keywords above (GenerationConfig._get_default_generation_params)
DEFAULTS: dict[str, Any] = {
    "repetition_penalty": 1.0,
    "no_repeat_ngram_size": 0,
    "bad_words_ids": None,
    "temperature": 1.0,
    "top_k": 50,
    "top_p": 1.0,
    "min_p": None,
    "typical_p": 1.0,
    "top_h": None,
    "epsilon_cutoff": 0.0,
    "eta_cutoff": 0.0,
    "do_sample": False,
    "num_beams": 1,
    "length_penalty": 1.0,
    "early_stopping": False,
    "num_return_sequences": 1,
}
CONTROL = {"do_sample", "num_beams", "max_new_tokens", "length_penalty", "early_stopping", "num_return_sequences"}
KNOWN = CONTROL | {r.key for r in PROCESSORS + WARPERS}


# A plan's own processor that llama.cpp also implements, by type: its native spec (sampling.py's
# NATIVE builds the sampler from it). One entry per processor; a type not here runs as a hook.
NATIVE_PROCESSORS: dict[type, Callable[[Any], tuple[Any, ...]]] = {
    TiltedLogitsProcessor: lambda p: ("logit_bias", p.bias),  # a static bias −λ·T·S, before the temperature
}


def custom_stage(processor: LogitsProcessor) -> Stage:
    """A plan's own processor: native where NATIVE_PROCESSORS has its type, else a hook."""
    native = NATIVE_PROCESSORS.get(type(processor))
    return Stage(processor, native(processor) if native is not None else None)


def merged(defaults: list[Stage], custom: list[Stage]) -> list[Stage]:
    """transformers' `_merge_criteria_processor_list`: a plan's processor of the same type as one
    generate made takes its place; the others follow generate's."""
    out = []
    for stage in defaults:
        same = next((c for c in custom if type(c.processor) is type(stage.processor)), None)
        out.append(same if same is not None else stage)
    return out + [c for c in custom if all(c is not o for o in out)]


def plan_stages(kw: Mapping[str, Any], processors: Sequence[LogitsProcessor], eos: Sequence[int]) -> list[Stage]:
    """The whole processor list of `generate(**kw, logits_processor=processors)`, as stages."""
    value = {**DEFAULTS, **kw}
    stages = [s for r in PROCESSORS if (s := r.build(value[r.key], eos)) is not None]
    stages = merged(stages, [custom_stage(p) for p in processors])
    if value["do_sample"]:
        stages += [s for r in WARPERS if (s := r.build(value[r.key], eos)) is not None]
    return stages


def split(stages: list[Stage]) -> tuple[list[LogitsProcessor], list[Stage]]:
    """(hooks, natives): every stage up to the last without a native sampler runs as a hook."""
    last_hook = max((i for i, s in enumerate(stages) if s.native is None), default=-1)
    return [s.processor for s in stages[: last_hook + 1]], stages[last_hook + 1 :]


def plan_on_engine(
    lm: LoadedModel,
    method: str,
    overrides: Mapping[str, Any] | None,
    prompt_length: int,
    max_new_tokens: int,
    prompt: str = "",
) -> GenerationPlan:
    """The method's plan, made without the transformers model in reach (a model-driving decoder refuses)."""
    decoder = decoders.get(method)
    ctx = decode_context(lm, prompt_length, max_new_tokens, prompt, with_model=False)
    settings = decoder.resolve(overrides)
    try:
        return decoder.plan(settings, ctx)
    except decoders.InvalidSettings as exc:
        if "DecodeContext.model" in str(exc):
            raise refuse(
                method,
                "it needs the transformers model in this process (to drive it step by step, or to run a drafting "
                "model beside it)",
            ) from None
        raise


def translate(
    method: str, plan: GenerationPlan, eos: Sequence[int], model_defaults: Mapping[str, Any] | None = None
) -> EnginePlan:
    """The plan as an `EnginePlan`, or `UserError`. `model_defaults`: the model's own
    generation_config values for the keywords above (generate uses them where the plan is silent)."""
    if plan.custom_generate is not None:
        raise refuse(method, "it has its own generation loop around transformers' generate")
    kw = {**(model_defaults or {}), **plan.generate_kwargs}
    unknown = sorted(set(plan.generate_kwargs) - KNOWN)
    if unknown:
        raise refuse(method, f"its generate() settings {', '.join(unknown)} have no counterpart on this engine")
    value = {**DEFAULTS, **kw}
    stages = plan_stages(kw, plan.logits_processors, eos)
    effective = dict(plan.effective)
    if int(value["num_beams"] or 1) > 1:
        if value["do_sample"]:
            raise refuse(method, "beam sampling is not implemented on this engine")
        if int(value["num_return_sequences"] or 1) != 1:
            raise refuse(method, "only one returned sequence is supported")
        beams = BeamSettings(int(value["num_beams"]), float(value["length_penalty"]), value["early_stopping"])
        hooks = [s.processor for s in stages]
        return EnginePlan(method, hooks, [], False, [s.name for s in stages], effective, beams, tuple(eos))
    hooks, natives = split(stages)
    return EnginePlan(
        method, hooks, natives, bool(value["do_sample"]), [s.name for s in stages], effective, None, tuple(eos)
    )


def model_defaults(lm: LoadedModel) -> dict[str, Any]:
    """The model's generation_config values for the keywords the tables know (None where unset)."""
    config = getattr(getattr(lm, "model", None), "generation_config", None)
    if config is None:
        return {}
    out = {}
    for key in KNOWN - {"max_new_tokens"}:
        value = getattr(config, key, None)
        if value is not None:
            out[key] = value
    return out


def bias_values(bias: torch.Tensor) -> list[tuple[int, float]]:
    """A dense logit bias as llama.cpp's (token, bias) pairs, zeros left out."""
    values = bias.float().cpu()
    nonzero = torch.nonzero(values).flatten().tolist()
    return [(int(i), float(values[i])) for i in nonzero]
