"""Who is asking: a client's address, through the reverse proxies the operator trusts.

The peer of a request is its last hop. Behind a reverse proxy (a Hugging Face Space, nginx) that hop
is the proxy, and every visitor would look like one client; the proxy names the visitor in
`X-Forwarded-For`. Anyone can write that header, so it counts only when the peer is a proxy named in
`ARENA_TRUSTED_PROXIES` (addresses or CIDR blocks). Then the header is read from the right: each
hop that is itself a trusted proxy is skipped, and the first one no trusted proxy vouches for is the
client. Whatever a client wrote further left is never read, so a forged header changes nothing.

An IPv6 client is its /64: one household or host gets a whole /64, so counting single addresses
would hand an attacker 2**64 fresh identities.

>>> client_address("10.0.0.7", "203.0.113.9, 198.51.100.4", parse_proxies("10.0.0.0/8"))
'198.51.100.4'
>>> client_address("198.51.100.4", "203.0.113.9", parse_proxies(""))
'198.51.100.4'
"""

from __future__ import annotations

import ipaddress
import logging
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from arena import settings
from common.errors import UserError

log = logging.getLogger(__name__)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
LOCAL = "local"  # an in-process call with no request (tests, scripts)
MAX_ID_CHARS = 64
IPV6_CLIENT_PREFIX = 64


def parse_proxies(text: str) -> tuple[Network, ...]:
    """`ARENA_TRUSTED_PROXIES`: comma- or space-separated addresses and CIDR blocks."""
    nets = []
    for part in text.replace(",", " ").split():
        try:
            nets.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise UserError(
                f"{settings.env_of('trusted_proxies')}: {part!r} is not an address or CIDR block (e.g. 10.0.0.0/8)"
            ) from None
    return tuple(nets)


_cache: dict[str, tuple[Network, ...]] = {}
_cache_lock = threading.Lock()


