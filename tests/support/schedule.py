"""The order the test files run in: longest first, by their times in the last measured run
(tests/durations.json, written by scripts/file_durations.py).

Under `--dist loadfile --no-loadscope-reorder` (scripts/test.sh) xdist hands whole files to the workers in
collection order; a long file handed out last keeps one worker busy after the other has run out of
files. A file the table does not know (a new one) counts as the median file, so it runs among the
others rather than first or last."""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import pytest

TABLE = Path(__file__).resolve().parents[1] / "durations.json"
Item = TypeVar("Item", bound=pytest.Item)


def load_table(path: Path = TABLE) -> dict[str, float]:
    """Test file (relative to the repository) -> its seconds; empty if the table is missing."""
    if not path.is_file():
        return {}
    return {str(name): float(seconds) for name, seconds in json.loads(path.read_text(encoding="utf-8")).items()}


def longest_first(items: Sequence[Item], table: dict[str, float], root: Path) -> list[Item]:
    """`items` with their files longest first; a file's tests keep their order and stay together."""
    by_file: dict[str, list[Item]] = {}
    for item in items:
        name = item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else str(item.path)
        by_file.setdefault(name, []).append(item)
    median = statistics.median(table.values()) if table else 0.0
    # sorted() is stable: files of equal time (and the unknown ones among themselves) keep their order
    ordered = sorted(by_file, key=lambda name: -table.get(name, median))
    return [item for name in ordered for item in by_file[name]]
