"""Hugging Face accounts: a rater gets into a study by signing in, instead of with an invite code.

An account is a rater as a code is (arena/access/invites.py): its seat is the same `study_raters` row, with
the same Latin-square row, secret orders and ratings, and `resolve` returns the same `Enrolment`.
Only the key differs. A code's seat is keyed by the SHA-256 of the code; an account's by the SHA-256
of `hf-account:<study id>:<username>`. An invite code is only ever letters, digits, '-' and '_'
(`invites.code_from`), so no typed code hashes to an account's key, and an account's key opens no
other study.

The organizer lets accounts into a study with a list (`parse_access`): Hugging Face usernames and
organisations (one namespace on the Hub, so one list), `*` for anyone signed in, and `alice = R07`
where the seat should carry a pseudonym instead of the account's name. An account the list admits
takes its seat on its first visit (enrolled as `hf:<username>`, or the pseudonym) and finds it again
from any browser where it signs in. An account that the list does not admit, or whose seat the
organizer revoked, gets one line. Taking an account off the list shuts its seat, ratings kept.

Whether anyone is signed in, and as whom, is the web layer's business (ui/hf_signin.py): this module
gets an `Account` it may trust.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.store import Enrolment, Store, clean_rater_name
from common import messages
from common.errors import UserError
from common.messages import english

ACCOUNT_PREFIX = "hf:"  # an account's rater name, unless the organizer chose a pseudonym
ANYONE = "*"
# Hub usernames and organisation names: letters, digits, '-', '_' and '.', not starting with a symbol.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")
MAX_ENTRIES = 5000
SIGN_IN = "sign in with Hugging Face to rate this study, or open your invite link"
NOT_ADMITTED = "your Hugging Face account @{user} is not on the list of raters of any open study here"
SEAT_SHUT = "your seat in this study was closed by the organizer; ask them if this is a mistake"
NAME_TAKEN = "the rater name the organizer chose for you is another rater's in this study; ask the organizer"


@dataclass(frozen=True)
class Account:
    """A signed-in Hugging Face account: its username and the organisations it belongs to."""

    username: str
    orgs: tuple[str, ...] = ()

    def names(self) -> set[str]:
        return {self.username.casefold(), *(o.casefold() for o in self.orgs)}


@dataclass(frozen=True)
class Access:
    """Which accounts a study lets in: names (users or organisations, casefolded), anyone signed in,
    and the pseudonyms chosen for some accounts."""

    names: tuple[str, ...] = ()
    anyone: bool = False
    pseudonyms: Mapping[str, str] = field(default_factory=dict)

    def admits(self, account: Account) -> bool:
        return self.anyone or bool(account.names() & set(self.names))

    def rater_name(self, account: Account) -> str:
        return self.pseudonyms.get(account.username.casefold()) or f"{ACCOUNT_PREFIX}{account.username}"

    def to_json(self) -> str:
        return json.dumps({"names": list(self.names), "anyone": self.anyone, "pseudonyms": dict(self.pseudonyms)})

    @classmethod
    def from_json(cls, text: str) -> Access:
        data = json.loads(text)
        return cls(tuple(data.get("names") or ()), bool(data.get("anyone")), dict(data.get("pseudonyms") or {}))

    def text(self) -> str:
        """The organizer's list as they would write it (one entry a line)."""
        lines = [ANYONE] if self.anyone else []
        for name in self.names:
            pseudonym = self.pseudonyms.get(name)
            lines.append(f"{name} = {pseudonym}" if pseudonym else name)
        return "\n".join(lines)


