"""The vLLM engine: outputs from a vLLM server's OpenAI-compatible API instead of in-process
transformers.

* Prompts are encoded here, with the same code as the in-process runner (chat template or raw
  text), and sent as token ids, so both engines see the same input tokens.
* A method maps to the server's sampling parameters through its own plan (the decoder registry is
  the single source of settings): temperature, top_p, top_k, min_p, repetition_penalty, seed,
  max_tokens; `no_repeat_ngram_size` and the tilt go to this repository's logits processors
  (`serving/vllm_arena.py`, loaded by the server with `--logits-processors`) through
  `vllm_xargs`; beam search goes to vLLM's beam-search API (`use_beam_search`). Anything a plan
  needs that the server cannot do exactly (another logits processor, a custom generation loop,
  typical_p, n-gram blocking inside beam search) is refused with `UserError` before any request
  is sent; nothing is approximated.
* Timing is measured here, on the client: time to first token = first streamed chunk that carries
  a token, latency = request sent → stream closed. The server's own per-request metrics (queue
  time, its TTFT, generation time; `--enable-per-request-metrics`) are stored next to them.
* `generate_study` sends all of a study's missing outputs at once and lets the server batch them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import torch
from transformers import AutoConfig, AutoTokenizer, SequenceBiasLogitsProcessor

import decoders
from decoders import DecodeContext, GenerationPlan
from decoders.processors import TiltedLogitsProcessor

from .. import llm as models
from .. import runner, studies
from ..errors import UserError
from ..llm import end_ids
from ..prompts import encode_prompt
from ..runner import MethodResult, RunRequest, validate_request
from ..settings import current as current_settings
from . import current_engine

# vllm_xargs understood by serving/vllm_arena.py
XARG_ALPHA = "arena_tilt_alpha"
XARG_PRIOR = "arena_tilt_prior"
XARG_NGRAM = "arena_no_repeat_ngram_size"


# generate() keywords a plan may use, and what becomes of each on the server
_SAMPLING_KEYS = {
    "do_sample",
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "repetition_penalty",
    "no_repeat_ngram_size",
    "num_beams",
    "max_new_tokens",
}
_BEAM_KEYS = {
    "do_sample",
    "num_beams",
    "length_penalty",
    "early_stopping",
    "no_repeat_ngram_size",
    "num_return_sequences",
    "max_new_tokens",
}


def _refuse(method: str, why: str) -> UserError:
    return UserError(
        f"{method} cannot run on the vLLM engine: {why}. Nothing was approximated; run it with "
        f"ARENA_ENGINE=transformers, or choose other methods."
    )


@dataclass
class EngineRequest:
    """One completion request for one method, and the settings it stands for."""

    method: str
    body: dict[str, Any]
    effective: dict[str, Any]
    beam: bool = False


def plan_on_engine(
    lm, method: str, overrides: Mapping[str, Any] | None, prompt_length: int, max_new_tokens: int, prompt: str = ""
) -> GenerationPlan:
    """The method's plan, made without a model in reach (a model-driving decoder refuses here)."""
    decoder = decoders.get(method)
    ctx = DecodeContext(
        tokenizer=lm.tokenizer,
        device=lm.device,
        logits_size=lm.logits_size,
        prompt_length=prompt_length,
        max_new_tokens=max_new_tokens,
        cache_dir=lm.cache_dir,
        model=None,
        prompt=prompt,
    )
    settings = decoder.resolve(overrides)  # bad settings are the user's error, whatever the engine
    try:
        return decoder.plan(settings, ctx)
    except decoders.InvalidSettings as exc:
        if "DecodeContext.model" in str(exc):
            raise _refuse(
                method, "it drives the model itself, step by step, which a server's API does not expose"
            ) from None
        raise


