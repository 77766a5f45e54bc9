# Sourced by scripts/test.sh: makes Debian's Chromium available to the browser tests (tests/e2e/).
# Playwright's own browser download cannot be used here, so the tests drive Debian's build: its
# headless shell (chromium-headless-shell, the one Playwright itself runs headless), which took
# 8-12% less CPU than the full browser for the same browser test here (docs/testing.md), else
# /usr/bin/chromium. Exports ARENA_CHROMIUM when a browser is available; without it the browser
# tests skip and say why.
# fonts-wqy-zenhei gives the headless browser Chinese glyphs, so screenshots of the zh scenarios
# show text rather than empty boxes.
_arena_chromium="${ARENA_CHROMIUM:-/usr/bin/chromium-headless-shell}"
_arena_need=()
[ -x "$_arena_chromium" ] || [ -n "${ARENA_CHROMIUM:-}" ] || _arena_need+=(chromium-headless-shell)
[ -e /usr/share/fonts/truetype/wqy/wqy-zenhei.ttc ] || _arena_need+=(fonts-wqy-zenhei)
if [ "${#_arena_need[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "chromium.sh: installing ${_arena_need[*]} for the browser tests" >&2
    # Never fails the run (test.sh has set -e): without a browser the browser tests skip and say why.
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${_arena_need[@]}" >/dev/null; } \
      || echo "chromium.sh: could not install ${_arena_need[*]}" >&2
  else
    echo "chromium.sh: missing ${_arena_need[*]} and not root; browser tests skip without chromium (sudo apt-get install chromium)" >&2
  fi
fi
# Where the shell could not be installed (or a machine has only the full browser), the full browser.
[ -x "$_arena_chromium" ] || [ -n "${ARENA_CHROMIUM:-}" ] || _arena_chromium=/usr/bin/chromium
if [ -x "$_arena_chromium" ]; then
  export ARENA_CHROMIUM="$_arena_chromium"
else
  unset ARENA_CHROMIUM
fi
unset _arena_chromium _arena_need
