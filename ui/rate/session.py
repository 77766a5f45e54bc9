"""Which seat a rating handler acts on, and the check that it is the one the tab's session was
started with: shared by the 1–5 form (ui/rate/handlers.py) and the pairwise panel (ui/rate/pairwise.py).

A seat is opened by an invite code (typed in the code box, else the invite link's cookie) or, with
neither, by the Hugging Face account signed in on this browser (ui/hf_signin.py, arena/access/accounts.py):
both give the same `Enrolment`, and every handler after Start checks it again on the server."""

from __future__ import annotations

from typing import Any

from arena.access import accounts, clients, invites, sessions
from arena.store import Store
from common.errors import UserError
from common.messages import english

from .. import hf_signin


def code_of(typed: Any, request: Any) -> Any:
    """The invite code a handler acts on: what is in the code box, else the invite link's cookie."""
    if isinstance(typed, str) and typed.strip():
        return typed
    return clients.cookie(request, sessions.RATER_COOKIE) or typed


def seat_of(store: Store, typed: Any, request: Any, study_id: int | None = None) -> invites.Enrolment:
    """The enrolment of the code a handler acts on, else of the signed-in account (in `study_id`, the
    tab's study, once one is open); UserError if none."""
    code = code_of(typed, request)
    if not (isinstance(code, str) and code.strip()):
        account = hf_signin.account_of(request)
        if account is not None:
            return accounts.resolve(store, account, study_id)
        if hf_signin.enabled():  # nothing typed is no wrong guess: it is not throttled
            raise UserError(accounts.SIGN_IN)
    return invites.resolve(store, code, clients.client_of(request))


def enrolled(store: Store, code_text: Any, sess: Any, request: Any) -> tuple[invites.Enrolment, dict[str, Any]]:
    """The rater's enrolment for a tab session started with Start, refused when there is none or
    when the code (or account) now names another study than the one on screen."""
    sess = dict(sess) if isinstance(sess, dict) else {}
    if not sess.get("study_id"):
        raise UserError(english("rater_enter_code"))
    enrolment = seat_of(store, code_text, request, sess["study_id"])
    if enrolment.study_id != sess["study_id"]:
        raise UserError(english("rater_code_changed"))
    return enrolment, sess
