"""Prompt-Lookup: greedy decoding that drafts tokens by copying from the prompt, then verifies them.

Where the last `max_matching_ngram_size` generated tokens also occur earlier in the text, the
`prompt_lookup_num_tokens` tokens that followed them there are proposed as a draft; one forward pass
scores the whole draft and keeps the longest prefix that greedy decoding would have chosen, plus the
model's own next token. The output is the model's greedy output, token for token (tested); only the
number of forward passes changes, which pays where outputs copy from their prompt (summaries, edits,
code). transformers' `generate(prompt_lookup_num_tokens=...)`, one prompt at a time.
"""

from ..base import DecodeContext, Decoder, GenerationPlan, Param
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    kwargs = {
        "do_sample": False,
        "num_beams": 1,
        "prompt_lookup_num_tokens": s["prompt_lookup_num_tokens"],
        "max_matching_ngram_size": s["max_matching_ngram_size"],
    }
    # Assisted generation runs one sequence at a time: studies generate this method prompt by prompt.
    return GenerationPlan(generate_kwargs=kwargs, effective=dict(kwargs), batchable=False)


register(
    Decoder(
        name="Prompt-Lookup",
        description=(
            "Greedy decoding that drafts tokens copied from the prompt and checks them in one pass. Same tokens "
            "as Greedy; fewer forward passes where the output repeats the prompt, slower elsewhere (docs/models.md)."
        ),
        params=(
            Param(
                "prompt_lookup_num_tokens",
                10,
                kind="int",
                minimum=1,
                maximum=64,
                label="draft tokens",
                help="tokens copied from the prompt as one draft",
            ),
            Param(
                "max_matching_ngram_size",
                2,
                kind="int",
                minimum=1,
                maximum=8,
                label="n-gram to match",
                help="longest run of recent tokens looked up in the prompt",
            ),
        ),
        plan_fn=plan,
        stochastic=False,
        family="playground",
    )
)
