"""Organizer auth in one place: the organizer password, checked in constant time, with the
per-client backoff (arena/throttle.py) and the organizer session that exempts a browser which proved
the password before (arena/sessions.py). Every organizer panel (ui/organizer*.py) imports it from here.
"""

from __future__ import annotations

import hmac
from typing import Any

from arena import clients, sessions, throttle
from arena.errors import UserError

from . import AppContext


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
    check_password(ctx, password, throttle.client_of(request), exempt)


def check(ctx: AppContext, password: Any, request: Any) -> None:
    """`check_password` for whatever a caller has: a handler's request, a client name, or nothing."""
    # A request (a handler's) or a client name (a test's), or nothing: an in-process call.
    if request is None or isinstance(request, str):
        check_password(ctx, password, request)
    else:
        check_request(ctx, password, request)
