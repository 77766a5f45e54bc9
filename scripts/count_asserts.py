"""Count the assertions the test suite makes, read from its source (no test runs).

A change that speeds the tests up must not test less (issue 45): run this before and after and compare.
Counted, per file under tests/:

- `assert` statements;
- expected exceptions and warnings: `pytest.raises`, `pytest.warns`, `pytest.deprecated_call`,
  as a `with` block or a call;
- assertion helpers: calls whose name starts with `assert` (numpy's and pandas' `assert_*`, torch's
  `assert_close`, unittest's `assertEqual`...) and Playwright's `expect(...)`, each of which fails the test
  when its condition does not hold.

Static counts: a parametrised test's assert counts once, however many cases run it.

Usage: python scripts/count_asserts.py [--per-file] [--json OUT] [PATH ...]   (default PATH: tests)
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPECTING = frozenset({"raises", "warns", "deprecated_call"})
KINDS = ("assert", "expected_raise", "helper")


def call_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def is_pytest_expecting(node: ast.Call) -> bool:
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in EXPECTING
        and isinstance(func.value, ast.Name)
        and func.value.id == "pytest"
    )


def count_source(source: str) -> Counter[str]:
    """Assertions in one file's source, by kind."""
    counts: Counter[str] = Counter({kind: 0 for kind in KINDS})
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert):
            counts["assert"] += 1
        elif isinstance(node, ast.Call):
            if is_pytest_expecting(node):
                counts["expected_raise"] += 1
            else:
                name = call_name(node)
                if name.startswith("assert") or name == "expect":
                    counts["helper"] += 1
    return counts


def python_files(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        found.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return [p for p in found if ".venv" not in p.parts]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[ROOT / "tests"])
    parser.add_argument("--per-file", action="store_true", help="one line per file as well")
    parser.add_argument("--json", type=Path, help="write {file: {kind: n}} and the totals here")
    args = parser.parse_args(argv)
    per_file: dict[str, Counter[str]] = {}
    for path in python_files(args.paths):
        name = str(path.resolve().relative_to(ROOT)) if path.resolve().is_relative_to(ROOT) else str(path)
        per_file[name] = count_source(path.read_text(encoding="utf-8"))
    total: Counter[str] = Counter({kind: 0 for kind in KINDS})
    for counts in per_file.values():
        total.update(counts)
    if args.per_file:
        for name, counts in per_file.items():
            print(f"{sum(counts.values()):6d}  {name}")
    print(
        f"{sum(total.values())} assertions in {len(per_file)} files: "
        + ", ".join(f"{total[kind]} {kind}" for kind in KINDS)
    )
    if args.json:
        report = {"files": {k: dict(v) for k, v in per_file.items()}, "total": dict(total)}
        args.json.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
