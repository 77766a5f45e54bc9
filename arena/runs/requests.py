"""What goes into an engine and what comes out: requests, results, stream events, study slots.

Every engine (arena/engines) takes these and gives these back, so this module imports no engine:
Compare, the CLI, the benchmark and study generation build a `RunRequest` (checked once by
`validate_request`) or a `SlotJob`, and read `MethodResult`, `StreamEvent` and `Generated`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import decoders
from arena.inputs.numbers import whole_number
from common.errors import UserError

MAX_NEW_TOKENS_RANGE = (1, 1024)
DEFAULT_MAX_NEW_TOKENS = 128
# A study's `auto` batch size: on this project's 2-core CPU a batch of 16 gave 5.2x (TS-Temp) and 4.2x
# (BS-4, 64 beam rows) one output's throughput, a batch of 8 3.3x and 3.2x (24 new tokens, fp32); a
# GPU gains more still (arena/engines/local/batching.py).
DEFAULT_BATCH_SIZE = 16
BATCH_SIZE_RANGE = (1, 64)


@dataclass
class MethodResult:
    method: str
    text: str
    new_tokens: int
    ttft_ms: float
    latency_ms: float
    tokens_per_s: float
    settings: dict[str, Any]
    seed: int | None
    prompt_tokens: int
    peak_mem_mb: float | None = None  # highest memory during the run, see arena/model/memory.py; None = n/a
    finish_reason: str = "length"
    token_ids: list[int] = field(default_factory=list, repr=False)
    peak_mem_growth_mb: float | None = None  # peak_mem_mb minus the level just before the run
    dtype: str = ""  # the model's precision during this run (float32, bfloat16, float16, int8, int8-dynamic)
    # Only when the request asked to record: why each token was chosen (decoders/recording.py), plain data.
    record: dict[str, Any] | None = field(default=None, repr=False)

    def public(self) -> dict[str, Any]:
        """The fields the CLI prints and the store keeps."""
        out = asdict(self)
        out.pop("token_ids")
        out.pop("record")
        return out


def output_fields(result: MethodResult | Mapping[str, Any]) -> dict[str, Any]:
    """What the store keeps of one timed run (`Store.add_output`'s fields, the model aside); the
    run's dtype goes into its settings."""
    r = result.public() if isinstance(result, MethodResult) else dict(result)
    settings = dict(r.get("settings") or {})
    if r.get("dtype"):
        settings.setdefault("dtype", r["dtype"])
    return dict(
        text=r["text"],
        settings=settings,
        seed=r.get("seed"),
        new_tokens=r.get("new_tokens", 0),
        latency_ms=r.get("latency_ms"),
        ttft_ms=r.get("ttft_ms"),
        tokens_per_s=r.get("tokens_per_s"),
        prompt_tokens=r.get("prompt_tokens"),
        finish_reason=r.get("finish_reason"),
    )


@dataclass
class RunRequest:
    prompt: str
    methods: list[str]
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS
    seed: int | None = 0
    raw: bool = False
    # Record what each processor did at every step (Compare's token view); off, a run is not slowed.
    record: bool = False


def validate_request(req: RunRequest) -> RunRequest:
    """Check everything before any generation starts, so a bad field never costs a run."""
    methods = decoders.parse_methods(req.methods)
    max_new = whole_number(req.max_new_tokens, "max_new_tokens", *MAX_NEW_TOKENS_RANGE)
    seed = None if req.seed is None else whole_number(req.seed, "seed", 0, 2**63 - 1)
    settings = {} if req.settings is None else req.settings
    if not isinstance(settings, Mapping):
        raise UserError(f"settings must map method names to their parameters, got {req.settings!r}")
    unknown = set(settings) - set(methods)
    if unknown:
        raise UserError(f"settings given for methods not being run: {', '.join(sorted(unknown))}")
    for name in methods:
        decoders.get(name).resolve(settings.get(name))
    return RunRequest(req.prompt, methods, dict(settings), max_new, seed, bool(req.raw), bool(req.record))


def instruction_for(req: RunRequest, method: str) -> str:
    """The text `method` adds to the prompt with the request's settings ("" for most methods;
    `decoders.Decoder.instruction`). Every engine encodes a method's prompt with it."""
    return decoders.get(method).instruction(req.settings.get(method), req.prompt)


def run_order(methods: list[str]) -> list[str]:
    """Compare's order: methods that stream first (something to read soon), beam search and other
    whole-output methods last; otherwise as chosen."""
    return sorted(methods, key=lambda m: 0 if decoders.get(m).streams else 1)


class Cancelled(Exception):
    """The run was stopped (Stop button, client gone) before it finished."""


@dataclass
class StreamEvent:
    """`text` so far for `method`; `result` is set once that method has finished. `position` of
    `total` says which method is running (Compare's status line)."""

    method: str
    text: str
    result: MethodResult | None = None
    position: int = 0
    total: int = 0


# ---- a study's outputs ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """One output a study still needs: an item's prompt, one method, one sample index."""

    item_id: int
    ordinal: int  # the item's place in the study, from 0 (progress lines say "item ordinal + 1")
    key: str  # the item's public id, which its seed is derived from
    prompt: str
    raw: bool
    method: str
    sample: int


@dataclass(frozen=True)
class SlotJob:
    """The outputs one run of a study's generation asks an engine for, and what they share.

    `seed(slots)` is the study's seed for slots generated together: one slot alone gets its own,
    a batch one for the whole batch (arena/studies/seeds.py). `batch_size` 1 means every output
    alone and timed; larger lets an engine batch, except one output per method not in `timed`
    (methods whose speed the study has measured already), which is generated alone and timed."""

    slots: Sequence[Slot]
    settings: Mapping[str, Mapping[str, Any]]
    max_new_tokens: int
    seed: Callable[[Sequence[Slot]], int]
    batch_size: int = 1
    timed: frozenset[str] = frozenset()


@dataclass
class SlotOutput:
    """One generated output, as the store keeps it (`Store.add_output`'s fields, the model aside)."""

    slot: Slot
    fields: dict[str, Any]


@dataclass
class Generated:
    """What an engine hands back for a study as each piece of work ends: its outputs (one, or a
    batch), and a progress line saying what just finished."""

    outputs: list[SlotOutput]
    what: str
