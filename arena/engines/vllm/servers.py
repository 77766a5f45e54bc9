"""Which vLLM server serves which model: one server per model (`ARENA_VLLM_SERVERS`).

vLLM serves one model per server, so a Compare grid or a study over two models needs two servers.
`ARENA_VLLM_SERVERS=smollm2-135m=http://gpu-a:8000,gemma-3-270m=http://gpu-b:8000` names them; a
model is found under any of its names ("" and `smollm2-135m` are one model, as in the model cache).
Unset, `ARENA_VLLM_URL` serves `ARENA_MODEL` alone, as before. A model with no server is refused
before any request is sent.
"""

from __future__ import annotations

from urllib.parse import urlparse

from arena.model.llm import ModelCache, split_variant
from common.errors import UserError

ENV = "ARENA_VLLM_SERVERS"


def model_key(setting: str) -> tuple[str, str]:
    """One key per model however it is named; a name that resolves to nothing here (a server's own
    model name, a folder on the server's machine) is its own key."""
    name = split_variant(setting)[0] if "@" in setting else setting
    try:
        return ModelCache.key(name)
    except UserError:
        return ("name", name.strip())


def parse_servers(text: str) -> dict[str, str]:
    """`MODEL=URL,MODEL=URL` -> {model: url}, every entry checked (`UserError` naming the bad one)."""
    servers: dict[str, str] = {}
    seen: dict[tuple[str, str], str] = {}
    for entry in (e.strip() for e in (text or "").split(",")):
        if not entry:
            continue
        model, _, url = entry.partition("=")
        model, url = model.strip(), url.strip().rstrip("/")
        if not model or not url:
            raise UserError(f"{ENV} expects MODEL=URL entries separated by commas, got {entry!r}")
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise UserError(f"{ENV}: {model}'s server {url!r} is not an http(s) URL")
        key = model_key(model)
        if key in seen:
            raise UserError(f"{ENV} names the model {model!r} twice ({seen[key]!r} and {model!r})")
        seen[key] = model
        servers[model] = url
    return servers


def server_for(model: str, servers: dict[str, str], default_model: str, default_url: str) -> str:
    """The URL of the server that serves `model` (a setting: alias, path or hub id; "" is the
    default). Unmapped (`servers` empty), the one server serves the configured model alone."""
    key = model_key(model)
    if servers:
        for name, url in servers.items():
            if model_key(name) == key:
                return url
        raise UserError(
            f"no vLLM server serves the model {model or default_model!r}: {ENV} names servers for "
            f"{', '.join(servers)} only; add {model or default_model}=URL to it"
        )
    if key == model_key(default_model):
        return default_url
    raise UserError(
        f"no vLLM server serves the model {model!r}: ARENA_VLLM_URL ({default_url}) serves ARENA_MODEL "
        f"({default_model or 'smollm2-135m'}) only; map each model to its server in {ENV} (MODEL=URL,MODEL=URL)"
    )


def served_models(servers: dict[str, str], default_model: str) -> list[str]:
    """The models a user may pick on vLLM: the configured one first, then the other models the map names."""
    return [default_model] + [m for m in servers if model_key(m) != model_key(default_model)]
