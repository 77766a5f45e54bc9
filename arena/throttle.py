"""Exponential backoff per client on guessed secrets (invite codes, the organizer password).

Each client (its address as Gradio sees it) has a few free failures; after that every failure
doubles the wait before the next attempt is heard, up to a cap. While a client waits, every attempt
from it is refused, right or wrong, so waiting cannot be skipped by guessing faster. A success
clears the client's record. Invite codes carry 192 random bits, so this is defence in depth; for
the password it is what makes guessing slow.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass

from . import settings
from .errors import UserError

log = logging.getLogger(__name__)


@dataclass
class _Record:
    failures: int = 0
    wait_until: float = 0.0


class Backoff:
    """`check(client)` before comparing a secret, then `failed(client)` or `succeeded(client)`.

    Args:
        what: what is guessed, for messages and the log ("invite code", "organizer password").
        free: failures allowed before waits start (env ARENA_AUTH_FREE_ATTEMPTS overrides).
        base_s: the first wait; each further failure doubles it.
        cap_s: the longest wait.
    """

    def __init__(
        self,
        what: str,
        free: int | None = None,
        base_s: float = 1.0,
        cap_s: float = 300.0,
        clock=time.monotonic,
        max_clients: int = 100_000,
    ):
        self.what = what
        self.free = free if free is not None else settings.current().auth_free_attempts
        self.base_s, self.cap_s, self.clock, self.max_clients = base_s, cap_s, clock, max_clients
        self._records: dict[str, _Record] = {}
        self._lock = threading.Lock()

    def check(self, client: str) -> None:
        with self._lock:
            record = self._records.get(client)
            left = 0.0 if record is None else record.wait_until - self.clock()
        if left > 0:
            raise UserError(f"too many wrong attempts from here; wait {math.ceil(left)} s and try again")

    def failed(self, client: str) -> None:
        with self._lock:
            if len(self._records) >= self.max_clients and client not in self._records:
                self._records.pop(next(iter(self._records)))
            record = self._records.setdefault(client, _Record())
            record.failures += 1
            over = record.failures - self.free
            if over > 0:
                wait = min(self.cap_s, self.base_s * 2 ** (over - 1))
                record.wait_until = self.clock() + wait
                log.warning(
                    "%s: %d wrong attempts from %s; next attempt heard in %.0f s",
                    self.what,
                    record.failures,
                    client,
                    wait,
                )

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._records.pop(client, None)

    def reset(self) -> None:
        with self._lock:
            self._records.clear()


def client_of(request: object) -> str:
    """The client's address from a gr.Request (or anything with .client.host); "local" without one."""
    host = getattr(getattr(request, "client", None), "host", None)
    return str(host) if host else "local"


invite_codes = Backoff("invite code")
organizer_password = Backoff("organizer password")
