"""Who may join Gradio's queue at all: per-client limits on every handler, in front of the queue.

On main b69a925 only generation had a gate (ui/admission.py). An outsider with no code could send
thousands of joins to a cheap public handler (`results_studies`): the queue filled (1,024 events,
then HTTP 503 for everyone, raters' Submit included), and the full app once stopped serving pages
for 25 minutes (issue 32, route 3). This ASGI middleware runs before Gradio sees a join:

* a **token bucket per client**: `ARENA_JOINS_PER_SECOND` (8) joins a second, five seconds' worth at
  once (a page load fires a handful of `load` events; a rater clicks far slower);
* **pending events per client**: at most `ARENA_QUEUE_PER_CLIENT` of its events waiting or running
  in Gradio's queue (counted from the event ids the queue answered with, pruned when they end);
* **new sessions per client**: `ARENA_SESSIONS_PER_MINUTE` (12), a third of them at once. A join with a
  session id Gradio has not seen makes a `SessionState`, which copies the config of every component
  of the app: about 90 ms of the event loop (nothing else is served meanwhile) and 1.7 MB that stays
  until 1,000 newer sessions push it out. On b69a925 a flood of joins, each with a fresh session id,
  was exactly that: the loop blocked, memory grew by gigabytes, pages stopped (measured here: 1,000
  sequential joins took 93 s of server CPU). A browser tab has one session id for its life.

A refused join gets HTTP 429 at once and never reaches the queue. The client is the one
arena/clients.py names (proxies only where trusted). A browser that holds a *valid* invite cookie,
or the organizer's session, is its own client: a rater behind the same address as a flooder (an
office, a school) is never held up by the flooder's count, and a code costs a lookup once a minute.
The same bucket guards `/present` (which computes a study's statistics for anybody).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any

from arena import clients, sessions
from arena.settings import current as current_settings

JOIN_PATH = "/gradio_api/queue/join"
PRESENT_PATH = "/present"
BURST_S = 5.0  # a join bucket holds this many seconds' worth of joins
SESSION_CAPACITY = 1000  # Gradio's sessions kept in memory (its default, 10,000, is ~17 GB of copied config)
MAX_BODY = 16 * 2**20
CODE_TTL_S = 60.0
MAX_KEYS = 50_000
REFUSED = "too many requests from your address right now: wait a few seconds and try again"


@dataclass(frozen=True)
class Limits:
    """The buckets' sizes and rates, from the settings (read when a client is first seen)."""

    joins_per_s: float
    sessions_per_s: float

    @property
    def join_burst(self) -> float:
        return max(1.0, self.joins_per_s * BURST_S)

    @property
    def session_burst(self) -> float:
        return max(1.0, self.sessions_per_s * 20.0)  # a third of a minute's

    @classmethod
    def current(cls) -> Limits:
        config = current_settings()
        return cls(float(config.joins_per_second), float(config.sessions_per_minute) / 60.0)


@dataclass
class _Client:
    limits: Limits
    tokens: float
    last: float
    sessions: float
    pending: set[str] = field(default_factory=set)  # Gradio event ids, waiting or running
    joining: int = 0  # joins sent on to Gradio whose answer has not come yet


