"""What recording "why each token was chosen" costs: the same generation with the recorder on and off,
side by side in one run (trials interleaved, same seed, same tokens; median of per-trial ratios).
Off is the default, and then no recorder runs at all; this measures what ticking the box adds.

    python benchmarks/bench_token_view.py --trials 5 --max-new-tokens 32
"""

from __future__ import annotations

import argparse
import os
import statistics

from arena.engines.local.generate import recorded_generate, warm_up
from arena.engines.local.inputs import encode, plan_for
from arena.model.llm import get_default_model
from arena.runs.requests import RunRequest

PROMPT = "Write two sentences about the river that runs through the old city."


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--max-new-tokens", type=int, default=32)
    args = p.parse_args()
    lm = get_default_model()
    n = args.max_new_tokens
    print(f"model {lm.describe()} · {n} new tokens · {args.trials} trials · load {os.getloadavg()[0]:.1f}")
    for method in ("TS-Tilted", "BS-4"):
        input_ids = encode(lm, RunRequest(PROMPT, [method], max_new_tokens=n))
        warm_up(lm, method, input_ids, PROMPT)
        ratios, off_ms, on_ms = [], [], []
        for t in range(args.trials):
            times = {}
            for record in (False, True) if t % 2 == 0 else (True, False):
                plan = plan_for(lm, method, None, input_ids.shape[1], n, PROMPT)
                plan.generate_kwargs["min_new_tokens"] = n
                (out, _, latency, _), rec = recorded_generate(lm, plan, input_ids, t, record=record)
                times[record] = latency
            off_ms.append(times[False])
            on_ms.append(times[True])
            ratios.append(times[True] / times[False])
        print(
            f"{method:10s} off {statistics.median(off_ms):8.1f} ms · on {statistics.median(on_ms):8.1f} ms · "
            f"on/off median ratio {statistics.median(ratios):.3f} (range {min(ratios):.3f}-{max(ratios):.3f})"
        )


if __name__ == "__main__":
    main()
