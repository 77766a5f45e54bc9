"""Which door every HTTP route of the app is, decided from the app's own route table.

Issue 44: the flood gate (ui/join_gate.py) guarded the queue's join and `/present` only, a hand list
of two paths. Gradio also runs handlers through `/gradio_api/run/*` and `/gradio_api/call/*`, and
builds a copy of the whole app's config for `/config`, every page and `/gradio_api/info` (100-160
ms of CPU each); 600 of 600 such requests from one address were served and the app grew by 1.8 GB.
So the gate now reads the route table of the app it guards (FastAPI's, with Gradio's routes, the
pages that `Blocks.route` adds and the app's own) and gives every route one kind of door:

* `HANDLER` runs a handler: the per-client token bucket, the pending-event cap and, where the
  request would make Gradio a new session, the session bucket;
* `PAGE` builds the app's config (or a study's statistics): the bucket, and at most
  `ARENA_PAGES_PER_CLIENT` in the making per client (a copy of the config is several MB; sixteen
  at once grew the process by 270 MB);
* `STREAM` is held open (the queue's events, the heartbeat): the bucket at a half, and a cap on
  how many one client holds open;
* `LIGHT` (small answers) and `FILE` (the files shipped with the app) take a fraction of a token;
* `CLOSED` answers 404 before anything runs: what nothing of this app needs.

Default deny: a route this table does not name is closed, so a Gradio upgrade that adds a door
keeps it shut until somebody decides what it is (the log names it; tests/test_doors.py fails).
"""

from __future__ import annotations

import enum
import logging
import re
import threading
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from . import web

log = logging.getLogger(__name__)

API = "/gradio_api"
# ui/present.py's routes, named here, not imported: importing it (and evaluation) when app.py is
# imported would read the settings before main() installs them. tests/test_doors.py compares them.
PRESENT_PATH = "/present"
PLOTLY_PATH = "/present/plotly.js"


class Kind(enum.Enum):
    HANDLER = "handler"
    PAGE = "page"
    STREAM = "stream"
    LIGHT = "light"
    FILE = "file"
    CLOSED = "closed"


# Tokens of the client's bucket one request of each kind takes. A browser's page load is one page,
# the API info, a heartbeat, a handful of joins and their streams, and 30-80 shipped files.
COST = {Kind.HANDLER: 1.0, Kind.PAGE: 0.5, Kind.STREAM: 0.5, Kind.LIGHT: 0.25, Kind.FILE: 0.1, Kind.CLOSED: 0.0}


@dataclass(frozen=True)
class Door:
    """One kind of door. `queued`: the answer names a queue event (counted as pending until it
    ends); `session_in_body`: the body's `session_hash` is the session Gradio uses (elsewhere every
    request is a new one)."""

    kind: Kind
    queued: bool = False
    session_in_body: bool = False


HANDLER = Door(Kind.HANDLER)
PAGE, STREAM, LIGHT, FILE, CLOSED = (Door(k) for k in (Kind.PAGE, Kind.STREAM, Kind.LIGHT, Kind.FILE, Kind.CLOSED))

