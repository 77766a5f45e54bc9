"""The real app as a separate process on loopback, and a raw client for Gradio's HTTP queue.

The browser, load, fault and security tests all talk to `python app.py` started here, never to an
in-process Blocks: a SIGKILL must kill a real server, and a forged call must go through the same
routes a browser uses. `GradioHTTP` speaks the queue protocol directly (POST /queue/join, then the
SSE stream of /queue/data) so it can call every registered function by index, including the ones
`gradio_client` refuses to call because they are not public: a browser, or an attacker, can.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from ui.i18n import plain

ROOT = Path(__file__).resolve().parents[2]
ORGANIZER_PASSWORD = "organizer-test-pw-7f3a"
API = "/gradio_api"
# The settings of an app whose outputs come from the dummy engine at about the small model's pace on
# these cores (20 tokens a second, every method's): for the live and browser tests where what is
# generated is not what they test. Runs still stream, hold the generation slot, can be stopped and
# show progress, but leave the CPU to the browser and the server (docs/testing.md).
DUMMY_ENGINE = {"ARENA_ENGINE": "dummy", "ARENA_DUMMY_TOKEN_DELAY": "0.05"}
# The dummy engine without a pace: for the tests that read where and how an answer comes (the Python
# API, Compare's layout), whose runs at DUMMY_ENGINE's pace would wait longer than an app's start.
DUMMY_FAST = {"ARENA_ENGINE": "dummy"}
# Rating-only mode (ARENA_MODE=rating: Rate, Results and the stakeholder page), on the dummy engine:
# it serves stored outputs, and nothing in it generates.
RATING_ONLY = {"ARENA_ENGINE": "dummy", "ARENA_MODE": "rating"}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def app_env(workdir: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for an app process whose data lives only under `workdir`."""
    env = dict(os.environ)
    env.update(
        ARENA_DB_PATH=str(workdir / "arena.db"),
        ARENA_ORGANIZER_PASSWORD=ORGANIZER_PASSWORD,
        GRADIO_ANALYTICS_ENABLED="False",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        PYTHONUNBUFFERED="1",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
        # Security and fault tests send many wrong codes and passwords from 127.0.0.1 on purpose; the
        # backoff itself is tested with its own app started with the default (extra_env overrides).
        ARENA_AUTH_FREE_ATTEMPTS="1000",
        # Likewise, tests play many browsers through one client (a fresh Gradio session per call, as
        # few scripts and no browser do); the queue gate's limits are attacked with their defaults in
        # tests/test_blind_closed_live.py, which passes them back in `extra`.
        ARENA_JOINS_PER_SECOND="100000",
        ARENA_SESSIONS_PER_MINUTE="1000000",
        ARENA_QUEUE_PER_CLIENT="100000",  # tests/test_load.py: 50 raters' submits pending at once from 127.0.0.1
        ARENA_PAGES_PER_CLIENT="100000",  # tests/test_load.py: 50 gradio_client raters read /config at once
    )
    env.pop("DATABASE_URL", None)  # a test that wants PostgreSQL passes it in `extra`
    env.update(extra or {})
    return env


