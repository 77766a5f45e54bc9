"""Organizer auth in one place: the organizer password, checked in constant time, with the
per-client backoff (arena/throttle.py) and the organizer session that exempts a browser which proved
the password before (arena/sessions.py). Every organizer panel (ui/organizer*.py) imports it from here.
"""

from __future__ import annotations

import hmac
import inspect
from collections.abc import Callable
from typing import Any

import gradio as gr

from arena import clients, sessions, throttle
from common.errors import UserError

from . import AppContext
from .safe import toast


def check_password(ctx: AppContext, password: Any, client: str | None = None, exempt: bool = False) -> None:
    """The organizer password, compared in constant time; with `client`, wrong guesses from one
    client wait longer and longer (arena/throttle.py), except in a browser that proved the password
    before (`exempt`: its organizer session)."""
    expected = ctx.organizer_password
    if not expected:
        raise UserError("the organizer view is disabled: set ARENA_ORGANIZER_PASSWORD on the server")
    if client is not None:
        throttle.organizer_password.check(client, exempt)
    if not isinstance(password, str) or not hmac.compare_digest(password.encode(), expected.encode()):
        if client is not None:
            throttle.organizer_password.failed(client)
        raise UserError("wrong organizer password")


def check_request(ctx: AppContext, password: Any, request: Any) -> None:
    """`check_password` for a handler's request: its client, and whether it carries an organizer session."""
    exempt = sessions.organizer.valid(clients.cookie(request, sessions.ORGANIZER_COOKIE))
    check_password(ctx, password, clients.client_of(request), exempt)


def check(ctx: AppContext, password: Any, request: Any) -> None:
    """`check_password` for whatever a caller has: a handler's request, a client name, or nothing."""
    # A request (a handler's) or a client name (a test's), or nothing: an in-process call.
    if request is None or isinstance(request, str):
        check_password(ctx, password, request)
    else:
        check_request(ctx, password, request)


def guarded(ctx: AppContext, fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` as an organizer handler: the password (first input) is checked first, throttled per client,
    and a `UserError` becomes one toast. The wrapper's signature gives Gradio the request and keeps
    `fn`'s own parameters (a gr.Progress one included) visible; `fn` gets the request when it names a
    `request` parameter (e.g. invite links from the page's own URL)."""
    params = list(inspect.signature(fn).parameters.values())
    wants_request = any(p.name == "request" for p in params)
    params = [p for p in params if p.name != "request"]

    def run(request: gr.Request, pw: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            check_request(ctx, pw, request)
            return fn(*args, **kwargs, **({"request": request} if wants_request else {}))
        except UserError as exc:
            raise gr.Error(toast(exc), print_exception=False) from None

    req_param = inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=gr.Request)
    pw_param = inspect.Parameter("pw", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    run.__signature__ = inspect.Signature([req_param, pw_param, *params])  # type: ignore[attr-defined]
    return run
