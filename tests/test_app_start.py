"""The app starts on a host too busy to answer Gradio's start checks in time, and says in one line why
when it truly cannot start (issue 36: 6 of 6 starts died at load 30-40, "a shareable link must be created").

The busy host is played by a `sitecustomize` in the app's process that slows the server itself: either
uvicorn's start-up (the lifespan) takes 7 s, past Gradio's 5 s wait for it, or the first `HEAD /` or
`GET /` is answered after 6 s, past Gradio's 3 s probe. Both are what a starved CPU does to a real start.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import httpx
import pytest

from arena.store import Store
from tests.support.live_app import ROOT, app_env, free_port, start_app

SLOW_SERVER = """
import asyncio
import os

import uvicorn

_init = uvicorn.Config.__init__
_first = {"page": True}


def _slowed(app):
    async def slowed(scope, receive, send):
        if scope["type"] == "lifespan" and os.environ.get("SLOW_START") == "lifespan":
            await asyncio.sleep(7)  # past Gradio's 5 s wait for uvicorn to report itself started
        elif scope["type"] == "http" and scope["path"] == "/" and _first["page"] and os.environ.get("SLOW_START") == "page":
            _first["page"] = False
            await asyncio.sleep(6)  # past Gradio's 3 s HEAD probe
        await app(scope, receive, send)

    return slowed


def _config(self, app, *args, **kwargs):
    _init(self, _slowed(app), *args, **kwargs)


uvicorn.Config.__init__ = _config
"""


@pytest.mark.parametrize("slow", ["lifespan", "page"])
def test_starts_and_serves_when_the_first_answers_are_slow(tmp_path, slow: str):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SLOW_SERVER)
    inherited = app_env(tmp_path).get("PYTHONPATH")
    pythonpath = f"{site}:{inherited}" if inherited else str(site)
    app = start_app(tmp_path / "app", extra_env={"PYTHONPATH": pythonpath, "SLOW_START": slow})
    try:
        # /config answers while launch is still probing; the start is over when the app says it serves.
        deadline = time.monotonic() + 300
        while app.alive() and "arena: serving on" not in app.log_tail(100_000) and time.monotonic() < deadline:
            time.sleep(0.2)
        page = httpx.get(f"{app.url}/", timeout=60, trust_env=False)
        assert page.status_code == 200 and "gradio" in page.text.lower()
        assert app.alive(), app.log_tail()
        assert "Traceback" not in app.log_tail(), app.log_tail()
    finally:
        app.stop()


def run_app(
    tmp_path, port: int, timeout_s: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    cmd = [sys.executable, str(ROOT / "app.py"), "--host", "127.0.0.1", "--port", str(port)]
    env = app_env(tmp_path, env)
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout_s)


def test_port_in_use_is_one_line_before_the_model_loads(tmp_path):
    port = free_port()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", port))
        busy.listen()
        done = run_app(tmp_path, port)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("error: ") and f"port {port}" in lines[-1] and "in use" in lines[-1], lines[-5:]
    assert "Traceback" not in done.stderr
    assert "model ready" not in done.stderr  # refused before the model's load, not after it


@pytest.mark.parametrize("store", ["closed-port", "mysql", "read-only", "folder"])
def test_a_store_it_cannot_use_is_one_line_at_start(tmp_path, store: str):
    """The app refuses to start on a store it cannot write, naming why, before the model loads (it
    used to serve and fail at the first rating with "cannot be reached ... try again")."""
    seeded = tmp_path / "seeded.db"
    Store(f"sqlite:///{seeded}").dispose()
    url, says = {
        "closed-port": (f"postgresql://u:p@127.0.0.1:{free_port()}/x", "cannot be reached"),
        "mysql": ("mysql://u:p@localhost/x", "SQLite or PostgreSQL"),
        "read-only": (f"sqlite:///file:{seeded}?mode=ro&uri=true", "is read-only"),
        "folder": (f"sqlite:///{tmp_path}", "is a folder"),
    }[store]
    done = run_app(tmp_path, free_port(), env={"DATABASE_URL": url})
    assert done.returncode == 2, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and says in last, last
    assert "Traceback" not in done.stderr and "model ready" not in done.stderr