@dataclass
class LiveApp:
    """A running `app.py`. `url` ends without a slash."""

    proc: subprocess.Popen
    url: str
    port: int
    workdir: Path
    log_path: Path
    env: dict[str, str] = field(repr=False, default_factory=dict)
    started_s: float = 0.0  # from Popen to the first answer of /config
    started_by: str = "?"  # the test that started it
    recorded: bool = False  # its line is in artifacts/app-starts.jsonl (record_start)

    @property
    def db_url(self) -> str:
        """The database the app stores into, for a test that seeds it or reads what it stored."""
        return self.env.get("DATABASE_URL") or f"sqlite:///{self.env['ARENA_DB_PATH']}"

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers, no flushing; what is not on disk is gone."""
        record_start(self)
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        record_start(self)
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


def record_start(app: LiveApp) -> None:
    """One line per app process in artifacts/app-starts.jsonl (once, when it is stopped): how long it
    took to serve, the CPU it used in its life, its settings and the test that started it. An app
    start is the live tiers' biggest fixed cost; scripts/test.sh sums the file."""
    if not app.alive() or app.recorded:
        return
    app.recorded = True
    try:
        fields = Path(f"/proc/{app.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu_s = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return  # not Linux, or already gone
    own = ("ARENA_DB_PATH", "ARENA_ORGANIZER_PASSWORD")
    settings = {k: v for k, v in app.env.items() if k.startswith("ARENA_") and k not in os.environ and k not in own}
    line = {
        "serve_s": round(app.started_s, 1),
        "cpu_s": round(cpu_s, 1),
        "by": app.started_by,
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "-"),
        "settings": settings,
    }
    (ROOT / "artifacts").mkdir(exist_ok=True)
    with open(ROOT / "artifacts" / "app-starts.jsonl", "a") as out:
        out.write(json.dumps(line) + "\n")


class PortTaken(RuntimeError):
    """The port start_app picked was taken before the app could listen on it."""


def start_app(
    workdir: Path,
    extra_env: dict[str, str] | None = None,
    timeout_s: float = 300,
    args: list[str] | None = None,
    port: int | None = None,
) -> LiveApp:
    """Start `python app.py` on 127.0.0.1 and wait until its config answers. Without a `port`, a free
    one; if another process (a live test on the other worker) took it before the app bound it, the
    app says so and exits 2, and it starts again on another."""
    if port is None:
        for _ in range(2):
            try:
                return start_app(workdir, extra_env, timeout_s, args, free_port())
            except PortTaken:
                pass
        return start_app(workdir, extra_env, timeout_s, args, free_port())
    workdir.mkdir(parents=True, exist_ok=True)
    env = app_env(workdir, extra_env)
    log_path = workdir / f"app-{port}-{int(time.time() * 1000)}.log"
    log = open(log_path, "wb")
    cmd = [sys.executable, str(ROOT / "app.py"), "--host", "127.0.0.1", "--port", str(port), *(args or [])]
    began = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    app = LiveApp(proc, f"http://127.0.0.1:{port}", port, workdir, log_path, env)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not app.alive():
            if proc.returncode == 2 and f"port {port} on 127.0.0.1 is already in use" in app.log_tail():
                raise PortTaken(app.log_tail())
            raise RuntimeError(f"app.py exited with {proc.returncode} before serving:\n{app.log_tail()}")
        try:
            r = httpx.get(f"{app.url}/config", timeout=5, trust_env=False)
            if r.status_code == 200:
                app.started_s = time.monotonic() - began
                app.started_by = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]
                return app
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    app.kill()
    raise RuntimeError(f"app.py did not serve within {timeout_s:.0f} s:\n{app.log_tail()}")


_shared: dict[str, LiveApp] = {}
_shared_lock = threading.Lock()


def shared_app(base_dir: Path, extra_env: dict[str, str] | None = None, db: str = "sqlite") -> LiveApp:
    """One app process per configuration (`extra_env` and database) for the whole test session:
    starting one costs 20-60 s on two cores, so tests that need the same settings share it.

    `db` is "sqlite" (a file in the app's folder) or "postgresql" (a fresh schema on
    ARENA_TEST_PG_URL, dropped at exit); seed it through `app.db_url`. Tests that share an app create
    their own studies and raters with unique names; tests that kill or restart the server, or watch
    a state the others change, start their own with `start_app`."""
    extra = dict(extra_env or {})
    key = json.dumps([db, sorted(extra.items())])
    with _shared_lock:
        app = _shared.get(key)
        if app is None or not app.alive():
            folder = Path(base_dir) / "shared-app"
            if key != json.dumps(["sqlite", []]):  # the default keeps its old folder: tests read files there
                folder = Path(base_dir) / f"shared-app-{db}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"
            if db == "postgresql":
                from tests.support.stores import fresh_pg_url

                extra["DATABASE_URL"], drop = fresh_pg_url()
                atexit.register(drop)  # after the app's stop below: atexit runs the last registered first
            elif db != "sqlite":
                raise ValueError(f"db must be sqlite or postgresql, not {db!r}")
            app = start_app(folder, extra)
            _shared[key] = app
            atexit.register(app.stop)
        return app


