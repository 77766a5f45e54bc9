#!/usr/bin/env bash
# Every GPU figure in one prepared run, printed and written under artifacts/gpu_check/. Run on a
# machine with CUDA after `bash scripts/setup.sh`:
#
#   bash benchmarks/gpu_check.sh                 # the default model; OUT=artifacts/gpu_check by default
#   bash benchmarks/gpu_check.sh gemma-3-270m    # the second embedded model (OUT=artifacts/gpu_check/gemma-3-270m)
#
# With a model named, steps 1, 2, 4 and 5 run on that model (ARENA_MODEL), its first load (Gemma:
# assembly and conversion, minutes on a CPU) gets 180 s, steps 3 and 6-8 are left out (limits add up to 450 s),
# and a last step runs the two-model grid (`python -m decoders --models smollm2-135m,MODEL`). Each run
# is a separate device check; tests/test_cuda_path.py checks the script's syntax (`bash -n`) and that
# both forms skip cleanly without CUDA.
#
# 1. environment: GPU, compute capability, driver/CUDA/torch, the dtype `auto` picks
# 2. decode tokens/s (greedy `generate`, batch 1, dynamic and static KV cache) against the
#    memory-bandwidth limit (measured copy bandwidth / bytes of weights read per token)
# 3. compiled decode as the app runs it (arena/engines/local/compiled.py): the warm-up's compile time,
#    then Compare's three methods end to end (TS-Temp, TS-Tilted, BS-4; runner, 128 tokens) and a
#    study batch (16 rows, TS-Temp), compiled and eager, same tokens checked; then the first request
#    after a restart: a fresh process with the kept cache, warm-up in the background, a request at
#    once (eager while compiling), and again once compiled, with how long the warm-up took
# 4. batched perplexity against the one-at-a-time loop over the 1000 held-out fragments, fp32 (1e-4 check)
# 5. TS-Tilted/TS-Temp time per token and our runner against bare `generate` with the same settings
#    (static cache included) (bench_core)
# 6. batched study generation against batch size 1 (bench_studygen)
# 7. the app's default decode (the runner, auto dtype) against bare fp32 `generate` (bench_dtype)
# 8. article 003's three tasks per decoder (python -m evaluation.tasks), success with 95% CIs, on the
#    model ARENA_TASKS_MODEL names (default: the embedded one; a larger model where it is installed)
# Each step has its own time limit and the limits add up to 570 s, so the whole run stays under
# 9 minutes even when every step runs out its limit. Without CUDA it says so and exits 0.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] && . .venv/bin/activate
MODEL=${1:-}
if [ -n "$MODEL" ]; then
  export ARENA_MODEL="$MODEL"
  export OUT=${OUT:-artifacts/gpu_check/$MODEL}
  first_load=180  # Gemma's first use assembles and converts its GGUF once
else
  export OUT=${OUT:-artifacts/gpu_check}
  first_load=40
fi
mkdir -p "$OUT"
export ARENA_DEVICE=${ARENA_DEVICE:-cuda}
start=$(date +%s)
status=0

if ! python -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  echo "gpu_check: skipped, no CUDA device here ($(python -c 'import torch; print("torch", torch.__version__)' 2>&1 | tail -1)); the GPU figures stay unmeasured"
  exit 0
fi

step() {  # step NAME SECONDS COMMAND...
  local name=$1 limit=$2; shift 2
  echo "== $name (limit ${limit}s)"
  local t0=$(date +%s)
  timeout "$limit" "$@" 2>&1 | tee "$OUT/$name.log" | grep -v "Loading weights"
  local rc=${PIPESTATUS[0]}
  echo "== $name: exit $rc, $(( $(date +%s) - t0 )) s"
  [ "$rc" -eq 0 ] || status=1
}