def translate(method: str, plan: GenerationPlan) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """(sampling part of the request body, settings that ran, is_beam_search), or `UserError`."""
    if plan.custom_generate is not None:
        raise _refuse(method, "it has its own generation loop (not expressible as server sampling parameters)")
    kw = dict(plan.generate_kwargs)
    effective = dict(plan.effective)
    xargs: dict[str, Any] = {}
    tilt = None
    for proc in plan.logits_processors:
        if type(proc) is TiltedLogitsProcessor and tilt is None:
            tilt = proc
        elif isinstance(proc, SequenceBiasLogitsProcessor):
            raise _refuse(
                method,
                "vLLM has no sequence bias (its logit_bias biases single tokens at every step, bad_words bans "
                "phrases instead of penalising them), so the verbose-phrase penalty cannot run there; set "
                "phrase_penalty=0 to run the instruction alone, which is exact",
            )
        else:
            raise _refuse(method, f"its logits processor {type(proc).__name__} has no counterpart on the server")
    num_beams = int(kw.get("num_beams", 1) or 1)
    ngram = int(kw.get("no_repeat_ngram_size", 0) or 0)
    if num_beams > 1:
        unknown = set(kw) - _BEAM_KEYS
        if unknown:
            raise _refuse(method, f"beam search with {', '.join(sorted(unknown))} is not in vLLM's beam-search API")
        if kw.get("do_sample"):
            raise _refuse(method, "beam sampling is not in vLLM's beam-search API")
        if ngram > 0:
            raise _refuse(
                method,
                f"vLLM's beam-search API has no n-gram blocking (no_repeat_ngram_size={ngram}); "
                f"set no_repeat_ngram_size=0 to use it",
            )
        if int(kw.get("num_return_sequences", 1) or 1) != 1:
            raise _refuse(method, "only one returned sequence is supported")
        body: dict[str, Any] = {
            "use_beam_search": True,
            "n": num_beams,
            "length_penalty": float(kw.get("length_penalty", 1.0)),
            "temperature": 1.0,
        }
        effective.pop("early_stopping", None)
        effective.update(
            num_beams=num_beams,
            length_penalty=body["length_penalty"],
            no_repeat_ngram_size=0,
            early_stopping="n/a: vLLM's beam search runs until max_tokens, keeping beams that ended "
            "at end-of-sequence, and returns the best by length-penalised log-prob",
        )
        return body, effective, True
    unknown = set(kw) - _SAMPLING_KEYS
    if unknown:
        raise _refuse(method, f"{', '.join(sorted(unknown))} has no exact counterpart in vLLM's sampling parameters")
    if kw.get("do_sample", False):
        temperature = float(kw.get("temperature", 1.0))
        top_k = int(kw.get("top_k", 50))  # generate's default when sampling; plans pass it explicitly
        top_p = float(kw.get("top_p", 1.0))
        min_p = float(kw.get("min_p", 0.0) or 0.0)
        if min_p > 0 and top_p < 1.0:
            raise _refuse(method, "min-p together with top-p runs in a different order on vLLM (min-p first)")
        if tilt is not None:
            # The tilt is the bias −λ·T·S before the temperature; ArenaTilt rebuilds it from the request's T.
            if tilt.temperature != temperature:
                raise _refuse(
                    method, f"its tilt was built for T={tilt.temperature}, the request samples at T={temperature}"
                )
            if tilt.alpha != 0.0:  # λ = 0 is plain temperature sampling: nothing for the processor to do
                xargs[XARG_ALPHA] = tilt.alpha
                xargs[XARG_PRIOR] = str(effective.get("prior", "wordfreq"))
        body = {"temperature": temperature, "top_k": top_k if top_k > 0 else 0, "top_p": top_p, "min_p": min_p}
    else:
        if tilt is not None:
            raise _refuse(method, "the tilt without sampling")
        body = {"temperature": 0.0, "top_k": 0, "top_p": 1.0, "min_p": 0.0}
    body["repetition_penalty"] = float(kw.get("repetition_penalty", 1.0) or 1.0)
    body["presence_penalty"] = 0.0
    body["frequency_penalty"] = 0.0
    if ngram > 0:
        xargs[XARG_NGRAM] = ngram
    if xargs:
        body["vllm_xargs"] = xargs
    return body, effective, False