def parse_access(text: object) -> Access | None:
    """The organizer's list: entries separated by commas or lines, each a username or organisation,
    `*` (anyone signed in), or `username = pseudonym`. None for an empty list (no accounts)."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise UserError(english("accounts_not_text"))
    entries = [e.strip() for e in text.replace("\n", ",").split(",") if e.strip()]
    if len(entries) > MAX_ENTRIES:
        raise UserError(messages.text("accounts_too_many", n=MAX_ENTRIES))
    names: list[str] = []
    pseudonyms: dict[str, str] = {}
    anyone = False
    for entry in entries:
        if entry == ANYONE:
            anyone = True
            continue
        name, _, pseudonym = (part.strip() for part in entry.partition("="))
        if not NAME.fullmatch(name):
            raise UserError(messages.text("accounts_bad_name", entry=repr(entry)))
        if name.casefold() not in names:
            names.append(name.casefold())
        if pseudonym:
            pseudonyms[name.casefold()] = _pseudonym(pseudonym, pseudonyms)
    if not names and not anyone:
        return None
    return Access(tuple(names), anyone, pseudonyms)


def _pseudonym(text: str, taken: Mapping[str, str]) -> str:
    name = clean_rater_name(text)
    if name.casefold().startswith(ACCOUNT_PREFIX):
        raise UserError(messages.text("accounts_pseudonym_prefix", prefix=repr(ACCOUNT_PREFIX)))
    if name.casefold() in {p.casefold() for p in taken.values()}:
        raise UserError(messages.text("accounts_pseudonym_twice", name=repr(name)))
    return name


def seat_key(study_id: int, username: str) -> str:
    """The key of an account's seat in a study, where a code's seat keeps the hash of its code."""
    return hashlib.sha256(f"hf-account:{int(study_id)}:{username.casefold()}".encode()).hexdigest()


def access_of(store: Store, study_id: int) -> Access | None:
    found = store.account_access(int(study_id)).get(int(study_id))
    return None if found is None else Access.from_json(found)


def set_access(store: Store, study_id: int, text: object) -> Access | None:
    """Let the accounts of the organizer's list into a study (None: no account, codes only)."""
    study = store.get_study(int(study_id))
    if study is None or study.kind != "study":
        raise UserError(messages.text("no_study_number", id=int(study_id)))
    access = parse_access(text)
    store.set_account_access(study.id, None if access is None else access.to_json())
    return access


def studies_for(store: Store, account: Account) -> list[int]:
    """The studies whose list admits `account`: open ones first, then the newest."""
    admitted = [sid for sid, text in store.account_access().items() if Access.from_json(text).admits(account)]
    states = {sid: getattr(store.get_study(sid), "state", None) for sid in admitted}
    return sorted((s for s in admitted if states[s] is not None), key=lambda s: (states[s] != "open", -s))


def resolve(store: Store, account: Account, study_id: int | None = None) -> Enrolment:
    """The account's seat: in the study its organizer's list admits it to (an open one first), taken
    on its first visit; else UserError with the one line that says why not. With `study_id` (a tab
    that has a study open already), in that study only: two queries, as every rating request asks."""
    if study_id is None:
        found = studies_for(store, account)
    else:
        access = access_of(store, study_id)
        found = [int(study_id)] if access is not None and access.admits(account) else []
    if not found:
        raise UserError(NOT_ADMITTED.format(user=account.username))
    sid = found[0]
    key = seat_key(sid, account.username)
    seat = store.enrolment_by_code(key)
    if seat is not None:
        if seat.revoked_at is not None:
            raise UserError(SEAT_SHUT)
        return seat
    study = store.get_study(sid)
    if study is None or study.state != "open":  # no seat is made where nobody can rate; the same line as a code gets
        state = getattr(study, "state", "")
        raise UserError(english("rater_study_not_open_yet" if state == "draft" else "rater_study_closed"))
    access = access_of(store, sid)
    name = (access or Access()).rater_name(account)
    rid = store.find_rater(clean_rater_name(name))
    if rid is not None and store.seat_key(sid, rid) not in (None, key):
        raise UserError(NAME_TAKEN)
    store.enrol(sid, name, key)
    seat = store.enrolment_by_code(key)
    assert seat is not None  # just enrolled
    return seat


def account_of_profile(profile: Mapping[str, Any] | None) -> Account | None:
    """The account of an OpenID profile as Hugging Face sends it (`preferred_username`, and `orgs`
    each with its own `preferred_username`), or None when nobody is signed in."""
    if not profile:
        return None
    user = profile.get("preferred_username")
    if not isinstance(user, str) or not NAME.fullmatch(user):
        return None
    orgs = []
    for org in profile.get("orgs") or ():
        name = org.get("preferred_username") or org.get("name") if isinstance(org, Mapping) else org
        if isinstance(name, str) and NAME.fullmatch(name):
            orgs.append(name)
    return Account(user, tuple(orgs))