# Every route of the app, by its template (a trailing "/" does not count). Open routes say why.
POLICY: dict[str, Door] = {
    # -- handlers. The queue: the page and gradio_client call every queued handler through it.
    f"{API}/queue/join": Door(Kind.HANDLER, queued=True, session_in_body=True),
    # The page runs its `queue=False` handlers (Compare's quick checks) here; a queued handler is
    # refused by Gradio itself (`queue(api_open=False)` in app.py), so nothing skips the queue.
    f"{API}/run/{{api_name}}": Door(Kind.HANDLER, session_in_body=True),
    # The documented HTTP API ("Use via API", curl; Hugging Face Spaces show it): kept, under the
    # same limits as a join, each call a new session.
    f"{API}/call/{{api_name}}": Door(Kind.HANDLER, queued=True, session_in_body=True),
    f"{API}/call/v2/{{api_name}}": Door(Kind.HANDLER, queued=True),
    # -- pages: each builds a copy of the app's config (the page embeds it), or a study's statistics.
    "/": PAGE,
    "/config": PAGE,  # gradio_client and the page's own client read it
    f"{API}/info": PAGE,  # the API's description: gradio_client and the page's client read it
    PRESENT_PATH: PAGE,
    # -- streams, held open: a session's queue events, a call's events, the heartbeat, upload progress.
    f"{API}/queue/data": STREAM,
    f"{API}/call/{{api_name}}/{{event_id}}": STREAM,
    f"{API}/call/v2/{{api_name}}/{{event_id}}": STREAM,
    f"{API}/heartbeat/{{session_hash}}": STREAM,
    f"{API}/upload_progress": STREAM,
    # -- small answers the page and gradio_client ask for.
    f"{API}/cancel": LIGHT,  # Stop in Compare
    f"{API}/reset": LIGHT,
    f"{API}/upload": LIGHT,  # the organizer's files (ui/web.py refuses everybody else)
    f"{API}/file={{path_or_url}}": LIGHT,  # the organizer's downloads
    f"{API}/queue/status": LIGHT,
    f"{API}/startup-events": LIGHT,  # Gradio's launch asks it once
    f"{API}/login_check": LIGHT,
    f"{API}/user": LIGHT,
    f"{API}/token": LIGHT,
    f"{API}/app_id": LIGHT,  # the page's client on Hugging Face Spaces (ZeroGPU)
    web.SESSION_PATH: LIGHT,
    # -- files shipped with the app.
    "/static/{path}": FILE,
    "/assets/{path}": FILE,
    "/svelte/{path}": FILE,
    "/favicon.ico": FILE,
    "/theme.css": FILE,
    f"{API}/theme.css": FILE,
    "/robots.txt": FILE,
    "/pwa_icon": FILE,
    "/pwa_icon/{size}": FILE,
    "/manifest.json": FILE,
    PLOTLY_PATH: LIGHT,  # 3.5 MB
    # -- closed: nothing of this app needs them (named so that a reader sees they were decided).
    f"{API}/api/{{api_name}}": CLOSED,  # /run's old name; the page uses /run
    f"{API}/component_server": CLOSED,  # no component of this app has server functions
    f"{API}/process_recording": CLOSED,  # no audio input
    f"{API}/stream/{{event_id}}": CLOSED,  # no streaming input
    f"{API}/stream/{{event_id}}/close": CLOSED,
    f"{API}/stream/{{session_hash}}/{{run}}/{{component_id}}/playlist.m3u8": CLOSED,
    f"{API}/stream/{{session_hash}}/{{run}}/{{component_id}}/{{segment_id}}.{{ext}}": CLOSED,
    f"{API}/stream/{{session_hash}}/{{run}}/{{component_id}}/playlist-file": CLOSED,
    f"{API}/file/{{path}}": CLOSED,  # the old name of file=
    f"{API}/proxy={{url_path}}": CLOSED,  # for apps that load Spaces
    f"{API}/custom_component/{{id}}/{{environment}}/{{type}}/{{file_name}}": CLOSED,  # none used
    f"{API}/deep_link": CLOSED,  # no deep-link button
    f"{API}/openapi.json": CLOSED,  # /gradio_api/info describes the API
    "/openapi.json": CLOSED,
    "/login": CLOSED,  # no Gradio auth: the organizer password is the app's own
    # Hugging Face sign-in (ui/hf_signin.py): Gradio adds these for a LoginButton; without one
    # /logout is Gradio's own, which only clears cookies.
    "/login/huggingface": LIGHT,
    "/login/callback": LIGHT,
    "/logout": LIGHT,
    f"{API}/dev/reload": CLOSED,
    f"{API}/runs": CLOSED,  # run history is off (app.py)
    f"{API}/run-history/connect": CLOSED,
    f"{API}/run-history/buckets": CLOSED,
    f"{API}/run-history/records": CLOSED,
    f"{API}/run-history/records/{{endpoint}}/{{record_id}}/assets/{{asset_id}}": CLOSED,
    "/monitoring": CLOSED,
    "/monitoring/summary": CLOSED,
    "/monitoring/{key}": CLOSED,
    f"{API}/vibe-edit": CLOSED,
    f"{API}/undo-vibe-edit": CLOSED,
    f"{API}/vibe-code": CLOSED,
    f"{API}/vibe-starter-queries": CLOSED,
    f"{API}/profiling/traces": CLOSED,
    f"{API}/profiling/summary": CLOSED,
    f"{API}/profiling/clear": CLOSED,
}
# Gradio names the routes of the pages `Blocks.route` adds (`/rate`) by their endpoint.
BY_ENDPOINT: dict[str, Door] = {"page_route": PAGE, "page_redirect": LIGHT}
UNROUTED = LIGHT  # no route: the router's 404, or ui/web.py's own posts (/arena/invite, /arena/signout)


@dataclass(frozen=True)
class Route:
    """One route of the table: its template, endpoint name, methods and the regex of its path."""

    template: str
    name: str
    methods: frozenset[str]
    regex: re.Pattern[str]


def flat_routes(routes: Any, prefix: str = "") -> Iterator[Route]:
    """Every route under `routes` (an app's `.routes`), routers included into it and mounts flattened."""
    for route in routes:
        contexts = getattr(route, "effective_route_contexts", None)  # FastAPI's included router
        if callable(contexts):
            yield from flat_routes(contexts(), prefix)
            continue
        inner = getattr(route, "routes", None)
        if inner is not None and not hasattr(route, "endpoint"):  # a mount: its own table
            yield from flat_routes(inner, prefix + str(route.path))
            continue
        template = prefix + str(getattr(route, "path_format", None) or getattr(route, "path", ""))
        regex = re.compile("^" + re.escape(prefix) + getattr(route, "path_regex").pattern.lstrip("^"))
        methods = frozenset(getattr(route, "methods", None) or ())
        yield Route(template, str(getattr(route, "name", "") or ""), methods, regex)


def door_of(route: Route) -> Door | None:
    """The policy's door for a route; None where the policy does not name it (it is closed)."""
    found = POLICY.get(route.template.rstrip("/") or "/")
    return found if found is not None else BY_ENDPOINT.get(route.name)


class DoorTable:
    """The app's routes with their doors, in the order the router tries them."""

    def __init__(self, routes: list[Route]):
        self.routes = [(r, door_of(r) or CLOSED) for r in routes]
        self.unknown = sorted({r.template for r in routes if door_of(r) is None})
        if self.unknown:
            log.warning("routes closed because no door is decided for them (ui/doors.py): %s", ", ".join(self.unknown))

    def door(self, path: str, method: str) -> tuple[Door, str]:
        """The door of a request (and the route's template): the first route whose path and method
        match, else the first whose path does (the router's 405), else `UNROUTED`."""
        method = "GET" if method == "HEAD" else method
        partial = None
        for route, door in self.routes:
            if route.regex.match(path):
                if not route.methods or method in route.methods or (method == "GET" and "HEAD" in route.methods):
                    return door, route.template
                partial = partial or (door, route.template)
        return partial or (UNROUTED, "")


_tables: weakref.WeakKeyDictionary[Any, DoorTable] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def table_of(app: Any) -> DoorTable:
    """The door table of an ASGI app with `.routes` (built once per app: the routes are fixed once it serves)."""
    with _lock:
        table = _tables.get(app)
        if table is None:
            table = _tables[app] = DoorTable(list(flat_routes(getattr(app, "routes", []))))
        return table