@dataclass
class ServerInfo:
    url: str
    model: str  # the served model name, sent with every request
    max_model_len: int | None
    version: str
    processors: set = field(default_factory=set)  # our logits processors the server runs

    def label(self) -> str:
        return f"{self.model} (vLLM {self.version} at {self.url})"


class VllmEngine:
    """A vLLM server as the app's engine. Thread-safe; one instance per URL."""

    name = "vllm"

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
                    models = self.http.get("/v1/models").json()["data"]
                    version = self.http.get("/version").json().get("version", "?")
                except (httpx.HTTPError, ValueError, KeyError) as exc:
                    raise UserError(
                        f"the vLLM server at {self.url} does not answer ({exc}); start it, or set ARENA_VLLM_URL"
                    ) from None
                if not models:
                    raise UserError(f"the vLLM server at {self.url} serves no model")
                first = models[0]
                info = ServerInfo(self.url, first["id"], first.get("max_model_len"), version)
                info.processors = self._probe_processors(info.model)
                self._info = info
            return self._info

    def _probe_processors(self, model: str) -> set[str]:
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
            raise _refuse(
                method,
                f"the server at {self.url} runs without our {name} logits processor ({what}); "
                f"start it with --logits-processors serving.vllm_arena:{name} (see README)",
            )

    def describe(self) -> str:
        return self.info().label()

    def engine_settings(self) -> dict[str, Any]:
        info = self.info()
        return {"name": "vllm", "url": info.url, "model": info.model, "version": info.version}

    # ---- one method ----------------------------------------------------------------------------

    def prepare(
        self,
        lm,
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
        lm,
        req: EngineRequest,
        input_ids: list[int],
        seed: int | None,
        on_tokens: Callable[[list[int]], None] | None = None,
        cancel: threading.Event | None = None,
    ):
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
                self._raise_for(response, req.method)
                choice = response.json()["choices"][0]
                ids = list(choice.get("token_ids") or [])
                finish = choice.get("finish_reason")
                text_from_server = choice.get("text") or ""
                metrics = response.json().get("metrics")
            else:
                with self.http.stream("POST", "/v1/completions", json=req.body) as response:
                    if response.status_code != 200:
                        response.read()
                        self._raise_for(response, req.method)
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
        text = lm.tokenizer.decode(ids, skip_special_tokens=True) if ids else text_from_server
        n = len(ids)
        finish_reason = "eos" if finish == "stop" else "length" if finish in (None, "length") else str(finish)
        if req.beam and finish == "stop" and (not ids or ids[-1] not in eos_ids):
            n += 1  # vLLM's beam search drops the final end-of-sequence token; transformers counts it
        settings = dict(req.effective)
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

    def _raise_for(self, response: httpx.Response, method: str) -> None:
        if response.status_code == 200:
            return
        try:
            message = response.json().get("error", {}).get("message") or response.text
        except ValueError:
            message = response.text
        raise UserError(f"the vLLM server refused {method} (HTTP {response.status_code}): {message[:500]}")

    # ---- what the runner does, on the server ---------------------------------------------------

    def _encode(self, lm, req, method: str | None = None) -> list[int]:
        """As the in-process runner encodes: with `method`, its instruction (if any) included."""
        context = self.info().max_model_len or lm.context_length
        instruction = runner.instruction_for(req, method) if method is not None else ""
        ids = encode_prompt(lm.tokenizer, req.prompt, req.raw, "cpu", context, req.max_new_tokens, instruction)
        return ids[0].tolist()

    def check(self, lm, methods, settings: Mapping[str, Any] | None = None, max_new_tokens: int = 16) -> None:
        """Refuse, before anything runs, a method the engine cannot run exactly."""
        ids = [int(lm.tokenizer.eos_token_id or 0)]
        for m in methods:
            self.prepare(lm, m, (settings or {}).get(m), ids, max_new_tokens, 0)

    def run_methods(self, lm, req, cancel: threading.Event | None = None) -> list:
        """The chosen methods one after another, as the in-process runner does (results in the
        order given)."""
        results = {
            event.result.method: event.result
            for event in self.stream_methods(lm, req, cancel=cancel)
            if event.result is not None
        }
        if cancel is not None and cancel.is_set() and len(results) < len(req.methods):
            raise UserError("stopped before all methods finished")
        return [results[m] for m in req.methods if m in results]

    def stream_methods(
        self, lm, req, interval_s: float = 0.05, cancel: threading.Event | None = None, ticks: bool = False
    ) -> Iterator:
        """Like `arena.runner.stream_methods`: partial texts while each method generates on the server
        (beam search arrives whole), in the runner's order. Methods run one after another, so their
        timings don't share the server with each other (they may share it with other clients).
        Setting `cancel` (or closing this generator) closes the stream; the server then aborts."""

        req = runner.validate_request(req)
        order = runner.run_order(list(req.methods)) if hasattr(runner, "run_order") else list(req.methods)
        method_ids = {m: self._encode(lm, req, m) for m in order}
        prepared = [
            self.prepare(lm, m, req.settings.get(m), method_ids[m], req.max_new_tokens, req.seed, req.prompt)
            for m in order
        ]  # every refusal before the first request
        cancel = cancel if cancel is not None else threading.Event()
        has_position = "position" in {f.name for f in dataclasses.fields(runner.StreamEvent)}

        def event(method: str, text: str, result=None, position: int = 0):
            if has_position:
                return runner.StreamEvent(method, text, result, position, len(prepared))
            return runner.StreamEvent(method, text, result)

        try:
            for position, er in enumerate(prepared, start=1):
                if cancel.is_set():
                    return
                box: dict[str, Any] = {}
                latest: list[list[int]] = []
                done = threading.Event()

                def work(er=er) -> None:
                    try:
                        box["result"] = self.execute(
                            lm, er, method_ids[er.method], req.seed, on_tokens=latest.append, cancel=cancel
                        )
                    except BaseException as exc:  # surfaced below
                        box["error"] = exc
                    finally:
                        done.set()

                worker = threading.Thread(target=work, daemon=True)
                worker.start()
                yield event(er.method, "", None, position)
                shown, text, last = 0, "", time.monotonic()
                while not done.wait(interval_s):
                    if latest and len(latest[-1]) != shown:
                        ids = latest[-1]
                        shown = len(ids)
                        text = lm.tokenizer.decode(ids, skip_special_tokens=True)
                        last = time.monotonic()
                        yield event(er.method, text, None, position)
                    elif ticks and time.monotonic() - last >= 0.25:
                        last = time.monotonic()
                        yield event(er.method, text, None, position)
                worker.join()
                if "error" in box:
                    raise box["error"]
                if cancel.is_set():
                    return
                result = box["result"]
                yield event(er.method, result.text, result, position)
        finally:
            cancel.set()

    def generate_study(self, store, lm, study_id: int, progress=None, should_stop=None):
        """Every missing output of a study, all requests in flight at once (up to
        ARENA_VLLM_CONCURRENCY, default 64); each output is stored as soon as it arrives, so a
        stop or a crash loses only what was in flight."""

        with studies._running_lock:
            if study_id in studies._running:
                raise UserError("this study is being generated already; wait for that run to finish")
            studies._running.add(study_id)
        try:
            study = store.get_study(study_id)
            missing, total = studies.pending_slots(store, study_id)
            existing = total - len(missing)
            generated = 0
            if progress:
                progress(existing, total, "starting")
            self.check(lm, study.methods, study.settings, study.max_new_tokens)
            jobs = []
            for item, method, sample in missing:
                req = validate_request(
                    RunRequest(
                        prompt=item.prompt,
                        methods=[method],
                        settings={method: study.settings.get(method, {})},
                        max_new_tokens=study.max_new_tokens,
                        seed=_study_seed(study, item, method, sample),
                        raw=item.raw,
                    )
                )
                ids = self._encode(lm, req, method)
                er = self.prepare(lm, method, req.settings.get(method), ids, req.max_new_tokens, req.seed, req.prompt)
                jobs.append((item, method, sample, er, ids, req.seed))
            label = self.info().label()
            workers = max(1, min(len(jobs), current_settings().vllm_concurrency))
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="vllm-study") as pool:
                pending: dict[Future, tuple] = {
                    pool.submit(self.execute, lm, er, ids, seed): (item, method, sample)
                    for item, method, sample, er, ids, seed in jobs
                }
                try:
                    while pending:
                        finished, _ = wait(list(pending), timeout=0.5, return_when=FIRST_COMPLETED)
                        for fut in finished:
                            item, method, sample = pending.pop(fut)
                            result = fut.result()
                            _, new = store.add_output(
                                item.id, method, sample, model=label, **studies._output_fields(result)
                            )
                            generated += int(new)
                            if progress:
                                progress(
                                    existing + generated,
                                    total,
                                    f"item {item.ordinal + 1}, {method} sample {sample + 1} "
                                    f"({len(pending)} in flight on the vLLM server)",
                                )
                        if should_stop is not None and should_stop():
                            for fut in pending:
                                fut.cancel()
                            # requests already sent finish and are stored; the rest never start
                            for fut in list(pending):
                                if fut.cancelled():
                                    pending.pop(fut)
                finally:
                    for fut in pending:
                        fut.cancel()
            report = studies.GenerationReport(total, existing, generated)
            if hasattr(studies, "identical_texts") and hasattr(report, "identical"):
                report.identical = studies.identical_texts(store, study_id)
            if progress:
                progress(existing + generated, total, "done")
            if report.complete and study.state == "draft" and hasattr(report, "opened"):
                store.set_study_state(study_id, "open", allowed_from=("draft",))  # as the in-process path does
                report.opened = True
            return report
        finally:
            with studies._running_lock:
                studies._running.discard(study_id)


