"""The slowest tests of a run, across the JUnit XML files its tiers wrote (scripts/test.sh).

Each tier prints its own `--durations`; this is the list for the whole run, with each tier's test
count and summed test time, so a run's closing lines say where its time went.

Usage: python scripts/slowest_tests.py [--top N] artifacts/junit-*.xml
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def cases(path: Path) -> list[tuple[float, str, str]]:
    """(seconds, test id, outcome) of every test case in one JUnit XML file."""
    found = []
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = child.tag
        name = f"{case.get('classname', '')}::{case.get('name', '')}".lstrip(":")
        found.append((float(case.get("time") or 0.0), name, outcome))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    everything: list[tuple[float, str, str, str]] = []
    for path in args.files:
        if not path.is_file():
            continue
        tier = path.stem.removeprefix("junit-")
        found = cases(path)
        print(f"tier {tier}: {len(found)} tests, {sum(t for t, _, _ in found):.0f} s of test time")
        everything += [(seconds, tier, name, outcome) for seconds, name, outcome in found]
    if not everything:
        print("no JUnit results to read")
        return 0
    print(f"slowest {min(args.top, len(everything))} of {len(everything)} tests (setup + call + teardown):")
    for seconds, tier, name, outcome in sorted(everything, reverse=True)[: args.top]:
        flag = "" if outcome == "passed" else f"  [{outcome}]"
        print(f"{seconds:8.1f} s  {tier:5s} {name}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
