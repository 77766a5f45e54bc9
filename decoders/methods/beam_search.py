"""BS-4: beam search with the article's settings."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    kwargs = {
        "do_sample": False,
        "num_beams": s["num_beams"],
        "length_penalty": s["length_penalty"],
        "early_stopping": s["early_stopping"],
        "no_repeat_ngram_size": s["no_repeat_ngram_size"],
        "num_return_sequences": 1,
    }
    return GenerationPlan(generate_kwargs=kwargs, effective=dict(kwargs))


register(
    Decoder(
        name="BS-4",
        description="Beam search, 4 beams, no repeated 3-grams: deterministic and safe, can be bland.",
        params=(
            Param("num_beams", 4, "int", 1, 16, 1, label="beams"),
            Param(
                "length_penalty",
                1.0,
                "float",
                -2.0,
                2.0,
                0.1,
                label="length penalty",
                help=">1 favours longer outputs, <1 shorter ones",
            ),
            Param("early_stopping", True, "bool", label="early stopping"),
            Param(
                "no_repeat_ngram_size",
                3,
                "int",
                0,
                10,
                1,
                label="no-repeat n-gram size",
                help="0 turns n-gram blocking off",
            ),
        ),
        plan_fn=plan,
        stochastic=False,
        streams=False,  # transformers' generate refuses a streamer with beam search
    )
)
