"""Routed (article 003, §4.2): classify the prompt's task, then use that task's preset.

Where the runner gives the prompt's text (`DecodeContext.prompt`), routing happens while
planning, so the chosen preset is known before generation. Otherwise the prompt is decoded from
`input_ids` when generation starts (chat-template text included) and the plan's `effective`
settings are completed then, before the runner records them.
"""

from __future__ import annotations

from typing import Any

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register
from ..routing import PRESETS, TASKS, Route, classify


def routed_settings(s: dict, route: Route) -> tuple[dict[str, Any], dict[str, Any]]:
    """(generate kwargs, effective settings) for the routed task, honouring `greedy_<task>`."""
    preset = dict(PRESETS[route.task])
    ngram = preset.pop("no_repeat_ngram_size", 0)
    info = route.as_dict()
    if s[f"greedy_{route.task}"]:
        kwargs: dict[str, Any] = {"do_sample": False, "num_beams": 1}
        effective: dict[str, Any] = dict(kwargs)
        info["sampling"] = (
            f"disabled for {route.task} (greedy_{route.task}=true): greedy instead of the preset {preset}"
        )
    else:
        kwargs = {"do_sample": True, **preset}
        effective = sampling_effective(kwargs)
        info["sampling"] = f"the article's preset for {route.task}"
    if ngram:
        kwargs["no_repeat_ngram_size"] = ngram
        effective["no_repeat_ngram_size"] = ngram
    return kwargs, {"route": info, **effective}


class _RouteWhenCalled:
    """`custom_generate` used when the plan has no prompt text: routes on the decoded prompt."""

    def __init__(self, plan: GenerationPlan, settings: dict, ctx: DecodeContext):
        self.plan, self.settings, self.ctx = plan, settings, ctx

    def __call__(self, input_ids, **kwargs):
        text = self.ctx.tokenizer.decode(input_ids[0].tolist(), skip_special_tokens=True)
        route = classify(text)
        route = Route(route.task, route.reason + " (in the decoded prompt, chat template included)")
        gen_kwargs, effective = routed_settings(self.settings, route)
        self.plan.effective.update(effective)
        kwargs.pop("do_sample", None)
        return self.ctx.model.generate(input_ids=input_ids, **{**kwargs, **gen_kwargs})


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    if s["task"] != "auto":
        kwargs, effective = routed_settings(s, Route(s["task"], f"task chosen by hand: {s['task']}"))
        return GenerationPlan(generate_kwargs=kwargs, effective=effective)
    prompt = getattr(ctx, "prompt", None)
    if prompt:
        kwargs, effective = routed_settings(s, classify(prompt))
        return GenerationPlan(generate_kwargs=kwargs, effective=effective)
    plan_ = GenerationPlan(generate_kwargs={}, effective={"route": "decided when generation starts"})
    plan_.custom_generate = _RouteWhenCalled(plan_, s, ctx)
    return plan_


register(
    Decoder(
        name="Routed",
        description="Task routing: math / code / summary / chat by a visible keyword rule, then the article's preset.",
        params=(
            Param(
                "task",
                "auto",
                "choice",
                choices=("auto",) + TASKS,
                label="task",
                help="auto = keyword rule on the prompt (en/zh); or force one task's preset",
            ),
            *(
                Param(
                    f"greedy_{t}",
                    False,
                    "bool",
                    label=f"no sampling for {t}",
                    help=f"decode {t} prompts greedily (e.g. strict formats, high-risk domains)",
                )
                for t in TASKS
            ),
        ),
        plan_fn=plan,
        family="article-003",
    )
)
