"""The held-out set: human-written fragments split into prompt and continuation.

Built by `scripts/build_heldout.py`; provenance and licence in `evaluation/data/README.md`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.files.readers import read_jsonl
from common.errors import UserError

DATA_FILE = Path(__file__).resolve().parent / "data" / "heldout.jsonl"


@dataclass(frozen=True)
class HeldoutItem:
    id: str
    language: str
    source: str
    prompt: str
    continuation: str


def load_heldout(
    language: str | None = "en", limit: int | None = None, path: str | Path | None = None
) -> list[HeldoutItem]:
    """Fragments in file order, optionally of one language (`None` = all) and at most `limit`."""
    path = Path(path) if path else DATA_FILE
    if not path.is_file():
        raise UserError(f"held-out file {path} is missing; build it with `python scripts/build_heldout.py`")
    items = [
        HeldoutItem(**{k: row[k] for k in HeldoutItem.__dataclass_fields__})
        for _, row in read_jsonl(path)
        if language is None or row["language"] == language
    ]
    if limit is not None:
        if limit < 1:
            raise UserError(f"limit must be at least 1, got {limit}")
        items = items[:limit]
    if not items:
        raise UserError(f"the held-out set has no fragments for language {language!r}")
    return items
