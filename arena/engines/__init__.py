"""Where outputs come from: the engine setting, and the one engine interface (base.py).

``ARENA_ENGINE=transformers`` (the default): in-process transformers, `arena/engines/local/`.
``ARENA_ENGINE=vllm``: a vLLM server at ``ARENA_VLLM_URL`` (OpenAI-compatible API, default
``http://127.0.0.1:8000``), `arena/engines/vllm/`.
``ARENA_ENGINE=dummy``: fake text and timing for fast tests, `arena/engines/dummy.py`.

The rest of the app asks `current()` for its engine and calls the same methods whichever it is:
`stream_methods`, `run_methods`, `generate_slots` (arena/engines/base.py).
"""

from __future__ import annotations

import threading

from .. import settings
from ..errors import UserError
from ..llm import LoadedModel, tokenizer_only_model
from .base import Engine
from .dummy import DummyEngine
from .local import LocalEngine
from .vllm import VllmEngine

ENGINE_ENV = settings.env_of("engine")
ENGINES = ("transformers", "vllm", "dummy")

LOCAL = LocalEngine()  # stateless: the model and its lock travel with each call
DUMMY = DummyEngine()
_servers: dict[str, VllmEngine] = {}
_lock = threading.Lock()

__all__ = ["DUMMY", "ENGINES", "LOCAL", "DummyEngine", "Engine", "LocalEngine", "VllmEngine", "current"]


def engine_name() -> str:
    """The engine setting, validated (`UserError` for an unknown one)."""
    name = (settings.current().engine or "transformers").strip().lower()
    if name not in ENGINES:
        raise UserError(f"{ENGINE_ENV} must be one of {', '.join(ENGINES)}, got {name!r}")
    return name


def vllm_url() -> str:
    return (settings.current().vllm_url or settings.Settings.vllm_url).strip().rstrip("/")


def current() -> Engine:
    """The engine the settings name; one shared client per vLLM server address."""
    name = engine_name()
    if name == "transformers":
        return LOCAL
    if name == "dummy":
        return DUMMY
    url = vllm_url()
    with _lock:
        if url not in _servers:
            _servers[url] = VllmEngine(url)
        return _servers[url]


def client_model(setting: str | None = None, cache_dir=None) -> LoadedModel:
    """With a remote engine the app needs the model's tokenizer (prompts are sent as token ids,
    priors are built from it), never its weights: a `LoadedModel` without a model, named as the
    current engine names its outputs."""
    lm = tokenizer_only_model(setting, cache_dir)
    lm.name = current().model_label(lm)
    return lm
