"""The organizer's endpoints of the Python API: create a study, invite its raters. Both behind the
organizer password, checked first and throttled per client as on the Organizer tab
(ui/organizer/auth.py): without it nothing is read, generated or stored.

Each is the tab's own handler (ui/organizer/handlers.py) with the form filled from named parameters;
the answer is plain data: the study's number and state, the status lines, the raters' codes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

import gradio as gr

import decoders
from arena.model.llm import LoadedModel
from arena.runs.requests import DEFAULT_MAX_NEW_TOKENS
from arena.store import Store
from common.errors import UserError

from .. import AppContext
from ..organizer import handlers as h
from ..organizer.auth import check_request
from ..organizer.forms import DESIGNS, SOURCES, StudyForm
from .plain import plain_text

Model = Callable[[], LoadedModel]


def no_progress(*_: Any, **__: Any) -> None:
    """The tab's progress bar, which an API call has none of."""


def create_study(
    ctx: AppContext,
    store: Store,
    model: Model,
    model_names: list[str],
    request: gr.Request,
    organizer_password: str,
    name: str,
    prompts: list[str],
    methods: list[str] | None = None,
    samples_per_method: int = 1,
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
    guidelines: str = "",
    rubric: str | dict[str, Any] | None = None,
    design: Literal["scores", "pairwise"] = "scores",
) -> dict[str, Any]:
    """Create a study of `prompts` (one item each) rated blind over `methods` (none: the article's
    three), generate its outputs, and run the form and replay checks, as the Organizer's Create does.
    `rubric`: the study's own questions, as the creation form's rubric box takes them (JSON text, or
    the same as a dict; none: the default three 1-5 questions); `design`: "scores" (each response
    scored) or "pairwise" (A vs B votes)."""
    check_request(ctx, organizer_password, request)
    label = {v: k for k, v in DESIGNS.items()}.get(design or "scores")
    if label is None:
        raise UserError(f"design must be one of {', '.join(DESIGNS.values())}")
    rubric_text = json.dumps(rubric) if isinstance(rubric, (dict, list)) else rubric
    if not isinstance(prompts, list) or not all(isinstance(p, str) and p.strip() for p in prompts) or not prompts:
        raise UserError("prompts must be a list of at least one non-empty text")
    if any("\n" in p for p in prompts):
        raise UserError("a prompt is one line here (as in the Organizer's pasted list)")
    form = StudyForm(
        name, SOURCES[1], pasted="\n".join(prompts), methods=methods or list(decoders.DEFAULT_METHODS),
        samples=samples_per_method, max_new_tokens=max_new_tokens or DEFAULT_MAX_NEW_TOKENS, guidelines=guidelines or "",
        design=label, rubric=rubric_text,
    )  # fmt: skip
    shown = h.create(store, model, model_names, form, progress=no_progress)
    sid = shown.choice.get("value") if isinstance(shown.choice, dict) else None
    study = store.get_study(int(sid)) if sid is not None else None
    return {
        "study": study.id if study is not None else None,
        "state": study.state if study is not None else None,
        "status": plain_text(shown.status),
    }


def invite_raters(
    ctx: AppContext, store: Store, request: gr.Request, organizer_password: str, study: int, raters: list[str]
) -> dict[str, Any]:
    """New invite codes for the named raters of `study` ({rater: code}; shown only now, as on the tab)."""
    check_request(ctx, organizer_password, request)
    if not isinstance(raters, list) or not all(isinstance(r, str) and r.strip() for r in raters) or not raters:
        raise UserError("raters must be a list of at least one name")
    if any("," in r or "\n" in r for r in raters):
        raise UserError("a rater's name has no comma or new line")
    table, *_, line, _ = h.invite(store, study, ",".join(raters), request)
    return {"codes": {row["rater"]: row["code"] for row in table.to_dict("records")}, "status": plain_text(line)}
