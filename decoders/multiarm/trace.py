"""What a multi-arm run did, step by step: for the trace view and for tests."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class ArmStep:
    """Arm `arm` chose `token` at loop step `step`; `position` is its index in the arm's answer."""

    step: int
    arm: int
    position: int
    token: int
    logprob: float
    entropy: float
    score: float
    weight: float
    temperature: float


@dataclass
class ArmEvent:
    """A backtrack ("backtrack": `arm` returns to `position`) or a reallocation ("copy": `arm`
    drops its path and continues from a copy of `source`'s)."""

    step: int
    arm: int
    kind: str
    position: int
    reason: str
    source: int | None = None


@dataclass
class MultiArmTrace:
    arm_names: list[str]
    prompt_length: int
    verifier: str
    steps: list[ArmStep] = field(default_factory=list)
    events: list[ArmEvent] = field(default_factory=list)
    paths: list[list[int]] = field(default_factory=list)  # each arm's final answer tokens
    path_logprobs: list[list[float]] = field(default_factory=list)  # model log-prob of each of them
    mean_scores: list[float] = field(default_factory=list)
    chosen: int | None = None
    forward_passes: int = 0
    passed: list[bool] | None = None  # each answer against the generator's `prefer` check, if it has one

    def backtracks(self) -> list[ArmEvent]:
        return [e for e in self.events if e.kind == "backtrack"]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
