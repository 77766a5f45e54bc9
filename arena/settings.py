"""Every setting the app reads from its environment, in one table: the fields of `Settings`.

Each field names its environment variable, its `app.py` flag (if any), its default and one line of
help. `app.py` reads them once at start (`load(argv, os.environ)`, flags over environment) and
installs the result; modules ask `current()`. A process that installed nothing (a CLI, a test, the
vLLM server's plugin) gets the settings of its environment as it is: `current()` parses
`os.environ` again only when one of the variables below has changed since the last call, so a test
may `monkeypatch.setenv` or use `override(...)`.

The README's settings table is `markdown_table()` (tests/test_app_settings.py checks it); print it
with `python -m arena.settings`.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import math
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.inputs.numbers import whole_number
from common.errors import UserError


class SettingError(UserError):
    """A setting whose value cannot be read (the app stops at start with this message, exit code 2)."""


ENGINES: tuple[str, ...] = ("transformers", "vllm", "llamacpp", "dummy")  # ARENA_ENGINE: arena/engines/
MODES: tuple[str, ...] = ("full", "rating")  # ARENA_MODE: app.py's tabs


def _status_update_rate(raw: str, where: str) -> str | float:
    """Gradio's "auto", or seconds > 0."""
    text = raw.strip()
    if text == "auto":
        return text
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0 or math.isinf(value):
        raise SettingError(f"{where} must be 'auto' or seconds > 0, not {raw!r}")
    return value


def _delay_s(raw: str, where: str) -> float:
    """Seconds >= 0 (blank: 0)."""
    text = raw.strip()
    try:
        value = float(text) if text else 0.0
    except ValueError:
        value = math.nan
    if not value >= 0 or math.isinf(value):
        raise SettingError(f"{where} must be seconds >= 0, not {raw!r}")
    return value


