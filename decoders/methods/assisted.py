"""Assisted: greedy decoding of the target model, with a second, smaller model drafting tokens.

The drafting model proposes `num_assistant_tokens` tokens; the target scores them in one forward pass
and keeps the longest prefix it would have chosen greedily, plus its own next token, so the output is
the target's greedy output token for token (tested). When the two models have different tokenizers
(Gemma 3 drafted by SmolLM2) transformers re-tokenizes the drafts as text between them (universal
assisted generation: `assistant_model`, `tokenizer`, `assistant_tokenizer`). It pays only where the
drafter is much cheaper than the target and often right; one sequence at a time, in process only.
"""

from ..base import DecodeContext, Decoder, GenerationPlan, InvalidSettings, Param
from ..registry import register

ASSISTANTS = ("smollm2-135m", "gemma-3-270m")
AUTO = "auto"  # the first of ASSISTANTS that is not the model itself


def same_vocabulary(a, b) -> bool:
    return len(a) == len(b) and a.get_vocab() == b.get_vocab()


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    if ctx.model is None or ctx.assistant is None:
        raise InvalidSettings("Assisted runs a second model beside this one and needs DecodeContext.model")
    name = s["assistant"]
    for candidate in ASSISTANTS if name == AUTO else (name,):
        draft, draft_tokenizer = ctx.assistant(candidate)
        if draft is not ctx.model:
            name = candidate
            break
    else:
        raise InvalidSettings(f"the assistant {name!r} is the model itself; choose another drafting model")
    kwargs = {
        "do_sample": False,
        "num_beams": 1,
        "assistant_model": draft,
        "num_assistant_tokens": s["num_assistant_tokens"],
    }
    if not same_vocabulary(draft_tokenizer, ctx.tokenizer):
        kwargs.update(tokenizer=ctx.tokenizer, assistant_tokenizer=draft_tokenizer)
    effective = {
        "do_sample": False,
        "num_beams": 1,
        "assistant": name,
        "num_assistant_tokens": s["num_assistant_tokens"],
    }
    return GenerationPlan(generate_kwargs=kwargs, effective=effective, batchable=False)


register(
    Decoder(
        name="Assisted",
        description=(
            "Greedy decoding of this model with a second model drafting tokens that this one checks in one pass. "
            "Same tokens as Greedy; faster only where the drafter is much cheaper and often right (not on a CPU "
            "with the two embedded models: docs/models.md)."
        ),
        params=(
            Param(
                "assistant",
                AUTO,
                kind="choice",
                choices=(AUTO, *ASSISTANTS),
                label="drafting model",
                help="an embedded model other than this one (auto: SmolLM2, or Gemma when this is SmolLM2)",
            ),
            Param(
                "num_assistant_tokens",
                5,
                kind="int",
                minimum=1,
                maximum=32,
                label="draft tokens",
                help="tokens drafted per step",
            ),
        ),
        plan_fn=plan,
        stochastic=False,
        family="playground",
    )
)
