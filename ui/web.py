"""What the app's HTTP layer adds around Gradio: one ASGI middleware and one route.

* `Referrer-Policy: no-referrer` (and `X-Content-Type-Options: nosniff`) on every response, so no
  page address travels to another site.
* **Invite links** (`?invite=CODE` on any page): the code goes into an HttpOnly, SameSite=Strict
  cookie and the browser is sent on to the rating page, `/rate`, at a clean address. The code is then
  in no address bar, history entry, screenshot or later request line; the rating handlers read the
  cookie on the server (arena/access/sessions.py). A browser holding that cookie that asks for the main
  page is sent to `/rate` too: an invited rater sees a page with nothing but rating on it, also when
  the app runs in full mode.
* **No seat swaps from elsewhere** (issue 32, route 4). A link on another site to `/?invite=OTHER`
  used to replace the rater's cookie, so their next ratings went to another seat. The cookie is set
  straight from the link only when the browser says the address was typed, pasted or opened from
  this site (`Sec-Fetch-Site: none` or `same-origin`) and it holds no other code. Otherwise the
  link gets a page of this site that posts the code back here (`POST /arena/invite`, same-origin
  only), where the Strict cookie is visible: with no other code it is set at once; with another
  one, the rater is asked whether to keep it or switch. Leaving a study is `POST /arena/signout`,
  same-origin only: a link cannot sign anybody out.
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
from html import escape
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from arena.access import invites, sessions

RATE_PAGE = "rate"  # the rating-only page (app.py builds it with Blocks.route)
UPLOAD_PATH = "/gradio_api/upload"
SESSION_PATH = "/arena/organizer-session"
INVITE_PATH = "/arena/invite"
SIGNOUT_PATH = "/arena/signout"
# Sec-Fetch-Site values for which a browser vouches that no other site started the navigation.
OWN_NAVIGATION = (b"none", b"same-origin")
PAGE_HEADERS = (
    (b"content-type", b"text/html; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
)
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
            code = invites.code_from(dict(query).get("invite")) or "-" if "invite" in names else None
            held = _cookies(headers).get(sessions.RATER_COOKIE)
            if code is not None and (headers.get(b"sec-fetch-site") not in OWN_NAVIGATION or held not in (None, code)):
                await _page(send_with_headers, 200, handover_page(code, root, _zh(headers)))
                return
            # `?signout` is only dropped from the address now: signing out is a same-origin POST.
            cookie = (
                None if code is None else cookie_header(sessions.RATER_COOKIE, code, secure=secure, path=root or "/")
            )
            target = f"{root}/{RATE_PAGE}" if code is not None else f"{root}/"
            await self._redirect(target + (f"?{urlencode(rest)}" if rest else ""), cookie, send_with_headers)
            return
        if method == "POST" and path in (INVITE_PATH, SIGNOUT_PATH):
            await self._own_post(path, scope, receive, headers, root, secure, send_with_headers)
            return
        if method in ("GET", "HEAD") and path == "/" and sessions.RATER_COOKIE in _cookies(headers):
            target = f"{root}/{RATE_PAGE}" + (f"?{urlencode(query)}" if query else "")
            await self._redirect(target, None, send_with_headers)
            return
        if path == UPLOAD_PATH and not sessions.organizer.valid(_cookies(headers).get(sessions.ORGANIZER_COOKIE)):
            await PlainTextResponse(UPLOAD_REFUSED, status_code=403)(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    async def _own_post(
        self, path: str, scope: Any, receive: Any, headers: dict[bytes, bytes], root: str, secure: bool, send: Any
    ) -> None:
        """`POST /arena/invite` (code, confirm) and `POST /arena/signout`, from this site's own pages only."""
        zh = _zh(headers)
        if not same_origin(headers):
            await _page(send, 403, message_page(REFUSED[zh], zh))
            return
        if path == SIGNOUT_PATH:
            cookie = cookie_header(sessions.RATER_COOKIE, "", secure=secure, path=root or "/", max_age=0)
            await self._redirect(f"{root}/", cookie, send)
            return
        form = dict(parse_qsl((await _body(receive)).decode("utf-8", "replace"), keep_blank_values=True))
        code = invites.code_from(form.get("code")) or "-"
        held = _cookies(headers).get(sessions.RATER_COOKIE)
        if held not in (None, "-", code) and form.get("confirm") != "1":
            await _page(send, 200, confirm_page(code, root, zh))
            return
        cookie = cookie_header(sessions.RATER_COOKIE, code, secure=secure, path=root or "/")
        await self._redirect(f"{root}/{RATE_PAGE}", cookie, send)

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


