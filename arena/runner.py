"""Running one prompt's methods on the app's engine: what Compare, `python -m decoders` and the
benchmark call.

`run_methods` and `stream_methods` hand the request to `arena.engines.current()` (in-process
transformers by default, arena/engines/local/; a vLLM server; the dummy for tests), which
validates it once and runs the methods one after another with honest timing. The runs that serve
the app (Compare's `stream_methods`, the trace tab's `run_trace`) are admitted first, whatever the
engine (`arena.studies.reserved.admit`): a prompt of a study still being rated is refused. The
request and result types come from arena/requests.py, and the in-process engine's helpers that
scripts and tests import from here (`encode`, `plan_for`, `gpu_run`...) from arena/engines/local/;
both stay importable from here as before.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from .engines import LOCAL, current
from .engines.local.device import compile_enabled, device_generate_kwargs
from .engines.local.inputs import encode, encode_ids, plan_for
from .engines.local.tasks import gpu_run, gpu_stream, gpu_trace
from .llm import LoadedModel
from .requests import (
    DEFAULT_MAX_NEW_TOKENS,
    MAX_NEW_TOKENS_RANGE,
    Cancelled,
    MethodResult,
    RunRequest,
    StreamEvent,
    run_order,
    validate_request,
)
from .studies import reserved

__all__ = [
    "DEFAULT_MAX_NEW_TOKENS",
    "MAX_NEW_TOKENS_RANGE",
    "Cancelled",
    "MethodResult",
    "RunRequest",
    "StreamEvent",
    "compile_enabled",
    "device_generate_kwargs",
    "encode",
    "encode_ids",
    "gpu_run",
    "gpu_stream",
    "gpu_trace",
    "plan_for",
    "run_methods",
    "run_order",
    "run_trace",
    "stream_methods",
    "validate_request",
]


def run_methods(lm: LoadedModel, req: RunRequest, cancel: threading.Event | None = None) -> list[MethodResult]:
    """Run every requested method on the same prompt, one after another (results in the order given)."""
    return current().run_methods(lm, req, cancel)


def stream_methods(
    lm: LoadedModel,
    req: RunRequest,
    interval_s: float = 0.05,
    cancel: threading.Event | None = None,
    ticks: bool = False,
) -> Iterator[StreamEvent]:
    """Like `run_methods`, yielding partial texts while each method generates: methods that stream
    first, beam search last. Setting `cancel`, or closing this generator (Gradio does when a client
    leaves or presses Stop), ends generation at the next token (see `arena.engines.base.Engine`).
    Compare's run: a study's prompt is refused here, before any engine sees it."""
    reserved.admit(lm, req.prompt, req.raw)
    yield from current().stream_methods(lm, req, interval_s, cancel, ticks)


def run_trace(lm: LoadedModel, req: RunRequest) -> dict[str, Any]:
    """The trace tab's Multi-Arm run (`LocalEngine.trace`, in process whatever the engine setting),
    admitted as Compare's: a study's prompt is refused first."""
    reserved.admit(lm, req.prompt, req.raw)
    return LOCAL.trace(lm, req)
