"""What the app's HTTP layer adds around Gradio: one ASGI middleware and one route.

* `Referrer-Policy: no-referrer` (and `X-Content-Type-Options: nosniff`) on every response, so no
  page address travels to another site.
* **Invite links** (`?invite=CODE` on any page): the code goes into an HttpOnly, SameSite=Strict
  cookie and the browser is sent on to the rating page, `/rate`, at a clean address. The code is then
  in no address bar, history entry, screenshot or later request line; the rating handlers read the
  cookie on the server (arena/sessions.py). A browser holding that cookie that asks for the main
  page is sent to `/rate` too: an invited rater sees a page with nothing but rating on it, also when
  the app runs in full mode. `?signout` on any page drops the cookie.
* **Uploads** (`POST /gradio_api/upload`, where Gradio stores a file before any handler runs) are
  refused without an organizer session cookie: only a browser that has given the organizer password
  can put a file on the server or learn a server path.
* `POST /arena/organizer-session`: trades the one-time ticket the Organizer's unlock handed the page
  for the organizer session cookie.

SameSite=Strict, not Lax: the cookies are needed only on requests the app's own page makes, and
Strict keeps every other site from making a browser send them, top-level links included.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from arena import invites, sessions

RATE_PAGE = "rate"  # the rating-only page (app.py builds it with Blocks.route)
UPLOAD_PATH = "/gradio_api/upload"
SESSION_PATH = "/arena/organizer-session"
SECURITY_HEADERS = ((b"referrer-policy", b"no-referrer"), (b"x-content-type-options", b"nosniff"))
UPLOAD_REFUSED = "uploads need the organizer password: unlock the Organizer tab first, then upload"

ASGIApp = Callable[..., Awaitable[None]]


def _https(scope: MutableMapping[str, Any], headers: dict[bytes, bytes]) -> bool:
    return scope.get("scheme") == "https" or headers.get(b"x-forwarded-proto", b"").split(b",")[0].strip() == b"https"


def cookie_header(name: str, value: str, *, secure: bool, path: str = "/", max_age: int | None = None) -> bytes:
    parts = [f"{name}={value}", f"Path={path or '/'}", "HttpOnly", "SameSite=Strict"]
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    if secure:
        parts.append("Secure")
    return "; ".join(parts).encode("latin-1")


def _cookies(headers: dict[bytes, bytes]) -> dict[str, str]:
    jar = SimpleCookie()
    try:
        jar.load(headers.get(b"cookie", b"").decode("latin-1"))
    except Exception:  # a malformed Cookie header: no cookies
        return {}
    return {k: m.value for k, m in jar.items()}


class ArenaMiddleware:
    """The middleware described in the module docstring (pure ASGI: Gradio's SSE streams pass through)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        root = (scope.get("root_path") or "").rstrip("/")
        path = scope.get("path", "")
        if root and path.startswith(root):
            path = path[len(root) :] or "/"
        method = scope.get("method", "GET")
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        names = {k for k, _ in query}
        secure = _https(scope, headers)

        async def send_with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        if method in ("GET", "HEAD") and ("invite" in names or "signout" in names):
            rest = [(k, v) for k, v in query if k not in ("invite", "signout")]
            if "signout" in names:
                cookie = cookie_header(sessions.RATER_COOKIE, "", secure=secure, path=root or "/", max_age=0)
                target = f"{root}/"
            else:
                code = invites.code_from(dict(query).get("invite")) or "-"
                cookie = cookie_header(sessions.RATER_COOKIE, code, secure=secure, path=root or "/")
                target = f"{root}/{RATE_PAGE}"
            await self._redirect(target + (f"?{urlencode(rest)}" if rest else ""), cookie, send_with_headers)
            return
        if method in ("GET", "HEAD") and path == "/" and sessions.RATER_COOKIE in _cookies(headers):
            target = f"{root}/{RATE_PAGE}" + (f"?{urlencode(query)}" if query else "")
            await self._redirect(target, None, send_with_headers)
            return
        if path == UPLOAD_PATH and not sessions.organizer.valid(_cookies(headers).get(sessions.ORGANIZER_COOKIE)):
            await PlainTextResponse(UPLOAD_REFUSED, status_code=403)(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    @staticmethod
    async def _redirect(location: str, cookie: bytes | None, send: Any) -> None:
        headers = [(b"location", location.encode("latin-1")), (b"cache-control", b"no-store")]
        if cookie is not None:
            headers.append((b"set-cookie", cookie))
        await send({"type": "http.response.start", "status": 303, "headers": headers})
        await send({"type": "http.response.body", "body": b""})


async def organizer_session(request: Request) -> Response:
    """POST the ticket (the body, as text): 204 with the organizer cookie, or 403."""
    body = (await request.body())[:400].decode("utf-8", "replace").strip()
    token = sessions.organizer.redeem(body)
    if token is None:
        return PlainTextResponse("that ticket is not valid; give the organizer password again", status_code=403)
    response = Response(status_code=204, headers={"Cache-Control": "no-store"})
    root = (request.scope.get("root_path") or "").rstrip("/")
    secure = _https(request.scope, dict(request.scope.get("headers") or []))
    response.raw_headers.append(
        (
            b"set-cookie",
            cookie_header(
                sessions.ORGANIZER_COOKIE, token, secure=secure, path=root or "/", max_age=int(sessions.SESSION_S)
            ),
        )
    )
    return response


def routes() -> list[Route]:
    return [Route(SESSION_PATH, organizer_session, methods=["POST"])]


# The page's half of the ticket trade, run after the unlock handler wrote the ticket into a hidden
# box. The address is relative to the page, so the app works under a path prefix too.
TRADE_TICKET_JS = (
    "async (ticket) => { if (ticket) { await fetch('"
    + SESSION_PATH.lstrip("/")
    + "', {method: 'POST', body: ticket, credentials: 'same-origin'}); } return []; }"
)