def _setting(
    env: str,
    default: Any,
    help: str,
    *,
    flag: str | None = None,
    fallback_env: str | None = None,
    shown_default: str | None = None,
    minimum: float | None = None,
    choices: tuple[str, ...] | None = None,
    parse: Callable[[str, str], Any] | None = None,
) -> Any:
    meta = {
        "choices": choices,
        "parse": parse,
        "env": env,
        "flag": flag,
        "help": help,
        "fallback_env": fallback_env,
        "shown_default": shown_default,
        "minimum": minimum,
    }
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Settings:
    # -- the model ---------------------------------------------------------------------------------
    model: str = _setting(
        "ARENA_MODEL",
        "",
        "model: `smollm2-135m` or `gemma-3-270m` (embedded), a hub id, local folder or `.gguf` path; "
        "`NAME@int8`, `@int8-dynamic`, `@bf16`, `@fp32` for a precision variant (docs/models.md)",
        flag="--model",
        shown_default="embedded SmolLM2-135M-Instruct",
    )
    models_in_memory: int = _setting(
        "ARENA_MODELS_IN_MEMORY",
        2,
        "most models kept loaded at once (each loads on first use; the least recently used leaves)",
        minimum=1,
    )
    cache_dir: str = _setting(
        "ARENA_CACHE_DIR",
        "",
        "cache for converted GGUF models, priors and MAUVE features",
        flag="--cache-dir",
        shown_default="`~/.cache/decoding-arena`",
    )
    device: str = _setting("ARENA_DEVICE", "auto", "device: `auto`, `cpu`, `cuda`, `cuda:1`")
    dtype: str = _setting(
        "ARENA_DTYPE",
        "auto",
        "model dtype: `auto` (GPU: native bf16, fp16 on T4; CPU: bf16 where native and measured faster, else fp32; "
        "the measurement is kept per CPU model in the cache), `float32`, `bfloat16`, `float16`",
    )
    dtype_remeasure: str = _setting(
        "ARENA_DTYPE_REMEASURE",
        "",
        "`1`: time bf16 against fp32 on this CPU again at start and keep the new verdict (`auto` dtype)",
        flag="--remeasure-dtype",
        shown_default="off",
    )
    compile: str = _setting(
        "ARENA_COMPILE",
        "auto",
        "compiled decode: `auto` (on a CUDA GPU that stays up, not ZeroGPU: compiled at start in the "
        "background, eager until ready, kept in the cache folder), `1` (anywhere, CPU included), `0` (never)",
    )
    engine: str = _setting(
        "ARENA_ENGINE",
        "transformers",
        "engine: `transformers` (in process), `llamacpp` (llama.cpp on the model's GGUF, in process), "
        "`vllm` (see [docs/engines.md](docs/engines.md)) or `dummy` (fake text and timing, for tests)",
        flag="--engine",
        choices=ENGINES,
    )
    dummy_token_delay_s: float = _setting(
        "ARENA_DUMMY_TOKEN_DELAY",
        0.0,
        "dummy engine: seconds each fake token takes, every method's (real waiting, timed as such: tests of "
        "streaming, Stop, progress and a busy queue without a model's CPU)",
        parse=_delay_s,
    )
    vllm_url: str = _setting("ARENA_VLLM_URL", "http://127.0.0.1:8000", "the vLLM server's address")
    vllm_servers: str = _setting(
        "ARENA_VLLM_SERVERS",
        "",
        "one vLLM server per model: `MODEL=URL,MODEL=URL` (MODEL as in `ARENA_MODEL`); unset: `ARENA_VLLM_URL` "
        "serves `ARENA_MODEL` alone (docs/engines.md)",
        shown_default="unset",
    )
    vllm_timeout_s: float = _setting(
        "ARENA_VLLM_TIMEOUT", 600.0, "seconds for one request to the vLLM server", minimum=0
    )
    vllm_concurrency: int = _setting(
        "ARENA_VLLM_CONCURRENCY", 64, "most vLLM requests in flight from one study run", minimum=1
    )
    # -- the web server ----------------------------------------------------------------------------
    host: str = _setting(
        "ARENA_HOST", "127.0.0.1", "host the app listens on", flag="--host", fallback_env="GRADIO_SERVER_NAME"
    )
    port: int = _setting(
        "ARENA_PORT", 7860, "port the app listens on", flag="--port", fallback_env="GRADIO_SERVER_PORT", minimum=0
    )
    mode: str = _setting(
        "ARENA_MODE", "full", "which tabs: `full`, or `rating` (Rate + published Results only)", choices=MODES
    )
    status_update_rate: str | float = _setting(
        "ARENA_STATUS_UPDATE_RATE",
        2.0,
        "seconds between queue-position updates to waiting clients, or Gradio's `auto`",
        parse=_status_update_rate,
        shown_default="`2`",
    )
    compare_max_tokens: int = _setting(
        "ARENA_COMPARE_MAX_TOKENS", 2048, "most max_new_tokens × methods in one Compare run", minimum=1
    )
    gpu_duration_s: int = _setting("ARENA_GPU_DURATION", 120, "most seconds one ZeroGPU task may ask for", minimum=1)
    # -- ratings and studies -----------------------------------------------------------------------
    database_url: str = _setting(
        "DATABASE_URL",
        "",
        "ratings database: a PostgreSQL URL (wins over ARENA_DB_PATH)",
        shown_default="unset: SQLite at ARENA_DB_PATH",
    )
    db_path: str = _setting("ARENA_DB_PATH", "", "ratings database as a SQLite file", shown_default="`data/arena.db`")
    backup_dir: str = _setting(
        "ARENA_BACKUP_DIR",
        "",
        "where a copy is kept before a study or ratings are deleted",
        shown_default="`deleted/` next to a SQLite file",
    )
    organizer_password: str = _setting(
        "ARENA_ORGANIZER_PASSWORD", "", "organizer password", shown_default="unset: organizer actions are refused"
    )
    auth_free_attempts: int = _setting(
        "ARENA_AUTH_FREE_ATTEMPTS", 5, "wrong codes/passwords from one client before waits start", minimum=0
    )
    trusted_proxies: str = _setting(
        "ARENA_TRUSTED_PROXIES",
        "",
        "reverse proxies whose `X-Forwarded-For` names the client: addresses or CIDR blocks, comma separated "
        "(a Hugging Face Space: `10.0.0.0/8`; see docs/security.md)",
        shown_default="none: the peer is the client",
    )
    compare_queue: int = _setting(
        "ARENA_COMPARE_QUEUE", 32, "most Compare and trace runs waiting at once; more are refused at once", minimum=1
    )
    compare_per_address: int = _setting(
        "ARENA_COMPARE_PER_ADDRESS",
        4,
        "most Compare and trace runs waiting or running per client address (one per browser tab)",
        minimum=1,
    )
    queue_per_client: int = _setting(
        "ARENA_QUEUE_PER_CLIENT",
        32,
        "most events of one client waiting or running in the queue (any handler; a valid invite's browser "
        "is a client of its own); more are refused at once",
        minimum=1,
    )
    joins_per_second: float = _setting(
        "ARENA_JOINS_PER_SECOND",
        8.0,
        "handler runs one client may start a second, sustained (five seconds' worth at once); its other requests "
        "take a fraction of one (a page or a stream half, a small answer a quarter, a shipped file a tenth)",
        minimum=0.1,
    )
    sessions_per_minute: float = _setting(
        "ARENA_SESSIONS_PER_MINUTE",
        12.0,
        "new browser sessions (page loads) one client may open a minute (a third of that at once); each costs "
        "the server ~90 ms and 1.7 MB",
        minimum=0.1,
    )
    pages_per_client: int = _setting(
        "ARENA_PAGES_PER_CLIENT",
        1,
        "pages (a page, the app's config, the API's description, /present) one client may have in the making at "
        "once; a few more wait their turn (after a rest of 3x the last build, so a flood builds pages at most a "
        "quarter of the time), the rest are refused at once (each copies the app's config: several MB)",
        minimum=1,
    )
    quick_studies_per_hour: int = _setting(
        "ARENA_QUICK_STUDIES_PER_HOUR",
        6,
        'most "Send these to the Rate tab" quick studies per client per hour',
        minimum=0,
    )
    quick_study_hours: float = _setting(
        "ARENA_QUICK_STUDY_HOURS", 24.0, "hours a quick study lives before it is deleted", minimum=0
    )
    public_url: str = _setting(
        "ARENA_PUBLIC_URL",
        "",
        "public address used in invite links (the studies CLI's `--base-url` wins)",
        shown_default="relative links",
    )
    hf_mock_user: str = _setting(
        "ARENA_HF_MOCK_USER",
        "",
        "off a Space: turns on a mocked Hugging Face sign-in for raters, signing in as this username "
        "(`NAME` or `NAME@ORG1+ORG2`; tests and trials only: anyone may sign in as anyone; ignored on a Space)",
        shown_default="unset: no sign-in off a Space",
    )
    # -- set by the platform, not by you -----------------------------------------------------------
    spaces_zero_gpu: str = _setting("SPACES_ZERO_GPU", "", "set by Hugging Face on a ZeroGPU Space")
    space_id: str = _setting("SPACE_ID", "", "set by Hugging Face on any Space")
    oauth_client_id: str = _setting(
        "OAUTH_CLIENT_ID", "", "set by Hugging Face on a Space with `hf_oauth: true`: raters may sign in"
    )
    nvidia_visible_devices: str = _setting(
        "NVIDIA_VISIBLE_DEVICES", "", "set by the NVIDIA container runtime: a GPU is there even if torch cannot use it"
    )


