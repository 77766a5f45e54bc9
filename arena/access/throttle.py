"""Exponential backoff per client on guessed secrets (invite codes, the organizer password).

A client is an address as `arena.access.clients` reads it (forwarded headers only from trusted proxies).
Each secret has its own record per client, so wrong invite codes never slow the organizer's
password, nor the other way round. A client has a few free failures; after that every failure
doubles the wait before its next wrong attempt is heard, up to a cap.

What a wait holds back differs, because the secrets differ:

* **Invite codes** carry 192 random bits: no guess will ever find one. So a *valid* code is always
  let in, wait or not; a rater behind the same address as a guesser (an office, a proxy) is never
  held up. Wrong codes are what waits refuse: a guesser is told to wait, and the log names them.
* **The organizer password** is chosen by a person and can be guessed, so while a client waits every
  attempt from it is refused unheard, right or wrong: otherwise the wait could be skipped by guessing
  faster. The organizer keeps working through somebody else's wait in a browser that has proved
  the password before (`exempt=True`: its organizer session, see arena/access/sessions.py).

A success does not clear a client's record (a guesser with one valid code of their own could
otherwise reset the count after every few guesses); a record is forgotten `forget_s` after its last
failure.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass

from arena import settings
from common.errors import UserError

log = logging.getLogger(__name__)


@dataclass
class _Record:
    failures: int = 0
    wait_until: float = 0.0
    last_failure: float = 0.0


class Backoff:
    """`check(client)` before comparing a secret, then `failed(client)` or `succeeded(client)`.

    Args:
        what: what is guessed, for messages and the log ("invite code", "organizer password").
        free: failures allowed before waits start (env ARENA_AUTH_FREE_ATTEMPTS overrides).
        base_s: the first wait; each further failure doubles it.
        cap_s: the longest wait.
        forget_s: a client's record is dropped this long after its last failure.
    """

    def __init__(
        self,
        what: str,
        free: int | None = None,
        base_s: float = 1.0,
        cap_s: float = 300.0,
        clock=time.monotonic,
        max_clients: int = 100_000,
        forget_s: float = 3600.0,
    ):
        self.what = what
        self._free = free
        self.base_s, self.cap_s, self.clock, self.max_clients = base_s, cap_s, clock, max_clients
        self.forget_s = forget_s
        self._records: dict[str, _Record] = {}
        self._lock = threading.Lock()

    @property
    def free(self) -> int:
        return self._free if self._free is not None else settings.current().auth_free_attempts

    def _record(self, client: str) -> _Record | None:
        record = self._records.get(client)
        if record is not None and self.clock() - record.last_failure > max(self.forget_s, self.cap_s):
            del self._records[client]
            return None
        return record

    def wait_left(self, client: str) -> float:
        """Seconds before this client's next wrong attempt is heard (0: none)."""
        with self._lock:
            record = self._record(client)
            return 0.0 if record is None else max(0.0, record.wait_until - self.clock())

    def check(self, client: str, exempt: bool = False) -> None:
        """Refuse with "wait N s" while the client waits, unless `exempt`."""
        left = 0.0 if exempt else self.wait_left(client)
        if left > 0:
            raise UserError(f"too many wrong attempts from here; wait {math.ceil(left)} s and try again")

    def failed(self, client: str) -> None:
        with self._lock:
            if len(self._records) >= self.max_clients and client not in self._records:
                self._records.pop(next(iter(self._records)))
            record = self._record(client) or self._records.setdefault(client, _Record())
            record.failures += 1
            record.last_failure = self.clock()
            over = record.failures - self.free
            if over > 0:
                wait = min(self.cap_s, self.base_s * 2 ** min(over - 1, 60))
                record.wait_until = self.clock() + wait
                log.warning(
                    "%s: %d wrong attempts from %s; next wrong attempt heard in %.0f s",
                    self.what,
                    record.failures,
                    client,
                    wait,
                )

    def succeeded(self, client: str) -> None:
        """A right secret: nothing is cleared (see the module's docstring)."""

    def reset(self) -> None:
        with self._lock:
            self._records.clear()


invite_codes = Backoff("invite code")
organizer_password = Backoff("organizer password")
