#!/usr/bin/env bash
# Install what the tests need (Python packages, and as root the Debian packages for the database
# and browser tests), start the services they use, then run the whole suite.
# Extra arguments go to pytest, e.g.: bash scripts/test.sh -k store
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
. .venv/bin/activate
mkdir -p artifacts
# Each file in scripts/services/ installs and starts one service and exports what tests need.
for service in scripts/services/*.sh; do
  [ -e "$service" ] || continue
  # shellcheck disable=SC1090
  . "$service"
done
set +e
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
