#!/usr/bin/env bash
# Install what the tests need (Python packages, and as root the Debian packages for the database
# and browser tests), start the services they use, then run the whole suite.
# Extra arguments go to pytest, e.g.: bash scripts/test.sh -k store
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev --no-llamacpp-build
. .venv/bin/activate
mkdir -p artifacts
# llama.cpp's library compiles (8-10 minutes once, cached after) while the services install and start:
# those mostly wait on downloads. Its tests fail, not skip, if it could not be built.
bash scripts/llamacpp.sh --build >artifacts/llamacpp-build.log 2>&1 &
llamacpp_build=$!
# Each file in scripts/services/ installs and starts one service and exports what tests need.
for service in scripts/services/*.sh; do
  [ -e "$service" ] || continue
  # shellcheck disable=SC1090
  . "$service"
done
set +e
wait "$llamacpp_build" || { echo "llama-cpp-python could not be built (artifacts/llamacpp-build.log):" >&2; tail -20 artifacts/llamacpp-build.log >&2; }
# Static checks first; a finding fails the run after the tests (pyproject.toml configures all three).
lint=0
python -m ruff check . || lint=1
python -m ruff format --check . || lint=1
python -m mypy || lint=1
# The docstring examples in decoders/ run as tests, in a run of their own: --doctest-modules imports
# every .py file under the paths it is given, and tests/support/zerogpu_emulation.py must never be imported
# in-process (it patches torch globally).
python -m pytest -q --doctest-modules decoders
doctests=$?
python -m pytest "$@"
status=$?
[ "$status" -eq 0 ] && [ "$doctests" -ne 0 ] && status=$doctests
[ "$status" -eq 0 ] && [ "$lint" -ne 0 ] && status=$lint
set -e
for stop in "${ARENA_SERVICE_STOPS[@]:-}"; do [ -n "$stop" ] && eval "$stop" || true; done
exit $status
