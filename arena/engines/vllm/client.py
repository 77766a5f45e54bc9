"""The HTTP client of a vLLM server's OpenAI-compatible API, timed on this side.

* Prompts are encoded here, with the same code as the in-process engine (chat template or raw
  text), and sent as token ids, so both engines see the same input tokens.
* Timing is measured here, on the client: time to first token = first streamed chunk that carries
  a token, latency = request sent -> stream closed. The server's own per-request metrics (queue
  time, its TTFT, generation time; `--enable-per-request-metrics`) are stored next to them.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from arena.inputs.prompts import encode_prompt
from arena.model.llm import LoadedModel, end_ids
from arena.runs.requests import MethodResult, RunRequest, instruction_for
from arena.runs.whole_text import decode_whole, whole_characters, with_trim
from common.errors import UserError

from ...settings import current as current_settings
from .translate import XARG_ALPHA, XARG_NGRAM, XARG_PRIOR, plan_on_engine, refuse, translate


@dataclass
class EngineRequest:
    """One completion request for one method, and the settings it stands for."""

    method: str
    body: dict[str, Any]
    effective: dict[str, Any]
    beam: bool = False


@dataclass
class ServerInfo:
    url: str
    model: str  # the served model name, sent with every request
    max_model_len: int | None
    version: str
    processors: set = field(default_factory=set)  # our logits processors the server runs

    def label(self) -> str:
        return f"{self.model} (vLLM {self.version} at {self.url})"


class VllmClient:
    """One vLLM server's API. Thread-safe; one instance per URL."""

    def __init__(self, url: str, timeout_s: float | None = None):
        self.url = url.rstrip("/")
        self.timeout_s = float(timeout_s or current_settings().vllm_timeout_s)
        limits = httpx.Limits(max_connections=256, max_keepalive_connections=64)
        self.http = httpx.Client(base_url=self.url, timeout=httpx.Timeout(self.timeout_s, connect=10.0), limits=limits)
        self._info: ServerInfo | None = None
        self._lock = threading.Lock()

    # ---- the server ----------------------------------------------------------------------------

    def info(self) -> ServerInfo:
        with self._lock:
            if self._info is None:
                try:
                    served = self.http.get("/v1/models").json()["data"]
                    version = self.http.get("/version").json().get("version", "?")
                except (httpx.HTTPError, ValueError, KeyError) as exc:
                    raise UserError(
                        f"the vLLM server at {self.url} does not answer ({exc}); start it, or set ARENA_VLLM_URL"
                    ) from None
                if not served:
                    raise UserError(f"the vLLM server at {self.url} serves no model")
                first = served[0]
                info = ServerInfo(self.url, first["id"], first.get("max_model_len"), version)
                info.processors = self.probe_processors(info.model)
                self._info = info
            return self._info

    def probe_processors(self, model: str) -> set[str]:
        """Which of our logits processors the server loaded. Without them vLLM would accept the
        `vllm_xargs` and ignore them (TS-Tilted would silently be TS-Temp), so we ask: a request
        with an invalid xarg is refused (HTTP 400, by the processor's `validate_params`) only by a
        server that runs the processor. Nothing is generated either way that matters (1 token)."""
        loaded = set()
        for name, xargs in (
            ("ArenaTilt", {XARG_ALPHA: 0.1, XARG_PRIOR: "-probe-"}),
            ("ArenaNoRepeatNGram", {XARG_NGRAM: -1}),
        ):
            try:
                r = self.http.post(
                    "/v1/completions",
                    json={"model": model, "prompt": [0], "max_tokens": 1, "temperature": 1.0, "vllm_xargs": xargs},
                )
            except httpx.HTTPError:
                continue
            if r.status_code == 400 and ("arena_" in r.text):
                loaded.add(name)
        return loaded

    def require_processor(self, method: str, name: str, what: str) -> None:
        if name not in self.info().processors:
            raise refuse(
                method,
                f"the server at {self.url} runs without our {name} logits processor ({what}); "
                f"start it with --logits-processors serving.vllm_arena:{name} (see docs/engines.md)",
            )

    def label(self) -> str:
        """The served model, the vLLM version and the server (what a stored output's model column says)."""
        return self.info().label()

    def engine_settings(self) -> dict[str, Any]:
        info = self.info()
        return {"name": "vllm", "url": info.url, "model": info.model, "version": info.version}

    # ---- one method ----------------------------------------------------------------------------

    def prepare(
        self,
        lm: LoadedModel,
        method: str,
        overrides: Mapping[str, Any] | None,
        input_ids: list[int],
        max_new_tokens: int,
        seed: int | None,
        prompt: str = "",
    ) -> EngineRequest:
        plan = plan_on_engine(lm, method, overrides, len(input_ids), max_new_tokens, prompt)
        sampling, effective, beam = translate(method, plan)
        info = self.info()
        xargs = sampling.get("vllm_xargs", {})
        if XARG_ALPHA in xargs:
            self.require_processor(method, "ArenaTilt", "the tilt")
        if XARG_NGRAM in xargs:
            self.require_processor(method, "ArenaNoRepeatNGram", "no-repeat n-gram blocking")
        body = {
            "model": info.model,
            "prompt": list(input_ids),
            "max_tokens": int(max_new_tokens),
            "return_token_ids": True,
            "skip_special_tokens": True,
            **sampling,
        }
        if seed is not None and not beam:
            body["seed"] = int(seed)
        if not beam:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        effective = {
            **effective,
            "max_new_tokens": int(max_new_tokens),
            "engine": self.engine_settings(),
            "server_request": {
                k: v for k, v in body.items() if k not in ("prompt", "model", "stream", "stream_options")
            },
        }
        return EngineRequest(method, body, effective, beam)

    def execute(
        self,
        lm: LoadedModel,
        req: EngineRequest,
        input_ids: list[int],
        seed: int | None,
        on_tokens: Callable[[list[int]], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> MethodResult:
        """Send one request, time it on this side, and return a `MethodResult`."""

        ids: list[int] = []
        finish = None
        metrics: dict[str, Any] | None = None
        text_from_server = ""
        start = time.perf_counter()
        first = None
        try:
            if req.beam:
                response = self.http.post("/v1/completions", json=req.body)
                self.raise_for(response, req.method)
                choice = response.json()["choices"][0]
                ids = list(choice.get("token_ids") or [])
                finish = choice.get("finish_reason")
                text_from_server = choice.get("text") or ""
                metrics = response.json().get("metrics")
            else:
                with self.http.stream("POST", "/v1/completions", json=req.body) as response:
                    if response.status_code != 200:
                        response.read()
                        self.raise_for(response, req.method)
                    for line in response.iter_lines():
                        if cancel is not None and cancel.is_set():
                            break  # closing the stream makes the server abort the request
                        if not line.startswith("data: "):
                            continue
                        data = line[6:]
                        if data.strip() == "[DONE]":
                            break
                        chunk = json.loads(data)
                        if "error" in chunk and not chunk.get("choices"):
                            raise UserError(f"the vLLM server failed on {req.method}: {chunk['error']}")
                        if chunk.get("metrics"):
                            metrics = chunk["metrics"]
                        for choice in chunk.get("choices") or []:
                            new = list(choice.get("token_ids") or [])
                            if new:
                                if first is None:
                                    first = time.perf_counter()
                                ids.extend(new)
                                if on_tokens is not None:
                                    on_tokens(list(ids))
                            text_from_server += choice.get("text") or ""
                            if choice.get("finish_reason"):
                                finish = choice["finish_reason"]
        except httpx.HTTPError as exc:
            raise UserError(f"the vLLM server at {self.url} failed on {req.method}: {exc}") from None
        end = time.perf_counter()
        latency = (end - start) * 1000
        ttft = latency if first is None else (first - start) * 1000
        eos_ids = end_ids(lm.tokenizer)
        text, dropped = decode_whole(lm.tokenizer, ids) if ids else whole_characters(text_from_server)
        n = len(ids)
        finish_reason = "eos" if finish == "stop" else "length" if finish in (None, "length") else str(finish)
        if req.beam and finish == "stop" and (not ids or ids[-1] not in eos_ids):
            n += 1  # vLLM's beam search drops the final end-of-sequence token; transformers counts it
        settings = with_trim(req.effective, dropped)
        settings["timing"] = {
            "measured": "on the client: request sent -> first token chunk (TTFT) / stream closed (latency)",
            "ttft": "whole output (beam search does not stream): TTFT = latency"
            if req.beam or first is None
            else "first streamed token",
        }
        if metrics:
            settings["server_metrics"] = metrics
        return MethodResult(
            method=req.method,
            text=text,
            new_tokens=n,
            ttft_ms=round(ttft, 3),
            latency_ms=round(latency, 3),
            tokens_per_s=round(n / (latency / 1000), 3) if latency > 0 else 0.0,
            settings=settings,
            seed=seed,
            prompt_tokens=len(input_ids),
            peak_mem_mb=None,
            finish_reason=finish_reason,
            token_ids=ids,
            peak_mem_growth_mb=None,
        )

    def raise_for(self, response: httpx.Response, method: str) -> None:
        if response.status_code == 200:
            return
        try:
            message = response.json().get("error", {}).get("message") or response.text
        except ValueError:
            message = response.text
        raise UserError(f"the vLLM server refused {method} (HTTP {response.status_code}): {message[:500]}")

    def encode(self, lm: LoadedModel, req: RunRequest, method: str | None = None) -> list[int]:
        """The prompt's token ids, fitted to the server's context (else the model's); with `method`,
        as the in-process engine encodes it for that method (its instruction included)."""
        context = self.info().max_model_len or lm.context_length
        instruction = instruction_for(req, method) if method is not None else ""
        ids = encode_prompt(lm.tokenizer, req.prompt, req.raw, "cpu", context, req.max_new_tokens, instruction)
        return ids[0].tolist()
