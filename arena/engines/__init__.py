"""Where outputs come from: the engine setting, and the one engine interface (base.py).

``ARENA_ENGINE=transformers`` (the default): in-process transformers, `arena/engines/local/`.
``ARENA_ENGINE=vllm``: a vLLM server at ``ARENA_VLLM_URL`` (OpenAI-compatible API, default
``http://127.0.0.1:8000``), `arena/engines/vllm/`.
``ARENA_ENGINE=llamacpp``: the model's GGUF file run by llama.cpp in process, `arena/engines/llamacpp/`.
``ARENA_ENGINE=dummy``: fake text and timing for fast tests, `arena/engines/dummy.py`.

The rest of the app asks `current()` for its engine and calls the same methods whichever it is:
`stream_methods`, `run_methods`, `generate_slots` (arena/engines/base.py).
"""

from __future__ import annotations

import dataclasses
import threading

from arena import settings
from arena.model.llm import LoadedModel, with_variants
from arena.model.llm import model_choices as llm_model_choices

from .base import Engine
from .dummy import DummyEngine
from .llamacpp import LlamaCppEngine
from .local import LocalEngine, compiled
from .vllm import VllmEngine, servers

LOCAL = LocalEngine()  # stateless: the model and its lock travel with each call
DUMMY = DummyEngine()
LLAMACPP = LlamaCppEngine()  # keeps each GGUF loaded in llama.cpp, imports llama_cpp on first use
_servers: dict[str, VllmEngine] = {}
_lock = threading.Lock()

__all__ = [
    "DUMMY",
    "LOCAL",
    "LLAMACPP",
    "DummyEngine",
    "Engine",
    "LlamaCppEngine",
    "LocalEngine",
    "VllmEngine",
    "current",
    "engine_for",
    "model_choices",
    "prepare",
    "use",
]


def engine_name() -> str:
    """The engine setting (arena/settings.py refuses an unknown one)."""
    return settings.current().engine


def vllm_url() -> str:
    return (settings.current().vllm_url or settings.Settings.vllm_url).strip().rstrip("/")


def current() -> Engine:
    """The engine the settings name; one shared client per vLLM server address."""
    name = engine_name()
    if name == "transformers":
        return LOCAL
    if name == "dummy":
        return DUMMY
    if name == "llamacpp":
        return LLAMACPP
    config = settings.current()
    if config.vllm_servers:  # the configured model's own server
        mapped = servers.parse_servers(config.vllm_servers)
        return _vllm_engine(servers.server_for(config.model, mapped, config.model, vllm_url()))
    return _vllm_engine(vllm_url())


def _vllm_engine(url: str) -> VllmEngine:
    with _lock:
        if url not in _servers:
            _servers[url] = VllmEngine(url)
        return _servers[url]


def model_setting(lm: LoadedModel) -> str:
    """The setting that names `lm` again (its alias, hub id or path): what the server map is keyed by."""
    kind, _, where = lm.source.partition(":")
    return where if kind in ("embedded", "hub", "gguf", "folder") else ""


def engine_for(lm: LoadedModel) -> Engine:
    """The engine that runs `lm`: the configured one; on vLLM, the server that serves that model
    (`ARENA_VLLM_SERVERS`, arena/engines/vllm/servers.py); a model no server serves is refused."""
    if engine_name() != "vllm":
        return current()
    config = settings.current()
    mapped = servers.parse_servers(config.vllm_servers)
    setting = model_setting(lm)
    if not mapped and not setting:  # a tokenizer-only stand-in of the served model (benchmarks, tests)
        return current()
    return _vllm_engine(servers.server_for(setting, mapped, config.model, vllm_url()))


def model_choices(default: str) -> list[str]:
    """The models a user may pick (Compare's grid, the Organizer's studies), `default` (the app's
    own) first: in process, every embedded model installed here, each with its int8 and other-float
    variants (`arena.model.llm.with_variants`); on vLLM, the models `ARENA_VLLM_SERVERS` maps to a server
    (a server runs its own weights' precision, so no variants)."""
    name = engine_name()
    if name == "llamacpp":  # the GGUF's own weights run: no precision variants
        return llm_model_choices(default)
    if name != "vllm":
        return with_variants(llm_model_choices(default))
    return servers.served_models(servers.parse_servers(settings.current().vllm_servers), default)


def prepare(lm: LoadedModel) -> None:
    """What the configured engine needs before the app serves (app.py, at start): llama.cpp checks its
    library and loads the model's GGUF, so a missing library or a model without a GGUF stops the app
    with one line. transformers starts compiling the model's decode in the background where
    `ARENA_COMPILE` wants it (a CUDA GPU that stays up). Other engines report problems on the first run."""
    if engine_name() == "llamacpp":
        LLAMACPP.prepare(lm)
    elif engine_name() == "transformers":
        compiled.start(lm)


def use(name: str | None) -> None:
    """A command line's `--engine NAME`: the current settings, with this engine, installed for the
    process (an unknown name is refused as app.py's `--engine` is, `SettingError`)."""
    if name is None:
        return
    engine = settings.load(["--engine", name], {}).engine
    settings.install(dataclasses.replace(settings.current(), engine=engine))
