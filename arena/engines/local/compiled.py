"""Compiled decode, warmed in the background: requests decode eagerly until it is ready, and never compile.

On a CUDA GPU that stays up (`ARENA_COMPILE=auto`, the default; not ZeroGPU, whose workers are forked
per task) the app compiles the model's forward pass at start, in a thread, for the shapes Compare and
studies use: one row (Greedy, sampling), the beams of BS-4, and a study batch and its beams. Until the
first shape is compiled every request decodes eagerly as before; afterwards requests call the compiled
code through `torch._dynamo.run`, which uses what is compiled and runs any other shape eagerly instead
of compiling it, so a request never waits for a compile, whatever its shape.

What makes the shapes few: every compiled call gets one static KV cache length (`max_cache_len`,
`cache_length`), so the graph depends on the number of rows only; dynamo makes the rows dynamic on the
second distinct count, so batches of any size share one graph (one row stays its own).

Restarts: inductor's caches live in the app's cache folder (`TORCHINDUCTOR_CACHE_DIR`, unless the
operator set it), and the portable cache artifacts (`torch.compiler.save_cache_artifacts`) are saved
there after a warm-up and loaded before the next one, so a restart finds every kernel compiled and
only re-traces (seconds) instead of compiling (tens of seconds a shape).

The same code runs on a CPU (`ARENA_COMPILE=1`, or `warm_up` called directly): the tests compile a
tiny model there."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from transformers import CompileConfig

from arena.model.llm import LoadedModel
from arena.model.zerogpu import on_zero_gpu
from arena.runs.requests import DEFAULT_BATCH_SIZE
from arena.settings import point_inductor_cache

from .device import compile_mode

log = logging.getLogger(__name__)

BEAMS = 4  # BS-4's beams: its batch-1 calls decode four rows
COMPILING = "eager, compiling…"
READY = "compiled"
ARTIFACTS = "compiled_decode.bin"


def cache_length(lm: LoadedModel) -> int:
    """The one static cache length of compiled calls: Compare's longest answer (1,024 new tokens)
    after a prompt of up to 1,024, within the model's context."""
    return max(16, min(lm.context_length or 2048, 2048))


def compile_shapes(batch_size: int = DEFAULT_BATCH_SIZE) -> list[int]:
    """The row counts Compare and studies decode: 1, BS-4's beams, a study batch, and its beams."""
    return sorted({1, BEAMS, batch_size, batch_size * BEAMS})


def compile_config(device: torch.device) -> CompileConfig:
    """CUDA graphs on CUDA (`reduce-overhead`: what removes eager decode's launch cost); plain
    inductor elsewhere, where transformers compiles only when told it may on every device."""
    if device.type == "cuda":
        return CompileConfig(mode="reduce-overhead")
    config = CompileConfig(mode="default")
    config._compile_all_devices = True  # type: ignore[assignment]  # transformers' switch for compiling on a CPU
    return config


class NoCompileInRequests:
    """What transformers calls as the model's compiled forward: the compiling function in the
    warm-up thread, and elsewhere (requests) the compiled code only, eager for any shape not compiled."""

    def __init__(self, model: Any, config: CompileConfig):
        self.compiling = torch.compile(model.__call__, **config.to_dict())
        self.run_only = torch._dynamo.run(model.__call__)
        self.local = threading.local()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if getattr(self.local, "may_compile", False):
            return self.compiling(*args, **kwargs)
        return self.run_only(*args, **kwargs)


@dataclass
class CompiledDecode:
    """One model's compiled decode: its status for the model line, and what its calls get."""

    config: CompileConfig
    max_cache_len: int
    shapes: list[int]
    call: NoCompileInRequests
    folder: Path  # inductor's cache and the saved artifacts (the app's cache folder, `compiled/`)
    done: list[int] = field(default_factory=list)
    error: str = ""
    thread: threading.Thread | None = None

    @property
    def ready(self) -> bool:
        return bool(self.done)

    @property
    def status(self) -> str:
        if self.error:
            return f"eager (compiling failed: {self.error})"
        if len(self.done) == len(self.shapes):
            return READY
        return f"{COMPILING} ({len(self.done)} of {len(self.shapes)} shapes)"


def state_of(lm: Any) -> CompiledDecode | None:
    found = getattr(lm, "compiled", None)
    return found if isinstance(found, CompiledDecode) else None


def wanted(device: torch.device, mode: str | None = None) -> bool:
    """Whether this model's decode is compiled: `auto` on CUDA outside ZeroGPU, `on` anywhere."""
    mode = compile_mode() if mode is None else mode
    if mode == "on":
        return True
    return mode == "auto" and device.type == "cuda" and not on_zero_gpu()


