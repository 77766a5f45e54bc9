"""Browser sessions behind HttpOnly cookies: the rater's invite code and the organizer's proof of the
password.

* The **rater cookie** holds the invite code itself, taken out of the invite link's address at the
  first load (ui/web.py): from then on the address bar, the history and every request line carry no
  code, and page scripts cannot read it (HttpOnly). The rating handlers read it on the server.
* An **organizer session** is what a browser gets after the password was given: the unlock handler
  hands the page a one-time ticket (valid `TICKET_S`), the page trades it at once for an HttpOnly
  cookie (`SESSION_S`). The cookie is what uploads need (Gradio stores an upload before any handler
  could check a password), and it lets the organizer work through another client's backoff
  (arena/access/throttle.py). It never replaces the password: every organizer handler still checks it.

Both cookies are SameSite=Strict: no other site can make a browser send them. Sessions live in this
process's memory; a restart asks the organizer for the password again.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Callable

RATER_COOKIE = "arena_invite"
ORGANIZER_COOKIE = "arena_organizer"
TICKET_S = 60.0
SESSION_S = 12 * 3600.0
MAX_LIVE = 10_000


def _key(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class Sessions:
    """One-time tickets and the sessions they are traded for (tokens kept only as hashes)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self._tickets: dict[str, float] = {}
        self._sessions: dict[str, float] = {}
        self._lock = threading.Lock()

    def _prune(self, table: dict[str, float]) -> None:
        now = self.clock()
        for key in [k for k, until in table.items() if until <= now]:
            del table[key]
        while len(table) >= MAX_LIVE:
            table.pop(next(iter(table)))

    def ticket(self) -> str:
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._prune(self._tickets)
            self._tickets[_key(token)] = self.clock() + TICKET_S
        return token

    def redeem(self, ticket: object) -> str | None:
        """A fresh session token for a live ticket (which is used up), else None."""
        if not isinstance(ticket, str) or not ticket or len(ticket) > 200:
            return None
        with self._lock:
            until = self._tickets.pop(_key(ticket), None)
            if until is None or until <= self.clock():
                return None
            token = secrets.token_urlsafe(32)
            self._prune(self._sessions)
            self._sessions[_key(token)] = self.clock() + SESSION_S
            return token

    def valid(self, token: object) -> bool:
        if not isinstance(token, str) or not token or len(token) > 200:
            return False
        with self._lock:
            until = self._sessions.get(_key(token))
            return until is not None and until > self.clock()

    def end(self, token: object) -> None:
        if isinstance(token, str):
            with self._lock:
                self._sessions.pop(_key(token), None)

    def reset(self) -> None:
        with self._lock:
            self._tickets.clear()
            self._sessions.clear()


organizer = Sessions()