def trusted_proxies() -> tuple[Network, ...]:
    """The trusted proxies of the current settings (parsed once per value)."""
    text = settings.current().trusted_proxies
    with _cache_lock:
        found = _cache.get(text)
        if found is None:
            found = _cache[text] = parse_proxies(text)
        return found


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address from a header entry, with a port or IPv6 brackets taken off; None if it is not one."""
    text = text.strip().strip('"')
    if text.startswith("["):  # [v6]:port
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        found = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return found.ipv4_mapped
    return found


def _trusted(address: ipaddress.IPv4Address | ipaddress.IPv6Address | None, proxies: Iterable[Network]) -> bool:
    return address is not None and any(address.version == net.version and address in net for net in proxies)


def _client_id(address: ipaddress.IPv4Address | ipaddress.IPv6Address | None, raw: str) -> str:
    if address is None:
        return raw.strip()[:MAX_ID_CHARS] or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{address}/{IPV6_CLIENT_PREFIX}", strict=False))
    return str(address)


def client_address(peer: str | None, forwarded: str | None, proxies: Iterable[Network]) -> str:
    """The client behind `peer` (the socket's address), given its `X-Forwarded-For` value(s)."""
    proxies = tuple(proxies)
    peer_text = (peer or "").strip()
    current = _address(peer_text)
    if not peer_text:
        return LOCAL
    if not forwarded or not _trusted(current, proxies):
        return _client_id(current, peer_text)
    hops = [h for h in forwarded.split(",") if h.strip()]
    raw = peer_text
    while hops and _trusted(current, proxies):
        raw = hops.pop()
        current = _address(raw)
    return _client_id(current, raw)


def _headers_of(request: Any) -> Mapping[str, str]:
    headers = getattr(request, "headers", None)
    if headers is None:
        return {}
    if hasattr(headers, "getlist"):  # starlette: several X-Forwarded-For headers are one list
        return {"x-forwarded-for": ", ".join(headers.getlist("x-forwarded-for"))}
    try:
        return {str(k).lower(): str(v) for k, v in dict(headers).items()}
    except (TypeError, ValueError):
        return {}


def http_request(request: Any) -> Any:
    """The starlette request behind a gr.Request (or the object itself)."""
    inner = getattr(request, "__dict__", {}).get("request")
    return inner if inner is not None else request


def client_of(request: Any) -> str:
    """The client of a gr.Request, a starlette request or anything with `.client.host` (and
    `.headers`); "local" without one."""
    if request is None:
        return LOCAL
    inner = http_request(request)
    host = getattr(getattr(inner, "client", None), "host", None)
    forwarded = _headers_of(inner).get("x-forwarded-for") or None
    client = client_address(str(host) if host else None, forwarded, trusted_proxies())
    if forwarded and not trusted_proxies() and host:
        _note_untrusted_forwarding(str(host))
    return client


_noted: set[str] = set()


def _note_untrusted_forwarding(peer: str) -> None:
    """Once per peer: requests arrive with X-Forwarded-For from a proxy that is not trusted, so
    every visitor behind it counts as one client. Says which setting changes that."""
    if peer in _noted or len(_noted) > 100:
        return
    _noted.add(peer)
    log.warning(
        "requests from %s carry X-Forwarded-For, which is ignored: if %s is your reverse proxy, set %s",
        peer,
        peer,
        settings.env_of("trusted_proxies"),
    )


def cookie(request: Any, name: str) -> str | None:
    """A cookie of the request behind a gr.Request or starlette request, or None."""
    if request is None:
        return None
    inner = http_request(request)
    jar = getattr(inner, "cookies", None)
    if isinstance(jar, Mapping):
        value = jar.get(name)
        return str(value) if value else None
    kwargs = getattr(request, "__dict__", {}).get("kwargs") or {}
    value = (kwargs.get("cookies") or {}).get(name)
    return str(value) if value else None


def session_of(request: Any) -> str:
    """The Gradio session (one browser tab's page load) of a gr.Request; "" without one."""
    return str(getattr(request, "__dict__", {}).get("session_hash") or "")


_HOST = re.compile(r"^[A-Za-z0-9.\-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$")


def _last_value(text: str | None) -> str:
    """The entry a trusted proxy added to a comma-separated forwarding header: the rightmost."""
    parts = [p.strip() for p in (text or "").split(",") if p.strip()]
    return parts[-1] if parts else ""


def base_url(request: Any) -> str:
    """The address this request reached the app at ("https://arena.example.org"), for links that
    must work outside the page (invite links in an e-mail); "" when it cannot be told.

    The Host header and the request's scheme, with `X-Forwarded-Proto` / `X-Forwarded-Host` used
    only when the peer is a trusted proxy (`ARENA_TRUSTED_PROXIES`): anyone else could name any host.
    A mount path (`root_path`) is kept."""
    if request is None:
        return ""
    inner = http_request(request)
    raw_headers = getattr(inner, "headers", None) or {}
    try:
        headers = {str(k).lower(): str(v) for k, v in dict(raw_headers).items()}
    except (TypeError, ValueError):
        headers = {}
    url = getattr(inner, "url", None)
    scheme = str(getattr(url, "scheme", "") or "http")
    host = headers.get("host", "") or str(getattr(url, "netloc", "") or "")
    peer = getattr(getattr(inner, "client", None), "host", None)
    if peer and _trusted(_address(str(peer)), trusted_proxies()):
        scheme = _last_value(headers.get("x-forwarded-proto")) or scheme
        host = _last_value(headers.get("x-forwarded-host")) or host
    if scheme not in ("http", "https") or not _HOST.match(host):
        return ""
    scope = getattr(inner, "scope", None)
    root = str(scope.get("root_path", "") if isinstance(scope, Mapping) else "").rstrip("/")
    if root and not re.fullmatch(r"(/[A-Za-z0-9._~\-]+)+", root):
        root = ""
    return f"{scheme}://{host}{root}"
