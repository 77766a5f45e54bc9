"""CPU per blind submit, in process: the rating tab's Submit handler (save + next item) called directly.

bench_load.py measures the whole app under load, where the clients and the machine's other work share
the cores; this isolates the server's own work per submit and counts its database transactions and
statements. Raters are enrolled with codes and submit every item of a seeded study in turn, as in
bench_load's human mode (3 responses per item, SQLite, as the app runs by default).

    python benchmarks/bench_submit_cpu.py                       # this checkout
    python benchmarks/bench_submit_cpu.py --tree /tmp/before    # also another copy of the tree, same run

With --tree, each tree runs in its own process (its own `arena` and `ui` imports), alternately,
`--rounds` times, and the figures are printed side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(raters: int, items: int) -> dict[str, float]:
    """Seed, start every rater, then time every submit; returns per-submit means."""
    # Imported here: with --tree the parent process must not import this tree's modules.
    import gradio as gr
    from sqlalchemy import event

    from arena.access import invites
    from arena.store import Store
    from ui import AppContext, rate

    with tempfile.TemporaryDirectory(prefix="bench-submit-") as tmp:
        store = Store(f"sqlite:///{Path(tmp) / 'arena.db'}")
        methods = ("BS-4", "TS-Temp", "TS-Tilted")
        sid = store.create_study("cpu study", model="seeded", methods=methods, settings={m: {} for m in methods})
        for item_id in store.add_items(sid, [{"prompt": f"prompt {k}", "scenario": "s"} for k in range(items)]):
            for m in methods:
                text = f"response {m} to item {item_id} " * 20
                store.add_output(item_id, m, 0, text=text, settings={}, seed=7, model="seeded", new_tokens=4)
        codes = [c.code for c in invites.invite(store, sid, [f"rater {r}" for r in range(raters)])]
        with gr.Blocks() as demo:
            rate.build(AppContext(model=lambda: None, extras={"store": store}))
        fns = {f.api_name: f for f in demo.fns.values() if f.api_name}
        sessions = [fns["rate_start"].fn(code, {}, None)[1] for code in codes]
        # the rows per response slot, read from the tree measured (3 before issue 46's one form, 8 after):
        # inputs are the code, the session, the rows, a comment per slot and the item's position
        width = (len(fns["rate_submit"].inputs) - 3 - rate.SLOTS) // rate.SLOTS
        counts = {"begin": 0, "statements": 0}
        event.listen(store.engine, "begin", lambda conn: counts.__setitem__("begin", counts["begin"] + 1))
        event.listen(
            store.engine,
            "before_cursor_execute",
            lambda *a: counts.__setitem__("statements", counts["statements"] + 1),
        )
        cpu = 0.0
        n = 0
        for item in range(items):
            for r, code in enumerate(codes):
                values = [None] * (width * rate.SLOTS + rate.SLOTS)
                for s in range(3):  # three responses, the default rubric's three questions
                    values[width * s : width * s + 3] = [(r + item + 3 * s + d) % 5 + 1 for d in range(3)]
                t0 = time.process_time()
                out = fns["rate_submit"].fn(None, code, sessions[r], *values)
                cpu += time.process_time() - t0
                sessions[r] = out[0]
                n += 1
        stored = store.count_ratings()
        store.dispose()
    if stored != n * 3:
        raise SystemExit(f"stored {stored} ratings, expected {n * 3}")
    return {
        "submits": n,
        "cpu_ms": 1000 * cpu / n,
        "transactions": counts["begin"] / n,
        "statements": counts["statements"] / n,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--raters", type=int, default=50)
    p.add_argument("--items", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--tree", action="append", default=[], help="another copy of the repository to measure too")
    p.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one measurement, as JSON
    args = p.parse_args()
    if args.json:
        print(json.dumps(measure(args.raters, args.items)))
        return 0
    trees = [ROOT, *[Path(t).resolve() for t in args.tree]]
    results: dict[Path, list[dict[str, float]]] = {t: [] for t in trees}
    for _ in range(args.rounds):
        for tree in trees:
            env = dict(os.environ, PYTHONPATH=str(tree))
            cmd = [sys.executable, str(Path(__file__).resolve()), "--json"]
            cmd += ["--raters", str(args.raters), "--items", str(args.items)]
            done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=True)
            results[tree].append(json.loads(done.stdout.strip().splitlines()[-1]))
    for tree, runs in results.items():
        cpu = [r["cpu_ms"] for r in runs]
        print(
            f"{tree}: {runs[0]['submits']} submits x {len(runs)} runs: CPU per submit median {statistics.median(cpu):.2f} ms "
            f"(runs {', '.join(f'{c:.2f}' for c in cpu)}), {runs[0]['transactions']:.2f} transactions and "
            f"{runs[0]['statements']:.2f} statements per submit"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