def same_origin(headers: dict[bytes, bytes]) -> bool:
    """Did this site's own page send the request? The browser's `Sec-Fetch-Site` when it sends one (no
    page can forge it), else `Origin` against the host the request was made to."""
    site = headers.get(b"sec-fetch-site")
    if site is not None:
        return site == b"same-origin"
    origin = headers.get(b"origin")
    if not origin or b"://" not in origin:
        return False
    host = headers.get(b"x-forwarded-host") or headers.get(b"host") or b""
    return origin.split(b"://", 1)[1].rstrip(b"/") == host.split(b",")[0].strip()


async def _body(receive: Any, limit: int = 4096) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body") or len(body) > limit:
            return body[:limit]


def _zh(headers: dict[bytes, bytes]) -> bool:
    return headers.get(b"accept-language", b"").strip().lower().startswith(b"zh")


async def _page(send: Any, status: int, html: str) -> None:
    await send({"type": "http.response.start", "status": status, "headers": list(PAGE_HEADERS)})
    await send({"type": "http.response.body", "body": html.encode("utf-8")})


REFUSED = {
    False: "This form can only be sent from this site's own page. Open your invite link again.",
    True: "此表单只能从本站自己的页面提交。请重新打开你的邀请链接。",
}
HANDOVER = {
    False: ("Opening your invitation…", "Continue to the rating page"),
    True: ("正在打开你的邀请……", "继续前往评分页面"),
}
CONFIRM = {
    False: (
        "This browser is already taking part in a rating study with another invitation.",
        "Your ratings so far are saved either way. Which invitation should this browser use from now on?",
        "Keep the one I have",
        "Use the new invitation",
    ),
    True: (
        "此浏览器已经在用另一个邀请参加评分研究。",
        "无论选哪个，你已给出的评分都已保存。此浏览器今后使用哪个邀请？",
        "保留现在的邀请",
        "使用新的邀请",
    ),
}


def _html(body: str, zh: bool) -> str:
    return (
        f'<!doctype html><html lang="{"zh" if zh else "en"}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">'
        "<title>Decoding Arena</title></head>"
        '<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5">'
        f"{body}</body></html>"
    )


def message_page(text: str, zh: bool) -> str:
    return _html(f"<p>{escape(text)}</p>", zh)


def handover_page(code: str, root: str, zh: bool) -> str:
    """The page an invite link gets when the browser may hold another seat or another site sent it: it
    posts the code back to this site (at once, by script; by the button without one)."""
    title, button = HANDOVER[zh]
    form = (
        f'<form id="handover" method="post" action="{escape(root)}{INVITE_PATH}">'
        f'<input type="hidden" name="code" value="{escape(code)}"><button type="submit">{escape(button)}</button></form>'
    )
    # The address bar loses the code at once; the form posts it to this site, where the cookie is visible.
    script = (
        "<script>history.replaceState(null,'',location.pathname);document.getElementById('handover').submit();</script>"
    )
    return _html(f"<p>{escape(title)}</p>{form}{script}", zh)


def confirm_page(code: str, root: str, zh: bool) -> str:
    """Keep the seat this browser holds, or switch to the new invitation: the rater's choice, on this site."""
    held, note, keep, switch = CONFIRM[zh]
    return _html(
        f'<h1 style="font-size:1.3rem">{escape(held)}</h1><p>{escape(note)}</p>'
        f'<p><a href="{escape(root)}/{RATE_PAGE}">{escape(keep)}</a></p>'
        f'<form method="post" action="{escape(root)}{INVITE_PATH}"><input type="hidden" name="code" value="{escape(code)}">'
        f'<input type="hidden" name="confirm" value="1"><button type="submit">{escape(switch)}</button></form>',
        zh,
    )


# The rating page's "Leave this study" button: the same-origin POST, then the main page.
SIGNOUT_JS = (
    "async () => { await fetch('"
    + SIGNOUT_PATH.lstrip("/")
    + "', {method: 'POST', credentials: 'same-origin', redirect: 'manual'}); window.location.assign('./'); return []; }"
)
