#!/usr/bin/env bash
# Install what the tests need (Python packages, and as root the Debian packages for the database
# and browser tests), start the services they use, then run the whole suite in its tiers
# (docs/testing.md): the in-process tests on two workers, the live-app and browser tests on two workers
# and then those that measure latency alone, and
# the vLLM engine tests with the vLLM server started for them only. Every tier prints its slowest
# tests, and the run ends with the slowest across tiers and each phase's time.
# Extra arguments go to pytest, in every tier, e.g.: bash scripts/test.sh -k store
# ARENA_TEST_WORKERS=N: workers for the in-process tier (default 2; 0 runs it in one process).
# ARENA_TEST_LIVE_WORKERS=N: workers for the live tier's tests not marked `alone` (default: as many).
set -euo pipefail
cd "$(dirname "$0")/.."
# Python's bytecode is written once and read after: with PYTHONDONTWRITEBYTECODE set (as on this
# machine), every test worker, app and CLI process compiled the libraries it imports again, and pytest
# rewrote every test file's asserts again (a collection took 19 s instead of 9.4 s).
unset PYTHONDONTWRITEBYTECODE
mkdir -p artifacts
rm -f artifacts/junit-*.xml artifacts/app-starts.jsonl
run_started=$(date +%s)
phase_started=$run_started
phases=()
phase_done() {  # the time since the previous phase ended, named
  local now
  now=$(date +%s)
  phases+=("$(printf '%5d s  %s' $((now - phase_started)) "$1")")
  phase_started=$now
}
# vLLM's own venv downloads and unpacks while the project's set-up does the same: both mostly wait on
# the network and the disk. It is kept in the cache folder, beside llama.cpp's wheel, so a fresh clone
# does not install it again. Its server starts beside the in-process tests and is stopped after its
# own (scripts/services/vllm.sh).
declare -a ARENA_SERVICE_STOPS=()
export ARENA_VLLM_DEFER=1
cache="${ARENA_CACHE_DIR:-$HOME/.cache/decoding-arena}"
export ARENA_VLLM_VENV="${ARENA_VLLM_VENV:-${cache/#\~/$HOME}/venv-vllm}"
# mypy's cache beside it: a cold check is about 55 CPU s taken from the in-process tier, a warm one a
# few (mypy checks each file's hash against its cache, so a changed file is always checked again).
export MYPY_CACHE_DIR="${MYPY_CACHE_DIR:-${cache/#\~/$HOME}/mypy}"
# shellcheck disable=SC1091
. scripts/services/vllm.sh
bash scripts/setup.sh --dev --no-llamacpp-build
. .venv/bin/activate
phase_done "set-up (.venv)"
# One collection in the background while the services install (mostly waits on downloads): it writes
# the bytecode of what the tests import and pytest's rewritten test files, which each worker would
# otherwise write for itself, on the cores the tiers need.
python -m pytest --collect-only -q -p no:cacheprovider >artifacts/collect.log 2>&1 &
collect_pid=$!
# llama.cpp's library compiles (8-10 minutes once, cached after) while the services install and start:
# those mostly wait on downloads. Its tests fail, not skip, if it could not be built.
bash scripts/llamacpp.sh --build >artifacts/llamacpp-build.log 2>&1 &
llamacpp_build=$!
# Each file in scripts/services/ installs and starts one service and exports what tests need (vllm.sh,
# sourced above, only installs until its tests come).
for service in scripts/services/*.sh; do
  [ -e "$service" ] && [ "$service" != scripts/services/vllm.sh ] || continue
  # shellcheck disable=SC1090
  . "$service"
done
set +e
wait "$collect_pid"
wait "$llamacpp_build" || { echo "llama-cpp-python could not be built (artifacts/llamacpp-build.log):" >&2; tail -20 artifacts/llamacpp-build.log >&2; }
# Static checks. mypy (once the venv is complete: llama.cpp's wheel goes into it just above) takes
# minutes without its cache on one core, so it runs in the background beside the doctests and the
# in-process tier; its verdict is printed at the end. A finding in any of the three fails the run
# after the tests (pyproject.toml configures them).
python -m mypy >artifacts/mypy.log 2>&1 &
mypy_pid=$!
lint=0
python -m ruff check . || lint=1
python -m ruff format --check . || lint=1
# The embedded model's converted folder, made once before the workers start (each would convert it).
python -c "from arena.model.llm import materialize; materialize()" >/dev/null
phase_done "services, llama.cpp, ruff, the model's conversion"
# The docstring examples in decoders/ run as tests, in a run of their own: --doctest-modules imports
# every .py file under the paths it is given, and tests/support/zerogpu_emulation.py must never be imported
# in-process (it patches torch globally).
python -m pytest -q --doctest-modules decoders
doctests=$?
phase_done "decoder doctests"

status=0
tier() {  # tier NAME PYTEST-ARGS...: one pytest run; "no test selected" (exit 5) is not a failure
  local name=$1 rc
  shift
  echo "==== tier: $name" >&2
  python -m pytest --durations=25 --junitxml="artifacts/junit-$name.xml" "$@"
  rc=$?
  [ "$rc" -eq 5 ] && rc=0
  [ "$rc" -ne 0 ] && [ "$status" -eq 0 ] && status=$rc
  phase_done "tier $name"
}
workers=${ARENA_TEST_WORKERS:-2}
parallel=()
# Files are handed out longest first (tests/durations.json, tests/support/schedule.py): a long file
# handed out last keeps one worker busy alone at a tier's end. xdist's loadfile would sort them by their
# number of tests instead, unless told not to.
[ "$workers" -gt 0 ] && parallel=(-n "$workers" --dist loadfile --no-loadscope-reorder)
# The vLLM server's start (a few minutes of one busy core) shares the cores with the in-process tier;
# its tests follow that tier, and the server stops before the live tier starts.
arena_vllm_launch
# In-process tests: two workers, one file per worker at a time (a module's fixtures are set up once).
# Each worker's torch, OpenBLAS and llama.cpp get the cores divided by the workers (1 on two cores):
# two teams of two OpenMP threads on two busy cores spin at their barriers, and the embedded model
# then took 3x the CPU and 2.7x the time (docs/testing.md). A value set by the caller is kept.
omp_before=${OMP_NUM_THREADS-unset}
[ "$workers" -gt 1 ] && [ "$omp_before" = unset ] && export OMP_NUM_THREADS=$(( $(nproc) / workers > 1 ? $(nproc) / workers : 1 ))
tier unit "${parallel[@]}" -m "not live and not vllm" "$@"
[ "$omp_before" = unset ] && unset OMP_NUM_THREADS
arena_vllm_start
tier vllm -m vllm "$@"
[ -n "${ARENA_VLLM_STOP:-}" ] && eval "$ARENA_VLLM_STOP"
# Live apps and browsers on two workers too, one file per worker at a time: each worker starts its own
# shared apps (tests/support/live_app.py), and most of a live test's time is a browser or a client
# waiting on its app. Each worker's apps get half the cores' OpenMP threads, as above.
live_workers=${ARENA_TEST_LIVE_WORKERS:-$workers}
live_parallel=()
[ "$live_workers" -gt 0 ] && live_parallel=(-n "$live_workers" --dist loadfile --no-loadscope-reorder)
[ "$live_workers" -gt 1 ] && [ "$omp_before" = unset ] && export OMP_NUM_THREADS=$(( $(nproc) / live_workers > 1 ? $(nproc) / live_workers : 1 ))
tier live "${live_parallel[@]}" -m "live and not vllm and not alone" "$@"
[ "$omp_before" = unset ] && unset OMP_NUM_THREADS
# Then those that measure latency or flood their app (marked `alone`: load, floods, a first token's
# time), in one process with nothing beside them: their bounds measure the app, not a neighbour.
tier live-alone -m "live and alone and not vllm" "$@"

wait "$mypy_pid" || lint=1
cat artifacts/mypy.log
phase_done "mypy's wait"
python scripts/slowest_tests.py --top 25 artifacts/junit-*.xml
# The app processes the live tiers started: each costs about 10 CPU seconds before it serves.
python scripts/app_starts.py --top 10
# This run's file times, for the next runs' order: copy artifacts/durations.json to tests/durations.json
# when the order should follow (the tier's wall time against what other orders would have given).
python scripts/file_durations.py --out artifacts/durations.json artifacts/junit-*.xml
[ "$workers" -gt 0 ] && python scripts/file_durations.py --predict "$workers" artifacts/junit-unit.xml
[ "$live_workers" -gt 0 ] && python scripts/file_durations.py --predict "$live_workers" artifacts/junit-live.xml
[ "$status" -eq 0 ] && [ "$doctests" -ne 0 ] && status=$doctests
[ "$status" -eq 0 ] && [ "$lint" -ne 0 ] && status=$lint
set -e
for stop in "${ARENA_SERVICE_STOPS[@]:-}"; do [ -n "$stop" ] && eval "$stop" || true; done
echo "time by phase (the run: $(( $(date +%s) - run_started )) s):"
printf '%s\n' "${phases[@]}"
exit $status
