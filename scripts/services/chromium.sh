# Sourced by scripts/test.sh: makes Debian's Chromium available to the browser tests (tests/e2e/).
# Playwright's own browser download cannot be used here, so the tests drive /usr/bin/chromium.
# Exports ARENA_CHROMIUM when a browser is available; without it the browser tests skip and say why.
_arena_chromium="${ARENA_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$_arena_chromium" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "chromium.sh: installing Debian's chromium for the browser tests" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium.sh: $_arena_chromium is missing and this is not root; the browser tests will be skipped (install it with: sudo apt-get install chromium)" >&2
  fi
fi
if [ -x "$_arena_chromium" ]; then
  export ARENA_CHROMIUM="$_arena_chromium"
else
  unset ARENA_CHROMIUM
fi
unset _arena_chromium