def unmarked(config: dict) -> dict:
    """`config` with the texts ui/i18n.py marked for the browser's translation back in English, so
    that tests find a component by the label or button text a user reads in English."""
    for comp in config.get("components", []):
        props = comp.get("props") or {}
        for attr in ("label", "value", "info", "placeholder"):
            if isinstance(props.get(attr), str):
                props[attr] = plain(props[attr])
    return config


@dataclass
class CallResult:
    """What one queued call sent back. `raw` is every SSE message of the event, as text, i.e.
    everything a browser would have received for it."""

    ok: bool
    data: list[Any] | None
    error: str | None
    raw: str
    status: int = 200


class GradioHTTP:
    """Calls Gradio functions by index over the queue routes the browser uses."""

    def __init__(self, url: str, timeout_s: float = 120, headers: dict[str, str] | None = None):
        """`headers` go with every request (a test that plays a reverse proxy sends X-Forwarded-For);
        cookies the app sets are kept and sent back, as a browser does."""
        self.url = url.rstrip("/")
        self.timeout_s = timeout_s
        self.http = httpx.Client(timeout=timeout_s, trust_env=False, headers=headers or {})
        self._config: dict | None = None

    def close(self) -> None:
        self.http.close()

    def config(self, refresh: bool = False) -> dict:
        if self._config is None or refresh:
            r = self.http.get(f"{self.url}/config")
            r.raise_for_status()
            self._config = unmarked(r.json())
        return self._config

    def api_info(self) -> dict:
        r = self.http.get(f"{self.url}{API}/info", params={"all_endpoints": "true"})
        r.raise_for_status()
        return r.json()

    def dependencies(self) -> list[dict]:
        return list(self.config()["dependencies"])

    def components(self) -> dict[int, dict]:
        return {c["id"]: c for c in self.config()["components"]}

    def call(
        self,
        fn_index: int,
        data: list[Any],
        session_hash: str | None = None,
        event_data: Any = None,
        trigger_id: int | None = None,
    ) -> CallResult:
        """One call, as the browser makes it: join the queue, then read the session's SSE stream
        until this event completes. Stateful inputs (gr.State) come from the server-side session,
        so a fresh `session_hash` is a fresh visitor."""
        session_hash = session_hash or uuid.uuid4().hex[:11]
        body = {
            "data": data,
            "fn_index": fn_index,
            "session_hash": session_hash,
            "event_data": event_data,
            "trigger_id": trigger_id,
        }
        r = self.http.post(f"{self.url}{API}/queue/join", json=body)
        if r.status_code != 200:
            return CallResult(False, None, r.text, r.text, r.status_code)
        event_id = r.json()["event_id"]
        raw: list[str] = []
        deadline = time.monotonic() + self.timeout_s
        with self.http.stream("GET", f"{self.url}{API}/queue/data", params={"session_hash": session_hash}) as resp:
            buffer = ""
            for chunk in resp.iter_text():
                buffer += chunk
                while "\n\n" in buffer:
                    line, buffer = buffer.split("\n\n", 1)
                    line = line.strip()
                    if not line.startswith("data:"):
                        continue
                    msg = json.loads(line[5:])
                    if msg.get("msg") == "heartbeat":
                        continue
                    raw.append(line[5:].strip())
                    if msg.get("msg") == "close_stream":
                        return CallResult(False, None, "stream closed before completion", "\n".join(raw))
                    if msg.get("event_id") not in (None, event_id):
                        continue
                    if msg.get("msg") == "unexpected_error":
                        return CallResult(False, None, msg.get("message"), "\n".join(raw))
                    if msg.get("msg") == "process_completed":
                        out = msg.get("output") or {}
                        if msg.get("success", True):
                            return CallResult(True, out.get("data"), None, "\n".join(raw))
                        return CallResult(False, None, str(out.get("error") or out), "\n".join(raw))
                if time.monotonic() > deadline:
                    break
        return CallResult(False, None, "no completion before the stream ended", "\n".join(raw))