FIELDS: tuple[dataclasses.Field, ...] = dataclasses.fields(Settings)
ENV_NAMES: tuple[str, ...] = tuple(
    name for f in FIELDS for name in (f.metadata["env"], f.metadata["fallback_env"]) if name
)


def _parse(f: dataclasses.Field, raw: str, where: str) -> Any:
    if f.metadata["parse"] is not None:
        return f.metadata["parse"](raw, where)
    choices = f.metadata["choices"]
    if choices is not None:  # one of a few words: case and outer blanks do not matter, blank is the default
        word = raw.strip().lower() or f.default
        if word not in choices:
            raise SettingError(f"{where} must be one of {', '.join(choices)}, not {raw.strip()!r}")
        return word
    if f.type in ("str", str):
        return raw  # as given: blanks and case are each consumer's business, as they always were
    if not raw.strip():
        return f.default
    minimum = f.metadata["minimum"]
    try:
        if f.type in ("int", int):
            return whole_number(raw, where, lo=None if minimum is None else int(minimum))
        value = float(raw)
    except UserError as exc:  # before ValueError, which UserError is
        raise SettingError(str(exc)) from None
    except ValueError:
        raise SettingError(f"{where} must be a number, got {raw!r}") from None
    if value != value or (minimum is not None and not value > minimum):
        raise SettingError(f"{where} must be a number > {minimum:g}, got {raw!r}")
    return value


