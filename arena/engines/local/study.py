"""A study's missing outputs on the in-process engine: alone and timed, or in batches.

With batch size 1 every output is generated alone and timed, with its own seed. With a larger
batch size, each method's first output is still generated alone and timed (unless the study has
a timed output of it already: the study's speed figures), and the rest go in batches of prompts
of similar length with one seed per batch (see batching.py for exactly what that seed
reproduces); batched outputs carry no timing. A method with its own step loop (Multi-Arm) always
runs alone. Work is done lazily: nothing starts until the consumer asks for the next piece.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from arena.model.llm import LoadedModel
from arena.runs.requests import Generated, MethodResult, RunRequest, Slot, SlotJob, SlotOutput, output_fields
from common.messages import text

from .batching import generate_batch, plan_key
from .inputs import encode_ids

RunFn = Callable[[LoadedModel, RunRequest], list[MethodResult]]


def by_method(slots: list[Slot]) -> list[tuple[tuple[str, int], list[Slot]]]:
    """The slots grouped by (method, sample), in the order each group first appears."""
    groups: dict[tuple[str, int], list[Slot]] = {}
    for slot in slots:
        groups.setdefault((slot.method, slot.sample), []).append(slot)
    return list(groups.items())


def batches(
    lm: LoadedModel, method: str, settings: Mapping[str, Any], slots: list[Slot], max_new: int, size: int
) -> list[list[tuple[Slot, list[int]]]]:
    """Slots with the same plan, sorted by prompt length (less padding), in chunks of `size`;
    a method with its own step loop gets chunks of one."""
    groups: dict[str | None, list[tuple[Slot, list[int]]]] = {}
    for slot in slots:
        req = RunRequest(slot.prompt, [method], {method: dict(settings)}, max_new, raw=slot.raw)
        ids = encode_ids(lm, req, method)  # as the method reads it: its instruction, if any, included
        groups.setdefault(plan_key(lm, method, settings, slot.prompt, max_new), []).append((slot, ids))
    chunks = []
    for key, members in groups.items():
        members.sort(key=lambda m: len(m[1]))
        step = 1 if key is None else size
        chunks += [members[i : i + step] for i in range(0, len(members), step)]
    return chunks


def batch_outputs(
    lm: LoadedModel, job: SlotJob, method: str, settings: Mapping[str, Any], chunk: list[tuple[Slot, list[int]]]
) -> list[SlotOutput]:
    """One batch generated with the batch's seed; what the store keeps of each row (no timing)."""
    seed = job.seed([slot for slot, _ in chunk])
    rows = generate_batch(lm, method, settings, [ids for _, ids in chunk], job.max_new_tokens, seed, chunk[0][0].prompt)
    return [
        SlotOutput(
            slot,
            dict(
                text=row.text,
                seed=seed,
                new_tokens=row.new_tokens,
                settings={**row.settings, "dtype": lm.precision, "batch_size": len(chunk)},
                prompt_tokens=len(ids),
                finish_reason=row.finish_reason,
            ),
        )
        for (slot, ids), row in zip(chunk, rows)
    ]


def generate_slots(
    lm: LoadedModel, job: SlotJob, run: RunFn, should_stop: Callable[[], bool] | None = None
) -> Iterator[Generated]:
    """The job's outputs, one method and sample index at a time; `run` generates a request alone
    (the engine's `run_methods`)."""
    size = job.batch_size
    timed = set(job.timed) if size > 1 else set()
    for (method, sample), slots in by_method(list(job.slots)):
        settings = job.settings.get(method, {})
        alone = slots if size == 1 else []
        batched = [] if size == 1 else slots
        if size > 1 and method not in timed:
            alone, batched = slots[:1], slots[1:]
            timed.add(method)
        for slot in alone:
            if should_stop is not None and should_stop():
                break
            req = RunRequest(
                prompt=slot.prompt,
                methods=[method],
                settings={method: dict(settings)},
                max_new_tokens=job.max_new_tokens,
                seed=job.seed([slot]),
                raw=slot.raw,
            )
            [result] = run(lm, req)
            yield Generated(
                [SlotOutput(slot, output_fields(result))],
                text("engine_piece", item=slot.ordinal + 1, method=method, sample=sample + 1),
            )
        for chunk in batches(lm, method, settings, batched, job.max_new_tokens, size):
            if should_stop is not None and should_stop():
                break
            yield Generated(
                batch_outputs(lm, job, method, settings, chunk),
                text("engine_batch", method=method, sample=sample + 1, n=len(chunk)),
            )
