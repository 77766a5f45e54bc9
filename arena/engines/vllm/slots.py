"""A study's missing outputs on a vLLM server: every request in flight at once, batched by the server.

Up to ARENA_VLLM_CONCURRENCY (default 64) requests run together; each output is handed back as
soon as it arrives, so a stop or a crash loses only what was in flight. Every request is prepared
(and any refusal raised) before the first is sent. Each output is generated alone with its own
seed and timed on this side, whatever the study's batch size: the server does the batching.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from arena.model.llm import LoadedModel
from arena.runs.requests import Generated, RunRequest, Slot, SlotJob, SlotOutput, output_fields, validate_request
from common.messages import text

from ...settings import current as current_settings
from .client import EngineRequest, VllmClient


def prepared(
    client: VllmClient, lm: LoadedModel, job: SlotJob
) -> list[tuple[Slot, EngineRequest, list[int], int | None]]:
    """(slot, request, prompt ids, seed) for every slot; a method the server cannot run is refused here."""
    jobs = []
    for slot in job.slots:
        req = validate_request(
            RunRequest(
                prompt=slot.prompt,
                methods=[slot.method],
                settings={slot.method: dict(job.settings.get(slot.method, {}))},
                max_new_tokens=job.max_new_tokens,
                seed=job.seed([slot]),
                raw=slot.raw,
            )
        )
        ids = client.encode(lm, req, slot.method)  # as the method reads it: its instruction included
        er = client.prepare(
            lm, slot.method, req.settings.get(slot.method), ids, req.max_new_tokens, req.seed, req.prompt
        )
        jobs.append((slot, er, ids, req.seed))
    return jobs


def generate_slots(
    client: VllmClient, lm: LoadedModel, job: SlotJob, should_stop: Callable[[], bool] | None = None
) -> Iterator[Generated]:
    jobs = prepared(client, lm, job)
    workers = max(1, min(len(jobs), current_settings().vllm_concurrency))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="vllm-study") as pool:
        pending: dict[Future, Slot] = {
            pool.submit(client.execute, lm, er, ids, seed): slot for slot, er, ids, seed in jobs
        }
        try:
            while pending:
                finished, _ = wait(list(pending), timeout=0.5, return_when=FIRST_COMPLETED)
                for fut in finished:
                    slot = pending.pop(fut)
                    result = fut.result()
                    yield Generated(
                        [SlotOutput(slot, output_fields(result))],
                        text(
                            "engine_piece_vllm",
                            item=slot.ordinal + 1,
                            method=slot.method,
                            sample=slot.sample + 1,
                            n=len(pending),
                        ),  # fmt: skip
                    )
                if should_stop is not None and should_stop():
                    for fut in pending:
                        fut.cancel()
                    # requests already sent finish and are handed back; the rest never start
                    for fut in list(pending):
                        if fut.cancelled():
                            pending.pop(fut)
        finally:
            for fut in pending:
                fut.cancel()