class JoinGate:
    """The limits of the module docstring, kept per client key."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.clients: dict[str, _Client] = {}
        self.valid_code: Callable[[str], bool] | None = None
        self._codes: dict[str, tuple[bool, float]] = {}
        self._lock = threading.Lock()

    def install(self, valid_code: Callable[[str], bool] | None) -> None:
        """app.py gives the check of an invite code (the app's store); without one, cookies count nothing."""
        self.valid_code = valid_code
        self._codes.clear()

    def key_of(self, scope: MutableMapping[str, Any], headers: dict[bytes, bytes]) -> str:
        jar = _cookies(headers)
        if sessions.organizer.valid(jar.get(sessions.ORGANIZER_COOKIE)):
            return "organizer"
        code = jar.get(sessions.RATER_COOKIE)
        if code and self._code_ok(code):
            return "rater:" + hashlib.sha256(code.encode()).hexdigest()[:16]
        peer = (scope.get("client") or (None,))[0]
        forwarded = headers.get(b"x-forwarded-for", b"").decode("latin-1") or None
        return "address:" + clients.client_address(peer, forwarded, clients.trusted_proxies())

    def _code_ok(self, code: str) -> bool:
        if self.valid_code is None or len(code) > 200:
            return False
        now = self.clock()
        with self._lock:
            known = self._codes.get(code)
            if known is not None and now - known[1] < CODE_TTL_S:
                return known[0]
        ok = bool(self.valid_code(code))
        with self._lock:
            if len(self._codes) >= MAX_KEYS:
                self._codes.clear()
            self._codes[code] = (ok, now)
        return ok

    def take(self, key: str, live: Callable[[str], bool] | None, new_session: bool = False) -> str | None:
        """Why `key` may not send another request now (None: it may, and it is counted). `live` tells
        a queue join's pending events; `new_session`, that the join would make a Gradio session."""
        now = self.clock()
        with self._lock:
            client = self.clients.get(key)
            if client is None:
                if len(self.clients) >= MAX_KEYS:
                    self._forget(now)
                limits = Limits.current()
                client = self.clients[key] = _Client(limits, limits.join_burst, now, limits.session_burst)
            elapsed, limits = now - client.last, client.limits
            client.tokens = min(limits.join_burst, client.tokens + elapsed * limits.joins_per_s)
            client.sessions = min(limits.session_burst, client.sessions + elapsed * limits.sessions_per_s)
            client.last = now
            if live is not None:
                client.pending = {e for e in client.pending if live(e)}
                if len(client.pending) + client.joining >= current_settings().queue_per_client:
                    return REFUSED
            if client.tokens < 1 or (new_session and client.sessions < 1):
                return REFUSED
            client.tokens -= 1
            client.sessions -= 1 if new_session else 0
            if live is not None:
                client.joining += 1
        return None

    def full(self, key: str) -> str | None:
        """A quick look, nothing counted: is `key`'s bucket empty already?"""
        with self._lock:
            client = self.clients.get(key)
            if client is None:
                return None
            tokens = client.tokens + (self.clock() - client.last) * client.limits.joins_per_s
        return REFUSED if tokens < 1 else None

    def joined(self, key: str, event_id: str | None) -> None:
        with self._lock:
            client = self.clients.get(key)
            if client is not None:
                client.joining = max(0, client.joining - 1)
                if event_id:
                    client.pending.add(event_id)

    def _forget(self, now: float) -> None:
        """Drop the clients that have nothing pending and a full bucket again (under the lock)."""
        for key in [k for k, c in self.clients.items() if not c.pending and now - c.last > 60.0]:
            del self.clients[key]

    def reset(self) -> None:
        with self._lock:
            self.clients.clear()
            self._codes.clear()


gate = JoinGate()


def _cookies(headers: dict[bytes, bytes]) -> dict[str, str]:
    jar = SimpleCookie()
    try:
        jar.load(headers.get(b"cookie", b"").decode("latin-1"))
    except Exception:  # a malformed Cookie header: no cookies
        return {}
    return {k: m.value for k, m in jar.items()}


def _blocks(scope: MutableMapping[str, Any]) -> Any:
    app = scope.get("app")
    return app.get_blocks() if app is not None and hasattr(app, "get_blocks") else None


def _live_events(scope: MutableMapping[str, Any]) -> Callable[[str], bool] | None:
    """Is an event id still in Gradio's queue (waiting or running)? None where there is no queue."""
    queue = getattr(_blocks(scope), "_queue", None)
    if queue is None:
        return None
    events = queue.event_ids_to_events
    return lambda event_id: event_id in events


class JoinGateMiddleware:
    """The gate as pure ASGI middleware (SSE streams pass through untouched)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        root = (scope.get("root_path") or "").rstrip("/")
        if root and path.startswith(root):
            path = path[len(root) :] or "/"
        join = path == JOIN_PATH and scope.get("method") == "POST"
        if not join and path != PRESENT_PATH:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        key = gate.key_of(scope, headers)
        why = gate.full(key)  # most of a flood ends here, before its body is even read
        if why is None and join:
            body = await _read(receive)
            why = gate.take(key, _live_events(scope), _is_new_session(scope, body))
        elif why is None:
            body = b""
            why = gate.take(key, None)
        if why is not None:
            headers_out = [(b"content-type", b"application/json"), (b"retry-after", b"5")]
            await send({"type": "http.response.start", "status": 429, "headers": headers_out})
            await send({"type": "http.response.body", "body": json.dumps({"detail": why}).encode()})
            return
        if not join:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []

        async def capture(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, _replay(body, receive), capture)
        finally:
            gate.joined(key, _event_id(b"".join(chunks)))


def _event_id(body: bytes) -> str | None:
    try:
        value = json.loads(body or b"null")
    except (ValueError, UnicodeDecodeError):
        return None
    return str(value["event_id"]) if isinstance(value, dict) and value.get("event_id") else None


async def _read(receive: Any) -> bytes:
    """A join's whole body (JSON, small: files go to /upload), read here once and replayed to Gradio."""
    body = b""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return body
        body += message.get("body", b"")
        if not message.get("more_body") or len(body) > MAX_BODY:
            return body


def _replay(body: bytes, receive: Any) -> Any:
    sent = False

    async def again() -> MutableMapping[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # the disconnect, when it comes

    return again


def _is_new_session(scope: MutableMapping[str, Any], body: bytes) -> bool:
    """Would this join make Gradio a new session (its session id unknown to the state holder)?"""
    holder = getattr(_blocks(scope), "state_holder", None)
    try:
        session = json.loads(body or b"{}").get("session_hash")
    except (ValueError, AttributeError, UnicodeDecodeError):
        return True  # Gradio refuses it anyway; count it as the worst case
    return holder is not None and not (isinstance(session, str) and session in holder)