def load(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Settings from flags (`argv`, app.py's) over environment variables (`env`) over defaults.

    >>> load(["--port", "7861"], {"ARENA_PORT": "9", "ARENA_MODE": "rating"}).port
    7861
    >>> load([], {"GRADIO_SERVER_PORT": "9"}).port
    9
    """
    env = os.environ if env is None else env
    flags = vars(parser().parse_args(list(argv))) if argv is not None else {}
    values: dict[str, Any] = {}
    for f in FIELDS:
        flag_value = flags.get(f.name)
        if flag_value is not None:
            values[f.name] = _parse(f, str(flag_value), f.metadata["flag"])
            continue
        for name in (f.metadata["env"], f.metadata["fallback_env"]):
            if name and name in env:
                values[f.name] = _parse(f, env[name], name)
                break
    return Settings(**values)


def parser(description: str = "Decoding Arena web app") -> argparse.ArgumentParser:
    """app.py's command line: one flag per setting that has one; an absent flag leaves the environment's value."""
    p = argparse.ArgumentParser(description=description)
    for f in FIELDS:
        if f.metadata["flag"]:
            p.add_argument(
                f.metadata["flag"],
                dest=f.name,
                default=None,
                help=f"{f.metadata['help']} (env {f.metadata['env']}; default: {_shown_default(f)})",
            )
    return p


def env_of(name: str) -> str:
    """A setting's environment variable, for messages and tests: `env_of("engine") == "ARENA_ENGINE"`."""
    return next(f.metadata["env"] for f in FIELDS if f.name == name)


# -- the current settings ---------------------------------------------------------------------------

_lock = threading.Lock()
_installed: Settings | None = None
_from_env: tuple[tuple[str | None, ...], Settings] | None = None


def install(settings: Settings | None) -> None:
    """Make `settings` what `current()` returns from now on (None: follow the environment again)."""
    global _installed
    with _lock:
        _installed = settings


def current() -> Settings:
    """The installed settings (app.py installs them at start), else those of the environment now."""
    global _from_env
    installed = _installed
    if installed is not None:
        return installed
    snapshot = tuple(os.environ.get(name) for name in ENV_NAMES)
    cached = _from_env
    if cached is not None and cached[0] == snapshot:
        return cached[1]
    settings = load(env=os.environ)
    _from_env = (snapshot, settings)
    return settings


@contextlib.contextmanager
def override(**changes: Any) -> Iterator[Settings]:
    """For tests: `current()` returns the current settings with `changes` inside the block."""
    global _installed
    before = _installed
    changed = dataclasses.replace(current(), **changes)
    install(changed)
    try:
        yield changed
    finally:
        install(before)


def keep_forwarded_headers_from_uvicorn() -> None:
    """uvicorn rewrites a request's client from `X-Forwarded-For` on its own when the peer is in
    `FORWARDED_ALLOW_IPS` (default: loopback). The app reads that header from the proxies in
    ARENA_TRUSTED_PROXIES only (arena/access/clients.py), so app.py has uvicorn trust nobody."""
    os.environ["FORWARDED_ALLOW_IPS"] = ""


def point_inductor_cache(folder: str, torch_default: str) -> str:
    """Where torch's inductor keeps compiled kernels (arena/engines/local/compiled.py): the
    operator's `TORCHINDUCTOR_CACHE_DIR`, else `folder`, in the app's cache folder. torch writes its
    own default (`torch_default`) into the variable at first use, so that value counts as unset."""
    given = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if given and os.path.abspath(given) != os.path.abspath(torch_default):
        return given
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = folder
    return folder


# -- the README's table -----------------------------------------------------------------------------


def _shown_default(f: dataclasses.Field) -> str:
    shown = f.metadata["shown_default"]
    if shown is not None:
        return shown
    if f.default in ("", None):
        return "unset"
    return f"`{f.default:g}`" if isinstance(f.default, float) else f"`{f.default}`"


def markdown_table() -> str:
    """The README's settings table, one row per setting."""
    rows = ["| setting | env | flag | default |", "|---|---|---|---|"]
    for f in FIELDS:
        env = f"`{f.metadata['env']}`"
        if f.metadata["fallback_env"]:
            env += f" (else `{f.metadata['fallback_env']}`)"
        flag = f"`{f.metadata['flag']}`" if f.metadata["flag"] else ""
        rows.append(f"| {f.metadata['help']} | {env} | {flag} | {_shown_default(f)} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(markdown_table())
