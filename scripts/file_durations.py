"""Each test file's time in a run, from the JUnit XML files its tiers wrote (scripts/test.sh), kept in
tests/durations.json so that the next run starts its longest files first (tests/support/schedule.py).

Under `--dist loadfile` a worker takes a whole file at a time, in the order the files were collected: a
long file taken last keeps one worker busy while the other has nothing left. Started first, it runs
beside the short ones. `--predict` prints what xdist's scheduler would make of a tier's files on N
workers in three orders (collection, xdist's default by test count, longest first), from the tests'
measured times: the scheduler's own rules replayed, not a run.

Usage: python scripts/file_durations.py [--table tests/durations.json] [--out FILE] [--predict N]
           [--durations-log LOG ...] artifacts/junit-*.xml
The table is read from --table and written to --out (default: the same file). A file the XML files do
not name keeps its entry (a tier not run this time); a file that no longer exists loses it. Where a
run's JUnit files are gone, `--durations-log` reads the `--durations` lines its tiers printed (a CI log):
only the slowest tests are listed there, so a file's entry is a lower bound; a file the XML files name
takes their time instead.
"""

from __future__ import annotations

import argparse
import heapq
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "tests" / "durations.json"
DURATION_LINE = re.compile(r"^[>\s]*(\d+(?:\.\d+)?)s\s+(?:setup|call|teardown)\s+([^\s:]+\.py)::")
PREFETCH = 2  # xdist's loadscope/loadfile: a worker gets its next file once 2 or fewer of its tests are left


def file_of(classname: str, root: Path = ROOT) -> str | None:
    """The test file a JUnit classname names (`tests.e2e.test_x`, or `tests.test_y.TestClass`)."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        path = Path(*parts[:end]).with_suffix(".py")
        if (root / path).is_file():
            return path.as_posix()
    return None


def times_by_file(paths: Sequence[Path], root: Path = ROOT) -> dict[str, list[float]]:
    """Test file -> the times (setup + call + teardown) of its tests, across the JUnit files given."""
    found: dict[str, list[float]] = {}
    for path in paths:
        if not path.is_file():
            continue
        for case in ET.parse(path).getroot().iter("testcase"):
            name = file_of(case.get("classname", ""), root)
            if name is not None:
                found.setdefault(name, []).append(float(case.get("time") or 0.0))
    return found


def times_from_log(text: str, root: Path = ROOT) -> dict[str, list[float]]:
    """Test file -> the times of the phases (setup, call, teardown) pytest's `--durations` printed."""
    found: dict[str, list[float]] = {}
    for line in text.splitlines():
        match = DURATION_LINE.match(line)
        if match and (root / match[2]).is_file():
            found.setdefault(match[2], []).append(float(match[1]))
    return found


def updated_table(old: dict[str, float], times: dict[str, list[float]], root: Path = ROOT) -> dict[str, float]:
    """`old` with the files measured now replaced, files gone from the tree dropped, longest first."""
    table = {name: seconds for name, seconds in old.items() if (root / name).is_file()}
    table.update({name: round(sum(found), 1) for name, found in times.items()})
    return dict(sorted(table.items(), key=lambda kv: (-kv[1], kv[0])))


def predict_wall(files: Sequence[Sequence[float]], workers: int) -> float:
    """The wall time of files (each its tests' times, in the order they are handed out) on `workers`
    under xdist's file scheduling: each worker starts with one file, and takes the next file in line
    whenever it has `PREFETCH` or fewer tests left (LoadScopeScheduling._reschedule)."""
    queue = [list(f) for f in files if len(f)]
    pending: list[list[float]] = [[] for _ in range(max(1, workers))]
    for tests in pending:  # the first file each, then the refill check once
        if queue:
            tests += queue.pop(0)
    for tests in pending:
        if queue and len(tests) <= PREFETCH:
            tests += queue.pop(0)
    clock = [(tests.pop(0), w) for w, tests in enumerate(pending) if tests]
    heapq.heapify(clock)
    wall = 0.0
    while clock:
        now, w = heapq.heappop(clock)
        wall = max(wall, now)
        if queue and len(pending[w]) <= PREFETCH:
            pending[w] += queue.pop(0)
        if pending[w]:
            heapq.heappush(clock, (now + pending[w].pop(0), w))
    return wall


def orders(times: dict[str, list[float]]) -> dict[str, list[str]]:
    """The files in collection order (by path), in xdist's default (most tests first) and longest first."""
    collected = sorted(times)
    return {
        "collection order": collected,
        "most tests first (xdist's default)": sorted(collected, key=lambda f: -len(times[f])),
        "longest first": sorted(collected, key=lambda f: -sum(times[f])),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--table", type=Path, default=TABLE, help="the table to start from (default: %(default)s)")
    parser.add_argument("--out", type=Path, help="where to write the updated table (default: --table)")
    parser.add_argument("--durations-log", type=Path, action="append", default=[], metavar="LOG")
    parser.add_argument("--predict", type=int, metavar="N", help="print each order's wall time on N workers")
    args = parser.parse_args(argv)
    times = times_by_file(args.files)
    for log in args.durations_log:
        for name, found in times_from_log(log.read_text(encoding="utf-8", errors="replace")).items():
            times.setdefault(name, found)
    if not times:
        print("no JUnit results to read")
        return 0
    if args.predict:
        total = sum(map(sum, times.values()))
        print(f"{len(times)} files, {total:.0f} s of test time; on {args.predict} workers, by xdist's rules:")
        for name, files in orders(times).items():
            print(f"{predict_wall([times[f] for f in files], args.predict):8.0f} s  {name}")
        return 0
    old = json.loads(args.table.read_text(encoding="utf-8")) if args.table.is_file() else {}
    table = updated_table(old, times)
    out = args.out or args.table
    out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{out}: {len(table)} files ({len(times)} measured now)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
