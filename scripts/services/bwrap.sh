# Sourced by scripts/test.sh: makes Debian's bubblewrap available to the code task's sandbox
# (evaluation/tasks/sandbox.py), which runs a model's code with no network, a read-only view of
# /usr and time and memory limits. As root it installs the package with apt-get (setpriv and
# prlimit come with util-linux). Never fails the run: without bubblewrap, or where the kernel refuses
# the namespaces it needs, the sandbox refuses to run code and the tests that need it skip and say why.
if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "bwrap.sh: installing bubblewrap for the code task's sandbox" >&2
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; } \
      || echo "bwrap.sh: could not install bubblewrap; generated code will not be run" >&2
  else
    echo "bwrap.sh: bubblewrap missing and not root (sudo apt-get install bubblewrap); generated code will not be run" >&2
  fi
fi
if command -v bwrap >/dev/null 2>&1 && ! bwrap --unshare-user --unshare-net --ro-bind /usr /usr --symlink usr/bin /bin \
    --symlink usr/lib /lib --symlink usr/lib64 /lib64 true 2>/dev/null; then
  echo "bwrap.sh: bwrap cannot create its namespaces here (user namespaces disabled?); the sandbox will refuse" >&2
fi
