"""Invite codes: how a rater gets into a study.

The organizer enrols raters per study; each enrolment gets one code of 192 random bits
(`secrets.token_urlsafe(24)`), shown once and stored only as its SHA-256. A code opens exactly one
study as exactly one rater; the name given at enrolment is for display only. Re-issuing a code
replaces the old one (the rater keeps their place and ratings); revoking it shuts it.

An unknown, malformed or revoked code gets one message, `INVALID`, whatever the reason, so the
reply never tells whether a code exists. Wrong codes are throttled per client (arena/access/throttle.py).
"""

from __future__ import annotations

import csv
import hashlib
import io
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote

from arena import settings
from arena.access import throttle
from arena.access.accounts import ACCOUNT_PREFIX
from arena.inputs.text import escape_cell
from arena.store import Enrolment, Store, clean_rater_name
from common import messages
from common.errors import UserError
from common.messages import english

CODE_BYTES = 24  # 192 bits
INVALID = english("rater_code_invalid")
MAX_CODE_LENGTH = 200


@dataclass(frozen=True)
class Invite:
    rater: str
    code: str  # shown once: only its hash is kept
    link: str


def new_code() -> str:
    return secrets.token_urlsafe(CODE_BYTES)


def code_from(text: object) -> str | None:
    """The code in what a rater pasted: a bare code, or an invite link with ?invite=CODE."""
    if not isinstance(text, str) or len(text) > MAX_CODE_LENGTH:
        return None
    text = text.strip()
    if "invite=" in text:
        text = text.split("invite=", 1)[1].split("&", 1)[0].split("#", 1)[0]
    if not text or not all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in text):
        return None
    return text


def hash_code(code: str) -> str:
    return hashlib.sha256(code.encode("ascii")).hexdigest()


def invite_link(code: str, base_url: str | None = None) -> str:
    base = (base_url if base_url is not None else settings.current().public_url).rstrip("/")
    return f"{base}/?invite={quote(code)}"


def invite(store: Store, study_id: int, raters: Iterable[object], base_url: str | None = None) -> list[Invite]:
    """Enrol each rater (a display name) in the study with a fresh code; an enrolled rater gets a new
    code that replaces their old one. Returns the codes, which are not stored anywhere."""
    study = store.get_study(int(study_id))
    if study is None:
        raise UserError(messages.text("no_study_number", id=int(study_id)))
    names = [clean_rater_name(r) for r in raters]
    if not names:
        raise UserError(english("invite_name_one"))
    folded = [n.casefold() for n in names]
    if any(f.startswith(ACCOUNT_PREFIX) for f in folded):
        # The names of Hugging Face accounts' seats (arena/access/accounts.py): a code must not take one over.
        raise UserError(messages.text("invite_account_prefix", prefix=repr(ACCOUNT_PREFIX)))
    if len(set(folded)) != len(folded):
        raise UserError(english("invite_named_twice"))
    out = []
    for name in names:
        code = new_code()
        store.enrol(study.id, name, hash_code(code))
        out.append(Invite(name, code, invite_link(code, base_url)))
    return out


def invites_csv(invites: Iterable[Invite]) -> str:
    """The organizer's copy of fresh codes, as CSV (rater, code, link)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["rater", "code", "link"])
    for inv in invites:
        writer.writerow([_csv_safe(inv.rater), inv.code, inv.link])
    return buf.getvalue()


def _csv_safe(text: str) -> str:

    return escape_cell(text)


def resolve(store: Store, code: object, client: str | None = None) -> Enrolment:
    """The enrolment a code opens, or UserError(INVALID). With `client`, wrong codes are throttled:
    a valid code is let in whatever the client's wait (arena/access/throttle.py says why), a wrong one
    during a wait is told to wait."""
    clean = code_from(code)
    found = store.enrolment_by_code(hash_code(clean)) if clean else None
    if found is not None and found.revoked_at is None:
        return found
    if client is not None:
        throttle.invite_codes.check(client)
        throttle.invite_codes.failed(client)
    raise UserError(INVALID)


def valid(store: Store, code: object) -> bool:
    """Does `code` open a seat now? (No throttling: for the queue gate, which counts a valid code's
    browser as its own client.)"""
    clean = code_from(code)
    found = store.enrolment_by_code(hash_code(clean)) if clean else None
    return found is not None and found.revoked_at is None


def revoke(store: Store, study_id: int, rater: object) -> bool:
    """Shut a rater's code for a study (their ratings stay); False if they had no live code."""
    rater_id = store.find_rater(clean_rater_name(rater))
    if rater_id is None:
        raise UserError(messages.text("no_rater_named", name=repr(clean_rater_name(rater))))
    return store.revoke(int(study_id), rater_id)
