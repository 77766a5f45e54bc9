"""The one way a tab hands its handlers to Gradio.

A tab's handlers are module-level functions of plain values (its `handlers.py`): they take what they
need (the store, the model) as their first arguments, return a named view, and raise `UserError` when
a person must do something else. Tests call them as they are. `handler(fn, *deps)` is what `build`
wires instead:

* the leading arguments `deps` are fixed, and Gradio sees the rest of `fn`'s parameters with their
  names and types, so a `request: gr.Request` parameter still gets the request (functools.partial
  would hide it);
* a `UserError` becomes the one inline line: `gr.Error` with the message (escaped: the browser renders
  it as HTML; in the browser's language where the table has it, common/messages.py), no traceback;
* `wire`, if given, turns the returned view into the outputs' values.

Generator handlers (Compare's streams) stay generators. Used as a decorator, `@handler` wraps a
function with no fixed arguments.
"""

from __future__ import annotations

import functools
import html
import inspect
import typing
from collections.abc import Callable, Iterator
from typing import Any

import gradio as gr

from common.errors import UserError

from .i18n import language_of_request, translated


def inline_error(exc: UserError, request: Any = None) -> gr.Error:
    """The inline line for `exc`: its message in the request's language, escaped, with no traceback."""
    message = translated(str(exc), language_of_request(request)) if request is not None else str(exc)
    return gr.Error(html.escape(message, quote=True), print_exception=False)


def handler(fn: Callable[..., Any], *deps: Any, wire: Callable[[Any], Any] | None = None) -> Callable[..., Any]:
    """`fn` with its first arguments `deps` fixed, as a Gradio event handler (see the module's docstring)."""
    params = list(inspect.signature(fn).parameters.values())[len(deps) :]
    hints = typing.get_type_hints(fn)
    names = [p.name for p in params]

    def request_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if "request" in kwargs:
            return kwargs["request"]
        return args[names.index("request")] if "request" in names and names.index("request") < len(args) else None

    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def stream(*args: Any, **kwargs: Any) -> Iterator[Any]:
            try:
                for view in fn(*deps, *args, **kwargs):
                    yield view if wire is None else wire(view)
            except UserError as exc:
                raise inline_error(exc, request_of(args, kwargs)) from None

        call: Callable[..., Any] = stream
    else:

        @functools.wraps(fn)
        def once(*args: Any, **kwargs: Any) -> Any:
            try:
                view = fn(*deps, *args, **kwargs)
            except UserError as exc:
                raise inline_error(exc, request_of(args, kwargs)) from None
            return view if wire is None else wire(view)

        call = once
    # Gradio reads the signature (and resolved types) to know which parameter takes the request.
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [p.replace(annotation=hints.get(p.name, p.annotation)) for p in params]
    )
    call.__annotations__ = {k: v for k, v in hints.items() if k in names}
    del call.__wrapped__  # type: ignore[attr-defined]  # or inspect.signature would follow it back to `fn`
    return call