def _study_seed(study, item, method: str, sample: int) -> int:
    """The seed the in-process path gives this slot (`arena.studies.derive_seed` where it exists)."""

    if hasattr(studies, "derive_seed") and item.public_id is not None:
        return studies.derive_seed(study.base_seed, item.public_id, method, sample)
    return study.base_seed + sample


# ---- the model on the app's side: its tokenizer only -------------------------------------------


def model_folder(setting: str | None = None, cache_dir=None) -> str:
    """A folder or hub id a server can load for the model setting: GGUF files (the embedded model
    included) are converted once, into the same cache the in-process engine uses."""

    setting = setting if setting is not None else current_settings().model
    kind, where = models.resolve_source(setting)
    if kind != "gguf":
        return where
    folder = models.cache_root(cache_dir) / "converted" / models._gguf_cache_key(where)
    if not (folder / "config.json").is_file():
        models._convert_gguf(where, folder)
    return str(folder)


def tokenizer_only_model(setting: str | None = None, cache_dir=None):
    """A `LoadedModel` with the tokenizer and the model's shape but no weights (model=None)."""

    where = model_folder(setting, cache_dir)
    try:
        tokenizer = AutoTokenizer.from_pretrained(where)
        config = AutoConfig.from_pretrained(where)
    except OSError as exc:
        raise UserError(f"could not load the tokenizer of {where!r}: {exc}") from None
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    width = int(getattr(text, "vocab_size", 0) or len(tokenizer))
    context = int(getattr(text, "max_position_embeddings", 0) or tokenizer.model_max_length)
    engine = None
    try:
        engine = current_engine()
    except UserError:
        pass
    name = engine.describe() if engine is not None else Path(where).name
    return models.LoadedModel(
        model=None,
        tokenizer=tokenizer,
        name=name,
        source=f"vllm:{where}",
        device=torch.device("cpu"),
        dtype=torch.float32,
        context_length=context,
        logits_size=width,
        cache_dir=str(models.cache_root(cache_dir)),
    )


def _main(argv: list[str] | None = None) -> int:

    p = argparse.ArgumentParser(description="vLLM engine helpers")
    p.add_argument(
        "command", choices=["model-folder"], help="model-folder: print (and convert) what vllm serve should load"
    )
    p.add_argument("--model", default=None, help="model setting (default: ARENA_MODEL or the embedded model)")
    args = p.parse_args(argv)
    try:
        print(model_folder(args.model))
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
