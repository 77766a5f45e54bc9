#!/usr/bin/env bash
# Install what is needed, then start the app on the embedded model (or ARENA_MODEL).
# Extra arguments go to app.py, e.g.: bash scripts/start.sh --port 7861
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
exec python app.py "$@"
