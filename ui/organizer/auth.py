"""Organizer auth in one place: the organizer password, checked in constant time, with the
per-client backoff (arena/access/throttle.py) and the organizer session that exempts a browser which proved
the password before (arena/access/sessions.py). Every organizer panel (ui/organizer/) uses it.
"""

from __future__ import annotations

import hmac
import inspect
import typing
from collections.abc import Callable
from typing import Any

import gradio as gr

from arena.access import clients, sessions, throttle
from common.errors import UserError
from common.messages import english

from .. import AppContext
from ..handler import handler
from ..i18n import language_of_request
from .words import in_language


def check_password(ctx: AppContext, password: Any, client: str | None = None, exempt: bool = False) -> None:
    """The organizer password, compared in constant time; with `client`, wrong guesses from one
    client wait longer and longer (arena/access/throttle.py), except in a browser that proved the password
    before (`exempt`: its organizer session)."""
    expected = ctx.organizer_password
    if not expected:
        raise UserError(english("organizer_disabled"))
    if client is not None:
        throttle.organizer_password.check(client, exempt)
    if not isinstance(password, str) or not hmac.compare_digest(password.encode(), expected.encode()):
        if client is not None:
            throttle.organizer_password.failed(client)
        raise UserError(english("organizer_wrong_password"))


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


def guarded(ctx: AppContext, fn: Callable[..., Any], *deps: Any) -> Callable[..., Any]:
    """`handler(fn, *deps)` (ui/handler.py) as an organizer handler: the password (first input) is
    checked first, throttled per client, and a `UserError` becomes the one inline line. Gradio sees the
    request, the password, then `fn`'s own parameters after `deps` (a gr.Progress one included); `fn`
    gets the request when it names a `request` parameter (e.g. invite links from the page's own URL),
    and the browser's language when it names a `lang` one (text it builds from many messages: the
    diagnostics, the form check). What `fn` returns in English is shown in the browser's language
    (ui/organizer/words.py)."""
    hints = typing.get_type_hints(fn)
    params = list(inspect.signature(fn).parameters.values())[len(deps) :]
    wants_request = any(p.name == "request" for p in params)
    wants_lang = any(p.name == "lang" for p in params)
    params = [
        p.replace(annotation=hints.get(p.name, p.annotation)) for p in params if p.name not in ("request", "lang")
    ]

    def run(request: gr.Request, pw: Any, *args: Any, **kwargs: Any) -> Any:
        check_request(ctx, pw, request)
        lang = language_of_request(request)
        given = {**({"request": request} if wants_request else {}), **({"lang": lang} if wants_lang else {})}
        return in_language(fn(*deps, *args, **kwargs, **given), lang)

    req_param = inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=gr.Request)
    pw_param = inspect.Parameter("pw", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Any)
    run.__signature__ = inspect.Signature([req_param, pw_param, *params])  # type: ignore[attr-defined]
    run.__name__ = getattr(fn, "__name__", "run")
    return handler(run)
