#!/usr/bin/env bash
# llama-cpp-python for the llama.cpp engine (ARENA_ENGINE=llamacpp, docs/engines.md), into the active venv.
# Usage (scripts/setup.sh runs it): bash scripts/llamacpp.sh [--build]
#
# PyPI has llama-cpp-python as source only, so it is compiled here, once, as a library (no server,
# examples, tests, tools, multimodal, curl): about 8-10 minutes on 2 cores. GGML_NATIVE=ON
# (llama.cpp's default, -march=native): the wheel runs on the machine that built it, and native
# code uses what this CPU has (AVX2, AVX-512, VNNI...). The wheel is cached under
# ${ARENA_CACHE_DIR:-~/.cache/decoding-arena}/wheels/, in a folder named by this CPU's flags, the
# compiler and the build options, so a second setup installs it in seconds, and a cache copied to
# another CPU builds afresh instead of crashing on an instruction that CPU lacks.
# Without --build, a cached wheel is installed and nothing is compiled. pip's own wheel cache is not
# used for the build (--no-cache-dir): it keys a built wheel by the source alone, not by CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.3.36
CMAKE_ARGS="-DGGML_NATIVE=ON -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF"
CMAKE_ARGS+=" -DLLAMA_BUILD_TOOLS=OFF -DLLAVA_BUILD=OFF -DLLAMA_CURL=OFF"
# On a CPU with AMX (Intel Sapphire Rapids and later), -march=native compiles ggml's AMX matmul, and on
# such a host here its first decode of the embedded Q4_1 model died in ggml_backend_amx_mul_mat
# (SIGSEGV, the whole process with it). The AVX-512/VNNI kernels stay; only the AMX tiles are left out.
NATIVE_OFF=""
if grep -qw amx_tile /proc/cpuinfo 2>/dev/null; then
  NATIVE_OFF="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
fi
key=$(CMAKE_ARGS="$CMAKE_ARGS${NATIVE_OFF:+ $NATIVE_OFF}" python - "$VERSION" <<'PY'
import hashlib, os, platform, subprocess, sys
try:
    flags = next(l for l in open("/proc/cpuinfo") if l.startswith(("flags", "Features")))
except (OSError, StopIteration):
    flags = platform.machine() + platform.processor()
try:
    cc = subprocess.run(["cc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
except (OSError, IndexError):
    cc = "no cc"
print(hashlib.sha256("|".join([sys.argv[1], os.environ["CMAKE_ARGS"], flags, cc]).encode()).hexdigest()[:12])
PY
)
# The build key is kept beside the venv's packages: a venv with another build of the same version (one
# made before a change of options, e.g. with AMX) gets this one, not "installed already".
marker="$(python -c 'import sys; print(sys.prefix)')/llama-cpp-python.key"
if python -c "import llama_cpp, sys; sys.exit(llama_cpp.__version__ != '$VERSION')" 2>/dev/null &&
  [ "$(cat "$marker" 2>/dev/null)" = "$key" ]; then
  exit 0  # installed already
fi
dir="${ARENA_CACHE_DIR:-$HOME/.cache/decoding-arena}"
dir="${dir/#\~/$HOME}/wheels/llama-cpp-python-$VERSION-$key"
wheel=$(ls "$dir"/llama_cpp_python-"$VERSION"-*.whl 2>/dev/null | head -1 || true)
if [ -z "$wheel" ]; then
  [ "${1:-}" = "--build" ] || exit 0
  echo "building llama-cpp-python $VERSION for this CPU, once (library only; about 8-10 minutes on 2 cores)..." >&2
  tmp=$(mktemp -d)
  if ! CMAKE_ARGS="$CMAKE_ARGS" CFLAGS="${CFLAGS:-} $NATIVE_OFF" CXXFLAGS="${CXXFLAGS:-} $NATIVE_OFF" \
    CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}" \
    nice -n 10 python -m pip wheel -q --no-cache-dir --no-deps --no-binary llama-cpp-python "llama-cpp-python==$VERSION" -w "$tmp"; then
    echo "error: building llama-cpp-python failed (it needs a C/C++ compiler and CMake >= 3.21, or pip's cmake)" >&2
    exit 1
  fi
  mkdir -p "$dir"
  mv "$tmp"/llama_cpp_python-*.whl "$dir"/
  rm -rf "$tmp"
  wheel=$(ls "$dir"/llama_cpp_python-"$VERSION"-*.whl | head -1)
fi
# Its dependencies (numpy, jinja2, typing-extensions) come with the app's requirements already; diskcache
# is the one it adds, pinned.
python -m pip install -q diskcache==5.6.3
python -m pip install -q --force-reinstall --no-deps "$wheel"
echo "$key" >"$marker"