# The first load converts the embedded GGUF once and caches it; doing it here keeps that out of the
# steps that measure.
step environment "$first_load" python - <<'EOF'
import torch
from arena.model.llm import load_model, pick_dtype
assert torch.cuda.is_available(), "no CUDA device: this script measures GPU figures only"
p = torch.cuda.get_device_properties(0)
print(f"gpu {p.name} sm_{p.major}{p.minor} {p.total_memory / 2**30:.0f} GiB; torch {torch.__version__} CUDA {torch.version.cuda}")
print(f"bf16 native: {torch.cuda.is_bf16_supported(including_emulation=False)}; auto dtype: {pick_dtype(torch.device('cuda'))}")
print(f"model: {load_model().describe()}")
EOF

# decode.py CACHE...: bare eager greedy generate, median of 5 after one first call; "static" gets exactly
# what arena.engines.local.device.device_generate_kwargs gives on CUDA (never a compile in a request).
cat > "$OUT/decode.py" <<'EOF'
import json, os, sys, time, torch
from arena.model.llm import load_model
from arena.engines.local.device import device_generate_kwargs
lm = load_model()
dev = lm.device
# copy bandwidth: read + write of a 1 GiB buffer, best of 5
x = torch.empty(2**28, dtype=torch.float32, device=dev); y = torch.empty_like(x)
best = 0.0
for _ in range(5):
    torch.cuda.synchronize(); t = time.perf_counter(); y.copy_(x); torch.cuda.synchronize()
    best = max(best, 2 * x.numel() * 4 / (time.perf_counter() - t))
del x, y
weights = sum(p.numel() * p.element_size() for p in lm.model.parameters())
ids = lm.tokenizer("Explain the basic principles of quantum computing.", return_tensors="pt")["input_ids"].to(dev)
n = 128
limit = best / weights
fig = {"dtype": lm.dtype_name, "weights_mb": round(weights / 2**20, 1), "copy_gb_s": round(best / 1e9, 1),
       "bandwidth_limit_tok_s": round(limit, 1)}
for cache in sys.argv[1:]:
    extra = device_generate_kwargs(dev) if cache == "static" else {}
    def run():
        with torch.inference_mode():
            torch.cuda.synchronize(); t = time.perf_counter()
            out = lm.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, min_new_tokens=n,
                                    do_sample=False, pad_token_id=lm.tokenizer.pad_token_id, **extra)
            torch.cuda.synchronize()
            return (out.shape[1] - ids.shape[1]) / (time.perf_counter() - t)
    t = time.perf_counter(); run(); fig[f"{cache}_first_call_s"] = round(time.perf_counter() - t, 1)  # compiles here
    rates = sorted(run() for _ in range(5))
    fig[f"{cache}_decode_tok_s"] = round(rates[2], 1)
    fig[f"{cache}_fraction_of_limit"] = round(rates[2] / limit, 3)
print(json.dumps(fig))
json.dump(fig, open(os.path.join(os.environ.get("OUT", "artifacts/gpu_check"), "decode.json"), "w"))
EOF

# compare.py warm|restart: the app's compiled decode, its compiled code kept under $OUT/compiled (emptied
# first, so the first run compiles and the second, a fresh process, finds it); figures to compare_*.json.
cat > "$OUT/compare.py" <<'EOF'
import json, os, pathlib, sys, time, torch
from arena.engines.local import compiled
from arena.engines.local.batching import generate_batch
from arena.engines.local.generate import run_one
from arena.engines.local.inputs import encode
from arena.model.llm import load_model
from arena.runs.requests import RunRequest
phase, out = sys.argv[1], os.environ.get("OUT", "artifacts/gpu_check")
lm = load_model()
folder = os.path.join(out, "compiled")
if phase == "warm":
    import shutil; shutil.rmtree(folder, ignore_errors=True)
N, METHODS = 128, ["TS-Temp", "TS-Tilted", "BS-4"]
def compare():
    fig = {}
    for m in METHODS:
        req = RunRequest("Explain the basic principles of quantum computing.", [m], {}, N, 7)
        try:  # TS-Tilted needs wordfreq for its prior: one method missing must not lose the others
            r = run_one(lm, m, encode(lm, req), None, N, 7)
        except Exception as exc:
            fig[m] = {"error": f"{type(exc).__name__}: {exc}"[:200], "ids": None}
            continue
        fig[m] = {"tok_s": r.tokens_per_s, "latency_ms": r.latency_ms, "ids": r.token_ids}
    return fig
