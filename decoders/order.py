"""The order in which a plan's logits processors run, and the one choice of order a decoder may offer.

`generate` builds its processor chain itself: the processors for its penalty keywords (repetition
penalty, n-gram blocking), then the ones a plan passes, then, when it samples, its warpers in a fixed
order (temperature, top-H, top-k, top-p, min-p, typical-p, ε, η; transformers' `_get_logits_processor`).
`chain` rebuilds that list from a plan's keywords without a model, and `processor_order` names its
stages the way the token view names them (`decoders.recording.stage_name`), so the order a plan
reports is the order the token view shows; `tests/test_sampler_order.py` runs every registered
decoder on the embedded model and checks the two agree.

Sampler order changes results: llama.cpp applies the temperature last by default (`--samplers`),
transformers first. A truncation sampler that offers `temperature_position` runs either way:
`decoders/truncation.py` builds both orders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from transformers import (
    EpsilonLogitsWarper,
    EtaLogitsWarper,
    MinPLogitsWarper,
    NoRepeatNGramLogitsProcessor,
    RepetitionPenaltyLogitsProcessor,
    TemperatureLogitsWarper,
    TopHLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
    TypicalLogitsWarper,
)

from .recording import is_passthrough, stage_name

ORDER_KEY = "processor_order"


def generate_chain(kwargs: Mapping[str, Any], processors: Sequence[Any] = ()) -> list[Any]:
    """The processors `generate` runs for these keywords and the plan's own `processors`, in its order
    (the keywords decoders use; the model's generation config adds nothing for the embedded models)."""
    out: list[Any] = []
    penalty = kwargs.get("repetition_penalty")
    if penalty is not None and penalty != 1.0:
        out.append(RepetitionPenaltyLogitsProcessor(float(penalty)))
    ngram = kwargs.get("no_repeat_ngram_size")
    if ngram:
        out.append(NoRepeatNGramLogitsProcessor(int(ngram)))
    out.extend(p for p in processors if not is_passthrough(p))
    if not kwargs.get("do_sample"):
        return out
    temperature = kwargs.get("temperature", 1.0)
    if temperature is not None and temperature != 1.0:
        out.append(TemperatureLogitsWarper(float(temperature)))
    if kwargs.get("top_h") is not None:
        out.append(TopHLogitsWarper(float(kwargs["top_h"])))
    top_k = kwargs.get("top_k", 50)
    if top_k:
        out.append(TopKLogitsWarper(int(top_k)))
    top_p = kwargs.get("top_p", 1.0)
    if top_p is not None and top_p < 1.0:
        out.append(TopPLogitsWarper(float(top_p)))
    if kwargs.get("min_p") is not None:
        out.append(MinPLogitsWarper(float(kwargs["min_p"])))
    typical = kwargs.get("typical_p", 1.0)
    if typical is not None and typical < 1.0:
        out.append(TypicalLogitsWarper(float(typical)))
    epsilon = kwargs.get("epsilon_cutoff")
    if epsilon is not None and 0.0 < epsilon < 1.0:
        out.append(EpsilonLogitsWarper(float(epsilon)))
    eta = kwargs.get("eta_cutoff")
    if eta is not None and 0.0 < eta < 1.0:
        out.append(EtaLogitsWarper(float(eta)))
    return out


def processor_order(kwargs: Mapping[str, Any], processors: Sequence[Any] = ()) -> list[str]:
    """The stages that run, in order, by the token view's names: ["temperature 0.9", "top-k 50", ...]."""
    return [stage_name(p) for p in generate_chain(kwargs, processors)]


def order_text(order: Sequence[str] | None) -> str:
    """One line for a table cell: "temperature 0.9 → top-k 50 → top-p 0.95"."""
    if order is None:
        return "n/a"
    return " → ".join(order) if order else "none (the model's own distribution)"
