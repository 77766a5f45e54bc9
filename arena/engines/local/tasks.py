"""The in-process engine's GPU functions: plain data in, plain data out.

A model key, method names, settings, token ids as a list (or one list per method, where a method
adds an instruction to the prompt: inputs.method_ids), seed, max_new_tokens in; dicts, lists
and numbers out. On ZeroGPU each is a `spaces.GPU` task (a generator one for streaming) that warms
up and times inside the task; elsewhere they run in-process unchanged, on the app's compute thread
(arena/model/zerogpu.py, arena/model/compute.py). The caller holds the model's lock around each.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import decoders
from arena.model.llm import lookup
from arena.model.zerogpu import duration_s, gpu_task

from .generate import plain_result, run_one, run_planned
from .inputs import PromptIds, device_ids, ids_for
from .stream import events


def beams(methods: list[str]) -> int:
    """How many of the methods return whole outputs (beam search): ZeroGPU durations count them twice."""
    return sum(1 for m in methods if not decoders.get(m).streams)


def run_duration(
    key: str,
    methods: list[str],
    settings: dict,
    prompt_ids: PromptIds,
    seed: int | None,
    max_new_tokens: int,
    prompt: str = "",
    cancel: Any = None,
    record: bool = False,
) -> int:
    return duration_s(max_new_tokens, len(methods), beams(methods))


@gpu_task(duration=run_duration)
def gpu_run(
    key: str,
    methods: list[str],
    settings: dict,
    prompt_ids: PromptIds,
    seed: int | None,
    max_new_tokens: int,
    prompt: str = "",
    cancel: threading.Event | None = None,
    record: bool = False,
) -> list[dict[str, Any]]:
    """Every method on one prompt, one after another, in one GPU task; one result dict each."""
    lm = lookup(key)
    out = []
    for m in methods:
        input_ids = device_ids(lm, ids_for(prompt_ids, m))
        out.append(
            plain_result(run_one(lm, m, input_ids, settings.get(m), max_new_tokens, seed, prompt, cancel, record))
        )
    return out


@gpu_task(duration=run_duration)
def gpu_stream(
    key: str,
    methods: list[str],
    settings: dict,
    prompt_ids: PromptIds,
    seed: int | None,
    max_new_tokens: int,
    prompt: str = "",
    cancel: threading.Event | None = None,
    record: bool = False,
) -> Iterator[tuple]:
    """The streaming variant: a generator (on ZeroGPU a generator GPU task, whose values `spaces`
    sends out of the worker as they come; closing it stops the worker's generator)."""
    lm = lookup(key)
    yield from events(
        lm,
        methods,
        settings,
        prompt_ids,
        seed,
        max_new_tokens,
        prompt,
        cancel if cancel is not None else threading.Event(),
        record=record,
    )


def trace_duration(
    key: str, prompt_ids: list[int], overrides: dict | None, seed: int | None, max_new_tokens: int, prompt: str = ""
) -> int:
    return duration_s(max_new_tokens * 3, 1)  # three arms per step


@gpu_task(duration=trace_duration)
def gpu_trace(
    key: str,
    prompt_ids: list[int],
    overrides: dict | None,
    seed: int | None,
    max_new_tokens: int,
    prompt: str = "",
    method: str = "Multi-Arm",
) -> dict[str, Any]:
    """One Multi-Arm generation with its trace, in one GPU task, through the same warm-up, timed
    generation and result as Compare (`run_one`): the result as plain data, its answer token ids,
    the trace as a dict of plain values, and the effective settings."""
    lm = lookup(key)
    result, plan = run_planned(lm, method, device_ids(lm, prompt_ids), overrides, max_new_tokens, seed, prompt)
    loop: Any = plan.custom_generate  # Multi-Arm's own loop, which keeps the trace of its last call
    return {
        "result": plain_result(result),
        "token_ids": list(result.token_ids),
        "trace": loop.last_trace.as_dict(),
        "settings": result.settings,
    }
