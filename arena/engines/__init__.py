"""Where outputs come from: the engine setting.

``ARENA_ENGINE=transformers`` (the default): in-process transformers, `arena/runner.py`.
``ARENA_ENGINE=vllm``: a vLLM server at ``ARENA_VLLM_URL`` (OpenAI-compatible API, default
``http://127.0.0.1:8000``), driven by `arena.engines.vllm.VllmEngine`.

The rest of the app asks one question, `current_engine()`: None means "run in process as
always", anything else is an engine object with `run_methods`, `stream_methods` and
`generate_study`.
"""

from __future__ import annotations

import threading

from .. import settings
from ..errors import UserError

ENGINE_ENV = settings.env_of("engine")
ENGINES = ("transformers", "vllm")

_engines: dict[tuple[str, str], object] = {}
_lock = threading.Lock()


def engine_name() -> str:
    """The engine setting, validated (`UserError` for an unknown one)."""
    name = (settings.current().engine or "transformers").strip().lower()
    if name not in ENGINES:
        raise UserError(f"{ENGINE_ENV} must be one of {', '.join(ENGINES)}, got {name!r}")
    return name


def vllm_url() -> str:
    return (settings.current().vllm_url or settings.Settings.vllm_url).strip().rstrip("/")


def current_engine():
    """None for in-process transformers; otherwise the (shared) engine client for the setting."""
    name = engine_name()
    if name == "transformers":
        return None
    key = (name, vllm_url())
    with _lock:
        if key not in _engines:
            from .vllm import VllmEngine  # late: vllm.py imports the runner, which imports this package

            _engines[key] = VllmEngine(key[1])
        return _engines[key]


def client_model(setting: str | None = None, cache_dir=None):
    """With a remote engine the app needs the model's tokenizer (prompts are sent as token ids,
    priors are built from it), never its weights: a `LoadedModel` without a model."""
    from .vllm import tokenizer_only_model  # late: as above

    return tokenizer_only_model(setting, cache_dir)
