"""Signing in with Hugging Face: Gradio's own OAuth, and who is signed in for a rating handler.

On a Space with `hf_oauth: true` in the README's metadata, Hugging Face sets `OAUTH_CLIENT_ID` (and
its secret, scopes and provider); a `gr.LoginButton` then makes Gradio add the real routes
(`/login/huggingface`, `/login/callback`, `/logout`) and a signed session cookie that holds the
OpenID profile. A rating handler reads the profile from that session on the server (`account_of`),
so the page never sends, and cannot forge, who it is.

Off a Space Gradio mocks the sign-in with the machine's own Hugging Face login, which needs the
network and a token, and would let every visitor in as the machine's owner. Here the sign-in is off
unless `ARENA_HF_MOCK_USER` names the mocked account: then the login route signs the browser in as
that account at once, or as `?as=NAME@ORG1+ORG2` when the login address carries one (so that one
test app can play several raters). The mock is for tests and trials: anyone may sign in as anyone.
On a Space the setting is ignored and the real routes are always used. "On a Space" is Gradio's own
test (`gradio.utils.get_space`), so that the two never disagree about which routes are there.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

import gradio as gr
import gradio.oauth as gradio_oauth
from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse
from gradio.utils import get_space

from arena.access import clients
from arena.access.accounts import Account, account_of_profile
from arena.settings import current as current_settings

log = logging.getLogger(__name__)
MOCK_HOURS = 8  # as long as Gradio's own mock keeps a sign-in


def on_space() -> bool:
    """Whether Gradio takes this for a Space (`SYSTEM=spaces` and `SPACE_ID`): asked of Gradio itself,
    since its answer picks the real routes or its own mock, and the mock must never be Gradio's."""
    return get_space() is not None


def cookie_key_is_secret() -> bool:
    """Whether Gradio's session cookie is signed with a secret: its key is the SHA-256 of the Space's
    OAuth client secret + "-v4", so without that secret the key is public and anybody could write a
    cookie that names any account."""
    return bool(gradio_oauth.OAUTH_CLIENT_SECRET)


def enabled() -> bool:
    """Raters may sign in: on a Space with OAuth turned on (its client id and secret both set), or off
    a Space with the mock named."""
    config = current_settings()
    if not on_space():
        return bool(config.hf_mock_user)
    if config.oauth_client_id and not cookie_key_is_secret():
        _warn_once("OAUTH_CLIENT_ID is set but OAUTH_CLIENT_SECRET is not: Hugging Face sign-in stays off")
        return False
    return bool(config.oauth_client_id)


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.error(message)


def login_button() -> gr.LoginButton | None:
    """The sign-in button for the rating page (it signs out once signed in), or None where the sign-in
    is off. Must be built before the app starts: Gradio adds its routes for an app that has one."""
    if not enabled():
        return None
    if not on_space():
        _install_mock()
    return gr.LoginButton(
        "Sign in with Hugging Face", logout_value="Sign out ({})", size="sm", elem_id="rate-hf-signin"
    )


def account_of(request: Any) -> Account | None:
    """The account signed in on the browser that sent `request` (a gr.Request or a starlette
    request), from the session Gradio's OAuth keeps on the server; None when nobody is, the sign-in
    expired, or the sign-in is off."""
    if request is None or not enabled():
        return None
    scope = getattr(clients.http_request(request), "scope", None)
    session = scope.get("session") if isinstance(scope, Mapping) else None
    info = session.get("oauth_info") if isinstance(session, Mapping) else None
    if not isinstance(info, Mapping):
        return None
    expires = info.get("expires_at")
    if isinstance(expires, int | float) and expires < time.time():
        return None
    profile = info.get("userinfo")
    return account_of_profile(profile if isinstance(profile, Mapping) else None)


# ---- the mock, off a Space -------------------------------------------------------------------------


def mock_profile(spec: str) -> dict[str, Any]:
    """The OpenID profile of a mocked account, `NAME` or `NAME@ORG1+ORG2`, shaped as the Hub sends it."""
    user, _, orgs = spec.strip().partition("@")
    return {
        "sub": f"mock-{user}",
        "name": user,
        "preferred_username": user,
        "profile": f"https://huggingface.co/{user}",
        "picture": "",
        "orgs": [{"preferred_username": org, "name": org} for org in orgs.split("+") if org],
    }


def mock_routes(app: FastAPI) -> None:
    """Gradio's mocked routes, with the account from the settings (or the login address's `as`)."""

    async def login(request: Request) -> RedirectResponse:
        spec = request.query_params.get("as") or current_settings().hf_mock_user
        request.session["oauth_info"] = {
            "access_token": "mock-oauth-token",
            "token_type": "bearer",
            "scope": "openid profile",
            "expires_at": int(time.time()) + MOCK_HOURS * 3600,
            "userinfo": mock_profile(spec),
        }
        return gradio_oauth._redirect_to_target(request)  # Gradio's, with its open-redirect guard

    async def logout(request: Request) -> RedirectResponse:
        request.session.pop("oauth_info", None)
        return gradio_oauth._redirect_to_target(request)

    app.add_api_route("/login/huggingface", login, methods=["GET"])
    app.add_api_route("/login/callback", login, methods=["GET"], name="oauth_redirect_callback")
    app.add_api_route("/logout", logout, methods=["GET"])


def _install_mock() -> None:
    """Have Gradio add the mocked routes above instead of its own (which ask the Hub who this machine is)."""
    if gradio_oauth._add_mocked_oauth_routes is not mock_routes:
        log.warning("Hugging Face sign-in is MOCKED (ARENA_HF_MOCK_USER): anyone can sign in as anyone")
        gradio_oauth._add_mocked_oauth_routes = mock_routes
