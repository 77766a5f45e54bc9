"""Multi-arm sampling vs three independent runs, measured side by side in one process.

    python benchmarks/bench_multiarm.py [--max-new-tokens 24] [--repeats 3] [--threads N] [--prompt TEXT]

Compared, on the same prompt and the same number of new tokens per arm:
  * independent: three `model.generate` calls, one per arm configuration (Explorer T=0.95
    top-p 0.98, Stabilizer T=0.4 top-k 10, Verifier T=0.1), each computing the prompt itself;
  * multi-arm, no backtracking: the shared-prefix batched loop alone (one prefill, three rows);
  * multi-arm: the full decoder with verifier, backtracking and pruning (default settings).
To make the work equal, end-of-sequence is ignored: every arm writes exactly N tokens
(`min_new_tokens=N` for generate; no EOS stop for multi-arm). Backtracking makes multi-arm take
extra steps; the forward-pass counts are printed with the times. The order of the three
variants rotates between repeats; the medians are reported, with the ratio to "independent".
Both wall time and this process's CPU time are printed: on a shared machine the CPU time (with
`--threads 1`, so no thread spins while waiting) is the steadier measure of the work done.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from arena.inputs.prompts import encode_prompt
from arena.model.llm import get_default_model
from decoders.multiarm import DEFAULT_ARMS, MultiArmGenerator, MultiArmSettings


def count_forwards(model):
    """Wrap model.forward to count calls; returns (counter list, restore function)."""
    original = model.forward
    counter = [0]

    def counted(*args, **kwargs):
        counter[0] += 1
        return original(*args, **kwargs)

    model.forward = counted
    return counter, lambda: delattr(model, "forward")


def independent(lm, ids, n) -> int:
    for arm in DEFAULT_ARMS:
        lm.model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            do_sample=True,
            temperature=arm.temperature,
            top_k=arm.top_k,
            top_p=arm.top_p,
            max_new_tokens=n,
            min_new_tokens=n,
            pad_token_id=lm.tokenizer.pad_token_id,
        )
    return 0


def multi_arm(settings):
    def run(lm, ids, n) -> int:
        gen = MultiArmGenerator(lm.model, settings, eos_token_id=[])
        gen(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, pad_token_id=lm.tokenizer.pad_token_id)
        return len(gen.last_trace.backtracks())

    return run


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--max-new-tokens", type=int, default=24)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=0, help="torch threads (0 = torch's default)")
    p.add_argument("--prompt", default="Explain the basic principles of quantum computing.")
    args = p.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    lm = get_default_model()
    ids = encode_prompt(lm.tokenizer, args.prompt, False, lm.device, lm.context_length, args.max_new_tokens)
    variants = {
        "independent (3 x generate)": independent,
        "multi-arm, no backtracking": multi_arm(MultiArmSettings(max_backtracks=0, realloc_every=0)),
        "multi-arm (full)": multi_arm(MultiArmSettings()),
    }
    names = list(variants)
    times = {k: [] for k in names}
    cpu = {k: [] for k in names}
    forwards = {k: [] for k in names}
    backtracks = {k: [] for k in names}
    sync = (lambda: torch.cuda.synchronize()) if lm.device.type == "cuda" else (lambda: None)
    with torch.inference_mode():
        for name in names:  # warm-up, untimed
            variants[name](lm, ids, 4)
        for r in range(args.repeats):
            for name in names[r % 3 :] + names[: r % 3]:
                torch.manual_seed(r)
                counter, restore = count_forwards(lm.model)
                try:
                    sync()
                    start, start_cpu = time.perf_counter(), time.process_time()
                    backtracks[name].append(variants[name](lm, ids, args.max_new_tokens))
                    sync()
                    times[name].append(time.perf_counter() - start)
                    cpu[name].append(time.process_time() - start_cpu)
                finally:
                    restore()
                forwards[name].append(counter[0])
    print(
        f"model: {lm.describe()} · torch threads {torch.get_num_threads()} · prompt {ids.shape[1]} tokens · "
        f"{args.max_new_tokens} new tokens per arm · {args.repeats} repeats (medians)"
    )
    base, base_cpu = statistics.median(times[names[0]]), statistics.median(cpu[names[0]])
    print(
        f"{'variant':30} {'wall (s)':>9} {'ratio':>7} {'CPU (s)':>9} {'ratio':>7} {'forward passes':>15} {'backtracks':>11}"
    )
    for name in names:
        t, c = statistics.median(times[name]), statistics.median(cpu[name])
        print(
            f"{name:30} {t:9.2f} {t / base:6.2f}x {c:9.2f} {c / base_cpu:6.2f}x {statistics.median(forwards[name]):15.0f} {statistics.median(backtracks[name]):11.0f}"
        )
    for label, table in (("wall", times), ("CPU", cpu)):
        print(f"all {label} times (s): " + "; ".join(f"{n}: {', '.join(f'{x:.2f}' for x in table[n])}" for n in names))


if __name__ == "__main__":
    main()
