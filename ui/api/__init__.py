"""The Python API: one named endpoint per action, typed parameters, plain data back.

The page's own handlers are wired `api_visibility="undocumented"`: the API page and `view_api` do not
list them (their inputs are the page's components, dozens of positional values and `gr.update`
dicts, and the /rate page's copies would be listed twice), and scripts written against them keep
working by name. What a client calls instead is declared here with `gr.api`, whose typed
signatures give named parameters and a clean schema, and each endpoint calls the page's handler for
the same action (ui/api/rating.py, compare.py, organizer.py): one path per action, so the gate
(ui/doors.py, ui/join_gate.py: the same routes), the throttles, the code and password checks and the
submit-once rule are the page's. Declared once per app, in the modes that have the action (a
rating-only app has no Compare and no Organizer). The README's "Python API" section shows them in use.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

import gradio as gr

import decoders
from arena.engines import model_choices
from arena.settings import current as current_settings

from .. import AppContext, admission, store_for
from ..handler import handler
from . import compare, organizer, rating

RATING = (
    rating.start_rating,
    rating.submit_scores,
    rating.vote_pair,
    rating.answer_question,
    rating.next_item,
    rating.previous_item,
    rating.skip_item,
    rating.flag_item,
)
NAMES = ["compare_methods", "create_study", "invite_raters", *(fn.__name__ for fn in RATING)]


def endpoint(fn: Callable[..., Any], *deps: Any, name: str, **options: Any) -> Any:
    """`fn` with `deps` fixed as the endpoint `name` (ui/handler.py: a UserError is the one error line);
    `validator`, if given, admits a request before it joins the queue, as on the page."""
    validator = options.pop("validator", None)
    call = handler(fn, *deps)
    hints = typing.get_type_hints(fn)
    call.__signature__ = inspect.signature(call).replace(return_annotation=hints.get("return", Any))  # type: ignore[attr-defined]
    call.__annotations__["return"] = hints.get("return", Any)
    dep = gr.api(call, api_name=name, **options)
    if validator is not None:
        gr.context.get_blocks_context().fns[dep["id"]].validator = validator  # type: ignore[union-attr]
    return dep


def build(ctx: AppContext, shown: tuple[str, ...]) -> None:
    """The endpoints of the tabs in `shown` (app.MODES), inside the app's Blocks."""
    store = store_for(ctx)
    if "compare" in shown:
        names = decoders.names()
        fn = method_choices(compare.compare, names)
        # as Run on the page: one generation at a time, admitted before the queue (ui/admission.py)
        endpoint(fn, ctx.model, names, name="compare_methods", concurrency_limit=1,
                 concurrency_id=admission.GENERATION, validator=admission.validator(len(api_params(fn, 2))))  # fmt: skip
    if "organizer" in shown:
        model_names = model_choices(current_settings().model)
        endpoint(organizer.create_study, ctx, store, ctx.model, model_names, name="create_study",
                 concurrency_limit=1, concurrency_id=admission.GENERATION)  # fmt: skip
        endpoint(organizer.invite_raters, ctx, store, name="invite_raters")
    for fn in RATING:
        endpoint(fn, store, name=fn.__name__)


def method_choices(fn: Callable[..., Any], names: list[str]) -> Callable[..., Any]:
    """`fn` with its `methods` typed as a list of the registry's names: the schema lists the choices."""
    hints = typing.get_type_hints(fn)
    hints["methods"] = list[typing.Literal[tuple(names)]] | None  # type: ignore[misc]

    def typed(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    typed.__signature__ = inspect.signature(fn).replace(  # type: ignore[attr-defined]
        parameters=[p.replace(annotation=hints[p.name]) for p in inspect.signature(fn).parameters.values()],
        return_annotation=hints["return"],
    )
    typed.__annotations__ = hints
    typed.__name__, typed.__doc__ = fn.__name__, fn.__doc__
    return typed


def api_params(fn: Callable[..., Any], deps: int) -> list[str]:
    """The parameters a client sends: after the `deps` fixed ones, without the request."""
    return [p for p in list(inspect.signature(fn).parameters)[deps:] if p != "request"]
