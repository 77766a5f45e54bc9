"""TS-Decay (article 003, §4.4): sampling with T(t) = T_max·(1 - t/L)^γ."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param
from ..processors import TemperatureDecayLogitsWarper
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    decay = TemperatureDecayLogitsWarper(s["t_max"], s["gamma"], ctx.max_new_tokens, ctx.prompt_length, s["t_min"])
    kwargs = {"do_sample": True, "temperature": 1.0, "top_p": s["top_p"], "top_k": s["top_k"]}
    effective = {
        "do_sample": True,
        "temperature": f"max({s['t_min']}, {s['t_max']}·(1 - t/{ctx.max_new_tokens})^{s['gamma']})",
        "temperature_applied": "inside the schedule processor, before top-k/top-p (generate temperature=1)",
        "t_max": s["t_max"],
        "gamma": s["gamma"],
        "t_min": s["t_min"],
        "top_k": s["top_k"],
        "top_p": s["top_p"],
    }
    return GenerationPlan(generate_kwargs=kwargs, logits_processors=[decay], effective=effective)


register(
    Decoder(
        name="TS-Decay",
        description="Temperature decay T_max·(1-t/L)^γ (0.85, γ=1.5): explores early, settles towards the end.",
        params=(
            Param("t_max", 0.85, "float", 0.05, 2.0, 0.05, label="T max"),
            Param(
                "gamma",
                1.5,
                "float",
                0.0,
                5.0,
                0.1,
                label="γ",
                help="article: 1.5; math 1.2, poetry 1.8; 0 = constant T_max",
            ),
            Param("t_min", 0.1, "float", 0.01, 1.0, 0.01, label="T min", help="floor, so T stays > 0 at t = L"),
            Param("top_p", 1.0, "float", 0.05, 1.0, 0.01, label="top-p"),
            Param("top_k", 0, "int", 0, 1000, 1, label="top-k", help="0 = off (generate would default to 50)"),
        ),
        plan_fn=plan,
        family="article-003",
    )
)
