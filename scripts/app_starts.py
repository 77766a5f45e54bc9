"""The app processes the live tests started in a run (artifacts/app-starts.jsonl, one line per app,
written by tests/support/live_app.py when it stops one): how many, the seconds each took to serve,
the CPU each used in its life, and which settings were started more than once. An app start is the
live tiers' biggest fixed cost (about 10 CPU seconds idle on two cores); scripts/test.sh prints this
after the tiers.

Usage: python scripts/app_starts.py [--top N] [artifacts/app-starts.jsonl]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path


def summary(lines: list[dict], top: int = 10) -> str:
    if not lines:
        return "app starts: none recorded"
    serve = sum(r["serve_s"] for r in lines)
    cpu = sum(r["cpu_s"] for r in lines)
    out = [f"app starts: {len(lines)}, {serve:.0f} s to serve in all, {cpu:.0f} CPU s in their lives"]
    for r in sorted(lines, key=lambda r: -r["cpu_s"])[:top]:
        out.append(f"{r['cpu_s']:7.1f} CPU s {r['serve_s']:6.1f} s to serve  {r['worker']:>4}  {r['by']}")
    same = Counter(json.dumps(r["settings"], sort_keys=True) for r in lines)
    again = {k: n for k, n in same.items() if n > 1}
    for settings, n in sorted(again.items(), key=lambda kv: -kv[1]):
        out.append(f"started {n} times with the same settings: {settings}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", default="artifacts/app-starts.jsonl")
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args(argv)
    path = Path(args.path)
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    print(summary(lines, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