def tab_of_components(config: dict) -> dict[int, str]:
    """Component id -> id of the tab (gr.Tab `id`, i.e. the ui module) it lives in."""
    comps = {c["id"]: c for c in config["components"]}
    owner: dict[int, str] = {}

    def walk(node: dict, tab: str | None) -> None:
        cid = node["id"]
        comp = comps.get(cid, {})
        if comp.get("type") in ("tabitem", "tab"):
            tab = str(comp.get("props", {}).get("id") or comp.get("props", {}).get("label"))
        if tab is not None:
            owner[cid] = tab
        for child in node.get("children", []) or []:
            walk(child, tab)

    walk(config["layout"], None)
    return owner


def dep_by_api_name(client: GradioHTTP, name: str) -> int:
    """The fn index of the handler registered as `api_name=name`."""
    for i, d in enumerate(client.dependencies()):
        if d.get("api_name") == name:
            return d.get("id", i)
    raise LookupError(f"the app has no handler named {name!r}")


def dep_by_trigger(client: GradioHTTP, label: str) -> int:
    """The fn index of the first handler triggered by the component whose value or label is `label`
    (a button's text, a textbox's label): what a user clicks, for handlers with no api_name."""
    comps = client.components()
    for i, d in enumerate(client.dependencies()):
        for target in d.get("targets", []):
            props = comps.get(target[0], {}).get("props", {})
            if label in (props.get("value"), props.get("label")):
                return d.get("id", i)
    raise LookupError(f"no handler triggered by {label!r}")


def dependency_tab(config: dict, dep: dict) -> str | None:
    """The tab a dependency belongs to: the tab of its trigger (or, failing that, its inputs)."""
    owner = tab_of_components(config)
    ids = [t[0] if isinstance(t, (list, tuple)) else t for t in dep.get("targets", [])]
    ids += list(dep.get("inputs", [])) + list(dep.get("outputs", []))
    for cid in ids:
        if cid in owner:
            return owner[cid]
    return None


def dep_by_output(client: GradioHTTP, label: str, n_inputs: int | None = None) -> int:
    """The fn index of the first handler (with `n_inputs` inputs) with an output whose label starts with `label`."""
    comps = client.components()
    for i, d in enumerate(client.dependencies()):
        if n_inputs is not None and len(d.get("inputs", [])) != n_inputs:
            continue
        for cid in d.get("outputs", []):
            if str(comps.get(cid, {}).get("props", {}).get("label") or "").startswith(label):
                return d.get("id", i)
    raise LookupError(f"no handler writes a component labelled {label!r}...")


def organizer_session(client: GradioHTTP, password: str = ORGANIZER_PASSWORD) -> str:
    """Unlock the Organizer tab as a browser does: the unlock answers with a one-time ticket (its last
    output), which the page trades for the HttpOnly organizer cookie. Returns the session hash; the
    cookie stays in `client`."""
    session = uuid.uuid4().hex[:11]
    unlocked = client.call(dep_by_trigger(client, "Organizer password"), [password], session_hash=session)
    if not unlocked.ok:
        raise RuntimeError(f"unlock failed: {unlocked.error}")
    ticket = unlocked.data[-1]
    traded = client.http.post(f"{client.url}/arena/organizer-session", content=ticket)
    if traded.status_code != 204:
        raise RuntimeError(f"the ticket was refused: {traded.status_code} {traded.text}")
    return session
