"""TS-Tilted-Adaptive (article 000, §5.1): TS-Tilted plus a penalty on tokens repeated in the
last few generated tokens."""

from transformers import TemperatureLogitsWarper

from ..base import DecodeContext, Decoder, GenerationPlan, Param
from ..priors import PRIORS
from ..processors import RecentRepetitionPenaltyLogitsProcessor
from ..registry import register
from .ts_tilted import plan as tilted_plan

PENALTY_FACTOR = 5.0  # the article's `base_alpha * 5.0`


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    tilted = tilted_plan(s, ctx)
    penalty = PENALTY_FACTOR * s["alpha"]
    # The article subtracts the penalty from logits/T − λS, so the temperature must come before it:
    # the stock warper moves from generate (which would run it last) into the list, after the tilt.
    tilted.generate_kwargs["temperature"] = 1.0
    tilted.logits_processors += [
        TemperatureLogitsWarper(s["temperature"]),
        RecentRepetitionPenaltyLogitsProcessor(s["history_window"], penalty, ctx.prompt_length),
    ]
    tilted.effective.update(
        temperature_applied="a TemperatureLogitsWarper after the tilt's bias −λ·T·S, before the repetition penalty "
        "and top-k/top-p (generate temperature=1)",
        history_window=s["history_window"],
        repeat_limit=f"more than {s['history_window'] // 2} of the last {s['history_window']} generated tokens",
        repeat_penalty=penalty,
    )
    return tilted


register(
    Decoder(
        name="TS-Tilted-Adaptive",
        description="TS-Tilted (T=0.8, λ=0.1) plus a 5·λ penalty on tokens filling over half of the last 5 generated.",
        params=(
            Param("temperature", 0.8, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param(
                "alpha",
                0.1,
                "float",
                0.0,
                2.0,
                0.01,
                label="tilt λ (base_alpha)",
                help="the tilt strength; the repetition penalty is 5·λ, as in the article",
            ),
            Param(
                "history_window",
                5,
                "int",
                1,
                64,
                1,
                label="history window",
                help="how many recent generated tokens are counted",
            ),
            Param("prior", "wordfreq", "choice", choices=PRIORS, label="prior S(w)"),
            Param("top_p", 1.0, "float", 0.05, 1.0, 0.01, label="top-p"),
            Param("top_k", 50, "int", 0, 1000, 1, label="top-k", help="generate's default 50, as TS-Tilted; 0 = off"),
        ),
        plan_fn=plan,
        family="article-000",
    )
)
