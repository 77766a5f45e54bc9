#!/usr/bin/env bash
# Install what is needed, then start the app on the embedded model (or ARENA_MODEL).
# Extra arguments go to app.py, e.g.: bash scripts/start.sh --port 7861
set -euo pipefail
cd "$(dirname "$0")/.."
# `--engine llamacpp` among the app's flags builds llama.cpp's library too, as ARENA_ENGINE=llamacpp does.
case " $* " in
  *" --engine llamacpp "* | *" --engine=llamacpp "*) bash scripts/setup.sh --llamacpp ;;
  *) bash scripts/setup.sh ;;
esac
. .venv/bin/activate
exec python app.py "$@"