def batch():
    req = RunRequest("Write a haiku about the sea.", ["TS-Temp"], {}, 32, 1)
    rows = [encode(lm, req)[0].tolist()] * 16
    torch.cuda.synchronize(); t = time.perf_counter()
    res = generate_batch(lm, "TS-Temp", {}, rows, 32, 1)
    torch.cuda.synchronize()
    return {"outputs_s": round(16 / (time.perf_counter() - t), 2), "ids": [r.token_ids for r in res]}
fig = {"phase": phase, "gpu": torch.cuda.get_device_name(0)}
t = time.perf_counter()
if phase == "warm":  # compiled in the foreground, as the background thread does it
    state = compiled.attach(lm, compiled.compile_shapes(16), folder=pathlib.Path(folder))
    compiled.warm_up(lm, state)
    fig["warm_up_s"], fig["status"] = round(time.perf_counter() - t, 1), state.status
    fig["compiled"], fig["compiled_batch16"] = compare(), batch()
    kept, lm.compiled = lm.compiled, None
    fig["eager"], fig["eager_batch16"] = compare(), batch()
    lm.compiled = kept
    fig["same_tokens"] = all(fig["compiled"][m]["ids"] == fig["eager"][m]["ids"] for m in METHODS)
    fig["same_batch_tokens"] = fig["compiled_batch16"]["ids"] == fig["eager_batch16"]["ids"]
else:  # the first request after a restart, while the warm-up runs in the background
    state = compiled.start(lm, compiled.compile_shapes(16), folder=pathlib.Path(folder))
    assert state is not None and state.thread is not None, "ARENA_COMPILE is off"
    fig["first_request_status"] = state.status
    fig["first_request"] = compare()
    state.thread.join(300)
    fig["warm_up_s"], fig["status"] = round(time.perf_counter() - t, 1), state.status
    fig["after_warm_up"] = compare()
for part in ("compiled", "eager", "first_request", "after_warm_up"):
    for m in fig.get(part, {}):
        fig[part][m].pop("ids")
for part in ("compiled_batch16", "eager_batch16"):
    fig.get(part, {}).pop("ids", None)
print(json.dumps(fig))
json.dump(fig, open(os.path.join(out, f"compare_{phase}.json"), "w"))
EOF

step decode_vs_bandwidth 80 python "$OUT/decode.py" dynamic static
[ -z "$MODEL" ] && step compare_compiled 100 python "$OUT/compare.py" warm
[ -z "$MODEL" ] && step compare_after_restart 60 python "$OUT/compare.py" restart

step perplexity_batched_vs_loop 50 python benchmarks/bench_ppl.py --device cuda --dtype float32 ${MODEL:+--model "$MODEL"}
step core_tilt_and_runner 80 python benchmarks/bench_core.py --trials 5 --max-new-tokens 48 --json "$OUT/core.json" \
  ${MODEL:+--model "$MODEL"}
if [ -n "$MODEL" ]; then  # the second model's run: the grid on both models instead of steps 6-8
  step grid_two_models 60 sh -c 'python -m decoders "The harbour at dawn was" --models "smollm2-135m,$ARENA_MODEL" \
    --methods BS-4,TS-Temp --max-new-tokens 32 --raw --json > "$OUT/grid.json"'
  echo "== all steps: $(( $(date +%s) - start )) s; logs in $OUT"
  exit $status
fi
step study_generation_batched 60 python benchmarks/bench_studygen.py --items 16 --max-new-tokens 32 --rounds 1
step default_decode_vs_fp32 50 python benchmarks/bench_dtype.py --trials 5 --max-new-tokens 64 --json "$OUT/dtype.json"
# the per-cell table goes to the log (stderr), the full result to tasks.json
step tasks_per_decoder 50 sh -c 'python -m evaluation.tasks --methods preset,Greedy,TS-Temp --samples 4 --no-progress \
  ${ARENA_TASKS_MODEL:+--model "$ARENA_TASKS_MODEL"} --json > "$OUT/tasks.json"'
echo "== all steps: $(( $(date +%s) - start )) s; logs in $OUT"
exit $status
