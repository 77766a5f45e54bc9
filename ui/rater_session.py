"""Which invite code a rating handler acts on, and the check that it is the one the tab's session
was started with: shared by the 1–5 form (ui/rating.py) and the pairwise panel (ui/rating_pairwise.py)."""

from __future__ import annotations

from typing import Any

from arena import clients, invites, sessions
from arena.store import Store
from common.errors import UserError
from common.messages import english


def code_of(typed: Any, request: Any) -> Any:
    """The invite code a handler acts on: what is in the code box, else the invite link's cookie."""
    if isinstance(typed, str) and typed.strip():
        return typed
    return clients.cookie(request, sessions.RATER_COOKIE) or typed


def enrolled(store: Store, code_text: Any, sess: Any, request: Any) -> tuple[invites.Enrolment, dict[str, Any]]:
    """The rater's enrolment for a tab session started with Start, refused when there is none or
    when the code now names another study than the one on screen."""
    sess = dict(sess) if isinstance(sess, dict) else {}
    if not sess.get("study_id"):
        raise UserError(english("rater_enter_code"))
    enrolment = invites.resolve(store, code_of(code_text, request), clients.client_of(request))
    if enrolment.study_id != sess["study_id"]:
        raise UserError(english("rater_code_changed"))
    return enrolment, sess