def compiled_kwargs(lm: Any, total_length: int | None = None) -> dict[str, Any]:
    """What a request's `generate` gets on top of the device's settings: the compiled forward once
    one shape is compiled (its cache length, its config), else nothing (eager)."""
    state = state_of(lm)
    if state is None or not state.ready or (total_length is not None and total_length > state.max_cache_len):
        return {}
    # transformers keeps the longest cache it has seen on the model and sizes later ones to it; one
    # eager request longer than the compiled length would otherwise change every later call's shape.
    lm.model._previous_max_cache_length = state.max_cache_len
    return call_kwargs(state)


def call_kwargs(state: CompiledDecode) -> dict[str, Any]:
    """`generate`'s settings for the compiled forward: the one cache length, and the config that
    `attach` installed the call for."""
    return {
        "cache_implementation": "static",
        "max_cache_len": state.max_cache_len,
        "compile_config": state.config,
        "disable_compile": False,
    }


def attach(
    lm: LoadedModel, shapes: Sequence[int], max_cache_len: int | None = None, folder: Path | None = None
) -> CompiledDecode:
    """Prepare `lm` for compiled decode (nothing compiled yet): transformers' compiled call replaced
    by one that compiles only in the warm-up thread. `folder`: where compiled code is kept (default:
    `compiled/` in the model's cache folder)."""
    config = compile_config(lm.device)
    state = CompiledDecode(
        config,
        max_cache_len or cache_length(lm),
        list(shapes),
        NoCompileInRequests(lm.model, config),
        folder or Path(lm.cache_dir) / "compiled",
    )
    # transformers reuses `_compiled_call` while the config it was made for is the one asked for.
    lm.model._compiled_call = state.call
    lm.model._last_compile_config = config
    lm.compiled = state
    return state


def use_cache_folder(state: CompiledDecode) -> None:
    """Inductor's on-disk caches in the app's cache folder (an operator's own setting wins), and the
    artifacts an earlier warm-up saved loaded into them."""
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir  # inductor only where it compiles

    state.folder.mkdir(parents=True, exist_ok=True)
    point_inductor_cache(str(state.folder / "inductor"), default_cache_dir())
    saved = state.folder / ARTIFACTS
    if saved.is_file():
        try:
            torch.compiler.load_cache_artifacts(saved.read_bytes())
        except Exception as exc:  # a cache from another torch: compile anew and overwrite it
            log.warning("compiled decode: ignoring %s (%s)", saved, exc)


def save_artifacts(state: CompiledDecode) -> None:
    saved = torch.compiler.save_cache_artifacts()
    if saved is not None:
        (state.folder / ARTIFACTS).write_bytes(saved[0])


def compile_rows(lm: LoadedModel, state: CompiledDecode, rows: int) -> None:
    """One short greedy decode of `rows` rows through the compiling call: prefill plus two steps,
    the steps compiled for this row count (and made dynamic on a second count)."""
    ids = torch.full((rows, 4), int(lm.tokenizer.eos_token_id or 0), dtype=torch.long, device=lm.device)
    state.call.local.may_compile = True
    try:
        with torch.inference_mode():
            lm.model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=3,
                min_new_tokens=3,
                do_sample=False,
                pad_token_id=lm.tokenizer.pad_token_id,
                **call_kwargs(state),
            )
    finally:
        state.call.local.may_compile = False


def warm_up(lm: LoadedModel, state: CompiledDecode, before: Callable[[], None] | None = None) -> None:
    """Compile every shape of `state`, in this thread; each is usable by requests as soon as it is
    done. `before` runs first (tests hold the warm-up there). Errors leave decode eager."""
    try:
        if before is not None:
            before()
        use_cache_folder(state)
        for rows in state.shapes:
            compile_rows(lm, state, rows)
            state.done.append(rows)
            log.info("compiled decode: %d row(s) ready (%s)", rows, state.status)
        save_artifacts(state)
    except Exception as exc:  # the app serves eagerly as before; the model line says why
        state.error = f"{type(exc).__name__}: {exc}"[:200]
        log.warning("compiled decode: %s", state.error)


def start(
    lm: LoadedModel,
    shapes: Sequence[int] | None = None,
    max_cache_len: int | None = None,
    before: Callable[[], None] | None = None,
    folder: Path | None = None,
) -> CompiledDecode | None:
    """Start compiling `lm`'s decode in a background thread, where `ARENA_COMPILE` wants it (app
    start, arena.engines.prepare); None where it does not (decode stays eager)."""
    if state_of(lm) is not None or not wanted(lm.device):
        return state_of(lm)
    state = attach(lm, compile_shapes() if shapes is None else shapes, max_cache_len, folder)
    state.thread = threading.Thread(target=warm_up, args=(lm, state, before), name="compile-decode", daemon=True)
    state.thread.start()
    return state
