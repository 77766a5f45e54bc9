"""What a task checker returns: a verdict, its reason in words, and a short kind for counting failures."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Verdict:
    """`success` is True or False, or None when the answer could not be checked (e.g. no sandbox).
    `kind` names the reason in a few words, the same for every answer that fails the same way
    ("wrong value", "fails tests"…), so that failures can be counted."""

    success: bool | None
    reason: str
    kind: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def mark(self) -> str:
        return {True: "✓ pass", False: "✗ fail", None: "– not checked"}[self.success]
