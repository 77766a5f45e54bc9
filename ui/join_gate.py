"""Per-client limits on every door of the app, in front of Gradio: one gate for every route.

On main b69a925 only generation had a gate (ui/admission.py). An outsider with no code could send
thousands of joins to a cheap public handler (`results_studies`): the queue filled (1,024 events,
then HTTP 503 for everyone, raters' Submit included), and the full app once stopped serving pages
for 25 minutes (issue 32, route 3). Issue 44 found the side doors: the same handlers run through
`/gradio_api/run/*` and `/gradio_api/call/*`, and every page and `/config` builds a copy of the
app's config. This ASGI middleware runs before Gradio sees any request. It reads the app's route
table (ui/doors.py) for what kind of door the request came through, closes the doors nothing needs
(404), and holds each client to:

* a **token bucket**: `ARENA_JOINS_PER_SECOND` (8) tokens a second, five seconds' worth at once; a
  handler run takes one, a page or a stream half, a small answer a quarter, a shipped file a tenth
  (a page load fires a handful of `load` events and fetches dozens of files; a rater clicks far slower);
* **pending events**: at most `ARENA_QUEUE_PER_CLIENT` of its handler runs waiting or running (the
  queue's, counted from the event ids the queue answered with and pruned when they end, and the
  direct runs of `/run` while they run);
* **new sessions**: `ARENA_SESSIONS_PER_MINUTE` (12), a third of them at once. A handler request
  with a session id Gradio has not seen makes a `SessionState`, which copies the config of every
  component of the app: about 90 ms of the event loop (nothing else is served meanwhile) and 1.7 MB
  that stays until 1,000 newer sessions push it out. On b69a925 a flood of joins, each with a fresh
  session id, was exactly that: the loop blocked, memory grew by gigabytes, pages stopped (measured
  here: 1,000 sequential joins took 93 s of server CPU). A browser tab has one session id for its life;
  a `/call` is a new session every time;
* **pages at once**: `ARENA_PAGES_PER_CLIENT` (1) page in the making (ui/slots.py), a few more
  waiting their turn, each after a rest of `PAGE_REST` times the last one's making (a flood's pages
  take a quarter of the time at most); **streams held open**: four times `ARENA_QUEUE_PER_CLIENT`.

A refused request gets HTTP 429 at once and reaches nothing behind the gate. The client is the one
arena/access/clients.py names (proxies only where trusted). A browser that holds a *valid* invite cookie,
or the organizer's session, is its own client: a rater behind the same address as a flooder (an
office, a school) is never held up by the flooder's count, and a code costs a lookup once a minute.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any

from arena.access import clients, sessions
from arena.settings import current as current_settings

from . import doors
from .slots import Slots

JOIN_PATH = "/gradio_api/queue/join"
PRESENT_PATH = doors.PRESENT_PATH
BURST_S = 5.0  # a join bucket holds this many seconds' worth of joins
SESSION_CAPACITY = 1000  # Gradio's sessions kept in memory (its default, 10,000, is ~17 GB of copied config)
MAX_BODY = 16 * 2**20
CODE_TTL_S = 60.0
MAX_KEYS = 50_000
# A client with pages waiting in its line gets its slot back this many times the last page's making
# later: one client's pages take at most a quarter of the time, however many it asks for at once.
# Without the rest, a flood kept one page in the making all the time (a core's worth of copying
# config on a loaded machine) and a rater's Start waited 3-8 s behind it (docs/security.md section 12).
PAGE_REST = 3.0
# Python hands the GIL to a waiting thread after this long (its default is 5 ms). A page in the
# making is pure Python on a worker thread; the event loop, which answers every request and runs
# the queue, gives the GIL up at every socket write and then waited up to 5 ms to get it back, so
# each refusal cost ~10 ms of the loop during a page flood (py-spy: half of the loop's time).
SWITCH_INTERVAL_S = 0.0005
PAGE_LINE = 8  # a client's pages waiting for one of its slots; more are refused
STREAMS_PER_QUEUE_SLOT = 4  # streams one client may hold open, per event it may have pending
REFUSED = "too many requests from your address right now: wait a few seconds and try again"
NOT_FOUND = json.dumps({"detail": "Not Found"}).encode()


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
        self.pages = Slots()  # pages in the making, per client
        self.streams = Slots()  # streams held open, per client

    def install(self, valid_code: Callable[[str], bool] | None) -> None:
        """app.py gives the check of an invite code (the app's store); without one, cookies count
        nothing. The server's GIL switch interval is set here too (`SWITCH_INTERVAL_S`)."""
        self.valid_code = valid_code
        self._codes.clear()
        sys.setswitchinterval(SWITCH_INTERVAL_S)

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

    def take(
        self, key: str, live: Callable[[str], bool] | None, new_session: bool = False, cost: float = 1.0
    ) -> str | None:
        """Why `key` may not send another request now (None: it may, and `cost` tokens are taken).
        `live` tells a handler run's pending events (counted as one more until `joined`);
        `new_session`, that the request would make a Gradio session."""
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
            if client.tokens < cost or (new_session and client.sessions < 1):
                return REFUSED
            client.tokens -= cost
            client.sessions -= 1 if new_session else 0
            if live is not None:
                client.joining += 1
        return None

    def full(self, key: str, cost: float = 1.0) -> str | None:
        """A quick look, nothing counted: has `key`'s bucket fewer than `cost` tokens already?"""
        with self._lock:
            client = self.clients.get(key)
            if client is None:
                return None
            tokens = client.tokens + (self.clock() - client.last) * client.limits.joins_per_s
        return REFUSED if tokens < cost else None

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
        self.pages.reset()
        self.streams.reset()


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
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path, root = scope.get("path", ""), (scope.get("root_path") or "").rstrip("/")
        if root and path.startswith(root):
            path = path[len(root) :] or "/"
        door, _ = doors.table_of(scope.get("app") or self.app).door(path, str(scope.get("method", "GET")))
        if door.kind is doors.Kind.CLOSED:
            await _answer(send, 404, NOT_FOUND)
            return
        key, cost = gate.key_of(scope, dict(scope.get("headers") or [])), doors.COST[door.kind]
        why = gate.full(key, cost)  # most of a flood ends here, before its body is even read
        body = b""
        if why is None and door.kind is doors.Kind.HANDLER:
            body = await _read(receive)
            new_session = _is_new_session(scope, body) if door.session_in_body else True
            why = gate.take(key, _live_events(scope), new_session, cost)
        elif why is None:
            why = gate.take(key, None, cost=cost)
        if why is not None:
            await _refuse(send, why)
        elif door.kind is doors.Kind.HANDLER:
            await self._run(scope, _replay(body, receive), send, key, door.queued)
        elif door.kind in (doors.Kind.PAGE, doors.Kind.STREAM):
            await self._held(scope, receive, send, key, door.kind)
        else:
            await self.app(scope, receive, send)

    async def _run(self, scope: MutableMapping[str, Any], receive: Any, send: Any, key: str, queued: bool) -> None:
        """A handler request, counted as pending until its answer (and, queued, its event while it lasts)."""
        chunks: list[bytes] = []

        async def capture(message: MutableMapping[str, Any]) -> None:
            if queued and message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, capture)
        finally:
            gate.joined(key, _event_id(b"".join(chunks)) if queued else None)

    async def _held(self, scope: MutableMapping[str, Any], receive: Any, send: Any, key: str, kind: doors.Kind) -> None:
        """A page or a stream, within the client's slots for it (ui/slots.py)."""
        config = current_settings()
        if kind is doors.Kind.PAGE:
            slots, size, line = gate.pages, config.pages_per_client, PAGE_LINE
        else:
            slots, size, line = gate.streams, STREAMS_PER_QUEUE_SLOT * config.queue_per_client, 0
        if not await slots.enter(key, size, line):
            await _refuse(send, REFUSED)
            return
        began = time.monotonic()
        try:
            await self.app(scope, receive, send)
        finally:
            rest = PAGE_REST * (time.monotonic() - began) if kind is doors.Kind.PAGE else 0.0
            slots.leave(key, rest)


async def _answer(send: Any, status: int, body: bytes, extra: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    headers = [(b"content-type", b"application/json"), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _refuse(send: Any, why: str) -> None:
    await _answer(send, 429, json.dumps({"detail": why}).encode(), ((b"retry-after", b"5"),))


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
    """Would this handler request make Gradio a new session (it names none, or one the state holder
    does not know)? A join without one is refused by Gradio; a call without one gets a fresh one."""
    holder = getattr(_blocks(scope), "state_holder", None)
    try:
        session = json.loads(body or b"{}").get("session_hash")
    except (ValueError, AttributeError, UnicodeDecodeError):
        return True  # Gradio refuses it anyway; count it as the worst case
    if not isinstance(session, str):
        return True
    return holder is not None and session not in holder
