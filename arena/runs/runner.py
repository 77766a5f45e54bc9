"""Running one prompt's methods on the app's engine: what Compare, `python -m decoders` and the
benchmark call.

`run_methods` and `stream_methods` hand the request to `arena.engines.engine_for(lm)` (in-process
transformers by default, arena/engines/local/; on vLLM the server that serves `lm`'s model,
`ARENA_VLLM_SERVERS`; the dummy for tests), which
validates it once and runs the methods one after another with honest timing. The runs that serve
the app (Compare's `stream_methods`, the trace tab's `run_trace`) are admitted first, whatever the
engine (`arena.studies.reserved.admit`): a prompt of a study still being rated is refused. The
request and result types live in arena/runs/requests.py, the in-process engine's helpers (`encode`,
`plan_for`, `gpu_run`...) in arena/engines/local/: import them from there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from arena.engines import LOCAL, engine_for
from arena.model import compute
from arena.model.llm import LoadedModel, get_model, models, needs_conversion
from arena.runs import estimate
from arena.runs.requests import MethodResult, RunRequest, StreamEvent
from arena.studies import reserved


def run_methods(lm: LoadedModel, req: RunRequest, cancel: threading.Event | None = None) -> list[MethodResult]:
    """Run every requested method on the same prompt, one after another (results in the order given)."""
    results = engine_for(lm).run_methods(lm, req, cancel)
    for result in results:
        record_throughput(lm, result)
    return results


def record_throughput(lm: LoadedModel, result: MethodResult) -> None:
    """Remember a finished method's tokens/s for the Organizer's "about T min on this machine"
    (arena/runs/estimate.py), whoever ran it: Compare, its grid, the CLI in this process. Under the model's
    name (as outputs store it) and its label (as the model pickers name it)."""
    for name in dict.fromkeys((lm.name, getattr(lm, "label", lm.name))):  # a stand-in model may have no label
        estimate.record(name, result.method, result.tokens_per_s)


def stream_methods(
    lm: LoadedModel,
    req: RunRequest,
    interval_s: float = 0.05,
    cancel: threading.Event | None = None,
    ticks: bool = False,
) -> Generator[StreamEvent, None, None]:
    """Like `run_methods`, yielding partial texts while each method generates: methods that stream
    first, beam search last. Setting `cancel`, or closing this generator (Gradio does when a client
    leaves or presses Stop), ends generation at the next token (see `arena.engines.base.Engine`).
    Compare's run: a study's prompt is refused here, before any engine sees it."""
    reserved.admit(lm, req.prompt, req.raw)
    stream = engine_for(lm).stream_methods(lm, req, interval_s, cancel, ticks)
    try:
        for event in stream:
            if event.result is not None:
                record_throughput(lm, event.result)
            yield event
    finally:
        close = getattr(stream, "close", None)  # closing this generator (a client left) closes the engine's
        if close is not None:
            close()


def run_trace(lm: LoadedModel, req: RunRequest) -> dict[str, Any]:
    """The trace tab's Multi-Arm run (`LocalEngine.trace`, in process whatever the engine setting),
    admitted as Compare's: a study's prompt is refused first."""
    reserved.admit(lm, req.prompt, req.raw)
    return LOCAL.trace(lm, req)


# ---- one prompt on several models: `python -m decoders --models A,B` and Compare's grid -------------


@dataclass(frozen=True)
class ModelEvent:
    """A step of a run over several models: `event` is None while model `model` (`position` of
    `total`) loads (`loading` says how: a first conversion takes minutes), else one of its methods'
    stream events. `lm` is the model once it is loaded."""

    model: str
    position: int
    total: int
    event: StreamEvent | None = None
    lm: LoadedModel | None = None
    loading: str = ""


def loading_line(setting: str | None) -> str:
    """What to say before a model loads, "" when it is in memory already."""
    if models.peek(setting) is not None:
        return ""
    name = setting or "the model (ARENA_MODEL, default smollm2-135m)"
    if needs_conversion(setting):
        return f"loading {name}: first use, converting its GGUF once (a few minutes)..."
    return f"loading {name}..."


def load_on_compute(setting: str | None) -> LoadedModel:
    """The model through the LRU (`get_model`), loaded on the app's compute thread where one serves:
    the thread that runs the model's work (arena/model/compute.py)."""
    return compute.run(get_model, setting)


def stream_models(
    settings: Sequence[str | None],
    req: RunRequest,
    interval_s: float = 0.05,
    cancel: threading.Event | None = None,
    ticks: bool = False,
    load: Callable[[str | None], LoadedModel] = load_on_compute,
) -> Iterator[ModelEvent]:
    """Every method of `req` on each model in turn (a model is loaded when its turn comes, so at most
    ARENA_MODELS_IN_MEMORY stay loaded), as `stream_methods` events tagged with their model; one run
    at a time on the device, as for one model. Each model's run is admitted as Compare's."""
    names = [s or "" for s in settings]
    cancel = cancel if cancel is not None else threading.Event()
    for position, setting in enumerate(names, start=1):
        if cancel.is_set():
            return
        line = loading_line(setting)
        if line:
            yield ModelEvent(setting, position, len(names), loading=line)
        lm = load(setting)
        stream = stream_methods(lm, req, interval_s, cancel=_Linked(cancel), ticks=ticks)
        try:
            for event in stream:
                yield ModelEvent(setting, position, len(names), event, lm)
        finally:
            stream.close()
        if cancel.is_set():  # Stop during this model's run: the next models do not start
            return


class _Linked(threading.Event):
    """One model's cancel event: set by Stop (the parent) or by that model's own run ending (engines
    set their event when a run ends), without the latter stopping the next model."""

    def __init__(self, parent: threading.Event) -> None:
        super().__init__()
        self.parent = parent

    def is_set(self) -> bool:
        return super().is_set() or self.parent.is_set()


def run_models(
    settings: Sequence[str | None],
    req: RunRequest,
    announce: Callable[[str], None] | None = None,
    load: Callable[[str | None], LoadedModel] = get_model,
) -> list[tuple[LoadedModel, list[MethodResult]]]:
    """`run_methods` on each model in turn: one (model, results) pair per model, in the order given.
    `announce` hears the line said before a model loads."""
    runs: list[tuple[LoadedModel, list[MethodResult]]] = []
    for setting in settings:
        line = loading_line(setting)
        if line and announce is not None:
            announce(line)
        lm = load(setting)
        runs.append((lm, run_methods(lm, req)))
    return runs
